//! Slow and idle clients cannot hold the server's connections — over real
//! sockets to the real server. (A client that stops reading a response is tested in
//! `server/src/serve.rs`, where the socket's buffer can be made small.)
use std::time::{Duration, Instant};

use server::config::Config;
use server::serve::ConnectionLimits;
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{spawn_app_with_config, TestApp};

async fn app_with(pool: PgPool, limits: ConnectionLimits) -> TestApp {
    let config = Config {
        connection_limits: limits,
        ..Config::for_tests(String::new())
    };
    spawn_app_with_config(pool, config).await
}

const SHORT: ConnectionLimits = ConnectionLimits {
    header_timeout: Duration::from_secs(1),
    body_timeout: Duration::from_secs(1),
    write_timeout: Duration::from_secs(1),
    max_connections: 1000,
    max_per_address: 1000,
};

/// The length the answer's `Content-Length` gives, and its body's length.
fn stated_and_actual_length(answer: &str) -> (usize, usize) {
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    let stated = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .unwrap()
        .parse()
        .unwrap();
    (stated, body.len())
}

/// A connection to `to` from the loopback address `from` (all of 127.0.0.0/8 is this machine).
async fn connect_from(from: &str, to: std::net::SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(to).await.unwrap()
}

/// `GET /health` on a new connection from `from`: all the server sent until it closed.
async fn health_from(from: &str, to: std::net::SocketAddr) -> String {
    let mut stream = connect_from(from, to).await;
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    until_closed(&mut stream).await.0
}

#[sqlx::test(migrations = "../migrations")]
async fn one_address_holding_its_share_leaves_the_others_room(pool: PgPool) {
    let limits = ConnectionLimits {
        header_timeout: Duration::from_secs(30),
        max_per_address: 3,
        ..SHORT
    };
    // Loopback addresses have shares here, as any client's address has in production.
    let config = Config {
        connection_limits: limits,
        connection_share_exempt: Default::default(),
        ..Config::for_tests(String::new())
    };
    let app = spawn_app_with_config(pool, config).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from("127.0.0.7", app.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A fourth from the same address: refused, with a 503 a client can read.
    let answer = health_from("127.0.0.7", app.addr).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("from your address"), "{answer}");
    let (stated, actual) = stated_and_actual_length(&answer);
    assert_eq!(stated, actual, "{answer}");
    // Another address is served meanwhile.
    let answer = health_from("127.0.0.8", app.addr).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // One of the first address's connections closes: it may open one again (once the server
    // has seen it close).
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = health_from("127.0.0.7", app.addr).await;
        if answer.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "still refused: {answer}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(held);
    app.stop().await;
}

/// Reads until the server closes the connection; returns what it sent and when it closed.
/// Fails the test if the server holds it open for 10 s.
async fn until_closed(stream: &mut TcpStream) -> (String, Duration) {
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf)).await {
            Err(_) => panic!("the server held the connection open for 10 s"),
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
    (
        String::from_utf8_lossy(&got).into_owned(),
        started.elapsed(),
    )
}

#[sqlx::test(migrations = "../migrations")]
async fn silent_slow_header_and_idle_connections_are_closed_after_the_header_timeout(pool: PgPool) {
    let app = app_with(pool, SHORT).await;
    // Connects and sends nothing.
    let mut silent = TcpStream::connect(app.addr).await.unwrap();
    // Sends half a request head and stops.
    let mut half = TcpStream::connect(app.addr).await.unwrap();
    half.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    for stream in [&mut silent, &mut half] {
        let (_, after) = until_closed(stream).await;
        assert!(after < Duration::from_secs(3), "{after:?}");
    }

    // Trickles a header byte every 200 ms (slowloris): the head's deadline does not move.
    let mut trickle = TcpStream::connect(app.addr).await.unwrap();
    let started = Instant::now();
    let head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    let mut closed_after = None;
    for byte in head {
        if trickle.write_all(&[*byte]).await.is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let closed_after = match closed_after {
        Some(t) => t,
        None => until_closed(&mut trickle).await.1 + started.elapsed(),
    };
    assert!(
        closed_after < Duration::from_secs(4),
        "a trickled head kept the connection for {closed_after:?}"
    );

    // A keep-alive connection: answered, then closed once idle for the timeout.
    let mut idle = TcpStream::connect(app.addr).await.unwrap();
    idle.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let (answer, after) = until_closed(&mut idle).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        after >= Duration::from_millis(900) && after < Duration::from_secs(3),
        "{after:?}"
    );
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn a_request_body_that_stalls_is_cut_off(pool: PgPool) {
    let app = app_with(pool, SHORT).await;
    let mut stream = TcpStream::connect(app.addr).await.unwrap();
    stream
        .write_all(
            b"POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
              Content-Length: 100\r\n\r\nusername=",
        )
        .await
        .unwrap();
    let (answer, after) = until_closed(&mut stream).await;
    assert!(after < Duration::from_secs(4), "{after:?}");
    // Answered with a client error (or simply closed), never a 2xx or a 5xx.
    if let Some(status) = answer.get(9..12) {
        assert!(status.starts_with('4'), "{answer}");
    }
    app.stop().await;
}

#[sqlx::test(migrations = "../migrations")]
async fn connections_past_the_limit_get_a_503_and_the_slot_comes_back(pool: PgPool) {
    let limits = ConnectionLimits {
        header_timeout: Duration::from_secs(30),
        max_connections: 3,
        ..SHORT
    };
    let app = app_with(pool, limits).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(app.addr).await.unwrap());
    }
    // Let the server accept them before the fourth arrives.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut fourth = TcpStream::connect(app.addr).await.unwrap();
    fourth
        .write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let (answer, _) = until_closed(&mut fourth).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("Retry-After: 1"), "{answer}");
    assert!(answer.contains("too many open connections"), "{answer}");
    let (stated, actual) = stated_and_actual_length(&answer);
    assert_eq!(stated, actual, "the 503 says its own length: {answer}");

    // One held connection closes: its slot serves the next client.
    drop(held.pop());
    tokio::time::sleep(Duration::from_millis(200)).await;
    let resp = reqwest::get(app.url("/health")).await.unwrap();
    assert_eq!(resp.status(), reqwest::StatusCode::OK);
    drop(held);
    app.stop().await;
}
