-- Requests that create accounts, counted per client address in fixed windows
-- (`domain::rate_limit`), here so that every server behind a load balancer counts the same ones.
-- A row per action, address and window; rows of windows long past are deleted as new windows
-- begin (`db::rate_counts`).
create table rate_count (
    action       text not null check (action in ('registration', 'study_account')),
    subject      text not null check (length(subject) <= 100),
    window_start timestamptz not null,
    count        integer not null check (count > 0),
    primary key (action, subject, window_start)
);
create index rate_count_window_idx on rate_count (window_start);
