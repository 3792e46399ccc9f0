//! The export page's server function: what a campaign holds and the dataset's statistics per
//! split as ParaSCI Table 2 and MultiPIT Table 1 report them, for the
//! same options the download uses (labels, unresolved pairs, split).
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::export::spec::ExportQuery;
use crate::domain::export::stats::DatasetStats;
use crate::domain::CampaignId;
use crate::error::AppError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportPageData {
    pub campaign_id: CampaignId,
    pub title: String,
    /// `judge` or `apt`.
    pub kind: crate::domain::CampaignKind,
    pub pairs: i64,
    pub judgments: i64,
    pub trusted_judgments: i64,
    pub attempts: i64,
    pub submissions: i64,
    /// (part, statistics): `all`, `train`, `dev`, `test`. APT campaigns count their attempts
    /// (or submissions) as pairs of source and candidate, paraphrase = mutual implication.
    pub parts: Vec<(String, DatasetStats)>,
    /// A judging campaign's pairs without a label under the chosen labelling, by why.
    pub unlabelled: Option<crate::domain::export::stats::UnlabelledCounts>,
}

/// Researchers and admins only.
#[server(endpoint = "research/export_view")]
pub async fn export_view(
    campaign_id: CampaignId,
    #[server(default)] query: ExportQuery,
) -> Result<ExportPageData, AppError> {
    super::with_status(ssr::view(campaign_id, query).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::domain::Role;

    pub async fn view(
        campaign_id: CampaignId,
        query: ExportQuery,
    ) -> Result<ExportPageData, AppError> {
        let pool = crate::state::pool()?;
        crate::session::require_role(&[Role::Researcher, Role::Admin]).await?;
        let o = crate::service::export::overview(&pool, campaign_id, &query).await?;
        let (pairs, judgments, trusted_judgments, attempts, submissions) = o.counts;
        Ok(ExportPageData {
            campaign_id,
            title: o.campaign.title,
            kind: o.campaign.kind,
            pairs,
            judgments,
            trusted_judgments,
            attempts,
            submissions,
            parts: o.parts,
            unlabelled: o.unlabelled,
        })
    }
}
