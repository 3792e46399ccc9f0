//! Mining use cases (admins): the overview, starting, watching, cancelling and restarting runs
//! (the jobs themselves are `mining_jobs`), choosing candidates and deploying them to a judging
//! campaign. Imports of corpora are in `imports`.
use std::sync::Arc;

use sqlx::PgPool;

use crate::db::campaigns::{self, CampaignListRow};
use crate::db::mining::{self as db, RunRow};
use crate::domain::mining::{deploy_guard, Method};
use crate::domain::{CampaignId, CampaignKind, CorpusId, RunId, RunStatus, UserId};
use crate::dto::mining::SelectionForm;
use crate::dto::mining::{CandidateView, CorpusView, FollowUpView};
use crate::error::AppError;
use crate::ml::SentenceEmbedder;
use crate::service::mining_jobs;

/// Everything the mining page lists: corpora, runs, and the judging campaigns to deploy to.
pub struct Overview {
    pub corpora: Vec<CorpusView>,
    pub runs: Vec<RunRow>,
    pub judge_campaigns: Vec<CampaignListRow>,
}

pub async fn overview(pool: &PgPool) -> Result<Overview, AppError> {
    Ok(Overview {
        corpora: db::list_corpora(pool).await?,
        runs: db::list_runs(pool).await?,
        judge_campaigns: campaigns::list_all(pool)
            .await?
            .into_iter()
            .filter(|c| c.kind == CampaignKind::Judge)
            .collect(),
    })
}

/// Queues a run of `method` over a corpus and starts it in this process. A method that needs
/// embeddings loads the model first, so a missing one is said at once; its version joins the
/// run's parameters.
pub async fn start(
    pool: PgPool,
    embedder: Arc<dyn SentenceEmbedder>,
    started_by: UserId,
    corpus_id: CorpusId,
    method: Method,
) -> Result<RunId, AppError> {
    let mut params = method.params_json();
    if method.needs_embeddings() {
        let e = embedder.clone();
        let version = tokio::task::spawn_blocking(move || e.version())
            .await
            .map_err(|_| AppError::Internal)?
            .map_err(|message| AppError::validation("method", message))?;
        params["model"] = serde_json::Value::String(version);
    }
    db::find_corpus(&pool, corpus_id)
        .await?
        .ok_or(AppError::NotFound)?;
    let run_id = db::create_run(&pool, corpus_id, method.kind(), &params, started_by).await?;
    // Queued: a server that runs jobs claims it (this one at once, if it does).
    mining_jobs::wake();
    Ok(run_id)
}

pub async fn find(pool: &PgPool, run_id: RunId) -> Result<RunRow, AppError> {
    db::find_run(pool, run_id).await?.ok_or(AppError::NotFound)
}

/// A run and, for group selection, the follow-up decisions taken so far.
pub async fn run(pool: &PgPool, run_id: RunId) -> Result<(RunRow, Vec<FollowUpView>), AppError> {
    let run = find(pool, run_id).await?;
    let follow_ups = if run.method == crate::domain::MethodKind::Group {
        db::follow_ups(pool, run_id).await?
    } else {
        Vec::new()
    };
    Ok((run, follow_ups))
}

/// Stops a queued or running run; it ends as cancelled, without candidates. A queued run is
/// cancelled here; a running one is asked to stop, and the server mining it (whichever it is)
/// ends it within a heartbeat.
pub async fn cancel(pool: &PgPool, run_id: RunId) -> Result<(), AppError> {
    let run = find(pool, run_id).await?;
    if db::cancel_queued(pool, run.run_id).await? || db::request_cancel(pool, run.run_id).await? {
        return Ok(());
    }
    Err(AppError::Conflict(format!(
        "The run is {}; only a queued or running run can be cancelled.",
        find(pool, run_id).await?.status
    )))
}

/// Runs an interrupted, cancelled or failed run again from the start.
pub async fn restart(pool: PgPool, run_id: RunId) -> Result<(), AppError> {
    let run = find(&pool, run_id).await?;
    // The job reads its method back from the row: it must read.
    Method::from_row(run.method, &run.params).ok_or(AppError::Internal)?;
    let mut tx = pool.begin().await?;
    if !db::requeue(&mut tx, run.run_id).await? {
        return Err(AppError::Conflict(format!(
            "The run is {}; only an interrupted, cancelled or failed run can be restarted.",
            run.status
        )));
    }
    tx.commit().await?;
    mining_jobs::wake();
    Ok(())
}

/// The selection a form asks for, checked against a finished run.
fn selection(run: &RunRow, f: SelectionForm) -> Result<db::Selection, AppError> {
    if run.status != RunStatus::Finished {
        return Err(AppError::Conflict(format!(
            "The run is {}; candidates come when it has finished.",
            run.status
        )));
    }
    let s = db::Selection {
        min_edit_distance: f.min_edit_distance.unwrap_or(0),
        max_edit_distance: f.max_edit_distance.unwrap_or(i32::MAX),
        min_score: f.min_score.unwrap_or(f64::MIN),
        max_score: f.max_score.unwrap_or(f64::MAX),
        limit: f.limit.unwrap_or(i64::MAX),
        sample: f.sample,
    };
    if s.min_edit_distance > s.max_edit_distance {
        return Err(AppError::validation(
            "max_edit_distance",
            "The range is empty: the minimum is above the maximum.",
        ));
    }
    // Also refuses NaN bounds, which compare as neither.
    if !matches!(
        s.min_score.partial_cmp(&s.max_score),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    ) {
        return Err(AppError::validation(
            "max_score",
            "The score range is empty: the minimum is above the maximum.",
        ));
    }
    if s.limit < 1 {
        return Err(AppError::validation(
            "limit",
            "Choose at least one candidate.",
        ));
    }
    Ok(s)
}

/// A finished run's candidates as the form selects them.
pub async fn candidates(
    pool: &PgPool,
    run_id: RunId,
    form: SelectionForm,
) -> Result<Vec<CandidateView>, AppError> {
    let run = find(pool, run_id).await?;
    let s = selection(&run, form)?;
    db::select_candidates(pool, run.run_id, s).await
}

/// What a deploy did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deployed {
    /// Candidates added, and those the campaign already had.
    Added { added: u64, skipped: u64 },
    /// Nothing added: this many must be confirmed first (`deploy_guard`).
    NeedsConfirmation(u64),
}

/// Deploys the selected candidates to a judging campaign, skipping pairs it already has; more
/// than `deploy_guard::CONFIRM_ABOVE` only with `confirm_count` equal to their number.
pub async fn deploy(
    pool: &PgPool,
    run_id: RunId,
    campaign_id: CampaignId,
    form: SelectionForm,
    confirm_count: Option<u64>,
) -> Result<Deployed, AppError> {
    let run = find(pool, run_id).await?;
    let s = selection(&run, form)?;
    super::campaign_of_kind(
        pool,
        campaign_id,
        CampaignKind::Judge,
        "Candidates go to judging campaigns.",
    )
    .await?;
    let settings = crate::db::judge::settings(pool, campaign_id)
        .await?
        .ok_or(AppError::NotFound)?;
    let mut tx = pool.begin().await?;
    let chosen = db::select_candidates(&mut *tx, run.run_id, s).await?;
    if deploy_guard::needs_confirmation(chosen.len(), confirm_count) {
        return Ok(Deployed::NeedsConfirmation(chosen.len() as u64));
    }
    let added = db::insert_pairs(
        &mut tx,
        run.run_id,
        campaign_id,
        &chosen,
        settings.judgments_per_pair,
    )
    .await?;
    tx.commit().await?;
    super::imports::pairs_arrived(pool, added).await;
    Ok(Deployed::Added {
        added,
        skipped: chosen.len() as u64 - added,
    })
}
