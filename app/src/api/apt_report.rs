//! The researcher's live view of an APT campaign: the paper's Table 2, Figure 2 and earnings.
use crate::domain::CampaignId;
use crate::error::AppError;
use leptos::prelude::*;

pub use crate::dto::apt_report::{AptReportView, ScorerUse, WorkerEarning};

/// Researchers and admins only.
#[server(endpoint = "research/apt_report")]
pub async fn apt_report(campaign_id: CampaignId) -> Result<AptReportView, AppError> {
    super::with_status(
        async {
            let pool = super::researcher().await?;
            crate::service::apt_report::report(&pool, campaign_id).await
        }
        .await,
    )
}
