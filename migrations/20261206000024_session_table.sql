-- The session store's table (tower-sessions-sqlx-store 0.15, pinned in Cargo.toml), created here
-- exactly as its `PostgresStore::migrate` creates it, which the server still runs at start-up
-- (both say "if not exists"). The judging calls check their session inside their own worker-lock
-- statement (`db::sessions`, `service::session_cache`), and the SQL checked at compile time needs
-- the table to exist in the database the queries are checked against.
create schema if not exists tower_sessions;
create table if not exists tower_sessions.session
(
    id text primary key not null,
    data bytea not null,
    expiry_date timestamptz not null
);
