-- Chooses, and locks, a test pair p_user has not seen, the way `judge_choose_ordinary` chooses
-- an ordinary one: drawn at random (p_key) among those in the window of the test pairs that most
-- need serving, the first by (round, `sort_key`), where a test pair's round goes up after every
-- p_per_pair servings, the window's size `judge_test_window` of the pool. When the worker has
-- seen all of the window, or others hold it this moment, the first unseen test pair after it.
-- A test pair served as often as the campaign's exposure cap (`test_exposure_cap`, none when
-- null) is served no more: the row is checked again when it is locked, so two leases at once
-- cannot pass the cap. Null when there is none (the slot then takes an ordinary pair).
-- needs: judge_test_window
create or replace function judge_choose_test(
    p_campaign uuid, p_user uuid, p_key int8, p_test_max int4, p_per_pair int4)
returns uuid
language plpgsql as $$
declare
    chosen uuid;
    cap int4;
begin
    select coalesce(s.test_exposure_cap, 2147483647) into cap
    from judge_settings s where s.campaign_id = p_campaign;
    with drawn as (
        select p.pair_id from judge_pair p
        where p.pair_id = any(array(
                select w.pair_id from judge_pair w
                where w.campaign_id = p_campaign and w.is_test and w.test_served < cap
                order by w.test_served / p_per_pair, w.sort_key
                limit (select judge_test_window(count(*), p_test_max)
                       from judge_pair t where t.campaign_id = p_campaign and t.is_test)))
          and p.test_served < cap
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by hashfloat8extended(p.sort_key, p_key), p.pair_id limit 1
        for no key update of p skip locked),
    next_unseen as (
        select p.pair_id from judge_pair p
        where p.campaign_id = p_campaign and p.is_test and p.test_served < cap
          and not exists (select 1 from judge_assignment a
                          where a.app_user_id = p_user and a.pair_id = p.pair_id)
        order by p.test_served / p_per_pair, p.sort_key limit 1
        for no key update skip locked)
    select pair_id into chosen
    from (select pair_id from drawn union all select pair_id from next_unseen) c limit 1;
    return chosen;
end $$;
