//! The load tool's engine (`paracrowd-load`, and the crash test): simulated annotators over HTTP
//! against a running server. Judging workers answer, each answer bringing the next pair; APT workers loop next → Check
//! (twice, sometimes) → Submit. Every acknowledged judgment, attempt and submission is kept, so
//! [`verify`] can check afterwards in the database that each is there exactly once.
//! Workers ride out a dropped connection or a restarting server by retrying the same request.
pub mod history;
pub mod pacing;
pub mod report;
pub mod setup;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::PgPool;
use tokio::sync::Mutex;
use uuid::Uuid;

pub use report::{percentile, render};
pub use setup::{prepare, Prepared};

/// What the workers do, for how long, and how they pace themselves (see [`pacing`]).
#[derive(Debug, Clone, Default)]
pub struct LoadConfig {
    pub base_url: String,
    pub duration: Duration,
    /// The mean of a worker's exponentially distributed pause between tasks (0: back to back,
    /// as fast as the server answers). Workers also start at random offsets within
    /// `max(think, 1 s)`.
    pub think: Duration,
    /// Open loop: judgments started per second, whatever the server does, on whichever judge
    /// is free (`None`: each judge loops on its own). Writers stay closed-loop.
    pub rate: Option<f64>,
}

/// Everything the server acknowledged, and how long each call took.
#[derive(Debug, Default)]
pub struct Outcome {
    /// (assignment id, the answer) of every judgment answered 200 and not a repeat.
    pub judgments: Vec<(Uuid, bool)>,
    /// Attempt ids of every Check answered 200.
    pub attempts: Vec<Uuid>,
    /// Attempt ids of every Submit answered 200 and not a repeat.
    pub submissions: Vec<Uuid>,
    /// Seconds per call, by endpoint.
    pub latencies: BTreeMap<String, Vec<f64>>,
    /// Failed calls by endpoint and status (or `connection`).
    pub errors: BTreeMap<(String, String), u64>,
    /// Checks answered "busy" (503 Overloaded): the queue bound at work, not an error.
    pub busy: u64,
    /// Open loop: arrivals that were due, and those that found every judge busy and waited.
    pub open_loop: Option<(u64, u64)>,
    /// How the workers paced themselves, in words (for the printout).
    pub pacing: String,
    pub elapsed: Duration,
}

impl Outcome {
    fn merge(&mut self, other: Outcome) {
        self.judgments.extend(other.judgments);
        self.attempts.extend(other.attempts);
        self.submissions.extend(other.submissions);
        for (k, v) in other.latencies {
            self.latencies.entry(k).or_default().extend(v);
        }
        for (k, v) in other.errors {
            *self.errors.entry(k).or_default() += v;
        }
        self.busy += other.busy;
    }
}

/// One simulated annotator's HTTP session.
struct Worker {
    client: reqwest::Client,
    base: String,
    out: Outcome,
    deadline: Instant,
    /// The judging task the last answer brought.
    ahead: Option<Value>,
}

/// The answer to one call: status and JSON body, or `None` when the deadline passed first.
type Answer = Option<(u16, Value)>;

impl Worker {
    /// Posts a server function, retrying while the connection fails (a restarting server) until
    /// the deadline. Only answered calls are timed.
    async fn call(&mut self, name: &str, form: &[(&str, &str)]) -> Answer {
        loop {
            if Instant::now() >= self.deadline {
                return None;
            }
            let started = Instant::now();
            let sent = self
                .client
                .post(format!("{}/api/{name}", self.base))
                .header("accept", "application/json")
                .form(form)
                .timeout(Duration::from_secs(30))
                .send()
                .await;
            let resp = match sent {
                Ok(r) => r,
                Err(_) => {
                    *self
                        .out
                        .errors
                        .entry((name.to_owned(), "connection".into()))
                        .or_default() += 1;
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            };
            let status = resp.status().as_u16();
            let body = resp.bytes().await;
            let seconds = started.elapsed().as_secs_f64();
            let Ok(body) = body else {
                *self
                    .out
                    .errors
                    .entry((name.to_owned(), "connection".into()))
                    .or_default() += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            };
            self.out
                .latencies
                .entry(name.to_owned())
                .or_default()
                .push(seconds);
            let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
            if status == 503 && json == Value::String("Overloaded".into()) {
                self.out.busy += 1;
            } else if status >= 400 {
                *self
                    .out
                    .errors
                    .entry((name.to_owned(), status.to_string()))
                    .or_default() += 1;
            }
            if status == 503 || status == 502 {
                // Busy or the database away: back off, then the same call again.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            return Some((status, json));
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Role {
    Judge,
    Writer,
}

/// Runs the judging and APT workers of `prepared` until `config.duration` has passed.
pub async fn run(prepared: &Prepared, config: &LoadConfig) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let deadline = started + config.duration;
    let total = Arc::new(Mutex::new(Outcome::default()));
    let spread = config.think.max(Duration::from_secs(1));
    let worker = |client: &reqwest::Client| Worker {
        client: client.clone(),
        base: config.base_url.clone(),
        out: Outcome::default(),
        deadline,
        ahead: None,
    };
    let closed_judges = if config.rate.is_some() {
        Vec::new()
    } else {
        prepared.judges.iter().collect()
    };
    let workers = closed_judges
        .into_iter()
        .map(|c| (c, Role::Judge, &prepared.judge_campaign))
        .chain(
            prepared
                .writers
                .iter()
                .map(|c| (c, Role::Writer, &prepared.apt_campaign)),
        );
    let mut tasks = Vec::new();
    for (i, (client, role, campaign)) in workers.enumerate() {
        let mut w = worker(client);
        let campaign = campaign.clone();
        let think = config.think;
        let total = total.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = Rng::new(i as u64 ^ 0x5DEE_CE66);
            tokio::time::sleep(pacing::start_offset(&mut rng, spread)).await;
            match role {
                Role::Judge => judge_loop(&mut w, &campaign, think, &mut rng).await,
                Role::Writer => write_loop(&mut w, &campaign, think, &mut rng).await,
            }
            total.lock().await.merge(w.out);
        }));
    }
    if let Some(rate) = config.rate {
        let judges = prepared
            .judges
            .iter()
            .enumerate()
            .map(|(i, c)| (worker(c), Rng::new(i as u64)))
            .collect();
        let campaign: Arc<str> = prepared.judge_campaign.as_str().into();
        let start = tokio::time::Instant::from_std(started);
        let end = tokio::time::Instant::from_std(deadline);
        let run = pacing::open_loop(judges, rate, start, end, move |(mut w, mut rng)| {
            let campaign = campaign.clone();
            async move {
                let turn = match judge_once(&mut w, &campaign, &mut rng).await {
                    Some(_) => pacing::Turn::Done,
                    None => pacing::Turn::Finished,
                };
                ((w, rng), turn)
            }
        })
        .await;
        let mut total = total.lock().await;
        for (w, _) in run.workers {
            total.merge(w.out);
        }
        total
            .latencies
            .entry("judgment".into())
            .or_default()
            .extend(run.latencies);
        total.open_loop = Some((run.intended, run.waited));
    }
    for t in tasks {
        t.await?;
    }
    let mut out = std::mem::take(&mut *total.lock().await);
    out.elapsed = started.elapsed();
    out.pacing = config.describe();
    Ok(out)
}

impl LoadConfig {
    /// The pacing in words, as the printout gives it.
    pub fn describe(&self) -> String {
        let think = if self.think.is_zero() {
            "no pause between tasks".to_owned()
        } else {
            format!("exponential pauses, mean {} ms", self.think.as_millis())
        };
        let starts = format!(
            "starts spread uniformly over {:.1} s",
            self.think.max(Duration::from_secs(1)).as_secs_f64()
        );
        match self.rate {
            Some(rate) => format!(
                "open loop: {rate} judgments/s started on a schedule, the judgment's latency \
                 counted from its intended start; writers closed-loop ({think}, {starts})"
            ),
            None => format!("closed loop: {think}, {starts}"),
        }
    }
}

/// Each simulated worker's seeded draws (`domain::rng`; answers and rewrites need no quality here).
pub(crate) type Rng = app::domain::rng::SplitMix64;

/// One judgment: an answer to the task the last answer brought (or, without one, to the task
/// `judge/next` gives). `None` when there is nothing left, the worker was stopped, or the
/// deadline came first.
async fn judge_once(w: &mut Worker, campaign: &str, rng: &mut Rng) -> Option<()> {
    // The task the last answer brought (one round trip per judgment), else asked for.
    let task = match w.ahead.take() {
        Some(task) => task,
        None => match w.call("judge/next", &[("campaign_id", campaign)]).await {
            Some((200, task)) => task,
            _ => return None,
        },
    };
    // No assignment: nothing left, or stopped.
    let assignment = task["Judge"]["assignment_id"].as_str()?;
    let answer = rng.next_u64().is_multiple_of(2);
    let form = [
        ("campaign_id", campaign),
        ("assignment_id", assignment),
        ("is_paraphrase", if answer { "true" } else { "false" }),
    ];
    let (status, outcome) = w.call("judge/answer", &form).await?;
    if status == 200 && outcome["was_already_answered"] == false {
        if let Ok(id) = assignment.parse() {
            w.out.judgments.push((id, answer));
        }
    }
    if status == 200 && outcome["next"].is_object() {
        w.ahead = Some(outcome["next"].clone());
    }
    Some(())
}

/// A closed-loop judge: judgments back to back, with an exponential pause of mean `think`
/// between them. Each judgment's time (the answer, plus `judge/next` when it was needed) is kept
/// as `judgment`.
async fn judge_loop(w: &mut Worker, campaign: &str, think: Duration, rng: &mut Rng) {
    loop {
        let started = Instant::now();
        if judge_once(w, campaign, rng).await.is_none() {
            return;
        }
        let seconds = started.elapsed().as_secs_f64();
        w.out
            .latencies
            .entry("judgment".into())
            .or_default()
            .push(seconds);
        tokio::time::sleep(pacing::think_time(rng, think)).await;
    }
}

/// A rewrite of `source`: its words shuffled, one dropped (real models score it; any verdict).
fn rewrite(source: &str, rng: &mut Rng) -> String {
    let mut words: Vec<&str> = source.split_whitespace().collect();
    for i in (1..words.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        words.swap(i, j);
    }
    if words.len() > 3 {
        let k = rng.below(words.len() as u64) as usize;
        words.remove(k);
    }
    words.join(" ")
}

async fn write_loop(w: &mut Worker, campaign: &str, think: Duration, rng: &mut Rng) {
    loop {
        let Some((200, task)) = w.call("apt/next", &[("campaign_id", campaign)]).await else {
            return;
        };
        let (Some(source_id), Some(source)) = (
            task["Write"]["source_id"].as_str().map(str::to_owned),
            task["Write"]["source"].as_str().map(str::to_owned),
        ) else {
            return; // exhausted or complete
        };
        let checks = 1 + rng.below(2);
        let mut last = None;
        for _ in 0..checks {
            let text = rewrite(&source, rng);
            let form = [
                ("campaign_id", campaign),
                ("source_id", source_id.as_str()),
                ("text", text.as_str()),
            ];
            let Some((status, outcome)) = w.call("apt/check", &form).await else {
                return;
            };
            if status == 200 {
                if let Some(id) = outcome["attempt_id"].as_str().and_then(|s| s.parse().ok()) {
                    w.out.attempts.push(id);
                    last = Some(id);
                }
            } else if status == 422 {
                // The rewrite was refused (e.g. it contains the source): skip the sentence.
                break;
            }
        }
        match last {
            Some(attempt) => {
                let id = attempt.to_string();
                let form = [("campaign_id", campaign), ("attempt_id", id.as_str())];
                let Some((status, outcome)) = w.call("apt/submit", &form).await else {
                    return;
                };
                if status == 200 && outcome["was_already_submitted"] == false {
                    w.out.submissions.push(attempt);
                }
            }
            None => {
                let form = [("campaign_id", campaign), ("source_id", source_id.as_str())];
                if w.call("apt/skip", &form).await.is_none() {
                    return;
                }
            }
        }
        tokio::time::sleep(pacing::think_time(rng, think)).await;
    }
}

/// What the database holds of what was acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    pub judgments_acknowledged: usize,
    /// Acknowledged judgments stored once with the acknowledged answer.
    pub judgments_found: usize,
    /// Assignments with more than one judgment (the schema forbids it; counted anyway).
    pub judgments_duplicated: usize,
    pub judgments_in_database: i64,
    pub attempts_acknowledged: usize,
    pub attempts_found: usize,
    pub attempts_in_database: i64,
    pub submissions_acknowledged: usize,
    pub submissions_found: usize,
    /// Attempts submitted more than once.
    pub submissions_duplicated: i64,
    /// Workers paid past the campaign's cap.
    pub over_cap: i64,
    /// Rows of the judging tables that name a row that is not there (`judge_orphans`).
    pub orphans: i64,
}

impl Verification {
    /// Nothing acknowledged is missing and nothing is stored twice.
    pub fn holds(&self) -> bool {
        self.judgments_found == self.judgments_acknowledged
            && self.judgments_duplicated == 0
            && self.attempts_found == self.attempts_acknowledged
            && self.submissions_found == self.submissions_acknowledged
            && self.submissions_duplicated == 0
            && self.over_cap == 0
            && self.orphans == 0
    }
}

pub async fn verify(
    pool: &PgPool,
    prepared: &Prepared,
    out: &Outcome,
) -> anyhow::Result<Verification> {
    let judge: Uuid = prepared.judge_campaign.parse()?;
    let apt: Uuid = prepared.apt_campaign.parse()?;
    let ids: Vec<Uuid> = out.judgments.iter().map(|j| j.0).collect();
    let answers: Vec<bool> = out.judgments.iter().map(|j| j.1).collect();
    let judgments_found: i64 = sqlx::query_scalar(
        "select count(*) from unnest($1::uuid[], $2::bool[]) as a(id, answer)
         where (select count(*) from judge_judgment j
                where j.assignment_id = a.id and j.is_paraphrase = a.answer) = 1",
    )
    .bind(&ids)
    .bind(&answers)
    .fetch_one(pool)
    .await?;
    let judgments_duplicated: i64 = sqlx::query_scalar(
        "select count(*) from (select assignment_id from judge_judgment where campaign_id = $1
         group by assignment_id having count(*) > 1) d",
    )
    .bind(judge)
    .fetch_one(pool)
    .await?;
    let judgments_in_database: i64 =
        sqlx::query_scalar("select count(*) from judge_judgment where campaign_id = $1")
            .bind(judge)
            .fetch_one(pool)
            .await?;
    let attempts_found: i64 = sqlx::query_scalar(
        "select count(*) from apt_attempt where apt_attempt_id = any($1) and campaign_id = $2",
    )
    .bind(&out.attempts)
    .bind(apt)
    .fetch_one(pool)
    .await?;
    let attempts_in_database: i64 =
        sqlx::query_scalar("select count(*) from apt_attempt where campaign_id = $1")
            .bind(apt)
            .fetch_one(pool)
            .await?;
    let submissions_found: i64 = sqlx::query_scalar(
        "select count(*) from unnest($1::uuid[]) as s(id)
         where (select count(*) from apt_submission a where a.apt_attempt_id = s.id) = 1",
    )
    .bind(&out.submissions)
    .fetch_one(pool)
    .await?;
    let submissions_duplicated: i64 = sqlx::query_scalar(
        "select count(*) from (select apt_attempt_id from apt_submission where campaign_id = $1
         group by apt_attempt_id having count(*) > 1) d",
    )
    .bind(apt)
    .fetch_one(pool)
    .await?;
    let over_cap: i64 = sqlx::query_scalar(
        "select count(*) from (select s.app_user_id from apt_submission s
         join campaign c using (campaign_id) where s.campaign_id = $1
         group by s.app_user_id, c.budget_cap_cents having sum(s.paid_cents) > c.budget_cap_cents) o",
    )
    .bind(apt)
    .fetch_one(pool)
    .await?;
    let orphans: i64 =
        sqlx::query_scalar("select coalesce(sum(orphans), 0)::int8 from judge_orphans()")
            .fetch_one(pool)
            .await?;
    Ok(Verification {
        judgments_acknowledged: out.judgments.len(),
        judgments_found: judgments_found as usize,
        judgments_duplicated: judgments_duplicated as usize,
        judgments_in_database,
        attempts_acknowledged: out.attempts.len(),
        attempts_found: attempts_found as usize,
        attempts_in_database,
        submissions_acknowledged: out.submissions.len(),
        submissions_found: submissions_found as usize,
        submissions_duplicated,
        over_cap,
        orphans,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rewrite_keeps_the_words_but_one() {
        let mut rng = Rng::new(3);
        let source = "the committee approved the new budget on tuesday";
        let r = rewrite(source, &mut rng);
        assert_eq!(r.split_whitespace().count(), 7);
        assert!(r.split_whitespace().all(|w| source.contains(w)));
    }

    #[test]
    fn statement_counts_are_read_from_the_servers_own_metrics() {
        let text = "# TYPE paracrowd_judgments_total counter\nparacrowd_judgments_total 12\n\
                    paracrowd_sql_statements_total 180\n";
        assert_eq!(statement_counts(text), Some((12, 180)));
        assert_eq!(statement_counts("paracrowd_judgments_total 1\n"), None);
    }

    #[test]
    fn the_health_timing_is_read_from_the_servers_own_metrics() {
        let mut snapshot = app::metrics::Snapshot::default();
        let key = ("/health".to_owned(), "GET".to_owned(), "2xx".to_owned());
        let other = ("/api/{*fn}".to_owned(), "POST".to_owned(), "2xx".to_owned());
        for seconds in [0.0004, 0.003, 0.049, 0.051, 0.2] {
            snapshot
                .requests
                .entry(key.clone())
                .or_default()
                .observe(seconds);
            snapshot
                .requests
                .entry(other.clone())
                .or_default()
                .observe(0.001);
        }
        let text = app::metrics::render(&snapshot);
        assert_eq!(health_timing(&text), Some((3, 5)));
        assert_eq!(health_timing("# nothing yet\n"), None);
    }
}

/// What a burst of simultaneous Checks came to.
#[derive(Debug, Default)]
pub struct BurstOutcome {
    /// Seconds to the answer, for Checks that were scored.
    pub scored: Vec<f64>,
    /// Seconds to the answer, for Checks answered "busy".
    pub busy: Vec<f64>,
    /// Anything else: (status, body).
    pub other: Vec<(u16, String)>,
    /// Attempt ids of the scored Checks.
    pub attempts: Vec<Uuid>,
    /// `/health` latencies (seconds), probed every 10 ms during the burst.
    pub health: Vec<f64>,
    /// `/health` answers other than 200.
    pub health_failures: usize,
    /// The server's own timing of the `/health` requests during the burst (from `/metrics`):
    /// how many it answered within 50 ms, of how many.
    pub health_server_within_50ms: Option<(u64, u64)>,
}

/// From a `/metrics` text: the `/health` 200s answered within 50 ms, and all of them.
pub fn health_timing(metrics: &str) -> Option<(u64, u64)> {
    let series = "paracrowd_http_request_duration_seconds";
    let labels = "route=\"/health\",method=\"GET\",status=\"2xx\"";
    let value = |name: &str| {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
    };
    let within = value(&format!("{series}_bucket{{{labels},le=\"0.05\"}}"))?;
    let count = value(&format!("{series}_count{{{labels}}}"))?;
    Some((within, count))
}

/// From a `/metrics` text: the judgments stored and the SQL statements sent so far.
pub fn statement_counts(metrics: &str) -> Option<(u64, u64)> {
    let value = |name: &str| {
        metrics.lines().find_map(|l| {
            l.strip_prefix(name)?
                .strip_prefix(' ')?
                .trim()
                .parse::<u64>()
                .ok()
        })
    };
    Some((
        value("paracrowd_judgments_total")?,
        value("paracrowd_sql_statements_total")?,
    ))
}

/// The server's (judgments, SQL statements) counters now.
pub async fn server_statement_counts(base: &str) -> Option<(u64, u64)> {
    statement_counts(&server_metrics(base).await?)
}

async fn server_health_timing(base: &str) -> Option<(u64, u64)> {
    health_timing(&server_metrics(base).await?)
}

/// The server's `/metrics` text.
async fn server_metrics(base: &str) -> Option<String> {
    reqwest::get(format!("{base}/metrics"))
        .await
        .ok()?
        .text()
        .await
        .ok()
}

/// Sends `n` Checks at once, spread over the writers (each on its current sentence), while
/// probing `/health`.
pub async fn burst(prepared: &Prepared, base: &str, n: usize) -> anyhow::Result<BurstOutcome> {
    let campaign = prepared.apt_campaign.as_str();
    let mut sources = Vec::new();
    for c in &prepared.writers {
        let task: Value = c
            .post(format!("{base}/api/apt/next"))
            .header("accept", "application/json")
            .form(&[("campaign_id", campaign)])
            .send()
            .await?
            .json()
            .await?;
        let id = task["Write"]["source_id"].as_str().map(str::to_owned);
        let text = task["Write"]["source"].as_str().map(str::to_owned);
        match (id, text) {
            (Some(id), Some(text)) => sources.push((c.clone(), id, text)),
            _ => anyhow::bail!("a writer has no sentence: {task}"),
        }
    }
    anyhow::ensure!(!sources.is_empty(), "no writers");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let server_before = server_health_timing(base).await.unwrap_or((0, 0));
    // The probe has a thread and runtime of its own: in the load tool's runtime it would wait
    // behind the burst's own 500 client tasks, and time them instead of the server.
    let probe = {
        let stop = stop.clone();
        let url = format!("{base}/health");
        std::thread::spawn(move || -> anyhow::Result<(Vec<f64>, usize)> {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            Ok(rt.block_on(async move {
                let c = reqwest::Client::new();
                let (mut times, mut failures) = (Vec::new(), 0);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let started = Instant::now();
                    match c.get(&url).send().await {
                        Ok(r) if r.status().is_success() => {
                            times.push(started.elapsed().as_secs_f64())
                        }
                        _ => failures += 1,
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                (times, failures)
            }))
        })
    };
    let gate = Arc::new(tokio::sync::Barrier::new(n));
    let mut calls = Vec::new();
    for i in 0..n {
        let (c, source_id, source) = sources[i % sources.len()].clone();
        let gate = gate.clone();
        let url = format!("{base}/api/apt/check");
        let campaign = campaign.to_owned();
        let mut rng = Rng::new(i as u64 + 1);
        calls.push(tokio::spawn(async move {
            let text = rewrite(&source, &mut rng);
            gate.wait().await;
            let started = Instant::now();
            let resp = c
                .post(url)
                .header("accept", "application/json")
                .form(&[
                    ("campaign_id", campaign.as_str()),
                    ("source_id", &source_id),
                    ("text", &text),
                ])
                .send()
                .await;
            let seconds = started.elapsed().as_secs_f64();
            match resp {
                Ok(r) => {
                    let status = r.status().as_u16();
                    (status, r.text().await.unwrap_or_default(), seconds)
                }
                Err(e) => (0, e.to_string(), seconds),
            }
        }));
    }
    let mut out = BurstOutcome::default();
    for call in calls {
        let (status, body, seconds) = call.await?;
        let json: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        if status == 200 {
            out.scored.push(seconds);
            if let Some(id) = json["attempt_id"].as_str().and_then(|s| s.parse().ok()) {
                out.attempts.push(id);
            }
        } else if status == 503 && json == Value::String("Overloaded".into()) {
            out.busy.push(seconds);
        } else {
            out.other.push((status, body));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (health, failures) = tokio::task::spawn_blocking(move || probe.join())
        .await?
        .map_err(|_| anyhow::anyhow!("the /health probe panicked"))??;
    out.health = health;
    out.health_failures = failures;
    out.health_server_within_50ms = server_health_timing(base)
        .await
        .map(|(within, count)| (within - server_before.0, count - server_before.1));
    Ok(out)
}
