-- Mining (issue #7, continued): MultiPIT's group selection and ParaSCI's embedding miner.

alter table mining_run drop constraint mining_run_method_check;
alter table mining_run add constraint mining_run_method_check
    check (method in ('l12', 'f2', 'group', 'embedding'));

-- The miner's own score (cosine similarity; a group seed's rank) and, for group selection,
-- the batch: 1 = first batch, 2 = follow-up reserve (deployed by the judged first batch).
alter table mining_candidate add column score double precision not null default 0;
alter table mining_candidate add column batch smallint not null default 0 check (batch in (0, 1, 2));

-- The candidate a judging pair was deployed from.
alter table judge_pair add column mining_candidate_id bigint
    references mining_candidate (candidate_id) on delete set null;
create index judge_pair_mining_candidate_idx on judge_pair (mining_candidate_id)
    where mining_candidate_id is not null;

-- A group's follow-up decision, taken once when its first batch is judged in a campaign.
create table mining_follow_up (
    campaign_id  uuid not null references campaign (campaign_id) on delete cascade,
    run_id       uuid not null references mining_run (run_id) on delete cascade,
    group_key    text not null,
    paraphrases  integer not null,
    pairs        integer not null,
    deployed     integer not null,
    created_at   timestamptz not null default now(),
    primary key (campaign_id, run_id, group_key)
);
