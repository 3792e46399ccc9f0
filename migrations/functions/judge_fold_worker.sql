-- Brings a worker's gate counts up to date, in one statement: p_judgments .. p_nn added to
-- their own counts (an answer's), the changes the answer makes to other workers' tables recorded
-- (p_users, p_cpp .. p_cnn, parallel arrays; `judge_gate_change`), and the changes others
-- recorded for this worker folded in. Also counts p_served new servings and, when not null, sets
-- p_new_position as the block's test position. The caller holds the worker's row. Returns their
-- counts after it (the pair columns null); every column null when the worker has no row.
create or replace function judge_fold_worker(
    p_campaign uuid, p_user uuid, p_served int4, p_new_position int4,
    p_judgments int4, p_tests_answered int4, p_tests_correct int4,
    p_pp int4, p_pn int4, p_np int4, p_nn int4,
    p_users uuid[], p_cpp int4[], p_cpn int4[], p_cnp int4[], p_cnn int4[])
returns judge_leased
language plpgsql as $$
declare
    r judge_leased;
begin
    with recorded as (
        insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn)
        select p_campaign, * from unnest(p_users, p_cpp, p_cpn, p_cnp, p_cnn)),
    pending as (
        delete from judge_gate_change where campaign_id = p_campaign and app_user_id = p_user
        returning pp, pn, np, nn),
    total as (
        select coalesce(sum(pp), 0)::int as pp, coalesce(sum(pn), 0)::int as pn,
               coalesce(sum(np), 0)::int as np, coalesce(sum(nn), 0)::int as nn
        from pending)
    update judge_worker w
    set served_count = w.served_count + p_served,
        test_position = coalesce(p_new_position, w.test_position),
        judgments = w.judgments + p_judgments,
        tests_answered = w.tests_answered + p_tests_answered,
        tests_correct = w.tests_correct + p_tests_correct,
        kappa_pp = w.kappa_pp + p_pp + g.pp, kappa_pn = w.kappa_pn + p_pn + g.pn,
        kappa_np = w.kappa_np + p_np + g.np, kappa_nn = w.kappa_nn + p_nn + g.nn
    from total g
    where w.campaign_id = p_campaign and w.app_user_id = p_user
    returning w.judgments, w.tests_answered, w.tests_correct,
              w.kappa_pp, w.kappa_pn, w.kappa_np, w.kappa_nn
    into r.judgments, r.tests_answered, r.tests_correct,
         r.kappa_pp, r.kappa_pn, r.kappa_np, r.kappa_nn;
    return r;
end $$;
