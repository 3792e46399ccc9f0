-- A Prolific study link connected to its study on Prolific, and every call paracrowd makes to a
-- platform that changes something there.

-- A link's platform, as a key a connection can reference (the link's id alone is already
-- unique; this lets a connection say which platform its link must be on).
alter table study_link add constraint study_link_id_platform_key unique (study_link_id, platform);

-- The Prolific study a Prolific link recruits for. The API token is not here: it comes from
-- the server's environment.
create table prolific_connection (
    study_link_id uuid primary key,
    platform      text not null default 'prolific' check (platform = 'prolific'),
    study_id      text not null check (study_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    updated_by    uuid references app_user (app_user_id) on delete set null,
    updated_at    timestamptz not null default now(),
    foreign key (study_link_id, platform) references study_link (study_link_id, platform)
        on delete cascade
);

-- A call that changes something on a platform, written before it is made (outcome null) and
-- answered after: `done` (the platform accepted it), `refused` (it answered with an error:
-- nothing changed) or `unknown` (no answer: it may or may not have happened; the next read of
-- the platform's state tells). Its id comes from the page that asked, so a double click or a
-- resent form makes one call.
create table platform_call (
    call_id       uuid primary key,
    study_link_id uuid not null references study_link (study_link_id) on delete cascade,
    action        text not null check (action in ('approve', 'reject')),
    targets       text[] not null check (cardinality(targets) between 1 and 100000),
    made_by       uuid references app_user (app_user_id) on delete set null,
    made_at       timestamptz not null default now(),
    outcome       text check (outcome in ('done', 'refused', 'unknown')),
    detail        text not null default '' check (length(detail) <= 2000),
    answered_at   timestamptz,
    check ((outcome is null) = (answered_at is null))
);
create index platform_call_link_idx on platform_call (study_link_id, made_at);

-- A bonus batch paid through Prolific's API. Prolific makes a bulk bonus first (its id, amount
-- and fees, paid by nobody yet), then pays it on a second call that is not idempotent: the
-- state moves created -> paying in one statement before that call, so two servers, two tabs or
-- a retry can never send it twice; after the call it is paid, back to created (Prolific refused
-- it: nothing was paid) or unknown (no answer: it may have paid). A bonus left paying or unknown
-- is never sent again by itself: the researcher says what Prolific shows.
create table prolific_bonus (
    batch_id       uuid primary key references payment_batch (batch_id) on delete cascade,
    study_link_id  uuid not null references study_link (study_link_id) on delete cascade,
    bonus_id       text not null check (bonus_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    amount_cents   integer not null check (amount_cents >= 0),
    fees_cents     integer not null check (fees_cents >= 0),
    total_cents    integer not null check (total_cents >= 0),
    state          text not null default 'created'
                   check (state in ('created', 'paying', 'paid', 'unknown')),
    detail         text not null default '' check (length(detail) <= 2000),
    created_at     timestamptz not null default now(),
    pay_started_at timestamptz,
    check (state = 'created' or pay_started_at is not null)
);
