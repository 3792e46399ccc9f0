-- APT writing campaigns (issue #4): settings, source sentences, what each worker was shown,
-- every Check (the AP_H rows), and paid submissions.
alter table campaign
    add column instructions     text not null default '',
    add column budget_cap_cents integer not null default 2000 check (budget_cap_cents > 0),
    add column bleurt_threshold double precision not null default 0.5
        check (bleurt_threshold between -10 and 10);

create table source_sentence (
    source_sentence_id uuid primary key default gen_random_uuid(),
    campaign_id        uuid not null references campaign (campaign_id) on delete cascade,
    text               text not null check (length(text) between 1 and 1000),
    origin             text not null check (length(origin) between 1 and 50),
    external_id        text,
    created_at         timestamptz not null default now(),
    constraint source_sentence_campaign_text_key unique (campaign_id, text)
);
create index source_sentence_campaign_origin_idx on source_sentence (campaign_id, origin);

-- A worker's standing in one APT campaign; its row is locked while a submission is paid.
create table apt_worker (
    campaign_id     uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id     uuid not null references app_user (app_user_id) on delete cascade,
    earned_cents    integer not null default 0 check (earned_cents >= 0),
    completed_at    timestamptz,
    completion_code text,
    created_at      timestamptz not null default now(),
    primary key (campaign_id, app_user_id)
);

-- Every source shown to a worker: never the same one twice; at most one active at a time.
create table apt_assignment (
    campaign_id        uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id        uuid not null references app_user (app_user_id) on delete cascade,
    source_sentence_id uuid not null references source_sentence (source_sentence_id) on delete cascade,
    shown_at           timestamptz not null default now(),
    status             text not null default 'active' check (status in ('active', 'submitted', 'skipped')),
    primary key (app_user_id, source_sentence_id)
);
create unique index apt_assignment_one_active_key on apt_assignment (campaign_id, app_user_id)
    where status = 'active';

create table apt_attempt (
    apt_attempt_id        uuid primary key default gen_random_uuid(),
    campaign_id           uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id           uuid not null references app_user (app_user_id) on delete cascade,
    source_sentence_id    uuid not null references source_sentence (source_sentence_id) on delete cascade,
    text                  text not null,
    labels                text[] not null,
    forward_probs         real[] not null,
    backward_probs        real[] not null,
    is_mutual_implication boolean not null,
    bleurt_forward        real not null,
    bleurt_backward       real not null,
    bleurt                real not null,
    reward_cents          integer not null check (reward_cents >= 0),
    mi_model              text not null,
    bleurt_model          text not null,
    scoring_ms            double precision not null,
    seconds_since_shown   double precision not null,
    created_at            timestamptz not null default now()
);
create index apt_attempt_campaign_idx on apt_attempt (campaign_id, created_at);
create index apt_attempt_worker_idx on apt_attempt (app_user_id, source_sentence_id);

create table apt_submission (
    apt_submission_id  uuid primary key default gen_random_uuid(),
    campaign_id        uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id        uuid not null references app_user (app_user_id) on delete cascade,
    source_sentence_id uuid not null references source_sentence (source_sentence_id) on delete cascade,
    apt_attempt_id     uuid not null references apt_attempt (apt_attempt_id) on delete cascade,
    reward_cents       integer not null check (reward_cents >= 0),
    paid_cents         integer not null check (paid_cents >= 0),
    created_at         timestamptz not null default now(),
    constraint apt_submission_worker_source_key unique (app_user_id, source_sentence_id)
);
create index apt_submission_campaign_idx on apt_submission (campaign_id);
