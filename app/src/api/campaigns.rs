//! The campaigns a user can work on.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// A campaign as an annotator sees it in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignSummary {
    pub campaign_id: String,
    /// `apt` (writing) or `judge` (judging).
    pub kind: String,
    pub title: String,
}

/// Open campaigns for the logged-in user.
#[server(endpoint = "list_my_campaigns")]
pub async fn list_my_campaigns() -> Result<Vec<CampaignSummary>, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            crate::session::require_user().await?;
            let rows = crate::db::campaigns::list_open(&pool).await?;
            Ok(rows
                .into_iter()
                .map(|c| CampaignSummary {
                    campaign_id: c.campaign_id.to_string(),
                    kind: c.kind,
                    title: c.title,
                })
                .collect())
        }
        .await,
    )
}
