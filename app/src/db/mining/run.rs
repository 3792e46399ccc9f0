//! Mining runs: created queued, run, their progress, and how they end (finished, cancelled,
//! failed, interrupted), and restarting one.
use crate::domain::mining::stats::PairStats;
use crate::domain::mining::Candidate;
use crate::domain::{CorpusId, MethodKind, RunId, RunStatus, UserId};
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};
use std::sync::atomic::{AtomicU64, Ordering};

/// A mining run with its corpus's name.
#[derive(Debug, Clone)]
pub struct RunRow {
    /// The run's id.
    pub run_id: RunId,
    /// The corpus mined.
    pub corpus_id: CorpusId,
    /// The corpus's name.
    pub corpus_name: String,
    /// The miner.
    pub method: MethodKind,
    /// The miner's parameters as JSON.
    pub params: serde_json::Value,
    /// Where the run is in its life.
    pub status: RunStatus,
    /// Work done so far (the miner's unit).
    pub done: i64,
    /// Work in all.
    pub total: i64,
    /// Candidates written (when finished).
    pub candidates: i32,
    /// ParaSCI Table 2's numbers of the candidates, as JSON.
    pub stats: Option<serde_json::Value>,
    /// Why it failed or was interrupted.
    pub error: Option<String>,
    /// When it was queued.
    pub created_at: time::OffsetDateTime,
    /// When a server started it.
    pub started_at: Option<time::OffsetDateTime>,
    /// When it ended.
    pub finished_at: Option<time::OffsetDateTime>,
    /// Seconds spent mining (without writing the candidates).
    pub mining_seconds: Option<f64>,
    /// Candidates to write, once the miner's pass is over and writing has begun.
    pub saving_total: Option<i64>,
    /// Candidates written so far.
    pub saved: i64,
}

/// Queues a run; returns its id.
pub async fn create_run(
    db: impl PgExecutor<'_>,
    corpus_id: CorpusId,
    method: MethodKind,
    params: &serde_json::Value,
    created_by: UserId,
) -> Result<RunId, AppError> {
    Ok(sqlx::query_scalar!(
        r#"insert into mining_run (corpus_id, method, params, created_by) values ($1, $2, $3, $4)
           returning run_id as "run_id: RunId""#,
        corpus_id as CorpusId,
        method as MethodKind,
        params,
        created_by as UserId
    )
    .fetch_one(db)
    .await?)
}

/// The latest 200 runs, newest first.
pub async fn list_runs(db: impl PgExecutor<'_>) -> Result<Vec<RunRow>, AppError> {
    Ok(sqlx::query_as!(
        RunRow,
        r#"select r.run_id as "run_id: _", r.corpus_id as "corpus_id: _", c.name as corpus_name,
                  r.method as "method: MethodKind", r.params,
                  r.status as "status: RunStatus", r.done, r.total, r.candidates, r.stats, r.error,
                  r.created_at, r.started_at, r.finished_at, r.mining_seconds, r.saving_total, r.saved
           from mining_run r join corpus c using (corpus_id)
           order by r.created_at desc limit 200"#
    )
    .fetch_all(db)
    .await?)
}

/// One run.
pub async fn find_run(db: impl PgExecutor<'_>, run_id: RunId) -> Result<Option<RunRow>, AppError> {
    Ok(sqlx::query_as!(
        RunRow,
        r#"select r.run_id as "run_id: _", r.corpus_id as "corpus_id: _", c.name as corpus_name,
                  r.method as "method: MethodKind", r.params,
                  r.status as "status: RunStatus", r.done, r.total, r.candidates, r.stats, r.error,
                  r.created_at, r.started_at, r.finished_at, r.mining_seconds, r.saving_total, r.saved
           from mining_run r join corpus c using (corpus_id) where r.run_id = $1"#,
        run_id as RunId
    )
    .fetch_optional(db)
    .await?)
}

/// A run a server has claimed, with what it needs to mine it.
#[derive(Debug, Clone)]
pub struct ClaimedRun {
    /// The run.
    pub run_id: RunId,
    /// The corpus to mine.
    pub corpus_id: CorpusId,
    /// The miner.
    pub method: MethodKind,
    /// Its parameters.
    pub params: serde_json::Value,
    /// Claims so far, this one included (more than one: a server died running it).
    pub attempts: i32,
}

/// Claims the oldest run no live server works on, for `instance`: a queued run, or a running
/// one whose heartbeat is older than `stale_after` (its server died), unless it has been
/// claimed `max_attempts` times. `FOR UPDATE SKIP LOCKED`: two servers never claim one run.
/// A claimed run starts over (the dead server's candidates were never committed).
pub async fn claim(
    db: impl PgExecutor<'_>,
    instance: &str,
    stale_after: std::time::Duration,
    max_attempts: i32,
) -> Result<Option<ClaimedRun>, AppError> {
    Ok(sqlx::query_as!(
        ClaimedRun,
        r#"update mining_run r
           set status = 'running', claimed_by = $1, heartbeat_at = now(), attempts = r.attempts + 1,
               started_at = now(), done = 0, total = 0, saving_total = null, saved = 0
           where r.run_id = (
               select run_id from mining_run
               where (status = 'queued'
                      or (status = 'running'
                          and (heartbeat_at is null or heartbeat_at < now() - make_interval(secs => $2))))
                 and not cancel_requested and attempts < $3
               order by created_at
               limit 1
               for update skip locked)
           returning r.run_id as "run_id: RunId", r.corpus_id as "corpus_id: CorpusId",
                     r.method as "method: MethodKind", r.params, r.attempts"#,
        instance,
        stale_after.as_secs_f64(),
        max_attempts,
    )
    .fetch_optional(db)
    .await?)
}

/// Ends the runs no live server works on that will not be claimed again: cancelled when a
/// cancel was asked for, else interrupted after `max_attempts` claims. Returns how many.
pub async fn end_abandoned(
    db: impl PgExecutor<'_>,
    stale_after: std::time::Duration,
    max_attempts: i32,
) -> Result<u64, AppError> {
    Ok(sqlx::query!(
        r#"update mining_run r
           set status = case when r.cancel_requested then 'cancelled' else 'interrupted' end,
               finished_at = now(),
               error = case when r.cancel_requested then null
                       else 'The server stopped while this run was in progress, ' || r.attempts
                            || ' times; restart it when the cause is found.' end
           where r.run_id in (
               select run_id from mining_run
               where status = 'running'
                 and (heartbeat_at is null or heartbeat_at < now() - make_interval(secs => $1))
                 and (cancel_requested or attempts >= $2)
               for update skip locked)"#,
        stale_after.as_secs_f64(),
        max_attempts,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// A claimed run's heartbeat with its progress: `None` when `instance` no longer holds it (it
/// ended, or another server took it over), else whether a cancel was asked for.
pub async fn beat(
    db: impl PgExecutor<'_>,
    run_id: RunId,
    instance: &str,
    done: u64,
    total: u64,
) -> Result<Option<bool>, AppError> {
    Ok(sqlx::query_scalar!(
        "update mining_run set done = $3, total = $4, heartbeat_at = now()
         where run_id = $1 and claimed_by = $2 and status = 'running'
         returning cancel_requested",
        run_id as RunId,
        instance,
        done as i64,
        total as i64
    )
    .fetch_optional(db)
    .await?)
}

/// Asks the server running `run_id` to stop it (it reads this with its next heartbeat). False
/// when the run is not running.
pub async fn request_cancel(db: impl PgExecutor<'_>, run_id: RunId) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "update mining_run set cancel_requested = true where run_id = $1 and status = 'running'",
        run_id as RunId
    )
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

/// Cancels a run no server has claimed yet. False when it is not queued.
pub async fn cancel_queued(db: impl PgExecutor<'_>, run_id: RunId) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "update mining_run set status = 'cancelled', finished_at = now()
         where run_id = $1 and status = 'queued'",
        run_id as RunId
    )
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

/// Ends a run `instance` holds without candidates: cancelled, or failed.
pub async fn end_run(
    db: impl PgExecutor<'_>,
    run_id: RunId,
    instance: &str,
    status: RunStatus,
    error: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query!(
        r#"update mining_run set status = $2, error = $3, finished_at = now()
           where run_id = $1 and claimed_by = $4 and status = 'running'"#,
        run_id as RunId,
        status as RunStatus,
        error,
        instance
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Candidates written per statement (the saving progress moves by this much).
pub const SAVE_CHUNK: usize = 10_000;

/// The miner's pass is over: `total` candidates are about to be written.
/// False when `instance` no longer holds the run (taken over meanwhile): write nothing then.
pub async fn start_saving(
    db: impl PgExecutor<'_>,
    run_id: RunId,
    instance: &str,
    total: usize,
) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "update mining_run set saving_total = $2, saved = 0, done = total, heartbeat_at = now()
         where run_id = $1 and claimed_by = $3 and status = 'running'",
        run_id as RunId,
        total as i64,
        instance
    )
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

/// Candidates written so far (outside the writing transaction, so pages see it), with the
/// run's heartbeat.
pub async fn set_saved(
    db: impl PgExecutor<'_>,
    run_id: RunId,
    instance: &str,
    saved: u64,
) -> Result<(), AppError> {
    sqlx::query!(
        // Skips the row while the writing transaction's last statement holds it (marking the
        // run finished): waiting there would wait for a commit that waits for this. `NO KEY
        // UPDATE` does not conflict with the `KEY SHARE` locks the candidates' foreign keys
        // take, so progress and heartbeat go on while the candidates are written.
        r#"update mining_run set saved = $2, heartbeat_at = now()
           where run_id = (select run_id from mining_run
                           where run_id = $1 and claimed_by = $3 and status = 'running'
                           for no key update skip locked)"#,
        run_id as RunId,
        saved as i64,
        instance
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Writes the candidates and marks the run finished, in one transaction (by the caller). A
/// conflict when `instance` no longer holds the run (taken over) or a cancel was asked for
/// meanwhile: the caller rolls back, so a run is finished once, by the server that holds it,
/// and a cancel that was accepted is never followed by "finished".
#[allow(clippy::too_many_arguments)]
pub async fn finish_run(
    conn: &mut PgConnection,
    run_id: RunId,
    instance: &str,
    candidates: &[Candidate],
    stats: &PairStats,
    done: u64,
    mining_seconds: f64,
    saved: &AtomicU64,
) -> Result<(), AppError> {
    for chunk in candidates.chunks(SAVE_CHUNK) {
        let a: Vec<i64> = chunk.iter().map(|c| c.a).collect();
        let b: Vec<i64> = chunk.iter().map(|c| c.b).collect();
        let d: Vec<i32> = chunk.iter().map(|c| c.edit_distance as i32).collect();
        let w: Vec<i32> = chunk.iter().map(|c| c.shared_long_words as i32).collect();
        let r: Vec<f64> = chunk.iter().map(|c| c.length_ratio).collect();
        let score: Vec<f64> = chunk.iter().map(|c| c.score).collect();
        let batch: Vec<i16> = chunk.iter().map(|c| c.batch as i16).collect();
        sqlx::query!(
            r#"insert into mining_candidate (run_id, sentence_a, sentence_b, edit_distance,
                   shared_long_words, length_ratio, score, batch)
               select $1, a, b, d, w, r, s, k
               from unnest($2::int8[], $3::int8[], $4::int4[], $5::int4[], $6::float8[],
                           $7::float8[], $8::int2[]) with ordinality as u(a, b, d, w, r, s, k, n)
               order by n"#,
            run_id as RunId,
            &a,
            &b,
            &d,
            &w,
            &r,
            &score,
            &batch
        )
        .execute(&mut *conn)
        .await?;
        saved.fetch_add(chunk.len() as u64, Ordering::Relaxed);
    }
    let finished = sqlx::query!(
        r#"update mining_run set status = 'finished', done = $2, total = $2, candidates = $3,
               saved = $3::int4,
               stats = $4, mining_seconds = $5, finished_at = now()
           where run_id = $1 and claimed_by = $6 and status = 'running' and not cancel_requested"#,
        run_id as RunId,
        done as i64,
        candidates.len() as i32,
        serde_json::to_value(stats).unwrap_or_default(),
        mining_seconds,
        instance
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if finished == 0 {
        return Err(AppError::Conflict(
            "The run was cancelled, or is no longer this server's.".into(),
        ));
    }
    Ok(())
}

/// Puts an interrupted, cancelled or failed run back in the queue, without its candidates.
pub async fn requeue(conn: &mut PgConnection, run_id: RunId) -> Result<bool, AppError> {
    let moved = sqlx::query!(
        r#"update mining_run set status = 'queued', done = 0, total = 0, candidates = 0, stats = null,
               error = null, started_at = null, finished_at = null, mining_seconds = null,
               saving_total = null, saved = 0, claimed_by = null, heartbeat_at = null,
               cancel_requested = false, attempts = 0
           where run_id = $1 and status in ('interrupted', 'cancelled', 'failed')"#,
        run_id as RunId
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if moved == 1 {
        sqlx::query!(
            "delete from mining_candidate where run_id = $1",
            run_id as RunId
        )
        .execute(&mut *conn)
        .await?;
    }
    Ok(moved == 1)
}
