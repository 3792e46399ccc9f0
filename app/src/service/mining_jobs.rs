//! Mining runs as jobs the database owns. A run is queued as a row; any server that
//! runs jobs (`PARACROWD_ROLE` `jobs` or `both`) claims it with `FOR UPDATE SKIP LOCKED`
//! (`db::mining::claim`), mines it on blocking threads (the miners use every core), and every
//! half second writes its progress with a heartbeat, reading back whether a cancel was asked
//! for, so a cancel sent to any server stops it within a second. Its candidates are written in
//! one transaction with its end, which checks that this server still holds it.
//!
//! A server that dies stops beating: once the heartbeat is older than the job timeout, any live
//! server takes the run over and mines it again from the start, at most [`MAX_ATTEMPTS`] times
//! (then it is interrupted and waits for a restart). A run whose server still beats is never
//! touched, so a server starting up leaves other servers' runs alone. The row is the truth the
//! pages read: nothing about a run lives only in one process.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::db::mining::{self as db, ClaimedRun};
use crate::domain::mining::progress::Progress;
use crate::domain::mining::stats::{pair_stats, PairText};
use crate::domain::mining::{Method, MineError};
use crate::domain::{CorpusId, RunId, RunStatus};
use crate::error::AppError;
use crate::ml::SentenceEmbedder;

/// Most candidates one run may find: past it the run fails and says to tighten its parameters.
pub const MAX_CANDIDATES: u64 = 1_000_000;

/// Claims of one run at most: a run that took down its server this often is interrupted.
pub const MAX_ATTEMPTS: i32 = 3;

/// How often a running run's progress and heartbeat are written (and a cancel read).
pub const BEAT_EVERY: Duration = Duration::from_millis(500);

/// How this server runs jobs.
#[derive(Debug, Clone)]
pub struct JobSettings {
    /// This server's name in `claimed_by` (unique per process).
    pub instance: String,
    /// A heartbeat older than this means the run's server died (`PARACROWD_JOB_TIMEOUT_SECS`).
    pub stale_after: Duration,
    /// How often an idle server looks for queued work.
    pub poll: Duration,
}

impl JobSettings {
    /// Settings with a fresh instance name (the process id and a random suffix).
    pub fn new(stale_after: Duration) -> Self {
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        Self {
            instance: format!("pid{}-{}", std::process::id(), &suffix[..8]),
            stale_after,
            poll: Duration::from_secs(1),
        }
    }
}

/// Wakes this process's job loop at once when it queued a run itself (other servers' runs are
/// found by polling). Only a shortcut: the row in the database is what is claimed.
static WAKE: LazyLock<tokio::sync::Notify> = LazyLock::new(tokio::sync::Notify::new);

/// Tells this process's job loops that a run was queued (every loop waiting looks at once; a
/// busy one looks when it is done).
pub fn wake() {
    WAKE.notify_waiters();
}

/// Runs this server's job loop in the background: claims runs one at a time (a run uses every
/// core) and ends those no live server will take up again. It stops looking for work once
/// `server` is gone (the router holds it: a stopped server claims nothing more) or the pool is
/// closed.
pub fn start(
    pool: PgPool,
    embedder: Arc<dyn SentenceEmbedder>,
    settings: JobSettings,
    server: std::sync::Weak<()>,
) -> tokio::task::JoinHandle<()> {
    tracing::info!(instance = %settings.instance, "running jobs");
    tokio::spawn(async move {
        while server.strong_count() > 0 && !pool.is_closed() {
            match next(&pool, &settings).await {
                Ok(Some(claimed)) => execute(&pool, &settings, embedder.clone(), claimed).await,
                Ok(None) => {
                    let _ = tokio::time::timeout(settings.poll, WAKE.notified()).await;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not look for mining runs");
                    tokio::time::sleep(settings.poll).await;
                }
            }
        }
    })
}

/// Ends abandoned runs that will not be claimed again, then claims the next run.
async fn next(pool: &PgPool, settings: &JobSettings) -> Result<Option<ClaimedRun>, AppError> {
    let ended = db::end_abandoned(pool, settings.stale_after, MAX_ATTEMPTS).await?;
    if ended > 0 {
        tracing::warn!(
            runs = ended,
            "mining runs abandoned by stopped servers were ended"
        );
    }
    let claimed = db::claim(pool, &settings.instance, settings.stale_after, MAX_ATTEMPTS).await?;
    if let Some(c) = &claimed {
        if c.attempts > 1 {
            tracing::warn!(run_id = %c.run_id, attempt = c.attempts, "took over a mining run whose server stopped");
        }
    }
    Ok(claimed)
}

/// Mines a claimed run to its end (or until it is cancelled or lost).
async fn execute(
    pool: &PgPool,
    settings: &JobSettings,
    embedder: Arc<dyn SentenceEmbedder>,
    claimed: ClaimedRun,
) {
    let run_id = claimed.run_id;
    let instance = settings.instance.as_str();
    let Some(method) = Method::from_row(claimed.method, &claimed.params) else {
        tracing::error!(%run_id, method = %claimed.method, "BUG: a mining run with unreadable parameters");
        let _ = db::end_run(
            pool,
            run_id,
            instance,
            RunStatus::Failed,
            Some("The run's parameters could not be read."),
        )
        .await;
        return;
    };
    let progress = Arc::new(Progress::default());
    progress.set_max_found(MAX_CANDIDATES);
    if let Err(e) = run(
        pool,
        instance,
        run_id,
        method,
        claimed.corpus_id,
        embedder,
        progress,
    )
    .await
    {
        tracing::error!(%run_id, error = %e, "mining run failed");
        let _ = db::end_run(
            pool,
            run_id,
            instance,
            RunStatus::Failed,
            Some(&e.to_string()),
        )
        .await;
    }
}

#[allow(clippy::too_many_arguments)]
async fn run(
    pool: &PgPool,
    instance: &str,
    run_id: RunId,
    method: Method,
    corpus_id: CorpusId,
    embedder: Arc<dyn SentenceEmbedder>,
    progress: Arc<Progress>,
) -> Result<(), AppError> {
    let clusters = Arc::new(db::load_clusters(pool, corpus_id).await?);
    let mut task = {
        let (clusters, progress) = (clusters.clone(), progress.clone());
        // The miner, and then ParaSCI Table 2's numbers of its candidates (Self-BLEU over up to
        // a million pairs takes seconds), both while the heartbeat below goes on.
        tokio::task::spawn_blocking(move || {
            let embed = |texts: &[String]| embedder.embed(texts);
            let embed: crate::domain::mining::Embed<'_> = &embed;
            let pass = Instant::now();
            let candidates = method.mine(
                &clusters,
                method.needs_embeddings().then_some(embed),
                &progress,
            )?;
            // The pass alone: its rate (pairs a second) leaves out the numbers and the saving.
            let mining_seconds = pass.elapsed().as_secs_f64();
            let texts: HashMap<i64, &str> = clusters
                .iter()
                .flat_map(|c| c.sentences.iter().map(|s| (s.id, s.text.as_str())))
                .collect();
            let pairs: Vec<PairText<'_>> = candidates
                .iter()
                .map(|c| PairText {
                    a: texts[&c.a],
                    b: texts[&c.b],
                    edit_distance: c.edit_distance,
                })
                .collect();
            let stats = pair_stats(&pairs);
            Ok((candidates, stats, mining_seconds))
        })
    };
    let mut tick = tokio::time::interval(BEAT_EVERY);
    let mut lost = false;
    let outcome = loop {
        tokio::select! {
            done = &mut task => break done,
            _ = tick.tick() => {
                let (done, total) = progress.get();
                match db::beat(pool, run_id, instance, done, total).await {
                    Ok(Some(false)) => {}
                    Ok(Some(true)) => progress.cancel(),
                    Ok(None) => {
                        // Ended or taken over elsewhere: stop mining, write nothing.
                        lost = true;
                        progress.cancel();
                    }
                    Err(e) => tracing::warn!(%run_id, error = %e, "could not record mining progress"),
                }
            }
        }
    };
    if lost {
        tracing::warn!(%run_id, "this server no longer holds the mining run; stopped it");
        return Ok(());
    }
    match outcome {
        Ok(Ok((candidates, stats, mining_seconds))) => {
            let (done, _) = progress.get();
            // Writing a large run's candidates takes seconds: the run says so, with its own
            // progress, read from outside the writing transaction.
            if !db::start_saving(pool, run_id, instance, candidates.len()).await? {
                tracing::warn!(%run_id, "this server no longer holds the mining run; wrote nothing");
                return Ok(());
            }
            let saved = AtomicU64::new(0);
            let mut tx = pool.begin().await?;
            {
                let save = db::finish_run(
                    &mut tx,
                    run_id,
                    instance,
                    &candidates,
                    &stats,
                    done,
                    mining_seconds,
                    &saved,
                );
                tokio::pin!(save);
                loop {
                    tokio::select! {
                        r = &mut save => match r {
                            Ok(()) => break,
                            // Cancelled while saving, or taken over: nothing is committed, and
                            // the run ends cancelled if it is still this server's.
                            Err(AppError::Conflict(_)) => {
                                return db::end_run(pool, run_id, instance, RunStatus::Cancelled, None).await;
                            }
                            Err(e) => return Err(e),
                        },
                        _ = tick.tick() => {
                            if let Err(e) = db::set_saved(pool, run_id, instance, saved.load(Ordering::Relaxed)).await {
                                tracing::warn!(%run_id, error = %e, "could not record saving progress");
                            }
                        }
                    }
                }
            }
            tx.commit().await?;
            tracing::info!(%run_id, candidates = candidates.len(), mining_seconds, "mining run finished");
            Ok(())
        }
        Ok(Err(MineError::Cancelled)) if progress.over_limit() => {
            let message = format!(
                "Stopped after finding more than {MAX_CANDIDATES} candidates: the parameters are too loose for this corpus. Lower the edit distance or raise the length ratio or the shared words."
            );
            db::end_run(pool, run_id, instance, RunStatus::Failed, Some(&message)).await
        }
        Ok(Err(MineError::Cancelled)) => {
            db::end_run(pool, run_id, instance, RunStatus::Cancelled, None).await
        }
        Ok(Err(MineError::Failed(message))) => {
            db::end_run(pool, run_id, instance, RunStatus::Failed, Some(&message)).await
        }
        Err(join) => {
            tracing::error!(%run_id, error = %join, "miner panicked");
            db::end_run(
                pool,
                run_id,
                instance,
                RunStatus::Failed,
                Some("The miner stopped with an internal error."),
            )
            .await
        }
    }
}
