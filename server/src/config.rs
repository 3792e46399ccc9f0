//! Configuration from the environment. Every setting has a default that works on a developer's
//! machine; `paracrowd help` lists them.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

/// Server settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// `PARACROWD_ADDR`: where the web server listens (default 127.0.0.1:3000).
    pub addr: SocketAddr,
    /// `DATABASE_URL`: an existing PostgreSQL server. Unset: an embedded cluster under `data_dir`.
    pub database_url: Option<String>,
    /// `PARACROWD_DATA_DIR`: where the embedded cluster lives (default `./paracrowd-data`). When
    /// run as root, it and its parents must be traversable by the `postgres` system user.
    pub data_dir: PathBuf,
    /// `LEPTOS_SITE_ROOT`: the built site (wasm, JS, CSS, public files); default `target/site`.
    pub site_root: String,
    /// `PARACROWD_SECURE_COOKIES`: `true` behind HTTPS, so the session cookie is `Secure`.
    pub secure_cookies: bool,
    /// `PARACROWD_MAX_DB_CONNECTIONS`: pool size (default 20).
    pub max_db_connections: u32,
    /// `PARACROWD_RANDOM_SEED`: fixes the server's random draws (test pair positions and order),
    /// so a run's schedule can be replayed. Unset: drawn from entropy.
    pub random_seed: Option<u64>,
    /// `PARACROWD_ALLOWED_ORIGINS`: origins besides the request's own host from which forms may
    /// be posted (comma-separated, e.g. `https://study.example.org`), for a proxy that rewrites
    /// `Host` (see `csrf.rs`).
    pub allowed_origins: Vec<String>,
    /// `PARACROWD_TRUSTED_PROXIES`: proxies in front of the app (addresses or CIDR blocks,
    /// comma-separated) whose `X-Forwarded-For` names the client for the login throttle. Unset:
    /// the header is ignored and the TCP peer is the client.
    pub trusted_proxies: app::client_addr::TrustedProxies,
    /// `PARACROWD_FRAME_ANCESTORS`: origins that may show the study and task pages in a frame
    /// (space- or comma-separated; default MTurk's `https://www.mturk.com` and
    /// `https://workersandbox.mturk.com`, for its external questions; `none`: never framed).
    /// With `PARACROWD_SECURE_COOKIES` and any frame ancestor, a study-link worker's session
    /// cookie is `SameSite=None; Secure; Partitioned`, so it is kept inside the platform's frame.
    pub frame_ancestors: Vec<String>,
    /// `PARACROWD_ROLE`: what this server does: `web` (pages and server functions), `jobs`
    /// (mining runs and follow-ups; it answers only `/health` and `/metrics`) or `both`
    /// (default). Several web servers may share one PostgreSQL with one or more job servers.
    pub role: Role,
    /// `PARACROWD_JOB_TIMEOUT_SECS`: a mining run whose server has not beaten its heartbeat for
    /// this long is taken over by another server (default 10).
    pub job_timeout: Duration,
    /// `PARACROWD_REPLICA`: `true` when this server is one of several on one PostgreSQL; it then
    /// refuses to start without `DATABASE_URL` (an embedded cluster would be its own).
    pub replica: bool,
    /// Timeouts and the most open connections (`crate::serve`): `PARACROWD_HEADER_TIMEOUT_SECS`,
    /// `PARACROWD_BODY_TIMEOUT_SECS`, `PARACROWD_WRITE_TIMEOUT_SECS`, `PARACROWD_MAX_CONNECTIONS`,
    /// `PARACROWD_MAX_CONNECTIONS_PER_ADDRESS`.
    pub connection_limits: crate::serve::ConnectionLimits,
    /// `PARACROWD_CONNECTION_SHARE_EXEMPT`: addresses or CIDR blocks whose connections have no
    /// per-address share besides the trusted proxies (default none; the load benchmarks name
    /// loopback, where every simulated annotator comes from).
    pub connection_share_exempt: app::client_addr::TrustedProxies,
    /// `PARACROWD_RATE_REGISTRATIONS`, `PARACROWD_RATE_STUDY_ACCOUNTS` and
    /// `PARACROWD_RATE_CALLS` (`N/SECONDS`): the most registrations, and new study-link
    /// accounts, from one address per window, and server-function calls of one account (default
    /// 20/600, 30/600 and 600/60; `domain::rate_limit`).
    pub rate_limits: app::domain::rate_limit::RateLimits,
    /// Prolific's API (`crate::config::prolific`): `PARACROWD_PROLIFIC_TOKEN`, or a file holding
    /// it named by `PARACROWD_PROLIFIC_TOKEN_FILE`; `PARACROWD_PROLIFIC_API_URL` (default
    /// `https://api.prolific.com`) and `PARACROWD_PLATFORM_TIMEOUT_SECS` (default 20). No token:
    /// the payments page says so and offers only the files.
    pub prolific: Option<app::prolific::Settings>,
    /// MTurk's API (`crate::config::mturk`): credentials from the AWS chain;
    /// `PARACROWD_MTURK_ENDPOINT` to use another address than MTurk's (a local fake).
    pub mturk: app::mturk::Settings,
}

/// Prolific's settings from the environment: none without a token. The token is read from
/// `PARACROWD_PROLIFIC_TOKEN` or from the file `PARACROWD_PROLIFIC_TOKEN_FILE` names (one of
/// the two), and never printed.
pub fn prolific(
    var: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Option<app::prolific::Settings>> {
    let raw = match (
        var("PARACROWD_PROLIFIC_TOKEN"),
        var("PARACROWD_PROLIFIC_TOKEN_FILE"),
    ) {
        (Some(_), Some(_)) => {
            anyhow::bail!("set PARACROWD_PROLIFIC_TOKEN or PARACROWD_PROLIFIC_TOKEN_FILE, not both")
        }
        (Some(t), None) => t,
        (None, Some(path)) => std::fs::read_to_string(&path)
            .with_context(|| format!("PARACROWD_PROLIFIC_TOKEN_FILE: cannot read {path}"))?,
        (None, None) => return Ok(None),
    };
    let token = app::prolific::Token::new(&raw)
        .context("the Prolific API token is empty (PARACROWD_PROLIFIC_TOKEN or its file)")?;
    let raw_url =
        var("PARACROWD_PROLIFIC_API_URL").unwrap_or_else(|| "https://api.prolific.com".into());
    let base_url = app::prolific::base_url(&raw_url)
        .map_err(|e| anyhow::anyhow!("PARACROWD_PROLIFIC_API_URL {e}"))?;
    let timeout = platform_timeout(var)?;
    Ok(Some(app::prolific::Settings {
        base_url,
        token,
        timeout,
    }))
}

/// `PARACROWD_PLATFORM_TIMEOUT_SECS`: how long one call to a platform's API may take.
fn platform_timeout(var: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Duration> {
    Ok(match var("PARACROWD_PLATFORM_TIMEOUT_SECS") {
        Some(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| *s >= 0.1 && *s <= 600.0)
            .map(Duration::from_secs_f64)
            .context(
                "PARACROWD_PLATFORM_TIMEOUT_SECS must be a number of seconds from 0.1 to 600",
            )?,
        None => Duration::from_secs(20),
    })
}

/// MTurk's settings from the environment: `PARACROWD_MTURK_ENDPOINT` (an address used instead
/// of MTurk's two, for a local fake) and the platforms' timeout. Credentials are the AWS
/// chain's, read on the first call.
pub fn mturk(var: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<app::mturk::Settings> {
    let endpoint = match var("PARACROWD_MTURK_ENDPOINT") {
        Some(raw) => Some(
            app::prolific::base_url(&raw)
                .map_err(|e| anyhow::anyhow!("PARACROWD_MTURK_ENDPOINT {e}"))?,
        ),
        None => None,
    };
    Ok(app::mturk::Settings {
        endpoint,
        timeout: platform_timeout(var)?,
        fixed_credentials: None,
    })
}

/// Loopback: every client of the in-process test servers.
const LOOPBACK: &str = "127.0.0.0/8, ::1";

impl Config {
    /// The addresses whose connections have no per-address share (`crate::serve`).
    pub fn unshared_addresses(&self) -> std::sync::Arc<app::client_addr::TrustedProxies> {
        std::sync::Arc::new(
            self.trusted_proxies
                .clone()
                .and(&self.connection_share_exempt),
        )
    }
}

/// What a server does (`PARACROWD_ROLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Pages and server functions only.
    Web,
    /// Jobs only (mining runs, follow-ups), with `/health` and `/metrics`.
    Jobs,
    /// Both (the default: one server does everything).
    Both,
}

impl Role {
    /// Reads `web`, `jobs` or `both`.
    pub fn parse(raw: &str) -> anyhow::Result<Role> {
        match raw.trim() {
            "web" => Ok(Role::Web),
            "jobs" => Ok(Role::Jobs),
            "both" => Ok(Role::Both),
            other => anyhow::bail!("PARACROWD_ROLE must be web, jobs or both, not {other:?}"),
        }
    }

    /// Whether it serves pages and server functions.
    pub fn serves_web(self) -> bool {
        self != Role::Jobs
    }

    /// Whether it runs jobs.
    pub fn runs_jobs(self) -> bool {
        self != Role::Web
    }
}

/// The frame ancestors from `PARACROWD_FRAME_ANCESTORS` (unset: MTurk's hosts; `none`: none).
/// Each must be an `http(s)://host[:port]` origin, so nothing else gets into the page policy.
pub fn frame_ancestors(raw: Option<&str>) -> anyhow::Result<Vec<String>> {
    let Some(raw) = raw else {
        return Ok(app::domain::study::platform::MTURK_SUBMIT_HOSTS
            .iter()
            .map(|h| h.to_string())
            .collect());
    };
    if raw.trim() == "none" {
        return Ok(Vec::new());
    }
    raw.split([',', ' '])
        .map(|o| o.trim().trim_end_matches('/'))
        .filter(|o| !o.is_empty())
        .map(|o| {
            let host = o
                .strip_prefix("https://")
                .or_else(|| o.strip_prefix("http://"))
                .unwrap_or("");
            let ok = !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
            anyhow::ensure!(
                ok,
                "PARACROWD_FRAME_ANCESTORS: {o:?} is not an origin like https://www.mturk.com"
            );
            Ok(o.to_owned())
        })
        .collect()
}

impl Config {
    pub fn from_env() -> anyhow::Result<Self> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let addr = var("PARACROWD_ADDR")
            .unwrap_or_else(|| "127.0.0.1:3000".into())
            .parse()
            .context("PARACROWD_ADDR must be host:port, e.g. 127.0.0.1:3000")?;
        let max_db_connections = var("PARACROWD_MAX_DB_CONNECTIONS")
            .map(|v| {
                v.parse()
                    .context("PARACROWD_MAX_DB_CONNECTIONS must be a number")
            })
            .transpose()?
            .unwrap_or(20);
        Ok(Self {
            addr,
            database_url: var("DATABASE_URL"),
            data_dir: var("PARACROWD_DATA_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("paracrowd-data")),
            site_root: var("LEPTOS_SITE_ROOT").unwrap_or_else(|| "target/site".into()),
            secure_cookies: var("PARACROWD_SECURE_COOKIES")
                .is_some_and(|v| v == "true" || v == "1"),
            max_db_connections,
            random_seed: var("PARACROWD_RANDOM_SEED")
                .map(|v| {
                    v.parse()
                        .context("PARACROWD_RANDOM_SEED must be a whole number")
                })
                .transpose()?,
            allowed_origins: var("PARACROWD_ALLOWED_ORIGINS")
                .map(|v| {
                    v.split(',')
                        .map(|o| o.trim().trim_end_matches('/').to_owned())
                        .filter(|o| !o.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            trusted_proxies: app::client_addr::TrustedProxies::parse(
                &var("PARACROWD_TRUSTED_PROXIES").unwrap_or_default(),
            )
            .map_err(|e| anyhow::anyhow!("PARACROWD_TRUSTED_PROXIES: {e}"))?,
            frame_ancestors: frame_ancestors(var("PARACROWD_FRAME_ANCESTORS").as_deref())?,
            role: var("PARACROWD_ROLE")
                .map(|r| Role::parse(&r))
                .transpose()?
                .unwrap_or(Role::Both),
            job_timeout: match var("PARACROWD_JOB_TIMEOUT_SECS") {
                Some(v) => v
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|s| *s >= 1.0 && *s <= 3600.0)
                    .map(Duration::from_secs_f64)
                    .context(
                        "PARACROWD_JOB_TIMEOUT_SECS must be a number of seconds from 1 to 3600",
                    )?,
                None => Duration::from_secs(10),
            },
            replica: var("PARACROWD_REPLICA").is_some_and(|v| v == "true" || v == "1"),
            connection_limits: connection_limits(&var)?,
            connection_share_exempt: app::client_addr::TrustedProxies::parse(
                &var("PARACROWD_CONNECTION_SHARE_EXEMPT").unwrap_or_default(),
            )
            .map_err(|e| anyhow::anyhow!("PARACROWD_CONNECTION_SHARE_EXEMPT: {e}"))?,
            rate_limits: rate_limits(&var)?,
            prolific: prolific(&var)?,
            mturk: mturk(&var)?,
        })
    }

    /// Settings for tests: a random port, the given database, no embedded cluster.
    pub fn for_tests(database_url: String) -> Self {
        Self {
            addr: "127.0.0.1:0".parse().expect("BUG: constant address"),
            database_url: Some(database_url),
            data_dir: std::env::temp_dir(),
            site_root: "target/site".into(),
            secure_cookies: false,
            max_db_connections: 5,
            random_seed: None,
            allowed_origins: Vec::new(),
            trusted_proxies: Default::default(),
            frame_ancestors: frame_ancestors(None).expect("BUG: the default frame ancestors"),
            role: Role::Both,
            job_timeout: Duration::from_secs(10),
            replica: false,
            connection_limits: Default::default(),
            connection_share_exempt: app::client_addr::TrustedProxies::parse(LOOPBACK)
                .expect("BUG: the loopback networks parse"),
            // Tests make many accounts from one address; those of the limits set their own.
            prolific: None,
            mturk: app::mturk::Settings {
                endpoint: None,
                timeout: Duration::from_secs(20),
                fixed_credentials: None,
            },
            rate_limits: {
                let many = app::domain::rate_limit::RateLimit {
                    most: 100_000,
                    window: Duration::from_secs(60),
                };
                app::domain::rate_limit::RateLimits {
                    registrations: many,
                    study_accounts: many,
                    calls: many,
                    anonymous_calls: many,
                }
            },
        }
    }
}

fn connection_limits(
    var: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<crate::serve::ConnectionLimits> {
    let defaults = crate::serve::ConnectionLimits::default();
    let number = |name: &str, default: u64| -> anyhow::Result<u64> {
        match var(name) {
            Some(v) => v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .with_context(|| format!("{name} must be a whole number above 0")),
            None => Ok(default),
        }
    };
    let secs = |name: &str, default: Duration| -> anyhow::Result<Duration> {
        number(name, default.as_secs()).map(Duration::from_secs)
    };
    Ok(crate::serve::ConnectionLimits {
        header_timeout: secs("PARACROWD_HEADER_TIMEOUT_SECS", defaults.header_timeout)?,
        body_timeout: secs("PARACROWD_BODY_TIMEOUT_SECS", defaults.body_timeout)?,
        write_timeout: secs("PARACROWD_WRITE_TIMEOUT_SECS", defaults.write_timeout)?,
        max_connections: number("PARACROWD_MAX_CONNECTIONS", defaults.max_connections as u64)?
            as usize,
        max_per_address: number(
            "PARACROWD_MAX_CONNECTIONS_PER_ADDRESS",
            defaults.max_per_address as u64,
        )? as usize,
    })
}

fn rate_limits(
    var: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<app::domain::rate_limit::RateLimits> {
    use app::domain::rate_limit::RateLimit;
    let defaults = app::domain::rate_limit::RateLimits::default();
    let limit = |name: &str, default: RateLimit| -> anyhow::Result<RateLimit> {
        match var(name) {
            Some(v) => RateLimit::parse(&v).map_err(|e| anyhow::anyhow!("{name}: {e}")),
            None => Ok(default),
        }
    };
    Ok(app::domain::rate_limit::RateLimits {
        registrations: limit("PARACROWD_RATE_REGISTRATIONS", defaults.registrations)?,
        study_accounts: limit("PARACROWD_RATE_STUDY_ACCOUNTS", defaults.study_accounts)?,
        calls: limit("PARACROWD_RATE_CALLS", defaults.calls)?,
        anonymous_calls: limit("PARACROWD_RATE_ANONYMOUS_CALLS", defaults.anonymous_calls)?,
    })
}

/// Help text for the settings above.
pub const ENV_HELP: &str = "\
Environment:
  PARACROWD_ADDR               listen address (default 127.0.0.1:3000)
  DATABASE_URL                 PostgreSQL to use; unset = embedded cluster under the data dir
  PARACROWD_DATA_DIR           data directory of the embedded cluster (default ./paracrowd-data)
  LEPTOS_SITE_ROOT             built site with pkg/ (default target/site)
  PARACROWD_SECURE_COOKIES     true behind HTTPS
  PARACROWD_MAX_DB_CONNECTIONS database pool size (default 20)
  PARACROWD_ALLOWED_ORIGINS    origins besides the request's host that may post forms
                               (comma-separated), for a proxy that rewrites Host
  PARACROWD_FRAME_ANCESTORS    origins that may frame the study and task pages
                               (default MTurk's two hosts; none: never framed)
  PARACROWD_PROLIFIC_TOKEN     a Prolific API token: the payments page then reconciles,
                               approves and pays bonuses through Prolific (never shown)
  PARACROWD_PROLIFIC_TOKEN_FILE
                               a file holding that token instead (one of the two)
  PARACROWD_PROLIFIC_API_URL   Prolific's API (default https://api.prolific.com)
  PARACROWD_MTURK_ENDPOINT     an address used instead of MTurk's sandbox and production
                               endpoints (a local fake); credentials come from the AWS chain
                               (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)
  PARACROWD_PLATFORM_TIMEOUT_SECS
                               how long one call to a platform's API may take (default 20)
  PARACROWD_ROLE               web, jobs or both (default): what this server does; several
                               web servers can share one PostgreSQL with a jobs server
  PARACROWD_JOB_TIMEOUT_SECS   a mining run whose server stopped beating for this long is taken
                               over by another (default 10)
  PARACROWD_REPLICA            true when this server is one of several: then DATABASE_URL is
                               required (no embedded cluster)
  PARACROWD_TRUSTED_PROXIES    proxies in front of the app (IPs or CIDR blocks, comma-separated)
                               whose X-Forwarded-For names the client; unset = ignore the header
  PARACROWD_HEADER_TIMEOUT_SECS a request head must arrive within this (default 20); also
                               closes connections idle between requests
  PARACROWD_BODY_TIMEOUT_SECS  a request body may stall this long between chunks (default 30)
  PARACROWD_WRITE_TIMEOUT_SECS a client that stops reading a response is dropped after this
                               (default 60)
  PARACROWD_MAX_CONNECTIONS    open connections at most; more are answered 503 (default 1000)
  PARACROWD_MAX_CONNECTIONS_PER_ADDRESS
                               open connections from one address at most, proxies in
                               PARACROWD_TRUSTED_PROXIES and PARACROWD_CONNECTION_SHARE_EXEMPT
                               excepted; more get 503 (default 64)
  PARACROWD_RATE_REGISTRATIONS registrations from one address at most, N/SECONDS (default 20/600)
  PARACROWD_RATE_STUDY_ACCOUNTS
                               new study-link accounts from one address at most (default 30/600)
  PARACROWD_RATE_CALLS         server-function calls of one signed-in account at most, N/SECONDS
                               (default 600/60)
  PARACROWD_RATE_ANONYMOUS_CALLS
                               server-function calls without an account from one address at most
                               (default 1200/60)
  PARACROWD_CONNECTION_SHARE_EXEMPT
                               addresses or CIDR blocks with no per-address share besides
                               the trusted proxies (default none)
  PARACROWD_SCORER             local (default: ONNX Runtime here) or remote (an inference
                               server: Triton or KServe, Open Inference Protocol over gRPC)
  PARACROWD_SCORER_URL         the inference server's gRPC address, e.g. http://triton:8001
  PARACROWD_SCORER_DEADLINE_MS a call slower than this answers busy (default 2000)
  PARACROWD_SCORER_FALLBACK    none (default: busy while it is down) or local (score here)
  PARACROWD_SCORER_CONCURRENCY Checks in flight to the server at once (default 64)
  PARACROWD_RANDOM_SEED        fixes the draw of hidden test pairs (a replayable schedule);
                               unset = random
  PG_BIN_DIR                   PostgreSQL binaries for the embedded cluster (default: newest
                               /usr/lib/postgresql/*/bin, else `pg_config --bindir`)
  RUST_LOG, PARACROWD_LOG_FORMAT=json   logging

Models (the Check's scorer, mining's embeddings):
  ORT_DYLIB_PATH               ONNX Runtime's libonnxruntime.so (the scripts set it)
  PARACROWD_MODELS             auto (default), paper, standin or lite: which source scores the
                               Check (only that one, start-up stops if it does not load)
  PARACROWD_MI_MODEL, PARACROWD_BLEURT_MODEL
                               both or neither: exactly these model directories
  PARACROWD_CACHE              the model cache (default ~/.cache/paracrowd)
  PARACROWD_PAPER_VARIANT      int8 or fp32 copy of the paper's models (default int8 on the CPU
                               when its check passed)
  PARACROWD_MODELS_DIR         the development stand-ins (only beside a development checkout)
  PARACROWD_SHARED_DIR         the development folder the scripts and tests look in; the
                               binary never reads it
  PARACROWD_EMBEDDING_MODEL    all-MiniLM-L6-v2 for the lite scorer and the embedding miner
                               (default $PARACROWD_CACHE/all-minilm-l6-v2)
  PARACROWD_LITE_HEADS         a heads file for the lite scorer instead of the built-in one
  PARACROWD_EXPORT_ENV, PARACROWD_PYTHON
                               the Python environment `models install paper` exports with
                               (default $PARACROWD_CACHE/py-export, python3)
  HF_ENDPOINT                  another hub (a mirror) for `models install paper`
  PARACROWD_ML_PROVIDER        cpu (default) or cuda (a build with --features cuda)
  PARACROWD_ML_THREADS         ONNX Runtime intra-op threads (default all cores)
  PARACROWD_ML_MAX_BATCH, PARACROWD_ML_MAX_WAIT_MS, PARACROWD_ML_QUEUE
                               dynamic batching: largest batch, wait for more, queue bound
                               (default 32, 2, 64)
  PARACROWD_ML_NICE            nice value (0-19) of the scoring threads (default 0)";
