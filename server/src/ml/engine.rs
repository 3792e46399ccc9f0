//! The scoring engine: a bounded queue in front of one worker thread that owns the models.
//!
//! Concurrent Checks are batched dynamically: the worker blocks for the first request, takes
//! whatever else is queued up to `max_batch`, waits at most `max_wait` for more, scores the batch
//! in one forward pass per model (both directions of every pair), and answers each caller on its
//! own oneshot channel. A full queue answers [`ScoreError::Busy`] at once; callers never block
//! the async runtime.
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use app::ml::{PairScorer, PairScores, ScoreError, ScoreFuture, ScorerVersions};
use tokio::sync::oneshot;

use super::config::MlConfig;
use super::priority;
use super::scorer::{PairEncoders, Scorer};
use super::source::Resolution;

struct Job {
    source: String,
    attempt: String,
    enqueued: Instant,
    reply: oneshot::Sender<Result<PairScores, ScoreError>>,
}

/// Counters for metrics and benchmarks.
#[derive(Debug, Default)]
pub struct EngineStats {
    /// Requests waiting in the queue now.
    pub queue_depth: AtomicUsize,
    /// Forward batches run so far, and the pairs in them.
    pub batches: AtomicU64,
    pub pairs: AtomicU64,
    /// Requests refused because the queue was full.
    pub busy: AtomicU64,
}

/// A handle to the engine; cheap to clone. The worker stops when the last handle is dropped.
#[derive(Clone)]
pub struct ScoringEngine {
    tx: SyncSender<Job>,
    versions: Arc<ScorerVersions>,
    /// What the model resolver chose at start-up and what it passed over.
    resolution: Arc<Resolution>,
    stats: Arc<EngineStats>,
    capacity: usize,
    /// The models' encoders, for the inference server's client (`None` for the lite scorer).
    encoders: Option<PairEncoders>,
}

impl ScoringEngine {
    /// Starts the worker thread, lowers its CPU priority to `config.nice`, and loads the models
    /// on it, so that ONNX Runtime's own threads (created with the sessions) inherit the lower
    /// priority: on a machine shared with the web server and PostgreSQL, page loads and
    /// judgments then take a core first and scoring gets the rest. Returns once the models are
    /// loaded, so errors surface at start-up.
    pub fn start(config: &MlConfig) -> anyhow::Result<Self> {
        let (loaded_tx, loaded_rx) = mpsc::sync_channel(1);
        let (tx, rx) = mpsc::sync_channel::<Job>(config.queue_capacity);
        let stats = Arc::new(EngineStats::default());
        let worker_stats = stats.clone();
        let worker_config = config.clone();
        std::thread::Builder::new()
            .name("scoring-engine".into())
            .spawn(move || {
                let config = worker_config;
                if let Err(e) = priority::lower_this_thread(config.nice) {
                    tracing::warn!(error = %e, nice = config.nice, "cannot lower the scoring threads' priority");
                }
                let scorer = match Scorer::resolve(&config) {
                    Ok((scorer, resolution)) => {
                        let _ = loaded_tx.send(Ok((
                            scorer.versions(),
                            resolution,
                            scorer.encoders(),
                        )));
                        scorer
                    }
                    Err(e) => {
                        let _ = loaded_tx.send(Err(e));
                        return;
                    }
                };
                run_worker(scorer, rx, config.max_batch.max(1), config.max_wait, worker_stats)
            })
            .context("cannot spawn the scoring thread")?;
        let (versions, resolution, encoders) = loaded_rx
            .recv()
            .context("the scoring thread stopped while loading the models")??;
        Ok(Self {
            tx,
            versions,
            resolution: Arc::new(resolution),
            stats,
            capacity: config.queue_capacity,
            encoders,
        })
    }

    /// Starts the worker around an already-loaded scorer (at the caller's priority).
    pub fn with_scorer(
        scorer: Scorer,
        max_batch: usize,
        max_wait: Duration,
        queue_capacity: usize,
    ) -> Self {
        let (tx, rx) = mpsc::sync_channel::<Job>(queue_capacity);
        let versions = scorer.versions();
        let encoders = scorer.encoders();
        let stats = Arc::new(EngineStats::default());
        let worker_stats = stats.clone();
        std::thread::Builder::new()
            .name("scoring-engine".into())
            .spawn(move || run_worker(scorer, rx, max_batch.max(1), max_wait, worker_stats))
            .expect("BUG: cannot spawn the scoring thread");
        Self {
            resolution: Arc::new(Resolution {
                chosen: versions.description.clone(),
                skipped: Vec::new(),
            }),
            tx,
            versions,
            stats,
            capacity: queue_capacity,
            encoders,
        }
    }

    /// What the model resolver chose at start-up and what it passed over.
    pub fn resolution(&self) -> &Resolution {
        &self.resolution
    }

    /// The models' encoders, for running the same graphs on an inference server.
    pub fn encoders(&self) -> Option<&PairEncoders> {
        self.encoders.as_ref()
    }

    pub fn stats(&self) -> &EngineStats {
        &self.stats
    }

    /// Queues one pair; resolves when it is scored. Fails fast with `Busy` when the queue is full.
    pub fn submit(
        &self,
        source: String,
        attempt: String,
    ) -> Result<oneshot::Receiver<Result<PairScores, ScoreError>>, ScoreError> {
        let (reply, rx) = oneshot::channel();
        let job = Job {
            source,
            attempt,
            enqueued: Instant::now(),
            reply,
        };
        self.stats.queue_depth.fetch_add(1, Ordering::Relaxed);
        match self.tx.try_send(job) {
            Ok(()) => Ok(rx),
            Err(TrySendError::Full(_)) => {
                self.stats.queue_depth.fetch_sub(1, Ordering::Relaxed);
                self.stats.busy.fetch_add(1, Ordering::Relaxed);
                Err(ScoreError::Busy)
            }
            Err(TrySendError::Disconnected(_)) => {
                self.stats.queue_depth.fetch_sub(1, Ordering::Relaxed);
                Err(ScoreError::Unavailable)
            }
        }
    }
}

impl PairScorer for ScoringEngine {
    fn score(&self, source: String, attempt: String) -> ScoreFuture {
        let queued = self.submit(source, attempt);
        Box::pin(async move {
            match queued {
                Ok(rx) => rx.await.unwrap_or(Err(ScoreError::Unavailable)),
                Err(e) => Err(e),
            }
        })
    }

    fn versions(&self) -> Arc<ScorerVersions> {
        self.versions.clone()
    }

    fn admit(&self) -> Result<(), ScoreError> {
        if self.stats.queue_depth.load(Ordering::Relaxed) >= self.capacity {
            self.stats.busy.fetch_add(1, Ordering::Relaxed);
            return Err(ScoreError::Busy);
        }
        Ok(())
    }

    fn load(&self) -> Option<app::ml::ScorerLoad> {
        Some(app::ml::ScorerLoad {
            queue_depth: self.stats.queue_depth.load(Ordering::Relaxed) as u64,
            batches: self.stats.batches.load(Ordering::Relaxed),
            pairs: self.stats.pairs.load(Ordering::Relaxed),
            busy: self.stats.busy.load(Ordering::Relaxed),
            remote: None,
        })
    }
}

fn run_worker(
    mut scorer: Scorer,
    rx: mpsc::Receiver<Job>,
    max_batch: usize,
    max_wait: Duration,
    stats: Arc<EngineStats>,
) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        let deadline = Instant::now() + max_wait;
        while batch.len() < max_batch {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(mpsc::TryRecvError::Disconnected) => break,
                Err(mpsc::TryRecvError::Empty) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break;
                    }
                    match rx.recv_timeout(deadline - now) {
                        Ok(job) => batch.push(job),
                        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
                    }
                }
            }
        }
        stats.queue_depth.fetch_sub(batch.len(), Ordering::Relaxed);
        // Callers that gave up (request cancelled) need no scores.
        batch.retain(|job| !job.reply.is_closed());
        if batch.is_empty() {
            continue;
        }
        let pairs: Vec<(&str, &str)> = batch
            .iter()
            .map(|j| (j.source.as_str(), j.attempt.as_str()))
            .collect();
        let result = scorer.score_pairs(&pairs);
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats.pairs.fetch_add(batch.len() as u64, Ordering::Relaxed);
        match result {
            Ok(scores) => {
                for (job, mut score) in batch.into_iter().zip(scores) {
                    score.latency_ms = job.enqueued.elapsed().as_secs_f64() * 1000.0;
                    let _ = job.reply.send(Ok(score));
                }
            }
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "scoring batch failed");
                for job in batch {
                    let _ = job.reply.send(Err(ScoreError::Failed(e.to_string())));
                }
            }
        }
    }
    tracing::info!("scoring engine stopped");
}
