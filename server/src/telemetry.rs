//! Logging: human-readable lines by default, JSON with `PARACROWD_LOG_FORMAT=json`; the level
//! comes from `RUST_LOG` (default `info`).
use tracing_subscriber::{fmt, EnvFilter};

pub fn init() {
    init_at("info,sqlx=warn,tower_sessions=warn");
}

/// Like [`init`] with another default level (`RUST_LOG` still wins): the `models` commands talk
/// to the user on stdout and log only warnings.
pub fn init_at(default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let json = std::env::var("PARACROWD_LOG_FORMAT").is_ok_and(|v| v == "json");
    let builder = fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr);
    // `try_init`: tests may call this more than once.
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
