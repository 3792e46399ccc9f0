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

    // A short-lived owner (a command that started the cluster) and a longer-lived process
    // beside it (a server started meanwhile): the owner's stop leaves the cluster to the
    // server, which stops it when it stops, having outlived the owner.
    let start = |path: std::path::PathBuf| {
        tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path))
    };
    let command = start(data_dir.clone()).await.unwrap().unwrap();
    let serve = start(data_dir.clone()).await.unwrap().unwrap();
    assert!(command.is_owner() && !serve.is_owner());
    let url = serve.database_url();
    let command = tokio::task::spawn_blocking(move || command.stop().map(|()| command))
        .await
        .unwrap()
        .unwrap();
    assert!(
        PgConnection::connect(&url).await.is_ok(),
        "the owner stopped the cluster under a process that uses it"
    );
    drop(command);
    assert!(PgConnection::connect(&url).await.is_ok());
    tokio::task::spawn_blocking(move || serve.stop())
        .await
        .unwrap()
        .unwrap();
    assert!(
        PgConnection::connect(&url).await.is_err(),
        "the last process to use the cluster stopped it"
    );

    // Both stopping at once (Ctrl-C reaching a script's import and its server together): one of
    // them stops the cluster.
    let command = start(data_dir.clone()).await.unwrap().unwrap();
    let serve = start(data_dir.clone()).await.unwrap().unwrap();
    let url = serve.database_url();
    assert!(PgConnection::connect(&url).await.is_ok());
    let (a, b) = tokio::join!(
        tokio::task::spawn_blocking(move || command.stop()),
        tokio::task::spawn_blocking(move || serve.stop())
    );
    a.unwrap().unwrap();
    b.unwrap().unwrap();
    assert!(
        PgConnection::connect(&url).await.is_err(),
        "two processes stopping together left the cluster running"
    );
}

/// A start that finds the lock held, by a process whose cluster is not ready, waits rather than
/// use a cluster that does not answer yet, and takes over when that process ends.
#[tokio::test]
async fn a_start_waits_while_another_process_holds_the_cluster_and_takes_over_when_it_ends() {
    use std::os::fd::AsRawFd;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let data_dir = dir.path().join("data");
    std::fs::create_dir_all(&data_dir).unwrap();
    // Another "process" holds the lock (a second open file description conflicts as one would).
    let held = std::fs::File::create(data_dir.join("postgres.lock")).unwrap();
    assert_eq!(
        unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let path = data_dir.clone();
    let start = tokio::task::spawn_blocking(move || EmbeddedPostgres::start(&path));
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    assert!(
        !start.is_finished(),
        "the start waits while the lock is held and no cluster is ready"
    );
    drop(held);
    let pg = start.await.unwrap().unwrap();
    assert!(
        pg.is_owner(),
        "the start took over once the holder was gone"
    );
    server::startup::create_database_if_missing(&pg)
        .await
        .unwrap();
    let url = pg.database_url();
    assert!(PgConnection::connect(&url).await.is_ok());
    tokio::task::spawn_blocking(move || pg.stop())
        .await
        .unwrap()
        .unwrap();
    assert!(PgConnection::connect(&url).await.is_err());
}
