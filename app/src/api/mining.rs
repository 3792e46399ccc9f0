//! Mining (admins): import corpora, run the MSRP L12 and F2 miners as background jobs, watch and
//! cancel them, read the candidates and deploy them to a judging campaign.
use crate::domain::{CampaignId, CorpusId, RunId};
use crate::error::AppError;
use leptos::prelude::*;

pub use crate::dto::mining::{
    CandidateView, CorpusView, DeploySummary, FollowUpView, MethodForm, MiningState, RunView,
    SelectionForm,
};

/// Imports a corpus from a file's text. `shape`: `documents` (clustered documents, split into
/// sentences), `grouped` (short texts with a group key) or `sentences` (one a line). Columns are
/// found by their usual names unless given (`text_column` may list several, comma-separated).
#[allow(clippy::too_many_arguments)]
#[server(endpoint = "admin/import_corpus")]
pub async fn import_corpus(
    name: String,
    filename: String,
    content: String,
    shape: String,
    #[server(default)] cluster_column: String,
    #[server(default)] id_column: String,
    #[server(default)] text_column: String,
    #[server(default)] keep_headings: bool,
) -> Result<CorpusView, AppError> {
    let columns = crate::domain::mining::corpus::Columns {
        cluster: cluster_column,
        id: id_column,
        text: text_column,
        ..Default::default()
    };
    super::with_status(ssr::import(name, filename, content, shape, columns, !keep_headings).await)
}

#[server(endpoint = "admin/mining_overview")]
pub async fn mining_overview() -> Result<MiningState, AppError> {
    super::with_status(ssr::overview().await)
}

/// Starts a mining run (`method` = `l12`, `f2`, `group` or `embedding`); parameters left out
/// take the paper's values.
#[allow(clippy::too_many_arguments)]
#[server(endpoint = "admin/start_mining")]
pub async fn start_mining(
    corpus_id: CorpusId,
    method: String,
    #[server(default)] max_edit_distance: Option<u32>,
    #[server(default)] min_length_ratio: Option<f64>,
    #[server(default)] first_sentences: Option<u32>,
    #[server(default)] min_shared_long_words: Option<u32>,
    #[server(default)] long_word_chars: Option<u32>,
    #[server(default)] min_word_ratio: Option<f64>,
    #[server(default)] seeds: Option<u32>,
    #[server(default)] per_seed: Option<u32>,
    #[server(default)] pool: Option<u32>,
    #[server(default)] follow_seeds: Option<u32>,
    #[server(default)] follow_pool: Option<u32>,
    #[server(default)] block: Option<u32>,
    #[server(default)] steps: Option<String>,
    #[server(default)] random_seed: Option<u64>,
    #[server(default)] min_cosine: Option<f64>,
    #[server(default)] max_length_rate: Option<f64>,
    #[server(default)] same_document: bool,
) -> Result<String, AppError> {
    let options = MethodForm {
        method,
        max_edit_distance,
        min_length_ratio,
        first_sentences,
        min_shared_long_words,
        long_word_chars,
        min_word_ratio,
        seeds,
        per_seed,
        pool,
        follow_seeds,
        follow_pool,
        block,
        steps,
        random_seed,
        min_cosine,
        max_length_rate,
        same_document,
    };
    super::with_status(ssr::start(corpus_id, options).await)
}

#[server(endpoint = "admin/mining_run")]
pub async fn mining_run(run_id: RunId) -> Result<RunView, AppError> {
    super::with_status(ssr::run(run_id).await)
}

/// Stops a queued or running run (it ends as cancelled, without candidates).
#[server(endpoint = "admin/cancel_mining")]
pub async fn cancel_mining(run_id: RunId) -> Result<(), AppError> {
    super::with_status(ssr::cancel(run_id).await)
}

/// Runs an interrupted, cancelled or failed run again from the start.
#[server(endpoint = "admin/restart_mining")]
pub async fn restart_mining(run_id: RunId) -> Result<(), AppError> {
    super::with_status(ssr::restart(run_id).await)
}

/// Candidates of a finished run (see [`SelectionForm`]; at most 500).
#[allow(clippy::too_many_arguments)]
#[server(endpoint = "admin/mining_candidates")]
pub async fn mining_candidates(
    run_id: RunId,
    #[server(default)] min_edit_distance: Option<i32>,
    #[server(default)] max_edit_distance: Option<i32>,
    #[server(default)] limit: Option<i64>,
    #[server(default)] sample: bool,
    #[server(default)] min_score: Option<f64>,
    #[server(default)] max_score: Option<f64>,
) -> Result<Vec<CandidateView>, AppError> {
    let s = SelectionForm {
        min_edit_distance,
        max_edit_distance,
        min_score,
        max_score,
        limit: Some(limit.unwrap_or(20).min(500)),
        sample,
    };
    super::with_status(ssr::candidates(run_id, s).await)
}

/// Deploys candidates to a judging campaign (the same selection as `mining_candidates`, no
/// limit by default), skipping pairs the campaign already has. More than 1,000 at once are
/// added only with `confirm_count` equal to their number; without it nothing is added and the
/// answer's `needs_confirmation` says how many it would be.
#[allow(clippy::too_many_arguments)]
#[server(endpoint = "admin/deploy_candidates")]
pub async fn deploy_candidates(
    run_id: RunId,
    campaign_id: CampaignId,
    #[server(default)] min_edit_distance: Option<i32>,
    #[server(default)] max_edit_distance: Option<i32>,
    #[server(default)] limit: Option<i64>,
    #[server(default)] sample: bool,
    #[server(default)] min_score: Option<f64>,
    #[server(default)] max_score: Option<f64>,
    #[server(default)] confirm_count: Option<u64>,
) -> Result<DeploySummary, AppError> {
    let s = SelectionForm {
        min_edit_distance,
        max_edit_distance,
        min_score,
        max_score,
        limit,
        sample,
    };
    super::with_status(ssr::deploy(run_id, campaign_id, s, confirm_count).await)
}

#[cfg(feature = "ssr")]
mod ssr {

    use super::*;
    use crate::api::{admin, rfc3339};
    use crate::db::mining as db;
    use crate::service::{imports, mining as service};

    fn run_view(r: db::RunRow) -> RunView {
        let elapsed = r.started_at.map(|s| {
            let end = r.finished_at.unwrap_or_else(time::OffsetDateTime::now_utc);
            (end - s).as_seconds_f64()
        });
        let running = r.status == crate::domain::RunStatus::Running;
        let measuring = crate::domain::mining::progress::measuring(
            running,
            r.done,
            r.total,
            r.saving_total.is_some(),
        );
        let rate = match (elapsed, r.mining_seconds) {
            (_, Some(m)) if m > 0.0 => Some(r.done as f64 / m),
            (Some(e), None) if e > 0.0 && r.done > 0 && !measuring => Some(r.done as f64 / e),
            _ => None,
        };
        let seconds_left = (r.status == crate::domain::RunStatus::Running)
            .then(|| {
                rate.filter(|v| *v > 0.0)
                    .map(|v| (r.total - r.done).max(0) as f64 / v)
            })
            .flatten();
        let params = match r.params.as_object() {
            Some(o) => o.iter().map(|(k, v)| (k.clone(), v.to_string())).collect(),
            None => Vec::new(),
        };
        RunView {
            run_id: r.run_id,
            corpus_id: r.corpus_id,
            corpus_name: r.corpus_name,
            method: r.method,
            params,
            status: r.status,
            done: r.done,
            total: r.total,
            rate,
            seconds_left,
            candidates: r.candidates,
            stats: r.stats.and_then(|s| serde_json::from_value(s).ok()),
            error: r.error,
            mining_seconds: r.mining_seconds,
            measuring,
            saving: r
                .saving_total
                .filter(|_| r.status == crate::domain::RunStatus::Running)
                .map(|total| (r.saved, total)),
            created_at: rfc3339(r.created_at),
            follow_ups: Vec::new(),
        }
    }

    pub async fn import(
        name: String,
        filename: String,
        content: String,
        shape: String,
        columns: Columns,
        skip_headings: bool,
    ) -> Result<CorpusView, AppError> {
        let (pool, me) = admin().await?;
        imports::corpus(
            &pool,
            Some(me),
            &name,
            &filename,
            &content,
            &shape,
            &columns,
            skip_headings,
        )
        .await
    }

    pub async fn overview() -> Result<MiningState, AppError> {
        let (pool, _) = admin().await?;
        let o = service::overview(&pool).await?;
        Ok(MiningState {
            corpora: o.corpora,
            runs: o.runs.into_iter().map(run_view).collect(),
            campaigns: o
                .judge_campaigns
                .into_iter()
                .map(|c| (c.campaign_id.to_string(), c.title))
                .collect(),
        })
    }

    pub async fn start(corpus_id: CorpusId, form: MethodForm) -> Result<String, AppError> {
        let embedder = crate::state::app_state()?.embedder;
        let (pool, me) = admin().await?;
        let method = form.method()?;
        let run_id = service::start(pool, embedder, me, corpus_id, method).await?;
        Ok(run_id.to_string())
    }

    pub async fn run(run_id: RunId) -> Result<RunView, AppError> {
        let (pool, _) = admin().await?;
        let (run, follow_ups) = service::run(&pool, run_id).await?;
        let mut view = run_view(run);
        view.follow_ups = follow_ups;
        Ok(view)
    }

    pub async fn cancel(run_id: RunId) -> Result<(), AppError> {
        let (pool, _) = admin().await?;
        service::cancel(&pool, run_id).await
    }

    pub async fn restart(run_id: RunId) -> Result<(), AppError> {
        let (pool, _) = admin().await?;
        service::restart(pool, run_id).await
    }

    pub async fn candidates(
        run_id: RunId,
        s: SelectionForm,
    ) -> Result<Vec<CandidateView>, AppError> {
        let (pool, _) = admin().await?;
        service::candidates(&pool, run_id, s).await
    }

    pub async fn deploy(
        run_id: RunId,
        campaign_id: CampaignId,
        s: SelectionForm,
        confirm_count: Option<u64>,
    ) -> Result<DeploySummary, AppError> {
        let (pool, _) = admin().await?;
        let campaign = campaign_id;
        let (added, skipped) =
            match service::deploy(&pool, run_id, campaign, s, confirm_count).await? {
                service::Deployed::Added { added, skipped } => (added, skipped),
                service::Deployed::NeedsConfirmation(n) => {
                    return Ok(DeploySummary {
                        added: 0,
                        already_in_campaign: 0,
                        needs_confirmation: Some(n),
                    })
                }
            };
        Ok(DeploySummary {
            added,
            already_in_campaign: skipped,
            needs_confirmation: None,
        })
    }

    use crate::domain::mining::corpus::Columns;
}
