//! How the simulated workers pace themselves, so load arrives the way people bring it.
//!
//! - **Closed loop** (the default): each worker starts after a random offset and, between tasks,
//!   thinks for an exponentially distributed time (people's pauses are memoryless, and a fixed
//!   pause makes every worker arrive in the same wave). With a zero mean the workers go back to
//!   back: the server's saturated throughput.
//! - **Open loop** (`--rate`): judgments start at a fixed rate whatever the server does, like
//!   wrk2 or k6's constant-arrival-rate. Each judgment's latency is measured from the time it was
//!   *meant* to start, so a slow server cannot hide its queue (no coordinated omission): when
//!   every worker is busy the next arrival waits for one, and that wait counts.
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinSet;
use tokio::time::Instant;

/// An exponentially distributed think time with this mean (zero for a zero mean).
pub fn think_time(rng: &mut crate::Rng, mean: Duration) -> Duration {
    if mean.is_zero() {
        return Duration::ZERO;
    }
    // Inverse transform: -ln(1 - U) is Exp(1); 1 - U is in (0, 1], so the log is finite.
    mean.mul_f64(-(1.0 - rng.unit()).ln())
}

/// A worker's start offset: uniform in [0, spread).
pub fn start_offset(rng: &mut crate::Rng, spread: Duration) -> Duration {
    spread.mul_f64(rng.unit())
}

/// What one turn of an open-loop worker came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// A judgment went through: its latency counts and the worker is free again.
    Done,
    /// No more work for this worker (nothing left, stopped, or the deadline came first): it
    /// leaves the pool and the turn is not timed.
    Finished,
}

/// What an open-loop run did.
#[derive(Debug)]
pub struct OpenLoop<W> {
    /// Every worker, back from the pool (their outcomes hold what was acknowledged).
    pub workers: Vec<W>,
    /// Seconds from each completed judgment's intended start to its end.
    pub latencies: Vec<f64>,
    /// Arrivals that were due.
    pub intended: u64,
    /// Arrivals that found every worker busy and waited for one (the wait is in the latency).
    pub waited: u64,
}

/// Starts `one(worker)` at `rate` per second from `start` until `deadline`, each on a free
/// worker of `workers`; see the module comment. Arrivals due when no worker is free wait for
/// the next one to come back.
pub async fn open_loop<W, F, Fut>(
    workers: Vec<W>,
    rate: f64,
    start: Instant,
    deadline: Instant,
    one: F,
) -> OpenLoop<W>
where
    W: Send + 'static,
    F: Fn(W) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = (W, Turn)> + Send + 'static,
{
    let (free_tx, mut free) = tokio::sync::mpsc::unbounded_channel::<W>();
    for w in workers {
        let _ = free_tx.send(w);
    }
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let retired = Arc::new(Mutex::new(Vec::new()));
    let interval = Duration::from_secs_f64(1.0 / rate.max(1e-9));
    let mut tasks = JoinSet::new();
    let (mut intended, mut waited) = (0u64, 0u64);
    loop {
        let due = start + interval.mul_f64(intended as f64);
        if due >= deadline {
            break;
        }
        tokio::time::sleep_until(due).await;
        intended += 1;
        let worker = match free.try_recv() {
            Ok(w) => w,
            Err(_) => {
                waited += 1;
                match tokio::time::timeout_at(deadline, free.recv()).await {
                    Ok(Some(w)) => w,
                    _ => break,
                }
            }
        };
        let (one, free_tx) = (one.clone(), free_tx.clone());
        let (latencies, retired) = (latencies.clone(), retired.clone());
        tasks.spawn(async move {
            let (w, turn) = one(worker).await;
            match turn {
                Turn::Done => {
                    let seconds = due.elapsed().as_secs_f64();
                    latencies.lock().expect("not poisoned").push(seconds);
                    let _ = free_tx.send(w);
                }
                Turn::Finished => retired.lock().expect("not poisoned").push(w),
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    drop(free_tx);
    let mut workers = Vec::new();
    while let Some(w) = free.recv().await {
        workers.push(w);
    }
    workers.append(&mut retired.lock().expect("not poisoned"));
    let latencies = std::mem::take(&mut *latencies.lock().expect("not poisoned"));
    OpenLoop {
        workers,
        latencies,
        intended,
        waited,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_times_are_exponential_with_the_mean_asked_for() {
        let mut rng = crate::Rng::new(42);
        let mean = Duration::from_millis(3000);
        let n = 200_000;
        let draws: Vec<f64> = (0..n)
            .map(|_| think_time(&mut rng, mean).as_secs_f64())
            .collect();
        let avg = draws.iter().sum::<f64>() / n as f64;
        assert!((avg - 3.0).abs() < 0.05, "mean {avg}");
        // Exponential: P(X > mean) = e^-1 and the median is mean * ln 2; a fixed pause has
        // neither (every draw would equal the mean).
        let above = draws.iter().filter(|&&d| d > 3.0).count() as f64 / n as f64;
        assert!(
            (above - (-1.0f64).exp()).abs() < 0.01,
            "P(X > mean) = {above}"
        );
        let mut sorted = draws.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[n / 2];
        assert!((median - 3.0 * 2f64.ln()).abs() < 0.05, "median {median}");
        assert!(draws.iter().all(|&d| d >= 0.0 && d.is_finite()));
        assert_eq!(think_time(&mut rng, Duration::ZERO), Duration::ZERO);
    }

    #[test]
    fn start_offsets_spread_evenly_over_the_window() {
        let mut rng = crate::Rng::new(7);
        let spread = Duration::from_secs(3);
        let offsets: Vec<f64> = (0..10_000)
            .map(|_| start_offset(&mut rng, spread).as_secs_f64())
            .collect();
        assert!(offsets.iter().all(|&o| (0.0..3.0).contains(&o)));
        // Each second of the window gets about a third of the workers (no wave at zero).
        for s in 0..3 {
            let share = offsets.iter().filter(|&&o| o as usize == s).count() as f64 / 1e4;
            assert!((share - 1.0 / 3.0).abs() < 0.03, "second {s}: {share}");
        }
    }

    /// A server that takes 100 ms per judgment, driven at 20 judgments/s for 2 s.
    async fn drive(workers: usize) -> OpenLoop<u32> {
        let start = Instant::now();
        let service = |w: u32| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            (w, Turn::Done)
        };
        let pool = (0..workers as u32).collect();
        open_loop(pool, 20.0, start, start + Duration::from_secs(2), service).await
    }

    #[tokio::test(start_paused = true)]
    async fn with_enough_workers_the_latency_is_the_service_time() {
        let run = drive(4).await;
        assert_eq!(run.intended, 40);
        assert_eq!(run.waited, 0);
        assert_eq!(run.latencies.len(), 40);
        assert!(run.latencies.iter().all(|&l| (0.099..0.11).contains(&l)));
        assert_eq!(run.workers.len(), 4);
    }

    #[tokio::test(start_paused = true)]
    async fn a_queue_shows_in_the_latency_from_the_intended_start() {
        // One worker can do 10 judgments/s: arrivals at 20/s queue up. A closed loop would
        // report 100 ms for every call; measured from the intended start, the wait shows.
        let run = drive(1).await;
        assert!(run.waited > 15, "waited {}", run.waited);
        let worst = run.latencies.iter().copied().fold(0.0, f64::max);
        assert!(worst > 0.8, "worst latency {worst}");
        assert!(run.latencies.len() <= 21, "{} done", run.latencies.len());
        assert_eq!(run.workers.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_worker_with_no_more_work_leaves_the_pool_and_is_returned() {
        let start = Instant::now();
        let service = |w: u32| async move { (w, if w == 0 { Turn::Finished } else { Turn::Done }) };
        let run = open_loop(
            vec![0, 1],
            10.0,
            start,
            start + Duration::from_secs(1),
            service,
        )
        .await;
        let mut ids = run.workers.clone();
        ids.sort();
        assert_eq!(ids, vec![0, 1]);
        assert_eq!(run.latencies.len() as u64, run.intended - 1);
    }
}
