//! Building and running the application: database, migrations, sessions, router.
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use app::{
    ml::{PairScorer, SentenceEmbedder},
    shell,
    state::AppState,
    App,
};
use axum::{routing::get, Router};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use sqlx::{postgres::PgPoolOptions, PgPool};
use tower_http::{
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer},
    trace::TraceLayer,
};
use tower_sessions::{cookie::SameSite, Expiry, SessionManagerLayer};
use tower_sessions_sqlx_store::PostgresStore;

use crate::config::Config;
use crate::embedded_pg::EmbeddedPostgres;

/// Largest request body accepted, except on the upload endpoints below.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Largest upload (a file of source sentences or sentence pairs, form-encoded).
pub const MAX_UPLOAD_BYTES: usize = 64 * 1024 * 1024;

/// The endpoints that take whole files.
pub const UPLOAD_PATHS: &[&str] = &[
    "/api/admin/import_sources",
    "/api/admin/import_pairs",
    "/api/admin/import_corpus",
];

/// Name of the session cookie.
pub const SESSION_COOKIE: &str = "paracrowd_session";

/// Whether a study-link worker's session cookie must work inside a crowd platform's frame (a
/// cross-site frame):
/// `SameSite=None` (which browsers accept only with `Secure`) and `Partitioned`. Cross-site
/// posts stay refused by the origin check (`csrf.rs`), which does not rely on `SameSite`.
pub fn framed_cookies(config: &Config) -> bool {
    config.secure_cookies && !config.frame_ancestors.is_empty()
}

/// Runs `f` holding a PostgreSQL advisory lock named `name`, so replicas starting at once on a
/// fresh database do their one-time set-up (the session table, the first admin) one after the
/// other: `CREATE TABLE IF NOT EXISTS` and "create the admin if there is none" both race
/// otherwise. (The migrations take sqlx's own lock.)
pub async fn one_at_a_time<T>(
    pool: &PgPool,
    name: &str,
    f: impl std::future::Future<Output = anyhow::Result<T>>,
) -> anyhow::Result<T> {
    let key = format!("paracrowd:startup:{name}");
    let mut conn = pool.acquire().await?;
    sqlx::query("select pg_advisory_lock(hashtextextended($1, 0))")
        .bind(&key)
        .execute(&mut *conn)
        .await
        .context("could not take the start-up lock")?;
    let result = f.await;
    let _ = sqlx::query("select pg_advisory_unlock(hashtextextended($1, 0))")
        .bind(&key)
        .execute(&mut *conn)
        .await;
    result
}

/// A pooled connection idle this long is pinged before it is handed out (the connections kept
/// for the answer's one call follow the same rule, `app::db::quick::FRESH`).
pub const TEST_IDLE_AFTER: Duration = app::db::quick::FRESH;

/// Opens a pool on `url` and runs the migrations.
pub async fn connect_and_migrate(url: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // A connection is tested before use only when it has been idle a while: under load
        // the test was a round trip on every acquire (two per judgment), and a connection
        // back within `TEST_IDLE_AFTER` has just answered a query. One idle for longer (a
        // restart of PostgreSQL, `db_watch`'s outage) is pinged, and replaced if dead.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= TEST_IDLE_AFTER {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
        .connect(url)
        .await
        .with_context(|| format!("cannot connect to PostgreSQL at {}", redact(url)))?;
    sqlx::migrate!("../migrations")
        .run(&pool)
        .await
        .context("database migrations failed")?;
    Ok(pool)
}

/// Creates paracrowd's database in the embedded cluster when it is missing.
pub async fn create_database_if_missing(pg: &EmbeddedPostgres) -> anyhow::Result<()> {
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .connect(&pg.admin_url())
        .await?;
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from pg_database where datname = 'paracrowd')")
            .fetch_one(&admin)
            .await?;
    if !exists {
        sqlx::query("create database paracrowd")
            .execute(&admin)
            .await?;
    }
    admin.close().await;
    Ok(())
}

/// Leptos options built from our configuration (not from Cargo.toml at run time).
pub fn leptos_options(config: &Config) -> LeptosOptions {
    let output_name = crate::site_assets::output_name(std::path::Path::new(&config.site_root));
    LeptosOptions::builder()
        .output_name(output_name)
        .site_root(config.site_root.clone())
        .site_pkg_dir("pkg")
        .site_addr(config.addr)
        .build()
}

/// The whole router: health, pages, server functions, static files, sessions, limits, tracing.
pub async fn build_router(
    config: &Config,
    pool: PgPool,
    scorer: Arc<dyn PairScorer>,
    embedder: Arc<dyn SentenceEmbedder>,
) -> anyhow::Result<Router> {
    let store = PostgresStore::new(pool.clone());
    one_at_a_time(&pool, "session-table", async {
        store
            .migrate()
            .await
            .context("session table migration failed")
    })
    .await?;
    tokio::spawn({
        use tower_sessions::session_store::ExpiredDeletion;
        store
            .clone()
            .continuously_delete_expired(Duration::from_secs(3600))
    });
    let sessions = SessionManagerLayer::new(store)
        .with_name(SESSION_COOKIE)
        .with_http_only(true)
        // A study-link worker's cookie becomes `SameSite=None; Partitioned` when it must live
        // in a platform's frame (`security_headers::frame_study_cookie`); every other stays Lax.
        .with_same_site(SameSite::Lax)
        .with_secure(config.secure_cookies)
        .with_expiry(Expiry::OnInactivity(time::Duration::days(7)));

    // Jobs live in the database: this server claims queued runs, takes over those whose server
    // stopped beating, and does follow-ups left undone; it never touches another live server's.
    // The job loops run while the router lives (it holds `alive`).
    let alive = Arc::new(());
    if config.role.runs_jobs() {
        let jobs = app::service::mining_jobs::JobSettings::new(config.job_timeout);
        app::service::mining_follow_up::start_sweeper(
            pool.clone(),
            jobs.poll,
            Arc::downgrade(&alive),
        );
        app::service::mining_jobs::start(
            pool.clone(),
            embedder.clone(),
            jobs,
            Arc::downgrade(&alive),
        );
    }
    let state = AppState {
        leptos_options: leptos_options(config),
        quick: app::db::quick::QuickConnections::new(pool.clone()),
        pool,
        login_policy: app::domain::LoginPolicy::default(),
        rate_limits: config.rate_limits,
        calls: Arc::new(app::service::call_limits::CallLimits::new(
            &config.rate_limits,
        )),
        trusted_proxies: Arc::new(config.trusted_proxies.clone()),
        scorer,
        embedder,
        draws: Arc::new(app::draws::Draws::new(config.random_seed)),
        judge_campaigns: Arc::default(),
        sessions: Arc::default(),
        frame_ancestors: Arc::new(config.frame_ancestors.clone()),
        annotator_bundles: crate::site_assets::annotator_bundles(std::path::Path::new(
            &config.site_root,
        )),
        prolific: config
            .prolific
            .clone()
            .map(|p| Arc::new(app::prolific::Client::new(p))),
        mturk: Arc::new(app::mturk::Client::new(config.mturk.clone())),
    };
    let routes = generate_route_list(App);
    let context = {
        let state = state.clone();
        move || provide_context(state.clone())
    };
    let monitor = crate::db_watch::monitor_pool(&state.pool);
    if !config.role.serves_web() {
        // A jobs server answers the load balancer's and the scraper's questions only.
        return Ok(Router::new()
            .route(
                "/health",
                get(crate::routes::health::health).with_state(monitor),
            )
            .route("/metrics", get(crate::routes::metrics::metrics))
            .layer(axum::Extension(alive))
            .with_state(state));
    }
    let router = Router::new()
        .route(
            "/health",
            get(crate::routes::health::health).with_state(monitor.clone()),
        )
        .route("/metrics", get(crate::routes::metrics::metrics))
        .route("/export/apt/{campaign}", get(crate::routes::export::apt))
        .route("/export/judge/{campaign}", get(crate::routes::export::judge))
        .route(
            "/payments/{batch}/{file}",
            get(crate::routes::payments::bonus_file),
        )
        .leptos_routes_with_context(&state, routes, context.clone(), {
            let options = state.leptos_options.clone();
            move || shell(options.clone())
        })
        .route_layer(axum::middleware::from_fn(crate::routes::metrics::record))
        .nest_service(
            "/pkg",
            crate::site_assets::pkg_router(std::path::Path::new(&config.site_root)),
        )
        .merge(crate::site_assets::favicon_router(std::path::Path::new(
            &config.site_root,
        )))
        .fallback(leptos_axum::file_and_error_handler_with_context::<AppState, _>(
            context, shell,
        ))
        // Inside the sessions: notes a study-link worker's session on its response…
        .layer(axum::middleware::from_fn_with_state(
            crate::security_headers::StudyMarks {
                framed: framed_cookies(config),
                sessions: state.sessions.clone(),
            },
            crate::security_headers::mark_study_session,
        ))
        .layer(sessions)
        // …and outside them, their cookie is made one a platform's frame keeps.
        .layer(axum::middleware::from_fn(
            crate::security_headers::frame_study_cookie,
        ))
        // Before sessions: a forged request is refused before anything is read for it.
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(crate::csrf::Origins {
                allowed: config.allowed_origins.clone(),
                behind_https: config.secure_cookies,
            }),
            crate::csrf::guard,
        ))
        // Before sessions (they live in the database): a fast 503 while it is down.
        .layer(axum::middleware::from_fn_with_state(
            crate::db_watch::watch(monitor),
            crate::db_watch::gate,
        ))
        // A request body that stalls between chunks is cut off (`crate::serve` has the others).
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            config.connection_limits.body_timeout,
        ))
        // Our own limits (below) replace axum's 2 MB default, which server functions also obey.
        .layer(axum::extract::DefaultBodyLimit::disable())
        .layer(axum::middleware::from_fn(limit_body))
        .layer(axum::middleware::from_fn_with_state(
            config.secure_cookies,
            crate::security_headers::add,
        ))
        // Pages compressed for the wire (the bundle's files are, at build time).
        .layer(crate::page_compression::layer())
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(|req: &axum::http::Request<_>| {
            let request_id = req
                .headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            tracing::info_span!("request", method = %req.method(), path = %req.uri().path(), request_id)
        })
        // One line per request at `info` (status and latency), in the request's span.
        .on_response(tower_http::trace::DefaultOnResponse::new().level(tracing::Level::INFO))
        // A 5xx is an error, except 503: "busy" and "database down" are expected answers,
        // logged where they arise (at most a warning, rate-limited).
        .on_failure(
            |class: tower_http::classify::ServerErrorsFailureClass,
             latency: Duration,
             _: &tracing::Span| {
                use tower_http::classify::ServerErrorsFailureClass as C;
                match class {
                    C::StatusCode(axum::http::StatusCode::SERVICE_UNAVAILABLE) => {}
                    class => tracing::error!(
                        classification = %class,
                        latency_ms = latency.as_millis() as u64,
                        "response failed"
                    ),
                }
            },
        ))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .layer(axum::Extension(alive))
        .with_state(state);
    Ok(router)
}

/// Limits request bodies: [`MAX_UPLOAD_BYTES`] on [`UPLOAD_PATHS`], [`MAX_BODY_BYTES`] elsewhere.
/// A declared length over the limit gets 413 at once; a longer body without one fails to read.
async fn limit_body(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let limit = if UPLOAD_PATHS.contains(&req.uri().path()) {
        MAX_UPLOAD_BYTES
    } else {
        MAX_BODY_BYTES
    };
    let declared = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return (
            axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The request is larger than the {} MiB this address accepts.",
                limit >> 20
            ),
        )
            .into_response();
    }
    let req = req.map(|body| axum::body::Body::new(http_body_util::Limited::new(body, limit)));
    next.run(req).await
}

/// Serves `router` on `listener` until `shutdown` resolves, with `config`'s connection limits.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    config: &Config,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve_with_grace(
        listener,
        router,
        config.connection_limits,
        config.unshared_addresses(),
        shutdown,
        SHUTDOWN_GRACE,
    )
    .await
}

/// How long requests under way may finish after the shutdown signal.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// [`serve`], with the time open connections get after `shutdown` resolves: requests under way
/// finish, idle connections close, and after `grace` those still open are left to the process's
/// end (`crate::serve`).
pub async fn serve_with_grace(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: crate::serve::ConnectionLimits,
    proxies: Arc<app::client_addr::TrustedProxies>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> anyhow::Result<()> {
    crate::serve::serve(listener, router, limits, proxies, shutdown, grace).await
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
    tracing::info!("shutting down");
}

/// `postgres://user:secret@host/db` -> `postgres://user:***@host/db`, for error messages.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let creds = &url[scheme + 3..at];
            match creds.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme + 3],
                    &creds[..colon],
                    &url[at..]
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_removed_from_database_urls() {
        assert_eq!(
            redact("postgres://u:pw@h:5432/d"),
            "postgres://u:***@h:5432/d"
        );
        assert_eq!(redact("postgres://u@h/d"), "postgres://u@h/d");
        assert_eq!(redact("postgres://h/d"), "postgres://h/d");
    }
}
