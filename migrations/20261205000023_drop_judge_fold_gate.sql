-- The gate's fold goes back into the statements that fold (db/judge/gate.rs `fold_gate_counts`,
-- the lease statements in db/judge/lease.rs). As one PL/pgSQL function (the migration before
-- this one) it was written once, but the judging path was slower with it in each of four
-- saturated load benchmark runs taken in turns on one machine (by 1.5-11%; means 1,484
-- judgments/s without it and 1,407 with it, 5%). A profile put 12% of PostgreSQL's time inside
-- the function, mostly the fold's own work; a third of it was starting its two statements'
-- executors, which the lease statement's own CTEs do not pay separately.
drop function judge_fold_gate(uuid, uuid, int4[], uuid[], int4[], int4[], int4[], int4[], int4, int4);
