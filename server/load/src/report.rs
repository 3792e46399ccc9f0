//! The load tool's printout: latency percentiles per endpoint, throughput, errors, and what the
//! database holds of what was acknowledged.
use std::fmt::Write;

use super::{Outcome, Verification};

pub use app::domain::percentile::percentile;

/// pgbench's result for the same PostgreSQL: single-row inserts per second.
#[derive(Debug, Clone)]
pub struct Pgbench {
    pub clients: u32,
    pub seconds: u32,
    pub tps: f64,
}

pub fn render(
    judges: usize,
    writers: usize,
    out: &Outcome,
    check: &Verification,
    pgbench: Option<&Pgbench>,
) -> String {
    let secs = out.elapsed.as_secs_f64();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "load: {judges} judging + {writers} APT workers for {secs:.1} s; {}",
        out.pacing
    );
    if let Some((intended, waited)) = out.open_loop {
        let _ = writeln!(
            s,
            "open loop: {intended} judgments due ({:.1}/s), {waited} found every judge busy and waited",
            intended as f64 / secs
        );
    }
    let _ = writeln!(
        s,
        "{:<16} {:>8} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "endpoint", "calls", "calls/s", "p50 ms", "p95 ms", "p99 ms", "max ms"
    );
    // `judgment` is the answer (+ next when none was carried) (open loop: from the judgment's intended start).
    for (endpoint, times) in &out.latencies {
        let mut t = times.clone();
        t.sort_by(f64::total_cmp);
        let ms = |q: f64| percentile(&t, q).map_or(0.0, |v| v * 1000.0);
        let _ = writeln!(
            s,
            "{:<16} {:>8} {:>9.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
            endpoint,
            t.len(),
            t.len() as f64 / secs,
            ms(0.5),
            ms(0.95),
            ms(0.99),
            ms(1.0)
        );
    }
    let _ = writeln!(
        s,
        "judgments: {} acknowledged ({:.1}/s), {} stored once with that answer, {} duplicated, {} in the database",
        check.judgments_acknowledged,
        check.judgments_acknowledged as f64 / secs,
        check.judgments_found,
        check.judgments_duplicated,
        check.judgments_in_database
    );
    let _ = writeln!(
        s,
        "attempts (Checks): {} acknowledged ({:.1}/s), {} stored, {} in the database; {} answered busy",
        check.attempts_acknowledged,
        check.attempts_acknowledged as f64 / secs,
        check.attempts_found,
        check.attempts_in_database,
        out.busy
    );
    let _ = writeln!(
        s,
        "submissions: {} acknowledged, {} stored once, {} attempts submitted twice, {} workers over the cap",
        check.submissions_acknowledged,
        check.submissions_found,
        check.submissions_duplicated,
        check.over_cap
    );
    let _ = writeln!(
        s,
        "integrity: {} judging rows name a row that is not there",
        check.orphans
    );
    if out.errors.is_empty() {
        let _ = writeln!(s, "errors: none");
    } else {
        let list: Vec<String> = out
            .errors
            .iter()
            .map(|((e, status), n)| format!("{e} {status}: {n}"))
            .collect();
        let _ = writeln!(s, "errors: {}", list.join(", "));
    }
    if let Some(p) = pgbench {
        let _ = writeln!(
            s,
            "pgbench on the same PostgreSQL: {:.0} single-row inserts/s ({} clients, {} s, plain TCP as the server); judgments/s are {:.1}% of it",
            p.tps,
            p.clients,
            p.seconds,
            100.0 * check.judgments_acknowledged as f64 / secs / p.tps
        );
    }
    let _ = writeln!(
        s,
        "verification: {}",
        if check.holds() {
            "every acknowledged judgment, attempt and submission is stored exactly once, and no judging row is orphaned"
        } else {
            "FAILED"
        }
    );
    s
}

/// The burst's printout.
pub fn render_burst(n: usize, b: &super::BurstOutcome) -> String {
    let ms = |v: &[f64], q: f64| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        percentile(&v, q).map_or(0.0, |x| x * 1000.0)
    };
    format!(
        "burst of {n} simultaneous Checks: {} scored (p50 {:.0} ms, p99 {:.0} ms), {} answered busy \
         (p50 {:.1} ms, p99 {:.1} ms), {} other; /health during it: {} probes, p50 {:.1} ms, \
         p99 {:.1} ms, max {:.1} ms, {} failed; the server answered {} of them within 50 ms\n",
        b.scored.len(),
        ms(&b.scored, 0.5),
        ms(&b.scored, 0.99),
        b.busy.len(),
        ms(&b.busy, 0.5),
        ms(&b.busy, 0.99),
        b.other.len(),
        b.health.len(),
        ms(&b.health, 0.5),
        ms(&b.health, 0.99),
        ms(&b.health, 1.0),
        b.health_failures,
        b.health_server_within_50ms
            .map_or("? (no /metrics)".to_owned(), |(w, n)| format!("{w} of {n}"))
    )
}
