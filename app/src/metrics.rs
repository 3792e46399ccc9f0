//! Process metrics for `/metrics` (Prometheus text format 0.0.4): request latency histograms by
//! route, method and status class, and counters of recorded judgments, attempts and
//! submissions. The scoring queue's numbers come from the scorer itself. One process's numbers:
//! a scraper sums over processes.
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

/// Upper bounds of the latency buckets, in seconds.
pub const BUCKETS: [f64; 12] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// A latency histogram: counts per bucket (not cumulative), plus the sum and count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    pub buckets: [u64; BUCKETS.len()],
    pub sum: f64,
    pub count: u64,
}

impl Histogram {
    pub fn observe(&mut self, seconds: f64) {
        if let Some(i) = BUCKETS.iter().position(|b| seconds <= *b) {
            self.buckets[i] += 1;
        }
        self.sum += seconds;
        self.count += 1;
    }
}

/// (route, method, status class like `2xx`).
pub type RequestKey = (String, String, String);

/// Everything `/metrics` shows, gathered at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub requests: BTreeMap<RequestKey, Histogram>,
    pub judgments: u64,
    pub attempts: u64,
    pub submissions: u64,
    /// SQL statements sent (BEGIN and COMMIT included), from sqlx's log events.
    pub sql_statements: u64,
    pub scoring: Option<crate::ml::ScorerLoad>,
}

static REQUESTS: LazyLock<Mutex<BTreeMap<RequestKey, Histogram>>> = LazyLock::new(Default::default);
static JUDGMENTS: AtomicU64 = AtomicU64::new(0);
static ATTEMPTS: AtomicU64 = AtomicU64::new(0);
static SUBMISSIONS: AtomicU64 = AtomicU64::new(0);
static SQL_STATEMENTS: AtomicU64 = AtomicU64::new(0);

pub fn observe_request(route: &str, method: &str, status: u16, seconds: f64) {
    let key = (
        route.to_owned(),
        method.to_owned(),
        format!("{}xx", status / 100),
    );
    let mut map = REQUESTS.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(key).or_default().observe(seconds);
}

/// A judgment was stored (not an idempotent repeat).
pub fn judgment_recorded() {
    JUDGMENTS.fetch_add(1, Ordering::Relaxed);
}

/// A Check was scored and stored.
pub fn attempt_recorded() {
    ATTEMPTS.fetch_add(1, Ordering::Relaxed);
}

/// A submission was stored (paid).
pub fn submission_recorded() {
    SUBMISSIONS.fetch_add(1, Ordering::Relaxed);
}

/// The process sent one SQL statement (counted from sqlx's per-statement log event).
pub fn sql_statement_sent() {
    SQL_STATEMENTS.fetch_add(1, Ordering::Relaxed);
}

pub fn snapshot(scoring: Option<crate::ml::ScorerLoad>) -> Snapshot {
    Snapshot {
        requests: REQUESTS.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        judgments: JUDGMENTS.load(Ordering::Relaxed),
        attempts: ATTEMPTS.load(Ordering::Relaxed),
        submissions: SUBMISSIONS.load(Ordering::Relaxed),
        sql_statements: SQL_STATEMENTS.load(Ordering::Relaxed),
        scoring,
    }
}

/// A label value with `\`, `"` and line breaks escaped.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Unlabelled samples as `(name, kind, help, value)` rows, each with its HELP and TYPE lines.
fn write_samples(out: &mut String, rows: &[(&str, &str, &str, u64)]) {
    for (name, kind, help, v) in rows {
        let _ = writeln!(
            out,
            "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
        );
    }
}

/// The snapshot in Prometheus' text format.
pub fn render(s: &Snapshot) -> String {
    let mut out = String::new();
    out.push_str(
        "# HELP paracrowd_http_request_duration_seconds Time to answer a request, by route.\n",
    );
    out.push_str("# TYPE paracrowd_http_request_duration_seconds histogram\n");
    for ((route, method, status), h) in &s.requests {
        let labels = format!(
            "route=\"{}\",method=\"{}\",status=\"{}\"",
            label(route),
            label(method),
            label(status)
        );
        let mut cumulative = 0;
        for (bound, n) in BUCKETS.iter().zip(h.buckets) {
            cumulative += n;
            let _ = writeln!(
                out,
                "paracrowd_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {cumulative}"
            );
        }
        let _ = writeln!(
            out,
            "paracrowd_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
            h.count
        );
        let _ = writeln!(
            out,
            "paracrowd_http_request_duration_seconds_sum{{{labels}}} {}",
            h.sum
        );
        let _ = writeln!(
            out,
            "paracrowd_http_request_duration_seconds_count{{{labels}}} {}",
            h.count
        );
    }
    let counters = [
        (
            "paracrowd_judgments_total",
            "counter",
            "Judgments stored by this process.",
            s.judgments,
        ),
        (
            "paracrowd_attempts_total",
            "counter",
            "APT Checks scored and stored by this process.",
            s.attempts,
        ),
        (
            "paracrowd_submissions_total",
            "counter",
            "APT submissions stored by this process.",
            s.submissions,
        ),
        (
            "paracrowd_sql_statements_total",
            "counter",
            "SQL statements this process sent to PostgreSQL (BEGIN and COMMIT included).",
            s.sql_statements,
        ),
    ];
    write_samples(&mut out, &counters);
    if let Some(l) = &s.scoring {
        let gauges = [
            (
                "paracrowd_scoring_queue_depth",
                "gauge",
                "Checks waiting for the models now.",
                l.queue_depth,
            ),
            (
                "paracrowd_scoring_batches_total",
                "counter",
                "Forward batches run.",
                l.batches,
            ),
            (
                "paracrowd_scoring_batched_pairs_total",
                "counter",
                "Pairs scored in those batches (divide by batches for the mean batch size).",
                l.pairs,
            ),
            (
                "paracrowd_scoring_busy_total",
                "counter",
                "Checks refused because the queue was full.",
                l.busy,
            ),
        ];
        write_samples(&mut out, &gauges);
        if let Some(r) = &l.remote {
            let remote = [
                (
                    "paracrowd_scoring_remote_up",
                    "gauge",
                    "1 while the inference server answers, 0 while it is down.",
                    u64::from(r.up),
                ),
                (
                    "paracrowd_scoring_remote_scored_total",
                    "counter",
                    "Checks the inference server scored.",
                    r.scored,
                ),
                (
                    "paracrowd_scoring_remote_failures_total",
                    "counter",
                    "Calls to the inference server that failed or passed their deadline.",
                    r.failures,
                ),
                (
                    "paracrowd_scoring_fallback_total",
                    "counter",
                    "Checks scored in process because the inference server was down.",
                    r.fallbacks,
                ),
            ];
            write_samples(&mut out, &remote);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_in_the_text_format_and_labels_are_escaped() {
        let mut h = Histogram::default();
        for s in [0.0005, 0.003, 0.003, 0.2, 30.0] {
            h.observe(s);
        }
        assert_eq!(h.count, 5);
        let mut requests = BTreeMap::new();
        requests.insert(
            (
                "/api/judge/answer".to_owned(),
                "POST".to_owned(),
                "2xx".to_owned(),
            ),
            h,
        );
        requests.insert(
            ("/x\"y".to_owned(), "GET".to_owned(), "4xx".to_owned()),
            Histogram::default(),
        );
        let text = render(&Snapshot {
            requests,
            judgments: 7,
            attempts: 3,
            submissions: 1,
            sql_statements: 42,
            scoring: Some(crate::ml::ScorerLoad {
                queue_depth: 2,
                batches: 10,
                pairs: 25,
                busy: 4,
                remote: Some(crate::ml::RemoteLoad {
                    up: false,
                    scored: 9,
                    failures: 2,
                    fallbacks: 5,
                }),
            }),
        });
        let line = |needle: &str| {
            text.lines()
                .find(|l| l.starts_with(needle))
                .unwrap_or_else(|| panic!("{needle} in\n{text}"))
                .rsplit(' ')
                .next()
                .unwrap()
                .to_owned()
        };
        let base = "paracrowd_http_request_duration_seconds_bucket{route=\"/api/judge/answer\",method=\"POST\",status=\"2xx\",le=";
        assert_eq!(line(&format!("{base}\"0.001\"}}")), "1");
        assert_eq!(line(&format!("{base}\"0.005\"}}")), "3");
        assert_eq!(line(&format!("{base}\"0.25\"}}")), "4");
        assert_eq!(line(&format!("{base}\"10\"}}")), "4");
        assert_eq!(
            line(&format!("{base}\"+Inf\"}}")),
            "5",
            "30 s is only in +Inf"
        );
        assert!(text.contains("route=\"/x\\\"y\""));
        assert_eq!(line("paracrowd_sql_statements_total "), "42");
        assert_eq!(line("paracrowd_judgments_total "), "7");
        assert_eq!(line("paracrowd_scoring_queue_depth "), "2");
        assert_eq!(line("paracrowd_scoring_batched_pairs_total "), "25");
        assert_eq!(line("paracrowd_scoring_remote_up "), "0");
        assert_eq!(line("paracrowd_scoring_remote_failures_total "), "2");
        assert_eq!(line("paracrowd_scoring_fallback_total "), "5");
        // Every sample line is `name{labels} value` or `name value`; comments start with #.
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            let value = l.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{l}");
        }
    }
}
