-- Accounts and roles (issue #2).
create table app_user (
    app_user_id   uuid primary key default gen_random_uuid(),
    username      text not null check (length(username) between 3 and 32),
    password_hash text not null,
    role          text not null default 'annotator'
                  check (role in ('annotator', 'researcher', 'admin')),
    status        text not null default 'active'
                  check (status in ('active', 'blocked')),
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now()
);

-- Usernames are unique regardless of case: "Ada" and "ada" are the same person.
create unique index app_user_username_lower_key on app_user (lower(username));

-- Studies: APT writing campaigns and MultiPIT judging campaigns. Their settings arrive with the
-- task issues; the home page lists open ones.
create table campaign (
    campaign_id uuid primary key default gen_random_uuid(),
    kind        text not null check (kind in ('apt', 'judge')),
    title       text not null check (length(title) between 1 and 200),
    status      text not null default 'draft' check (status in ('draft', 'open', 'closed')),
    created_by  uuid references app_user (app_user_id) on delete set null,
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now()
);
create index campaign_status_idx on campaign (status, created_at desc);
