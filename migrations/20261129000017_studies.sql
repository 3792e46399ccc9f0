-- Issue #23: studies run through crowd platforms. A campaign has recruitment links, each for one
-- platform; a worker who opens one is signed in with an account keyed by (platform, their id on
-- it), with no password. Before the first item they read the study's information and, where the
-- researcher wrote one, agree to its consent text; both are versioned per campaign and each
-- worker's decision is kept with the version and the time.

-- The worker's account on a platform. One external id is one account; the same person coming
-- from two platforms is two accounts. The account's password_hash holds '!study-link', which no
-- password matches (`auth::NO_PASSWORD`).
create table platform_account (
    platform    text not null check (platform in ('prolific', 'mturk', 'generic')),
    external_id text not null check (external_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    app_user_id uuid not null unique references app_user (app_user_id) on delete cascade,
    created_at  timestamptz not null default now(),
    primary key (platform, external_id)
);

-- A recruitment link: /s/SLUG plus the platform's parameters. `workers` counts the distinct
-- workers who arrived through it, against `max_workers`; the count and the arrival are written
-- in one statement-ordered transaction, so the limit holds under concurrent arrivals.
create table study_link (
    study_link_id uuid primary key default gen_random_uuid(),
    campaign_id   uuid not null references campaign (campaign_id) on delete cascade,
    platform      text not null check (platform in ('prolific', 'mturk', 'generic')),
    slug          text not null unique check (slug ~ '^[A-Za-z0-9_-]{16,64}$'),
    label         text not null default '' check (length(label) <= 200),
    max_workers   integer check (max_workers > 0),
    expires_at    timestamptz,
    paused        boolean not null default false,
    workers       integer not null default 0 check (workers >= 0),
    created_by    uuid references app_user (app_user_id) on delete set null,
    created_at    timestamptz not null default now(),
    check (max_workers is null or workers <= max_workers)
);
create index study_link_campaign_idx on study_link (campaign_id, created_at);

-- A worker's arrival in a campaign through a link (the first one counts; later visits update
-- last_seen_at and the platform's latest ids, e.g. a new MTurk assignment).
create table study_arrival (
    campaign_id   uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id   uuid not null references app_user (app_user_id) on delete cascade,
    study_link_id uuid not null references study_link (study_link_id) on delete cascade,
    detail        jsonb not null,
    arrived_at    timestamptz not null default now(),
    last_seen_at  timestamptz not null default now(),
    primary key (campaign_id, app_user_id)
);
create index study_arrival_link_idx on study_arrival (study_link_id);

-- What a worker reads before the first item. Each save is a new version; the latest applies.
-- An empty consent text means the study asks for none.
create table study_info (
    campaign_id     uuid not null references campaign (campaign_id) on delete cascade,
    version         integer not null check (version > 0),
    summary         text not null check (length(summary) <= 5000),
    minutes         integer check (minutes between 1 and 1440),
    pay             text not null default '' check (length(pay) <= 1000),
    consent_text    text not null default '' check (length(consent_text) <= 20000),
    completion_code text not null default '' check (completion_code ~ '^[A-Za-z0-9]{0,32}$'),
    created_by      uuid references app_user (app_user_id) on delete set null,
    created_at      timestamptz not null default now(),
    primary key (campaign_id, version)
);

-- Each agree or decline, with the version read (a new version asks again).
create table study_consent (
    campaign_id uuid not null,
    version     integer not null,
    app_user_id uuid not null references app_user (app_user_id) on delete cascade,
    agreed      boolean not null,
    decided_at  timestamptz not null default now(),
    primary key (campaign_id, version, app_user_id),
    foreign key (campaign_id, version) references study_info (campaign_id, version) on delete cascade
);
