//! Sessions live in PostgreSQL, so they survive a server restart.
use sqlx::PgPool;

use crate::helpers::spawn_app;

#[sqlx::test(migrations = "../migrations")]
async fn a_session_survives_a_server_restart(pool: PgPool) {
    let first = spawn_app(pool.clone()).await;
    let (c, name) = first.annotator().await;
    assert_eq!(first.whoami(&c).await.map(|u| u.0), Some(name.clone()));
    first.stop().await;

    let second = spawn_app(pool.clone()).await;

    // Same cookie jar (cookies are per host, not per port), new server process state.
    assert_eq!(second.whoami(&c).await.map(|u| u.0), Some(name));
    let stored: i64 = sqlx::query_scalar("select count(*) from tower_sessions.session")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(stored >= 1);
    second.stop().await;
}
