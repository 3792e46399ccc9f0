//! Integration tests: the real router on a random port, over HTTP, against a real PostgreSQL
//! (`DATABASE_URL`; each `#[sqlx::test]` gets a fresh, migrated database).
mod access;
mod access_matrix;
mod accounts;
mod apt;
mod cli;
mod connections;
mod crash;
mod database_down;
mod delivery;
mod embedded_postgres;
mod export;
mod flood;
mod helpers;
mod hidden_tests;
mod hostile_input;
mod integrity;
mod judge;
mod judge_sql;
mod leaks;
mod mining;
mod pages;
mod quick_connections;
mod remote_scoring;
mod replicas;
mod replicas_haproxy;
mod scorer_names;
mod seeded_schedule;
mod sessions;
#[path = "../common/shared.rs"]
mod shared;
mod shutdown;
mod sql_functions;
mod sql_twins;
mod standalone;
mod studies;
mod study_pay;
