-- The rows an answer writes no longer check their foreign keys (issue #20). An answer inserts a
-- judgment (its key: the assignment), the next assignment (its pair and the worker's account)
-- and the gate changes it makes to other workers' tables (each row: its campaign and account):
-- three to thirteen key checks an answer, each a query of its own run by a trigger, and each
-- taking a share lock on the row it names, one of them on the campaign's single row, which every
-- answer of the campaign locked. In a profile of the saturated load benchmark they were 4% of the
-- machine's time once the answer was one call.
--
-- What the keys did, the rows' writers already do: every one of these rows is written in the
-- statement that locks (or has just written) the rows it names, in the transaction that holds
-- the worker's row (`judge_answer`, `judge_lease_*`, `judge_record_judgment`), and no code
-- deletes a campaign, a pair or an account. What the keys did on a delete in SQL (their
-- `on delete cascade`), the triggers below do: a deleted campaign, pair or account takes these
-- rows with it, through the tables that still have their keys (a campaign's pairs and workers,
-- an account's workers).

alter table judge_gate_change
    drop constraint judge_gate_change_campaign_id_fkey,
    drop constraint judge_gate_change_app_user_id_fkey;
alter table judge_assignment
    drop constraint judge_assignment_pair_id_fkey,
    drop constraint judge_assignment_app_user_id_fkey;
alter table judge_judgment
    drop constraint judge_judgment_assignment_id_fkey;

-- A worker's row goes when their campaign or account does (its keys cascade): their gate
-- changes and assignments go with it.
create function judge_worker_gone() returns trigger
language plpgsql as $$
begin
    delete from judge_gate_change c using gone g
    where c.campaign_id = g.campaign_id and c.app_user_id = g.app_user_id;
    delete from judge_assignment a using gone g
    where a.campaign_id = g.campaign_id and a.app_user_id = g.app_user_id;
    return null;
end $$;
create trigger judge_worker_gone after delete on judge_worker
    referencing old table as gone for each statement execute function judge_worker_gone();

-- A pair goes when its campaign does (its key cascades): its assignments go with it.
create function judge_pair_gone() returns trigger
language plpgsql as $$
begin
    delete from judge_assignment a using gone g where a.pair_id = g.pair_id;
    return null;
end $$;
create trigger judge_pair_gone after delete on judge_pair
    referencing old table as gone for each statement execute function judge_pair_gone();

-- An assignment's judgment goes with it (an assignment given back unused has none).
create function judge_assignment_gone() returns trigger
language plpgsql as $$
begin
    delete from judge_judgment j using gone g where j.assignment_id = g.assignment_id;
    return null;
end $$;
create trigger judge_assignment_gone after delete on judge_assignment
    referencing old table as gone for each statement execute function judge_assignment_gone();
