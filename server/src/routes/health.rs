//! `GET /health`: 200 when the database answers within two seconds, 503 otherwise. It pings
//! through the monitor pool (`db_watch::monitor_pool`), never waiting behind requests for a
//! connection of the main pool.
use std::time::{Duration, Instant};

use axum::{extract::State, http::StatusCode, Json};
use serde_json::{json, Value};
use sqlx::PgPool;

pub async fn health(State(pool): State<PgPool>) -> (StatusCode, Json<Value>) {
    let started = Instant::now();
    let probe = tokio::time::timeout(
        Duration::from_secs(2),
        sqlx::query_scalar::<_, i32>("select 1").fetch_one(&pool),
    )
    .await;
    let db_ms = started.elapsed().as_secs_f64() * 1000.0;
    match probe {
        Ok(Ok(1)) => (
            StatusCode::OK,
            Json(json!({ "status": "ok", "database": "ok", "database_ms": db_ms })),
        ),
        Ok(Ok(_)) | Ok(Err(_)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "status": "unavailable", "database": "error" })),
        ),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "status": "unavailable", "database": "timeout" })),
        ),
    }
}
