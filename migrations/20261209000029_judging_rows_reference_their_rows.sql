-- The judging rows reference the rows they belong to again, with keys the database enforces: an
-- assignment its pair and its worker's row, a judgment its assignment, a recorded gate change its
-- worker's row. Deleting a campaign, a pair or an account takes them with it (`on delete
-- cascade`), whatever deletes it (TRUNCATE too, which fires no delete triggers), and a writer's
-- wrong id is refused instead of stored. The judging statements lock the rows these keys name
-- `for no key update`, which the keys' checks (`for key share`) do not wait for
-- (docs/architecture.md, "The judging tables").
--
-- For a while the keys were checked by nobody (the previous migration): rows left behind by a
-- delete that raced an answer in that time are removed first, as the keys would have removed
-- them.

drop trigger judge_worker_gone on judge_worker;
drop trigger judge_pair_gone on judge_pair;
drop trigger judge_assignment_gone on judge_assignment;
drop function judge_worker_gone();
drop function judge_pair_gone();
drop function judge_assignment_gone();

delete from judge_gate_change c
where not exists (select 1 from judge_worker w
                  where w.campaign_id = c.campaign_id and w.app_user_id = c.app_user_id);
delete from judge_assignment a
where not exists (select 1 from judge_worker w
                  where w.campaign_id = a.campaign_id and w.app_user_id = a.app_user_id)
   or not exists (select 1 from judge_pair p where p.pair_id = a.pair_id);
delete from judge_judgment j
where not exists (select 1 from judge_assignment a where a.assignment_id = j.assignment_id);

alter table judge_gate_change
    add constraint judge_gate_change_worker_fkey foreign key (campaign_id, app_user_id)
        references judge_worker (campaign_id, app_user_id) on delete cascade;
alter table judge_assignment
    add constraint judge_assignment_worker_fkey foreign key (campaign_id, app_user_id)
        references judge_worker (campaign_id, app_user_id) on delete cascade,
    add constraint judge_assignment_pair_id_fkey foreign key (pair_id)
        references judge_pair (pair_id) on delete cascade;
alter table judge_judgment
    add constraint judge_judgment_assignment_id_fkey foreign key (assignment_id)
        references judge_assignment (assignment_id) on delete cascade;

-- A pair's delete finds its assignments by this index (a worker's, by the unique index on
-- (app_user_id, pair_id)).
create index judge_assignment_pair_idx on judge_assignment (pair_id);

-- A lease is now chosen by `judge_choose_ordinary` or `judge_choose_test` and taken by
-- `judge_next_pair` (migrations/functions/).
drop function judge_lease_ordinary(uuid, uuid, float8, int8, int4, int4, int4, int4, int4, int4,
    int4, int4, int4, uuid[], int4[], int4[], int4[], int4[], int4);
drop function judge_lease_test(uuid, uuid, float8, int8, int4, int4, int4, int4, int4, int4, int4,
    int4, int4, uuid[], int4[], int4[], int4[], int4[], int4);
-- `judge_answer` takes the same arguments, one of them renamed: the new one (the next migration)
-- replaces it.
drop function judge_answer(uuid, uuid, uuid, text, bytea, bool, int8, float8, int4, int4, int4,
    int8, int4, int4, bool);
