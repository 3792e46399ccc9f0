//! What the scoring benchmarks share: callers running Checks back to back, percentiles, and the
//! machine's name.
use std::sync::Arc;
use std::time::{Duration, Instant};

use app::ml::PairScorer;

/// The value at quantile `p` of sorted values (NaN when empty; `domain::percentile`).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    app::domain::percentile::percentile(sorted, p).unwrap_or(f64::NAN)
}

/// The CPU model and core count, for the tables.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    format!("{cpu}, {cores} cores")
}

/// A scorer as the callers share it.
pub trait Shared {
    fn shared(&self) -> Arc<dyn PairScorer>;
}

impl<T: PairScorer + Clone + 'static> Shared for T {
    fn shared(&self) -> Arc<dyn PairScorer> {
        Arc::new(self.clone())
    }
}

/// `callers` tasks each run `per_caller` Checks back to back; returns sorted latencies (ms) and
/// the wall time.
pub async fn run_callers(
    scorer: &Arc<dyn PairScorer>,
    pairs: &[(String, String)],
    callers: usize,
    per_caller: usize,
) -> (Vec<f64>, Duration) {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..callers {
        let scorer = scorer.clone();
        let pairs: Vec<(String, String)> = (0..per_caller)
            .map(|k| pairs[(c * per_caller + k) % pairs.len()].clone())
            .collect();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            for (a, b) in pairs {
                let t = Instant::now();
                scorer.score(a, b).await.expect("scored");
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            lat
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let wall = started.elapsed();
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (all, wall)
}
