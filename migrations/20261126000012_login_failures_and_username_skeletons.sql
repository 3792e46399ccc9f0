-- Issue #21 items 4 and 5 (and #24 item 5): failed logins live in the database, so every app
-- server counts the same failures, and usernames that look alike cannot both be registered.

-- One failed login: the canonical username typed (whether or not an account has it, so the
-- throttle is no oracle for which accounts exist) and the client's address ('' when unknown).
-- `domain::login_throttle` decides from the counts; rows older than its window are deleted as
-- new failures arrive.
create table login_failure (
    login_failure_id bigserial primary key,
    account          text not null,
    address          text not null,
    failed_at        timestamptz not null default now()
);
create index login_failure_account_idx on login_failure (account, failed_at);
create index login_failure_address_idx on login_failure (address, failed_at);
create index login_failure_time_idx on login_failure (failed_at);

-- What a username looks like, for refusing look-alike registrations ("vick1" once "vickl"
-- exists). Usernames are ASCII letters, digits, '.', '_' and '-' (`domain::Username`), so the
-- look-alikes are those of Unicode's confusables list (UTS #39) within that set, after case
-- folding: 0/o, 1/l, rn/m, vv/w, cl/d, and the three separators.
create function username_skeleton(name text) returns text
    language sql immutable strict parallel safe
    return replace(replace(replace(translate(lower(name), '01-.', 'ol__'), 'rn', 'm'), 'vv', 'w'),
                   'cl', 'd');

alter table app_user
    add column username_skeleton text generated always as (username_skeleton(username)) stored;
-- Not unique: a database may already hold look-alikes registered before this rule. New
-- registrations check it under an advisory lock on the skeleton (`db::users::insert`).
create index app_user_username_skeleton_idx on app_user (username_skeleton);
