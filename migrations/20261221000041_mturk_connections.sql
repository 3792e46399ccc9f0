-- An MTurk study link connected to its HITs, and the bonuses sent through MTurk's SendBonus.

-- The HITs an MTurk link's workers come from, in the sandbox or in production. The credentials
-- are not here: they come from the server's AWS credential chain.
create table mturk_connection (
    study_link_id uuid primary key,
    platform      text not null default 'mturk' check (platform = 'mturk'),
    hit_ids       text[] not null
                  check (cardinality(hit_ids) between 1 and 100
                         and array_to_string(hit_ids, ',', '') ~ '^[A-Za-z0-9_-]{1,64}(,[A-Za-z0-9_-]{1,64})*$'),
    sandbox       boolean not null,
    updated_by    uuid references app_user (app_user_id) on delete set null,
    updated_at    timestamptz not null default now(),
    foreign key (study_link_id, platform) references study_link (study_link_id, platform)
        on delete cascade
);

-- One worker's bonus of a batch, sent with SendBonus against one of their assignments. MTurk
-- pays one bonus per call; its `UniqueRequestToken` (here `request_token`, the same for every
-- attempt) makes a repeated call within 24 hours pay nothing more. Before a bonus is sent again
-- after no answer, MTurk's list of the assignment's bonuses is read first.
--   sending: taken by one request, in one statement, before the call (a stopped server's is
--            retried after 15 minutes, reading first);
--   sent:    MTurk accepted it (or listed it when read back);
--   refused: MTurk answered no (nothing was paid; it may be sent again);
--   unknown: no answer, or a server error: it may have paid; read back before any new call.
create table mturk_bonus (
    batch_id        uuid not null,
    app_user_id     uuid not null,
    study_link_id   uuid not null references study_link (study_link_id) on delete cascade,
    worker_id       text not null check (worker_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    assignment_id   text not null check (assignment_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    amount_cents    integer not null check (amount_cents > 0),
    reason          text not null check (length(reason) between 1 and 1024),
    request_token   text not null unique check (request_token ~ '^[A-Za-z0-9_-]{1,64}$'),
    state           text not null check (state in ('sending', 'sent', 'refused', 'unknown')),
    detail          text not null default '' check (length(detail) <= 2000),
    attempts        integer not null default 1 check (attempts >= 1),
    first_sent_at   timestamptz not null default clock_timestamp(),
    last_sent_at    timestamptz not null default clock_timestamp(),
    primary key (batch_id, app_user_id),
    foreign key (batch_id, app_user_id) references payment_item (batch_id, app_user_id)
        on delete cascade
);
create index mturk_bonus_link_idx on mturk_bonus (study_link_id);

-- MTurk approves one assignment per call: an approval of several can be `partly` done (some
-- accepted, the others refused, none without an answer).
alter table platform_call drop constraint platform_call_outcome_check;
alter table platform_call add constraint platform_call_outcome_check
    check (outcome in ('done', 'partly', 'refused', 'unknown'));
