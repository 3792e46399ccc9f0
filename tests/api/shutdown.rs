//! Stopping the server: a connection a client holds open does not keep it running.
use std::time::{Duration, Instant};

use sqlx::PgPool;
use tokio::io::AsyncWriteExt;

use crate::helpers::{spawn_app, STOP_GRACE};

#[sqlx::test(migrations = "../migrations")]
async fn a_client_holding_a_connection_open_does_not_keep_the_server_running(pool: PgPool) {
    let app = spawn_app(pool).await;
    // A client that sends half a request and then nothing: axum's graceful shutdown would wait
    // for it to finish.
    let mut half = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    half.write_all(b"GET /health HTTP/1.1\r\nHost: paracrowd\r\n")
        .await
        .unwrap();
    // And a pooled keep-alive connection from an ordinary client that is still alive.
    let c = crate::helpers::client();
    assert!(app.get(&c, "/health").await.status().is_success());

    let started = Instant::now();
    let stopped = tokio::time::timeout(Duration::from_secs(30), app.stop()).await;
    let took = started.elapsed();
    assert!(stopped.is_ok(), "the server did not stop within 30 s");
    // It gave the open connections their grace period, and no more than that.
    assert!(
        took >= STOP_GRACE,
        "stopped after {took:?}, before the grace period"
    );
    assert!(
        took < STOP_GRACE + Duration::from_secs(5),
        "stopped after {took:?}"
    );
    drop((half, c));
}
