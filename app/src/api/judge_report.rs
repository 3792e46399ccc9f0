//! The researcher's live dashboard of a judging campaign: Fleiss' kappa, Krippendorff's alpha,
//! Gwet's AC1, kappa against the majority, the vote distribution (SVG), vote labels against
//! Dawid-Skene, GLAD and MACE, and each worker's numbers under a pseudonym, with the workers
//! flagged for review (test pairs answered far better than ordinary pairs).
//!
//! The statistics over all judgments (about 8 s for 750,000 judgments on 2 cores: reading them, and GLAD's 6 s) are cached
//! per campaign: a load serves the cached ones when nothing they count has changed, serves them
//! marked stale and recomputes in the background when judgments came in, and computes only when
//! the campaign has none (one computation at a time per campaign).
//! The use case is in [`crate::service::judge_report`].
use leptos::prelude::*;

use crate::domain::CampaignId;
use crate::error::AppError;

pub use crate::dto::judge_report::{
    ExcludeSummary, JudgeReportView, JudgeWorkerReport, StatusEvent,
};

/// Researchers and admins only.
#[server(endpoint = "research/judge_report")]
pub async fn judge_report(campaign_id: CampaignId) -> Result<JudgeReportView, AppError> {
    super::with_status(
        async {
            let pool = super::researcher().await?;
            crate::service::judge_report::report(&pool, campaign_id).await
        }
        .await,
    )
}

/// Excludes a worker after review (researchers and admins): their judgments of ordinary pairs
/// are set aside, those pairs go back in the queue, and the worker is stopped, with the reason
/// and the numbers in the status history. `worker` is the pseudonym the dashboard shows.
#[server(endpoint = "research/exclude_worker")]
pub async fn exclude_worker(
    campaign_id: CampaignId,
    worker: String,
) -> Result<ExcludeSummary, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            let me = crate::session::require_role(&[
                crate::domain::Role::Researcher,
                crate::domain::Role::Admin,
            ])
            .await?;
            crate::service::quality::exclude_worker(&pool, campaign_id, &worker, me.app_user_id)
                .await
        }
        .await,
    )
}
