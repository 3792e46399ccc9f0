//! Integration tests: the real router on a random port, over HTTP, against a real PostgreSQL
//! (`DATABASE_URL`; each `#[sqlx::test]` gets a fresh, migrated database).
mod access;
mod accounts;
mod apt;
mod cli;
mod embedded_postgres;
mod export;
mod helpers;
mod judge;
mod mining;
mod pages;
mod sessions;
