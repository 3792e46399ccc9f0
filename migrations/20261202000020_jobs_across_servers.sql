-- Issue #24: work that outlives the server that started it, so several app servers can run on
-- one PostgreSQL behind a load balancer.

-- A mining run is claimed by one server (`claimed_by`, its instance id) with
-- `FOR UPDATE SKIP LOCKED`, which keeps `heartbeat_at` fresh while it works and reads
-- `cancel_requested` with each progress write, so a cancel sent to any server stops it. A run
-- whose heartbeat is older than the job timeout belonged to a server that died: any live server
-- takes it over and runs it again from the start (its candidates are written in one transaction
-- with the run's end, so a dead server left none), at most `attempts` = 3 times; then it is
-- interrupted and waits for a restart. A run whose server still beats is never touched.
alter table mining_run
    add column claimed_by       text,
    add column heartbeat_at     timestamptz,
    add column cancel_requested boolean not null default false,
    add column attempts         integer not null default 0;
create index mining_run_live_idx on mining_run (created_at) where status in ('queued', 'running');

-- The group follow-up a judgment may make due (MultiPIT §2.3), written in the judgment's own
-- transaction, so a server that dies after the commit cannot lose it. Any server running jobs
-- claims due rows (`FOR UPDATE SKIP LOCKED`, pushing `due_at` on by a lease), does the check
-- (which records its decision once, so a repeat is harmless) and deletes the row.
create table follow_up_outbox (
    campaign_id uuid not null references campaign (campaign_id) on delete cascade,
    pair_id     uuid not null references judge_pair (pair_id) on delete cascade,
    due_at      timestamptz not null default now(),
    attempts    integer not null default 0,
    primary key (campaign_id, pair_id)
);
create index follow_up_outbox_due_idx on follow_up_outbox (due_at);

-- The researcher's dashboard statistics of a judging campaign (2 s for 750,000 judgments),
-- shared by every server: one row per campaign, with what it was computed over (its
-- fingerprint). A load that finds the fingerprint moved serves the row marked stale, and the
-- one server that sets `refreshing_until` computes the new one; every server then serves it
-- with the same "computed at".
create table judge_dashboard (
    campaign_id      uuid primary key references campaign (campaign_id) on delete cascade,
    judgments        bigint not null,
    paraphrase_votes bigint not null,
    workers          integer not null,
    statistics       jsonb not null,
    computed_at      timestamptz not null,
    refreshing_until timestamptz
);
