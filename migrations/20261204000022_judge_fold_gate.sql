-- The quality gate's fold (issue #20), written once for every statement that writes a worker's
-- gate counts (db/judge/gate.rs `fold_gate_counts`, and the lease statements in
-- db/judge/lease.rs, which fold in the same round trip as they lease).
--
-- It records the changes a judgment makes to other workers' tables, adds the worker's own new
-- counts (`own`: judgments, tests answered, tests correct, then the table's pp, pn, np, nn),
-- folds in and deletes the changes others recorded for this worker, counts `served` more
-- servings, sets a new block's test position when one is given, and returns the worker's row.
-- No row when the worker has none. The caller holds the worker's row lock.
--
-- PL/pgSQL, not SQL: its plans are kept for the connection, where a SQL function is planned at
-- every call. A statement that calls it sees none of its writes, and it sees the statement's own
-- (judge_assignment, judge_pair) only as later statements of the transaction would; it reads
-- neither.
create function judge_fold_gate(
    campaign uuid, worker uuid, own int4[],
    other_users uuid[], other_pp int4[], other_pn int4[], other_np int4[], other_nn int4[],
    served int4, new_test_position int4)
returns setof judge_worker
rows 1
language plpgsql
as $$
begin
    insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn)
    select campaign, * from unnest(other_users, other_pp, other_pn, other_np, other_nn);
    return query
    with pending as (
        delete from judge_gate_change c where c.campaign_id = campaign and c.app_user_id = worker
        returning c.pp, c.pn, c.np, c.nn),
    total as (
        select coalesce(sum(p.pp), 0)::int as pp, coalesce(sum(p.pn), 0)::int as pn,
               coalesce(sum(p.np), 0)::int as np, coalesce(sum(p.nn), 0)::int as nn
        from pending p)
    update judge_worker w
    set served_count = w.served_count + served,
        test_position = coalesce(new_test_position, w.test_position),
        judgments = w.judgments + own[1], tests_answered = w.tests_answered + own[2],
        tests_correct = w.tests_correct + own[3],
        kappa_pp = w.kappa_pp + own[4] + g.pp, kappa_pn = w.kappa_pn + own[5] + g.pn,
        kappa_np = w.kappa_np + own[6] + g.np, kappa_nn = w.kappa_nn + own[7] + g.nn
    from total g
    where w.campaign_id = campaign and w.app_user_id = worker
    returning w.*;
end
$$;
