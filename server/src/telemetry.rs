//! Logging: human-readable lines by default, JSON with `PARACROWD_LOG_FORMAT=json`; the level
//! comes from `RUST_LOG` (default `info`). Beside the log, a counter of the SQL statements the
//! process sends (`paracrowd_sql_statements_total` on `/metrics`): sqlx emits one event per
//! statement under the target `sqlx::query`, which this layer counts whatever the log level.
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::{EnvFilter, Targets};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, Layer};

pub fn init() {
    init_at("info,sqlx=warn,tower_sessions=warn");
}

/// Counts sqlx's per-statement events.
struct CountStatements;

impl<S: Subscriber> Layer<S> for CountStatements {
    fn on_event(&self, _event: &Event<'_>, _ctx: Context<'_, S>) {
        app::metrics::sql_statement_sent();
    }
}

/// Like [`init`] with another default level (`RUST_LOG` still wins): the `models` commands talk
/// to the user on stdout and log only warnings.
pub fn init_at(default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let json = std::env::var("PARACROWD_LOG_FORMAT").is_ok_and(|v| v == "json");
    let log = fmt::layer().with_target(false).with_writer(std::io::stderr);
    let log = if json {
        log.json().with_filter(filter).boxed()
    } else {
        log.with_filter(filter).boxed()
    };
    let statements =
        CountStatements.with_filter(Targets::new().with_target("sqlx::query", Level::TRACE));
    // `try_init`: tests may call this more than once.
    let _ = tracing_subscriber::registry()
        .with(log)
        .with(statements)
        .try_init();
}
