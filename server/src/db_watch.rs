//! Whether PostgreSQL answers. A task pings it once a second; while it does not answer, every
//! page and server function gets a fast 503 with a plain explanation instead of waiting for a
//! connection, and the app recovers by itself on the first ping that succeeds. Connections the
//! pool held to the old server have been idle through the outage, so they are tested before use
//! and replaced (`startup::TEST_IDLE_AFTER`).
//!
//! The pings (and `/health`) go through a [`monitor_pool`] of their own: behind a busy main pool
//! they would wait for a connection, report a slow health check, and after the ping's timeout
//! even take a loaded but healthy database for a dead one.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

/// How often the database is pinged, and how long a ping may take.
pub const PING_EVERY: Duration = Duration::from_secs(1);
pub const PING_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug)]
pub struct DbStatus {
    up: AtomicBool,
}

impl DbStatus {
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }
}

/// Connections the monitor pool may open.
pub const MONITOR_CONNECTIONS: u32 = 2;

/// A small pool to the same database as `main`, for health checks only. It closes when `main`
/// does, so a test's database can be dropped once the test closes its pool.
pub fn monitor_pool(main: &PgPool) -> PgPool {
    let monitor = PgPoolOptions::new()
        .max_connections(MONITOR_CONNECTIONS)
        .min_connections(0)
        .acquire_timeout(PING_TIMEOUT)
        .connect_lazy_with((*main.connect_options()).clone());
    let closing = main.close_event();
    let closed_with_main = monitor.clone();
    tokio::spawn(async move {
        closing.await;
        closed_with_main.close().await;
    });
    monitor
}

/// Starts watching `pool` (a [`monitor_pool`]). The task ends when the returned status is dropped (the router with it).
pub fn watch(pool: PgPool) -> Arc<DbStatus> {
    let status = Arc::new(DbStatus {
        up: AtomicBool::new(true),
    });
    let weak: Weak<DbStatus> = Arc::downgrade(&status);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(PING_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(status) = weak.upgrade() else { return };
            if pool.is_closed() {
                return;
            }
            let ok = matches!(
                tokio::time::timeout(PING_TIMEOUT, sqlx::query("select 1").execute(&pool)).await,
                Ok(Ok(_))
            );
            let was = status.up.swap(ok, Ordering::Relaxed);
            if was != ok {
                if ok {
                    tracing::warn!("the database answers again");
                } else {
                    tracing::error!("the database does not answer; answering 503 until it does");
                }
            }
        }
    });
    status
}

/// Paths that still run while the database is down: the probes and static files.
fn runs_without_database(path: &str) -> bool {
    path == "/health" || path == "/metrics" || path.starts_with("/pkg/") || path == "/favicon.ico"
}

/// Answers 503 at once while the database is down: an `AppError` as JSON to server function
/// callers, a short page to browsers.
pub async fn gate(State(status): State<Arc<DbStatus>>, req: Request, next: Next) -> Response {
    if status.is_up() || runs_without_database(req.uri().path()) {
        return next.run(req).await;
    }
    let wants_json = req.uri().path().starts_with("/api/")
        && !req
            .headers()
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("text/html"));
    let retry = [(header::RETRY_AFTER, "5")];
    let error = app::error::AppError::DatabaseUnavailable;
    if wants_json {
        let body = serde_json::to_string(&error).unwrap_or_default();
        (
            StatusCode::SERVICE_UNAVAILABLE,
            retry,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    } else {
        let page = format!(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta http-equiv=\"refresh\" content=\"5\"><title>paracrowd: back in a moment</title>\
             </head><body><main>\
             <h1>Back in a moment</h1><p role=\"alert\">{error}</p>\
             <p>This page reloads by itself every few seconds.</p></main></body></html>"
        );
        (
            StatusCode::SERVICE_UNAVAILABLE,
            retry,
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                // A page of text that runs nothing (not one of the app's pages).
                (
                    header::CONTENT_SECURITY_POLICY,
                    crate::security_headers::NOTHING_RUNS,
                ),
            ],
            page,
        )
            .into_response()
    }
}
