-- MultiPIT judging campaigns (issue #5): settings, sentence pairs (some of them hidden test
-- pairs with a gold label), leased assignments, judgments, and each worker's standing.

create table judge_settings (
    campaign_id              uuid primary key references campaign (campaign_id) on delete cascade,
    -- loose: the crowd's definition (extra relevant information allowed);
    -- strict: the experts' (no extra information that needs fact-checking).
    definition               text not null default 'loose' check (definition in ('loose', 'strict')),
    judgments_per_pair       integer not null default 6 check (judgments_per_pair between 1 and 50),
    -- One hidden test pair in every `test_every` served pairs (0 = no test pairs).
    test_every               integer not null default 5 check (test_every = 0 or test_every between 2 and 100),
    min_test_accuracy        double precision not null default 0.85 check (min_test_accuracy between 0 and 1),
    min_kappa                double precision not null default 0.2 check (min_kappa between -1 and 1),
    -- The gate applies once a worker has this many judgments.
    gate_min_judgments       integer not null default 30 check (gate_min_judgments >= 1),
    -- Labels: paraphrase at >= paraphrase_min_votes, not at <= non_paraphrase_max_votes,
    -- unresolved between (6 judgments: >= 4, <= 2, 3 unresolved, as MultiPIT).
    paraphrase_min_votes     integer not null default 4,
    non_paraphrase_max_votes integer not null default 2,
    lease_seconds            integer not null default 900 check (lease_seconds between 30 and 86400),
    check (non_paraphrase_max_votes < paraphrase_min_votes),
    check (paraphrase_min_votes <= judgments_per_pair and non_paraphrase_max_votes >= 0)
);

create table judge_pair (
    pair_id          uuid primary key default gen_random_uuid(),
    campaign_id      uuid not null references campaign (campaign_id) on delete cascade,
    sentence1        text not null check (length(sentence1) between 1 and 2000),
    sentence2        text not null check (length(sentence2) between 1 and 2000),
    group_key        text,
    external_id      text,
    -- A test pair is served to every worker once, in place of one pair in each block, and
    -- graded against its gold label; gold labels and explanations never leave the server
    -- except in the feedback on a missed test pair.
    is_test          boolean not null default false,
    gold_label       boolean,
    gold_explanation text,
    -- Free judgment slots: judgments_per_pair minus trusted judgments minus live leases.
    -- The check constraint is what makes over-assignment impossible under any concurrency.
    open_slots       integer not null check (open_slots >= 0),
    -- Trusted judgments so far, and how many of them say "paraphrase".
    n_judgments      integer not null default 0 check (n_judgments >= 0),
    n_paraphrase     integer not null default 0 check (n_paraphrase >= 0),
    sort_key         double precision not null default random(),
    created_at       timestamptz not null default now(),
    constraint judge_pair_campaign_sentences_key unique (campaign_id, sentence1, sentence2),
    check (not is_test or gold_label is not null)
);
-- Serving scans only pairs that can still take a judgment, in a random but fixed order.
create index judge_pair_serving_idx on judge_pair (campaign_id, sort_key)
    where open_slots > 0 and not is_test;
create index judge_pair_test_idx on judge_pair (campaign_id, sort_key) where is_test;

-- A worker's standing in one judging campaign; its row is locked while they are served.
create table judge_worker (
    campaign_id        uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id        uuid not null references app_user (app_user_id) on delete cascade,
    status             text not null default 'active' check (status in ('active', 'stopped')),
    -- An admin reinstated this worker: the gate no longer stops them.
    gate_overridden    boolean not null default false,
    served_count       integer not null default 0,
    -- Position (0-based) of the test pair in the current block of test_every served pairs.
    test_position      integer not null default 0,
    created_at         timestamptz not null default now(),
    primary key (campaign_id, app_user_id)
);

-- Every status change with the numbers behind it (by the gate, or by an admin).
create table judge_worker_event (
    event_id       bigserial primary key,
    campaign_id    uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id    uuid not null references app_user (app_user_id) on delete cascade,
    status         text not null check (status in ('active', 'stopped')),
    reason         text not null,
    judgments      integer not null,
    tests_answered integer not null,
    test_accuracy  double precision,
    kappa          double precision,
    changed_by     uuid references app_user (app_user_id) on delete set null,
    created_at     timestamptz not null default now()
);
create index judge_worker_event_idx on judge_worker_event (campaign_id, app_user_id, created_at);

-- One pair served to one worker: never the same pair twice to a worker.
create table judge_assignment (
    assignment_id    uuid primary key default gen_random_uuid(),
    campaign_id      uuid not null references campaign (campaign_id) on delete cascade,
    pair_id          uuid not null references judge_pair (pair_id) on delete cascade,
    app_user_id      uuid not null references app_user (app_user_id) on delete cascade,
    is_test          boolean not null,
    served_at        timestamptz not null default now(),
    lease_expires_at timestamptz not null,
    status           text not null default 'leased' check (status in ('leased', 'judged', 'expired')),
    constraint judge_assignment_worker_pair_key unique (app_user_id, pair_id)
);
create unique index judge_assignment_one_leased_key on judge_assignment (campaign_id, app_user_id)
    where status = 'leased';
create index judge_assignment_expiry_idx on judge_assignment (campaign_id, lease_expires_at)
    where status = 'leased';

create table judge_judgment (
    judgment_id     uuid primary key default gen_random_uuid(),
    assignment_id   uuid not null unique references judge_assignment (assignment_id) on delete cascade,
    campaign_id     uuid not null references campaign (campaign_id) on delete cascade,
    pair_id         uuid not null references judge_pair (pair_id) on delete cascade,
    app_user_id     uuid not null references app_user (app_user_id) on delete cascade,
    is_paraphrase   boolean not null,
    is_test         boolean not null,
    -- For test pairs: whether the answer matched the gold label.
    is_correct      boolean,
    seconds         double precision not null check (seconds >= 0),
    trusted         boolean not null default true,
    created_at      timestamptz not null default now(),
    constraint judge_judgment_worker_pair_key unique (app_user_id, pair_id)
);
create index judge_judgment_campaign_idx on judge_judgment (campaign_id, created_at);
create index judge_judgment_pair_idx on judge_judgment (pair_id);
create index judge_judgment_worker_idx on judge_judgment (campaign_id, app_user_id);
