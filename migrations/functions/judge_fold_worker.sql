-- Brings a worker's row up to date, in one statement: p_judgments .. p_l3d added to their own
-- gate counts (an answer's; p_l2a .. p_l3d are the agreements and disagreements with a
-- majority 2 and 3 or more votes ahead), the changes the answer makes to other workers' tables
-- recorded (p_users, p_cpp .. p_c3d, parallel arrays; `judge_gate_change`), the changes others recorded
-- for this worker folded in, and, when p_new_position is not null, the block's test position
-- set. With a pair p_pair (chosen and locked by the caller), the same statement leases it: its
-- slot taken (an ordinary pair) or its serving counted (a test pair, p_pair_is_test), the
-- assignment inserted for p_lease_seconds, and the serving counted on the worker. The caller
-- holds the worker's row. Returns their counts after it and the pair leased (null columns when
-- none); every column null when the worker has no row.
create or replace function judge_fold_worker(
    p_campaign uuid, p_user uuid, p_pair uuid, p_pair_is_test bool, p_lease_seconds float8,
    p_new_position int4,
    p_judgments int4, p_tests_answered int4, p_tests_correct int4,
    p_pp int4, p_pn int4, p_np int4, p_nn int4,
    p_l2a int4, p_l2d int4, p_l3a int4, p_l3d int4,
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[],
    p_c2a int4[], p_c2d int4[], p_c3a int4[], p_c3d int4[])
returns judge_leased
language plpgsql as $$
declare
    r judge_leased;
begin
    with taken as (
        update judge_pair p
        set open_slots = p.open_slots - (not p_pair_is_test)::int,
            test_served = p.test_served + p_pair_is_test::int
        where p.pair_id = p_pair
        returning p.pair_id, p.sentence1, p.sentence2),
    a as (
        insert into judge_assignment (campaign_id, pair_id, app_user_id, is_test,
            lease_expires_at)
        select p_campaign, pair_id, p_user, p_pair_is_test,
               now() + make_interval(secs => p_lease_seconds)
        from taken
        returning assignment_id, pair_id),
    leased as (
        select a.assignment_id, t.sentence1, t.sentence2 from a join taken t using (pair_id)),
    recorded as (
        insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn,
                                       lead2_agreed, lead2_disagreed, lead3_agreed,
                                       lead3_disagreed)
        select p_campaign, *
        from unnest(p_users, p_cpp, p_cpn, p_cnp, p_cnn, p_c2a, p_c2d, p_c3a, p_c3d)),
    pending as (
        delete from judge_gate_change where campaign_id = p_campaign and app_user_id = p_user
        returning pp, pn, np, nn, lead2_agreed, lead2_disagreed, lead3_agreed, lead3_disagreed),
    total as (
        select coalesce(sum(pp), 0)::int as pp, coalesce(sum(pn), 0)::int as pn,
               coalesce(sum(np), 0)::int as np, coalesce(sum(nn), 0)::int as nn,
               coalesce(sum(lead2_agreed), 0)::int as l2a,
               coalesce(sum(lead2_disagreed), 0)::int as l2d,
               coalesce(sum(lead3_agreed), 0)::int as l3a,
               coalesce(sum(lead3_disagreed), 0)::int as l3d
        from pending),
    worker as (
        update judge_worker w
        set served_count = w.served_count + (select count(*) from a)::int,
            test_position = coalesce(p_new_position, w.test_position),
            judgments = w.judgments + p_judgments,
            tests_answered = w.tests_answered + p_tests_answered,
            tests_correct = w.tests_correct + p_tests_correct,
            kappa_pp = w.kappa_pp + p_pp + g.pp, kappa_pn = w.kappa_pn + p_pn + g.pn,
            kappa_np = w.kappa_np + p_np + g.np, kappa_nn = w.kappa_nn + p_nn + g.nn,
            lead2_agreed = w.lead2_agreed + p_l2a + g.l2a,
            lead2_disagreed = w.lead2_disagreed + p_l2d + g.l2d,
            lead3_agreed = w.lead3_agreed + p_l3a + g.l3a,
            lead3_disagreed = w.lead3_disagreed + p_l3d + g.l3d
        from total g
        where w.campaign_id = p_campaign and w.app_user_id = p_user
        returning w.judgments, w.tests_answered, w.tests_correct,
                  w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
                  w.lead2_agreed, w.lead2_disagreed, w.lead3_agreed, w.lead3_disagreed)
    select w.judgments, w.tests_answered, w.tests_correct,
           w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn,
           l.assignment_id, l.sentence1, l.sentence2,
           w.lead2_agreed, w.lead2_disagreed, w.lead3_agreed, w.lead3_disagreed
    into r
    from worker w left join leased l on true;
    return r;
end $$;
