-- Issue #22 item 11: after the miner's pass the candidates are written, which takes seconds on
-- a large run; the run said "running 100%" meanwhile. saving_total is set when writing starts
-- (the candidates to write) and saved counts those written so far, so pages can say "saving
-- candidates" with a progress of its own.
alter table mining_run
    add column saving_total bigint,
    add column saved bigint not null default 0;
