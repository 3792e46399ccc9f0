//! PostgreSQL stopped under a running server: fast 503s with a plain page (no panic, no hang),
//! and recovery by itself when it comes back, sessions included (they live in the database).
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use server::embedded_pg::EmbeddedPostgres;

use crate::helpers::{client, spawn_app, TestApp, PASSWORD};

/// Polls `path` until it answers `status`, for at most `limit`.
async fn wait_for(
    app: &TestApp,
    c: &reqwest::Client,
    path: &str,
    status: StatusCode,
    limit: Duration,
) {
    let deadline = Instant::now() + limit;
    loop {
        if app.get(c, path).await.status() == status {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{path} did not answer {status} within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn with_the_database_stopped_the_app_answers_503_at_once_and_recovers_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.path().join("data");
    let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path))
        .await
        .unwrap()
        .unwrap();
    server::startup::create_database_if_missing(&pg)
        .await
        .unwrap();
    let pool = server::startup::connect_and_migrate(&pg.database_url(), 5)
        .await
        .unwrap();
    let app = spawn_app(pool.clone()).await;
    let worker = client();
    let name = crate::helpers::username("dbdown");
    assert!(app
        .register(&worker, &name, PASSWORD)
        .await
        .status()
        .is_success());
    assert_eq!(app.get(&worker, "/").await.status(), StatusCode::OK);

    let pg = std::sync::Arc::new(pg);
    let stopper = pg.clone();
    tokio::task::spawn_blocking(move || stopper.stop())
        .await
        .unwrap()
        .unwrap();

    // Within a few seconds every request is a fast 503 with a plain explanation.
    wait_for(
        &app,
        &worker,
        "/",
        StatusCode::SERVICE_UNAVAILABLE,
        Duration::from_secs(10),
    )
    .await;
    for _ in 0..3 {
        let started = Instant::now();
        let resp = app.get(&worker, "/").await;
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(resp.headers()["retry-after"], "5");
        let page = resp.text().await.unwrap();
        assert!(
            page.contains("The database is not answering right now"),
            "{page}"
        );
        assert!(page.contains("Nothing you saved is lost"), "{page}");
    }
    let started = Instant::now();
    let resp = app.call(&worker, "list_my_campaigns", &[]).await;
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(crate::helpers::error_of(resp).await, "DatabaseUnavailable");
    let resp = client().get(app.url("/health")).send().await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    // Static files are still served (the 503 page uses the stylesheet).
    assert_ne!(
        app.get(&worker, "/metrics").await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );

    let starter = pg.clone();
    tokio::task::spawn_blocking(move || starter.start_again())
        .await
        .unwrap()
        .unwrap();

    // Back by itself, with the same session.
    wait_for(&app, &worker, "/", StatusCode::OK, Duration::from_secs(15)).await;
    assert_eq!(app.whoami(&worker).await.map(|u| u.0), Some(name));
    let resp = app.call(&worker, "list_my_campaigns", &[]).await;
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(
        client()
            .get(app.url("/health"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    app.stop().await;
    pool.close().await;
    tokio::task::spawn_blocking(move || pg.stop())
        .await
        .unwrap()
        .unwrap();
}

/// A database that is only busy is not down: with every connection of the app's pool taken
/// for longer than a ping may wait, `/health` still answers from its own connection, the
/// watcher does not shut the app, and requests go through once connections are free again.
#[sqlx::test(migrations = "../migrations")]
async fn a_busy_pool_is_not_a_dead_database(pool: sqlx::PgPool) {
    let app = spawn_app(pool.clone()).await;
    let worker = client();
    assert!(app
        .register(&worker, &crate::helpers::username("busy"), PASSWORD)
        .await
        .status()
        .is_success());
    let mut held = Vec::new();
    while let Ok(Ok(conn)) = tokio::time::timeout(Duration::from_millis(300), pool.acquire()).await
    {
        held.push(conn);
    }
    assert_eq!(held.len() as u32, pool.options().get_max_connections());

    // Longer than a ping may wait (and than /health's own timeout).
    let until = Instant::now() + server::db_watch::PING_EVERY + server::db_watch::PING_TIMEOUT;
    while Instant::now() < until {
        let resp = app.get(&client(), "/health").await;
        assert_eq!(resp.status(), StatusCode::OK);
        let body: serde_json::Value = resp.json().await.unwrap();
        assert_eq!(body["database"], "ok");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(held);
    // Not the "database unavailable" 503: the app was never taken for down.
    let page = app.get(&worker, "/").await;
    assert_eq!(page.status(), StatusCode::OK);
    let status = app.call(&worker, "current_user", &[]).await.status();
    assert_eq!(status, StatusCode::OK);
    app.stop().await;
}
