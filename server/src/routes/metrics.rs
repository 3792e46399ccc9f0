//! `GET /metrics`: request latencies by route, the scoring queue and batches, and judgments,
//! attempts and submissions stored, in Prometheus' text format (see `app::metrics`). It shows
//! counts and route templates only, no ids or texts, so it is open like `/health`.
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use app::state::AppState;

pub async fn metrics(State(state): State<AppState>) -> Response {
    let text = app::metrics::render(&app::metrics::snapshot(state.scorer.load()));
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// Times every request that matched a route, labelled by the route's template (never the
/// concrete path, so ids do not multiply the series).
pub async fn record(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "other".into());
    let method = req.method().as_str().to_owned();
    let started = Instant::now();
    let response = next.run(req).await;
    app::metrics::observe_request(
        &route,
        &method,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}
