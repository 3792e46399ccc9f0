-- Chooses, and locks, an ordinary pair with a free slot that p_user has not seen: drawn at
-- random (p_key) among those they have not seen in the window of the pairs that most need
-- judgments, the first ones with a free slot by `sort_key`, the same window for every worker at
-- a time (`judge_ordinary_window`; `domain::judge::schedule::ServingWindows` says why).
-- Rows another request holds are skipped, not waited for; when the worker has seen the rest of
-- the window, or others hold it, the first free pair after it. Null when there is none.
-- needs: judge_ordinary_window
create or replace function judge_choose_ordinary(
    p_campaign uuid, p_user uuid, p_key int8, p_per_test int4, p_test_max int4)
returns uuid
language plpgsql as $$
declare
    chosen uuid;
begin
    with drawn as (
        -- The window's ids as an array (`= any`), not a join: the planner cannot know the
        -- window's size and, joining, hashed the whole table (9 ms a lease). `slots_full`
        -- again: a row updated since the window was read (its last slot taken, or its label
        -- settled) is checked again when it is locked.
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and not w.slots_full and not w.is_test
                order by w.sort_key
                -- The count as the call's argument, not a subquery passed in: the planner
                -- inlines the window's arithmetic only then (else it is planned again on
                -- every call).
                limit (select judge_ordinary_window(count(*), p_per_test, p_test_max)
                       from judge_pair t where t.campaign_id = p_campaign and t.is_test)))
          and not p.slots_full
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for no key update of p skip locked),
    next_free as (
        -- A WITH query runs only as far as it is read, so this one runs (and locks) only when
        -- `drawn` has no row.
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and not p.slots_full and p.open_slots > 0
          and not p.is_test
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.sort_key limit 1
        for no key update skip locked)
    select pair_id into chosen
    from (select pair_id from drawn union all select pair_id from next_free) c limit 1;
    return chosen;
end $$;
