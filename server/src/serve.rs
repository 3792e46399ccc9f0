//! The HTTP server loop: hyper's HTTP/1 connection per client, with the
//! limits `axum::serve` does not set, so a client cannot hold the server's connections forever:
//! - **Request heads** must arrive within `header_timeout`, counted from when the server starts
//!   waiting for one. That closes a slow-header (slowloris) client, a connection that never
//!   sends anything, and a keep-alive connection idle between requests.
//! - **Request bodies** may not stall for `body_timeout` between chunks
//!   (`tower_http::timeout::RequestBodyTimeoutLayer`, in `startup::build_router`).
//! - **Responses** a client stops reading: a connection whose writes have been blocked for
//!   `write_timeout` is dropped.
//! - **At most `max_connections`** are open at once; one more is answered 503 with
//!   `Retry-After` and closed, so the server never runs out of file descriptors.
//! - **At most `max_per_address`** of them come from one address, so one client (a script
//!   holding idle sockets and reconnecting at once) cannot take the others' places; one more
//!   from that address is answered 503 likewise. A proxy in `PARACROWD_TRUSTED_PROXIES` (a load
//!   balancer or reverse proxy, whose address every client shares) and the addresses in
//!   `PARACROWD_CONNECTION_SHARE_EXEMPT` have no such share.
//!
//! A long request the app itself is working on (an import, a mining run) is never cut: none of
//! the three timers runs while the app computes a response.
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// The limits on client connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// A request head must arrive within this (`PARACROWD_HEADER_TIMEOUT_SECS`).
    pub header_timeout: Duration,
    /// A request body may not stall longer than this (`PARACROWD_BODY_TIMEOUT_SECS`).
    pub body_timeout: Duration,
    /// A response's writes may not stay blocked longer than this (`PARACROWD_WRITE_TIMEOUT_SECS`).
    pub write_timeout: Duration,
    /// Open connections at most (`PARACROWD_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Open connections from one address at most, proxies in front excepted
    /// (`PARACROWD_MAX_CONNECTIONS_PER_ADDRESS`).
    pub max_per_address: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(20),
            body_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(60),
            max_connections: 1000,
            // A browser opens at most 6 per host; this leaves room for a lab behind one NAT.
            max_per_address: 64,
        }
    }
}

const TOO_MANY: &str = "The server has too many open connections; try again in a moment.\n";
const TOO_MANY_FROM_ONE: &str =
    "Too many open connections from your address; close some and try again in a moment.\n";

/// A whole 503 answer with `message` as its body.
fn unavailable(message: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    )
    .into_bytes()
}

/// The open connections of each address.
struct PerAddress {
    most: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of an address, counted until dropped.
struct AddressShare {
    of: Arc<PerAddress>,
    ip: IpAddr,
}

impl PerAddress {
    fn new(most: usize) -> Arc<Self> {
        Arc::new(Self {
            most,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A share for one more connection from `ip`, or `None` when it has `most` open.
    fn take(self: &Arc<Self>, ip: IpAddr) -> Option<AddressShare> {
        let ip = app::client_addr::counted_as(ip);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= self.most {
            return None;
        }
        *n += 1;
        Some(AddressShare {
            of: self.clone(),
            ip,
        })
    }

    #[cfg(test)]
    fn open_from(&self, ip: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.get(&app::client_addr::counted_as(ip))
            .copied()
            .unwrap_or(0)
    }
}

impl Drop for AddressShare {
    fn drop(&mut self) {
        let mut open = self.of.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Serves `router` on `listener` until `shutdown` resolves; then open connections finish their
/// requests, and after `grace` those still open (idle keep-alive ones, say) are left behind.
/// Connections from `proxies` (see [`crate::config::Config::unshared_addresses`]) have no
/// per-address share.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    limits: ConnectionLimits,
    proxies: Arc<app::client_addr::TrustedProxies>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    grace: Duration,
) -> anyhow::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let per_address = PerAddress::new(limits.max_per_address);
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors, a reset before accept: keep serving.
                    tracing::warn!(error.message = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let share = if proxies.contains(peer.ip()) {
            None
        } else {
            let Some(share) = per_address.take(peer.ip()) else {
                static ONE: app::log_limit::Limited =
                    app::log_limit::Limited::new(Duration::from_secs(10));
                if let Some(left_out) = ONE.due() {
                    tracing::warn!(
                        max = limits.max_per_address,
                        peer = %peer.ip(),
                        similar_not_logged = left_out,
                        "connections from one address at their limit: answering 503"
                    );
                }
                tokio::spawn(refuse(stream, TOO_MANY_FROM_ONE));
                continue;
            };
            Some(share)
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            static FULL: app::log_limit::Limited =
                app::log_limit::Limited::new(Duration::from_secs(10));
            if let Some(left_out) = FULL.due() {
                tracing::warn!(
                    max = limits.max_connections,
                    similar_not_logged = left_out,
                    "connection limit reached: answering 503"
                );
            }
            tokio::spawn(refuse(stream, TOO_MANY));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = router
            .clone()
            .map_request(move |mut req: axum::http::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req
            });
        let http = http.clone();
        let stop = stop_rx.clone();
        tokio::spawn(async move {
            serve_connection(http, stream, peer, service, limits.write_timeout, stop).await;
            drop((slot, share));
        });
    }
    // Stop: every connection finishes the request it is on, then closes.
    let _ = stop_tx.send(true);
    drop(listener);
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    match tokio::time::timeout(grace, slots.acquire_many(all)).await {
        Ok(_) => {}
        Err(_) => tracing::warn!(
            grace_secs = grace.as_secs_f64(),
            "connections still open after the shutdown grace period: stopping without them"
        ),
    }
    Ok(())
}

/// Answers a connection over the limit with a 503 and closes it. What the client sent is read
/// and dropped until it closes too (closing with unread input would reset the connection, and
/// the client could lose the answer).
async fn refuse(mut stream: TcpStream, message: &'static str) {
    use tokio::io::AsyncReadExt;
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        stream.write_all(&unavailable(message)).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}

async fn serve_connection<T, S>(
    http: hyper::server::conn::http1::Builder,
    stream: T,
    peer: SocketAddr,
    service: S,
    write_timeout: Duration,
    mut stop: watch::Receiver<bool>,
) where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    S: tower::Service<
            axum::http::Request<Incoming>,
            Response = axum::response::Response,
            Error = std::convert::Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let io = StallWatch::new(stream);
    let blocked = io.blocked.clone();
    let started = io.started;
    let conn = http.serve_connection(TokioIo::new(io), TowerToHyperService::new(service));
    tokio::pin!(conn);
    let mut check = tokio::time::interval((write_timeout / 4).max(Duration::from_millis(10)));
    let mut stopping = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(e) = result {
                    if e.is_timeout() {
                        tracing::debug!(%peer, "request head not received in time: closed");
                    } else {
                        tracing::debug!(%peer, error.message = %e, "connection ended with an error");
                    }
                }
                return;
            }
            _ = stop.changed(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
            _ = check.tick() => {
                let since = blocked.load(Ordering::Relaxed);
                if since != 0 {
                    let blocked_for = started.elapsed().saturating_sub(Duration::from_millis(since - 1));
                    if blocked_for >= write_timeout {
                        tracing::info!(%peer, "client stopped reading the response: connection dropped");
                        return;
                    }
                }
            }
        }
    }
}

/// A connection that notes since when its writes have been blocked (the client is not reading).
struct StallWatch<T> {
    inner: T,
    started: Instant,
    /// Milliseconds since `started` + 1 at which a write first returned `Pending`; 0 when the
    /// last write went through.
    blocked: Arc<AtomicU64>,
}

impl<T> StallWatch<T> {
    fn new(inner: T) -> Self {
        Self {
            inner,
            started: Instant::now(),
            blocked: Arc::new(AtomicU64::new(0)),
        }
    }

    fn note(&self, pending: bool) {
        if pending {
            if self.blocked.load(Ordering::Relaxed) == 0 {
                let now = self.started.elapsed().as_millis() as u64 + 1;
                self.blocked.store(now, Ordering::Relaxed);
            }
        } else {
            self.blocked.store(0, Ordering::Relaxed);
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallWatch<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallWatch<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.note(result.is_pending());
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note(result.is_pending());
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use tokio::io::AsyncReadExt;

    #[test]
    fn an_address_gets_its_share_and_the_slots_come_back() {
        let shares = PerAddress::new(2);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let first = shares.take(a).unwrap();
        let second = shares.take(a).unwrap();
        assert!(shares.take(a).is_none(), "a third from one address");
        assert!(shares.take(b).is_some(), "another address is not held back");
        // The same address written as IPv4-mapped IPv6 is the same address.
        assert!(shares.take("::ffff:10.0.0.1".parse().unwrap()).is_none());
        // An IPv6 host's /64 is one address: changing the last 64 bits gets no more.
        let v6 = |s: &str| -> IpAddr { s.parse().unwrap() };
        {
            let _held = (
                shares.take(v6("2001:db8::1")).unwrap(),
                shares.take(v6("2001:db8::2")).unwrap(),
            );
            assert!(shares.take(v6("2001:db8::ffff:3")).is_none());
            assert!(shares.take(v6("2001:db8:0:1::1")).is_some(), "the next /64");
        }
        drop(first);
        assert_eq!(shares.open_from(a), 1);
        let third = shares.take(a).unwrap();
        drop((second, third));
        assert_eq!(shares.open_from(a), 0);
        assert!(
            shares.open.lock().unwrap().is_empty(),
            "nothing kept for gone addresses"
        );
    }

    #[test]
    fn a_503_says_its_bodys_length() {
        for message in [TOO_MANY, TOO_MANY_FROM_ONE] {
            let answer = String::from_utf8(unavailable(message)).unwrap();
            let (head, body) = answer.split_once("\r\n\r\n").unwrap();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(length, body.len(), "{answer}");
        }
    }

    /// A client that asks for a large response and stops reading is dropped after the write
    /// timeout; one that reads gets all of it.
    #[tokio::test]
    async fn a_client_that_stops_reading_is_dropped_after_the_write_timeout() {
        let big = "x".repeat(1 << 20);
        let router = Router::new().route("/big", get(move || std::future::ready(big.clone())));
        let peer: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let write_timeout = Duration::from_millis(300);
        let serve = |io| {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new());
            let service = router.clone();
            let (_keep, stop) = watch::channel(false);
            tokio::spawn(async move {
                let _keep = _keep;
                serve_connection(http, io, peer, service, write_timeout, stop).await;
            })
        };
        let request = b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n";

        // Stops reading: the connection task ends soon after the timeout.
        let (mut client, server) = tokio::io::duplex(4096);
        let started = Instant::now();
        let task = serve(server);
        client.write_all(request).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .expect("the stalled connection is dropped")
            .unwrap();
        let took = started.elapsed();
        assert!(took >= write_timeout, "{took:?}");

        // Reads: the whole response arrives, however long it takes.
        let (mut client, server) = tokio::io::duplex(4096);
        let _task = serve(server);
        client.write_all(request).await.unwrap();
        let mut head = Vec::new();
        let mut body_bytes = 0usize;
        let mut buf = [0u8; 4096];
        let started = Instant::now();
        while body_bytes < (1 << 20) {
            // Slower than the timeout in total, but never blocked for that long.
            tokio::time::sleep(Duration::from_millis(3)).await;
            let n = client.read(&mut buf).await.unwrap();
            assert!(n > 0, "the server closed a connection that was being read");
            body_bytes += buf[..n].iter().filter(|b| **b == b'x').count();
            if head.len() < 15 {
                head.extend_from_slice(&buf[..n.min(15)]);
            }
        }
        assert!(head.starts_with(b"HTTP/1.1 200 OK"));
        assert!(started.elapsed() > write_timeout);
    }
}
