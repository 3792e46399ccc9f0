//! Mining runs as background jobs: a run is queued in the database, mined on blocking threads
//! (the miners use every core), its progress written to its row twice a second, and its
//! candidates written when it finishes. The row is the truth the pages read, so a reload shows
//! the same progress; a cancel flag is kept here for the runs of this process. A server that
//! stops mid-run leaves the row running: [`mark_interrupted`] at the next start says so (never
//! finished), and the run can be restarted.
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use sqlx::PgPool;

use crate::db::mining as db;
use crate::domain::mining::progress::Progress;
use crate::domain::mining::stats::{pair_stats, PairText};
use crate::domain::mining::{Method, MineError};
use crate::domain::{CorpusId, RunId, RunStatus};
use crate::error::AppError;
use crate::ml::SentenceEmbedder;

/// Most candidates one run may find: past it the run fails and says to tighten its parameters.
pub const MAX_CANDIDATES: u64 = 1_000_000;

static RUNNING: LazyLock<Mutex<HashMap<RunId, Arc<Progress>>>> = LazyLock::new(Default::default);

fn running() -> std::sync::MutexGuard<'static, HashMap<RunId, Arc<Progress>>> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Asks a run of this process to stop; false when it is not running here.
pub fn cancel(run_id: RunId) -> bool {
    match running().get(&run_id) {
        Some(p) => {
            p.cancel();
            true
        }
        None => false,
    }
}

/// At start-up, before serving: the runs a previous process did not end are interrupted.
pub async fn mark_interrupted(pool: &PgPool) -> Result<u64, AppError> {
    let n = db::mark_interrupted(pool).await?;
    if n > 0 {
        tracing::warn!(runs = n, "mining runs interrupted by the last shutdown");
    }
    Ok(n)
}

/// Starts a queued run in the background.
pub fn spawn(
    pool: PgPool,
    run_id: RunId,
    method: Method,
    corpus_id: CorpusId,
    embedder: Arc<dyn SentenceEmbedder>,
) {
    let progress = Arc::new(Progress::default());
    progress.set_max_found(MAX_CANDIDATES);
    running().insert(run_id, progress.clone());
    tokio::spawn(async move {
        if let Err(e) = run(&pool, run_id, method, corpus_id, embedder, progress).await {
            tracing::error!(%run_id, error = %e, "mining run failed");
            let _ = db::end_run(&pool, run_id, RunStatus::Failed, Some(&e.to_string())).await;
        }
        running().remove(&run_id);
    });
}

async fn run(
    pool: &PgPool,
    run_id: RunId,
    method: Method,
    corpus_id: CorpusId,
    embedder: Arc<dyn SentenceEmbedder>,
    progress: Arc<Progress>,
) -> Result<(), AppError> {
    if !db::set_running(pool, run_id).await? {
        return Ok(());
    }
    let clusters = Arc::new(db::load_clusters(pool, corpus_id).await?);
    let started = Instant::now();
    let mut task = {
        let (clusters, progress) = (clusters.clone(), progress.clone());
        tokio::task::spawn_blocking(move || {
            let embed = |texts: &[String]| embedder.embed(texts);
            let embed: crate::domain::mining::Embed<'_> = &embed;
            method.mine(
                &clusters,
                method.needs_embeddings().then_some(embed),
                &progress,
            )
        })
    };
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let outcome = loop {
        tokio::select! {
            done = &mut task => break done,
            _ = tick.tick() => {
                let (done, total) = progress.get();
                if let Err(e) = db::set_progress(pool, run_id, done, total).await {
                    tracing::warn!(%run_id, error = %e, "could not record mining progress");
                }
            }
        }
    };
    let mining_seconds = started.elapsed().as_secs_f64();
    match outcome {
        Ok(Ok(candidates)) => {
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
            let (done, _) = progress.get();
            // Writing a large run's candidates takes seconds: the run says so, with its own
            // progress, read from outside the writing transaction (issue #22 item 11).
            db::start_saving(pool, run_id, candidates.len()).await?;
            let saved = AtomicU64::new(0);
            let mut tx = pool.begin().await?;
            {
                let save = db::finish_run(
                    &mut tx,
                    run_id,
                    &candidates,
                    &stats,
                    done,
                    mining_seconds,
                    &saved,
                );
                tokio::pin!(save);
                loop {
                    tokio::select! {
                        r = &mut save => break r?,
                        _ = tick.tick() => {
                            if let Err(e) = db::set_saved(pool, run_id, saved.load(Ordering::Relaxed)).await {
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
            db::end_run(pool, run_id, RunStatus::Failed, Some(&message)).await
        }
        Ok(Err(MineError::Cancelled)) => {
            db::end_run(pool, run_id, RunStatus::Cancelled, None).await
        }
        Ok(Err(MineError::Failed(message))) => {
            db::end_run(pool, run_id, RunStatus::Failed, Some(&message)).await
        }
        Err(join) => {
            tracing::error!(%run_id, error = %join, "miner panicked");
            db::end_run(
                pool,
                run_id,
                RunStatus::Failed,
                Some("The miner stopped with an internal error."),
            )
            .await
        }
    }
}
