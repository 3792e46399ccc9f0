-- Rows of the judging tables that name a row that is not there, counted by table: zero while
-- the keys hold (migration `judging_rows_reference_their_rows`). For checks that must not take
-- that on trust: the load tool's verification and the integrity tests.
create or replace function judge_orphans()
returns table (table_name text, orphans int8)
language sql stable as $$
    select 'judge_gate_change', count(*) from judge_gate_change c
    where not exists (select 1 from judge_worker w
                      where w.campaign_id = c.campaign_id and w.app_user_id = c.app_user_id)
    union all
    select 'judge_assignment', count(*) from judge_assignment a
    where not exists (select 1 from judge_worker w
                      where w.campaign_id = a.campaign_id and w.app_user_id = a.app_user_id)
       or not exists (select 1 from judge_pair p where p.pair_id = a.pair_id)
    union all
    select 'judge_judgment', count(*) from judge_judgment j
    where not exists (select 1 from judge_assignment a where a.assignment_id = j.assignment_id)
    union all
    select 'judge_worker', count(*) from judge_worker w
    where not exists (select 1 from campaign c where c.campaign_id = w.campaign_id)
       or not exists (select 1 from app_user u where u.app_user_id = w.app_user_id)
$$;
