//! The embedded cluster: created on first start, stopped, reused on the next start; used
//! without being stopped beside its live owner, adopted when its owner is gone.
use std::os::unix::fs::PermissionsExt;

use server::embedded_pg::EmbeddedPostgres;
use sqlx::{Connection, PgConnection};

#[tokio::test]
async fn the_embedded_cluster_starts_stops_and_keeps_its_data() {
    // Arrange: a data directory the postgres system user can traverse (tempdir makes it 0700).
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let data_dir = dir.path().join("data");

    // Act 1: first start creates the cluster.
    let path = data_dir.clone();
    let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path))
        .await
        .unwrap()
        .unwrap();
    server::startup::create_database_if_missing(&pg)
        .await
        .unwrap();
    let pool = server::startup::connect_and_migrate(&pg.database_url(), 2)
        .await
        .unwrap();
    sqlx::query("insert into app_user (username, password_hash) values ('kept', 'x')")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let first_port = pg.port();
    tokio::task::spawn_blocking(move || pg.stop())
        .await
        .unwrap()
        .unwrap();

    // Assert: stopped means refused.
    let url = format!("postgres://paracrowd@127.0.0.1:{first_port}/paracrowd");
    assert!(
        PgConnection::connect(&url).await.is_err(),
        "the cluster should be stopped"
    );

    // Act 2: the next start reuses the cluster and its data.
    let path = data_dir.clone();
    let pg = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path))
        .await
        .unwrap()
        .unwrap();
    let pool = server::startup::connect_and_migrate(&pg.database_url(), 2)
        .await
        .unwrap();
    let kept: i64 = sqlx::query_scalar("select count(*) from app_user where username = 'kept'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(kept, 1);
    pool.close().await;

    // A start beside the live owner (a command run next to the server) uses the running
    // cluster without owning it: its stop leaves the cluster running for the owner.
    let path = data_dir.clone();
    let again = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.port(), pg.port());
    assert!(pg.is_owner() && !again.is_owner());
    tokio::task::spawn_blocking(move || again.stop())
        .await
        .unwrap()
        .unwrap();
    let url = pg.database_url();
    assert!(
        PgConnection::connect(&url).await.is_ok(),
        "a process that does not own the cluster left it running"
    );

    // The owner gone without stopping it (a killed server: the kernel drops its lock): the next
    // start adopts the running cluster, and its stop stops it.
    let port = pg.port();
    drop(pg);
    let path = data_dir.clone();
    let adopted = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path))
        .await
        .unwrap()
        .unwrap();
    assert!(adopted.is_owner());
    assert_eq!(adopted.port(), port);
    tokio::task::spawn_blocking(move || adopted.stop())
        .await
        .unwrap()
        .unwrap();
    assert!(
        PgConnection::connect(&url).await.is_err(),
        "the adopting process stopped the cluster"
    );
}
