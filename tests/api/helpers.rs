//! Test harness: spawn the real app, make clients, call server functions.
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use app::ml::{PairScorer, PairScores, ScoreError, ScoreFuture, ScorerVersions};

use reqwest::{header, Client, Response, StatusCode};
use server::config::Config;
use sqlx::PgPool;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::shared;

/// A running server on 127.0.0.1 with a random port.
pub struct TestApp {
    pub addr: SocketAddr,
    pub pool: PgPool,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

/// How long [`TestApp::stop`] gives open connections (the clients a test still holds).
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Starts the real router on `pool`'s database, scoring with [`FakeScorer`].
pub async fn spawn_app(pool: PgPool) -> TestApp {
    spawn_app_scoring_with(pool, Arc::new(FakeScorer)).await
}

/// Starts the real router on `pool`'s database with the given scorer.
pub async fn spawn_app_scoring_with(pool: PgPool, scorer: Arc<dyn PairScorer>) -> TestApp {
    spawn_app_configured(pool, scorer, Config::for_tests(String::new())).await
}

/// Starts the real router with its random draws seeded: a test whose requests come one at a time
/// then sees the same schedule (test pair positions and order) on every run.
pub async fn spawn_app_seeded(pool: PgPool, seed: u64) -> TestApp {
    let config = Config {
        random_seed: Some(seed),
        ..Config::for_tests(String::new())
    };
    spawn_app_configured(pool, Arc::new(FakeScorer), config).await
}

/// Starts the real router with these settings, scoring with [`FakeScorer`].
pub async fn spawn_app_with_config(pool: PgPool, config: Config) -> TestApp {
    spawn_app_configured(pool, Arc::new(FakeScorer), config).await
}

async fn spawn_app_configured(
    pool: PgPool,
    scorer: Arc<dyn PairScorer>,
    config: Config,
) -> TestApp {
    server::telemetry::init();
    // The real sentence embedder, loaded only if a test mines with it.
    let ml = server::ml::MlConfig::from_env().expect("ML settings");
    let embedder = Arc::new(server::ml::embedder::LazyEmbedder::new(
        server::ml::embedder::default_dir(),
        ml,
    ));
    let router = server::startup::build_router(&config, pool.clone(), scorer, embedder)
        .await
        .expect("router builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        server::startup::serve_with_grace(
            listener,
            router,
            config.connection_limits,
            config.unshared_addresses(),
            async {
                let _ = rx.await;
            },
            STOP_GRACE,
        )
        .await
        .expect("server runs");
    });
    TestApp {
        addr,
        pool,
        stop: Some(tx),
        handle: Some(handle),
    }
}

/// A browser-like client with its own cookie jar that does not follow redirects.
pub fn client() -> Client {
    Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        // A request that never answers fails, naming its URL, instead of hanging the suite.
        .timeout(std::time::Duration::from_secs(120))
        .build()
        .unwrap()
}

/// A random valid username.
pub fn username(prefix: &str) -> String {
    format!(
        "{prefix}_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

pub const PASSWORD: &str = "correct horse battery";

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Calls a server function as the JavaScript client does (urlencoded in, JSON out).
    pub async fn call(&self, client: &Client, name: &str, form: &[(&str, &str)]) -> Response {
        client
            .post(self.url(&format!("/api/{name}")))
            .header(header::ACCEPT, "application/json")
            .form(form)
            .send()
            .await
            .expect("request reaches the server")
    }

    /// Posts a server function's form as a browser without JavaScript does.
    pub async fn post_form(
        &self,
        client: &Client,
        name: &str,
        referer: &str,
        form: &[(&str, &str)],
    ) -> Response {
        client
            .post(self.url(&format!("/api/{name}")))
            .header(header::ACCEPT, "text/html,application/xhtml+xml")
            .header(header::REFERER, self.url(referer))
            .form(form)
            .send()
            .await
            .expect("request reaches the server")
    }

    pub async fn get(&self, client: &Client, path: &str) -> Response {
        client
            .get(self.url(path))
            .header(header::ACCEPT, "text/html")
            .send()
            .await
            .expect("request reaches the server")
    }

    pub async fn register(&self, client: &Client, username: &str, password: &str) -> Response {
        self.call(
            client,
            "register",
            &[
                ("username", username),
                ("password", password),
                ("password_confirmation", password),
            ],
        )
        .await
    }

    pub async fn login(&self, client: &Client, username: &str, password: &str) -> Response {
        self.call(
            client,
            "login",
            &[("username", username), ("password", password)],
        )
        .await
    }

    /// The logged-in user's name, or `None`, as `current_user` reports it.
    pub async fn whoami(&self, client: &Client) -> Option<(String, String)> {
        let resp = self.call(client, "current_user", &[]).await;
        assert_eq!(resp.status(), StatusCode::OK);
        let v: serde_json::Value = resp.json().await.unwrap();
        if v.is_null() {
            return None;
        }
        Some((
            v["username"].as_str().unwrap().to_owned(),
            v["role"].as_str().unwrap().to_owned(),
        ))
    }

    /// Registers a new annotator and returns a logged-in client with their name.
    pub async fn annotator(&self) -> (Client, String) {
        let c = client();
        let name = username("ann");
        let resp = self.register(&c, &name, PASSWORD).await;
        assert!(resp.status().is_success(), "register: {}", resp.status());
        (c, name)
    }

    /// Creates a user with `role` through the admin bootstrap and returns a logged-in client.
    pub async fn user_with_role(&self, role: &str) -> (Client, String) {
        let name = username(role);
        server::admin_bootstrap::create_or_reset_admin(&self.pool, &name, PASSWORD)
            .await
            .unwrap();
        if role != "admin" {
            sqlx::query("update app_user set role = $2 where username = $1")
                .bind(&name)
                .bind(role)
                .execute(&self.pool)
                .await
                .unwrap();
        }
        let c = client();
        let resp = self.login(&c, &name, PASSWORD).await;
        assert!(resp.status().is_success(), "login: {}", resp.status());
        (c, name)
    }

    pub async fn user_id(&self, username: &str) -> String {
        let id: uuid::Uuid =
            sqlx::query_scalar("select app_user_id from app_user where username = $1")
                .bind(username)
                .fetch_one(&self.pool)
                .await
                .unwrap();
        id.to_string()
    }

    /// Stops the server and waits until it has stopped.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(h) = self.handle.take() {
            h.await.unwrap();
        }
    }
}

/// The JSON error a server function answered with.
pub async fn error_of(resp: Response) -> serde_json::Value {
    resp.json().await.expect("error body is JSON")
}

/// A deterministic stand-in for the models: MI when the two texts share at least half their
/// words; BLEURT is the Jaccard overlap of the word sets mapped to [-1, 1]. An attempt containing
/// [`BUSY_MARKER`] is answered as a full model queue would be.
pub struct FakeScorer;

/// The FakeScorer's description, as Checks, reports and exports name it.
pub const FAKE_SCORER: &str = "the tests' word-overlap scorer";

/// Makes the FakeScorer answer "busy".
pub const BUSY_MARKER: &str = "queue-full-please";

impl PairScorer for FakeScorer {
    fn score(&self, source: String, attempt: String) -> ScoreFuture {
        let words = |s: &str| -> std::collections::BTreeSet<String> {
            s.split_whitespace().map(|w| w.to_lowercase()).collect()
        };
        let (a, b) = (words(&source), words(&attempt));
        let shared = a.intersection(&b).count() as f32;
        let union = a.union(&b).count().max(1) as f32;
        let overlap = shared / union;
        let is_mi = shared * 2.0 >= a.len().min(b.len()).max(1) as f32;
        let bleurt = 2.0 * overlap - 1.0;
        let versions = self.versions();
        let busy = attempt.contains(BUSY_MARKER);
        Box::pin(async move {
            if busy {
                return Err(ScoreError::Busy);
            }
            Ok(PairScores {
                labels: vec!["not_mi".into(), "mi".into()],
                forward_probs: vec![1.0 - overlap, overlap],
                backward_probs: vec![1.0 - overlap, overlap],
                is_mutual_implication: is_mi,
                bleurt_forward: bleurt,
                bleurt_backward: bleurt,
                bleurt,
                versions,
                latency_ms: 0.0,
            })
        })
    }

    fn versions(&self) -> Arc<ScorerVersions> {
        Arc::new(ScorerVersions {
            mi: "fake-mi@0".into(),
            bleurt: "fake-bleurt@0".into(),
            kind: app::ml::ScorerKind::Custom,
            description: FAKE_SCORER.into(),
            served_by: Default::default(),
        })
    }
}

/// The FakeScorer under another name and kind (the paper's models, say), to see how each is
/// reported.
pub struct NamedFake {
    pub kind: app::ml::ScorerKind,
    pub description: &'static str,
}

impl PairScorer for NamedFake {
    fn score(&self, source: String, attempt: String) -> ScoreFuture {
        let versions = self.versions();
        let scored = FakeScorer.score(source, attempt);
        Box::pin(async move {
            let mut s = scored.await?;
            s.versions = versions;
            Ok(s)
        })
    }

    fn versions(&self) -> Arc<ScorerVersions> {
        Arc::new(ScorerVersions {
            mi: "named-mi@0".into(),
            bleurt: "named-bleurt@0".into(),
            kind: self.kind,
            description: self.description.into(),
            served_by: Default::default(),
        })
    }
}

/// A file of `../shared/data` (third-party corpora, never copied into the repo), or `None`
/// after saying that `what` skipped the part that needs it (see [`shared::data`]).
pub fn shared_data(relative: &str, what: &str) -> Option<String> {
    shared::data(relative, what)
}

/// Whether tests that start the real binary (which loads the models first) can run here. Without
/// ONNX Runtime they are skipped with a message, unless `PARACROWD_REQUIRE_MODELS=1`
/// (`scripts/test.sh`), where they run and fail.
pub fn binary_can_load_models(what: &str) -> bool {
    let has_ort = std::env::var("ORT_DYLIB_PATH").is_ok_and(|p| std::path::Path::new(&p).is_file());
    if !has_ort {
        shared::missing(
            "MODELS",
            what,
            "ORT_DYLIB_PATH is not set (scripts/test.sh sets it after installing ONNX Runtime)",
        );
    }
    has_ort
}

/// A loopback port free at the moment.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Polls `read` until its value has stayed the same for `quiet`, and returns that value: for
/// background work that must come to rest (a follow-up task, a reader held back by its
/// consumer). Panics, naming `what`, when it is still changing after `deadline`.
pub async fn settled<T, F, Fut>(what: &str, quiet: Duration, deadline: Duration, mut read: F) -> T
where
    T: PartialEq + std::fmt::Debug,
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = T>,
{
    let started = std::time::Instant::now();
    let mut last = read().await;
    let mut since = std::time::Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(25)).await;
        let now = read().await;
        if now != last {
            last = now;
            since = std::time::Instant::now();
        } else if since.elapsed() >= quiet {
            return last;
        }
        assert!(
            started.elapsed() < deadline,
            "{what} still changing after {deadline:?} (last {last:?})"
        );
    }
}

/// Polls `check` until it is true; panics, naming `what`, after `deadline`.
pub async fn wait_until<F, Fut>(what: &str, deadline: Duration, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = std::time::Instant::now();
    while !check().await {
        assert!(
            started.elapsed() < deadline,
            "{what}: not within {deadline:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A child process a test started (a release server, HAProxy), SIGKILLed when dropped, so a
/// failing test leaves nothing running.
pub struct Process(pub std::process::Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Process {
    /// SIGKILL now, and reap it.
    pub fn kill(&mut self) {
        self.0.kill().unwrap();
        self.0.wait().unwrap();
    }
}

/// Waits until a server's `/health` at `base` answers 200 (a release binary starting).
pub async fn healthy(base: &str) {
    wait_until("healthy", Duration::from_secs(120), || async {
        reqwest::get(format!("{base}/health"))
            .await
            .is_ok_and(|r| r.status().is_success())
    })
    .await;
}

/// Posts server function `name` to the server at `base`, whatever it answers.
pub async fn call_api(c: &Client, base: &str, name: &str, form: &[(&str, &str)]) -> Response {
    c.post(format!("{base}/api/{name}"))
        .header("accept", "application/json")
        .form(form)
        .send()
        .await
        .unwrap()
}

/// Posts server function `name` to the server at `base`; it must answer 200. Its JSON.
pub async fn post_api(
    c: &Client,
    base: &str,
    name: &str,
    form: &[(&str, &str)],
) -> serde_json::Value {
    let resp = call_api(c, base, name, form).await;
    let status = resp.status();
    let body = resp.text().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{name}: {body}");
    serde_json::from_str(&body).unwrap()
}
