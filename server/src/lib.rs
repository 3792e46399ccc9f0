//! The paracrowd server: configuration, start-up (embedded PostgreSQL, migrations, sessions,
//! the router), and the command line. A library as well as a binary so tests can build the real
//! router.
pub mod admin_bootstrap;
pub mod cli;
pub mod config;
pub mod csrf;
pub mod db_watch;
pub mod embedded_pg;
pub mod export_cmd;
pub mod memory;
pub mod ml;
pub mod models_cmd;
pub mod page_compression;
pub mod precompress;
pub mod routes;
pub mod score_cmd;
pub mod security_headers;
pub mod serve;
pub mod site_assets;
pub mod startup;
pub mod telemetry;
