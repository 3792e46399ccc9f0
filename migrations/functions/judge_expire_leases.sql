-- Ends the leases that ran out in a campaign and gives their slots back; returns how many.
create or replace function judge_expire_leases(p_campaign uuid) returns int8
language plpgsql as $$
declare
    v_n int8;
begin
    with expired as (
        update judge_assignment set status = 'expired'
        where campaign_id = p_campaign and status = 'leased' and lease_expires_at < now()
        returning pair_id, is_test),
    freed as (
        update judge_pair p set open_slots = p.open_slots + e.n
        from (select pair_id, count(*)::int as n from expired where not is_test
              group by pair_id) e
        where p.pair_id = e.pair_id)
    select count(*) into v_n from expired;
    return v_n;
end $$;
