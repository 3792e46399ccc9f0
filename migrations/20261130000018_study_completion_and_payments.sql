-- Issue #23: when a study worker is done, and what they are paid.

-- The completion rule and the pay, per version of the study information:
-- * complete_after: the worker is done after this many items (judgments, or submitted
--   sentences); empty: only the APT cap, the quality gate or running out of items ends it.
-- * base_pay_cents: the platform's fixed reward for a completed study (paid by the platform on
--   approval, not in the bonus files; counted in the hourly rate).
-- * judgment_pay_mills: the bonus per judgment, in thousandths of a dollar (a judging study may
--   pay $0.015 a pair). The writing task's bonus is what its Submits paid.
-- * min_hourly_cents: the lowest hourly rate the study may pay (Prolific asks for one); the
--   payments page shows who is under it and can top them up.
alter table study_info
    add column complete_after     integer check (complete_after between 1 and 100000),
    add column base_pay_cents     integer not null default 0 check (base_pay_cents between 0 and 100000),
    add column judgment_pay_mills integer not null default 0 check (judgment_pay_mills between 0 and 100000),
    add column min_hourly_cents   integer check (min_hourly_cents between 1 and 100000);

-- A worker's completion of a study: written once (the first request that finds the rule met),
-- read back by every later one, so a reload or a second tab sends them back with the same code.
create table study_completion (
    campaign_id  uuid not null references campaign (campaign_id) on delete cascade,
    app_user_id  uuid not null references app_user (app_user_id) on delete cascade,
    reason       text not null check (reason in ('items', 'cap', 'stopped', 'nothing_left')),
    items        integer not null check (items >= 0),
    -- The code the worker was given: the study's, or one of their own when it has none.
    code         text not null check (code ~ '^[A-Za-z0-9]{1,32}$'),
    completed_at timestamptz not null default now(),
    primary key (campaign_id, app_user_id)
);

-- A batch of bonuses the researcher pays on the platform. Its id comes from the page that asked
-- for it, so the same request sent twice (a double click, a retry) makes one batch; its items
-- are what each worker was owed and not yet in another batch at that moment.
create table payment_batch (
    batch_id    uuid primary key,
    campaign_id uuid not null references campaign (campaign_id) on delete cascade,
    top_up      boolean not null,
    created_by  uuid references app_user (app_user_id) on delete set null,
    created_at  timestamptz not null default now(),
    -- Set once, when the researcher says the platform paid it.
    paid_at     timestamptz,
    paid_by     uuid references app_user (app_user_id) on delete set null
);
create index payment_batch_campaign_idx on payment_batch (campaign_id, created_at);

create table payment_item (
    batch_id     uuid not null references payment_batch (batch_id) on delete cascade,
    app_user_id  uuid not null references app_user (app_user_id) on delete cascade,
    amount_cents integer not null check (amount_cents > 0),
    primary key (batch_id, app_user_id)
);
create index payment_item_user_idx on payment_item (app_user_id);
