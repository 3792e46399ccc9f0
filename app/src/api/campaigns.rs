//! Campaigns: the ones a user can work on; creating, listing, opening and closing them and
//! importing source sentences (admins). The use cases are in [`crate::service::campaigns`].
use leptos::prelude::*;

use crate::domain::CampaignId;
use crate::error::AppError;

pub use crate::dto::campaigns::{AdminCampaign, CampaignSummary, ImportSummary};

#[cfg(feature = "ssr")]
use ssr::*;

/// Open campaigns for the logged-in user.
#[server(endpoint = "list_my_campaigns")]
pub async fn list_my_campaigns() -> Result<Vec<CampaignSummary>, AppError> {
    super::with_status(
        async {
            let pool = pool()?;
            let user = crate::session::require_user().await?;
            service::list_open(&pool, user.app_user_id).await
        }
        .await,
    )
}

/// Creates a campaign (draft). Admins only. `kind` is `apt` or `judge`.
#[server(endpoint = "admin/create_campaign")]
pub async fn create_campaign(
    kind: String,
    title: String,
    instructions: String,
    budget_cap_cents: i32,
    bleurt_threshold: f64,
) -> Result<String, AppError> {
    super::with_status(
        async {
            let (pool, me) = admin().await?;
            let id = service::create(
                &pool,
                me,
                &kind,
                &title,
                &instructions,
                budget_cap_cents,
                bleurt_threshold,
            )
            .await?;
            Ok(id.to_string())
        }
        .await,
    )
}

/// Every campaign, newest first, with counts. Admins only.
#[server(endpoint = "admin/list_campaigns")]
pub async fn list_campaigns() -> Result<Vec<AdminCampaign>, AppError> {
    super::with_status(
        async {
            let (pool, _) = admin().await?;
            service::list_all(&pool).await
        }
        .await,
    )
}

/// One campaign with counts. Admins only.
#[server(endpoint = "admin/get_campaign")]
pub async fn get_campaign(campaign_id: CampaignId) -> Result<AdminCampaign, AppError> {
    super::with_status(
        async {
            let (pool, _) = admin().await?;
            service::get(&pool, campaign_id).await
        }
        .await,
    )
}

/// Opens, closes or drafts a campaign. Admins only.
#[server(endpoint = "admin/set_campaign_status")]
pub async fn set_campaign_status(campaign_id: CampaignId, status: String) -> Result<(), AppError> {
    super::with_status(
        async {
            let (pool, _) = admin().await?;
            service::set_status(&pool, campaign_id, &status).await
        }
        .await,
    )
}

/// Imports source sentences into an APT campaign from a file's text (MSRP, CSV, TSV, JSONL).
/// All or nothing: a bad line is reported by number and nothing is stored. Admins only.
#[server(endpoint = "admin/import_sources")]
pub async fn import_sources(
    campaign_id: CampaignId,
    filename: String,
    content: String,
    default_origin: String,
) -> Result<ImportSummary, AppError> {
    super::with_status(
        async {
            let (pool, _) = admin().await?;
            crate::service::campaign_of_kind(
                &pool,
                campaign_id,
                crate::domain::CampaignKind::Apt,
                "Source sentences belong to APT campaigns.",
            )
            .await?;
            crate::service::imports::sources(
                &pool,
                campaign_id,
                &filename,
                &content,
                &default_origin,
            )
            .await
        }
        .await,
    )
}

#[cfg(feature = "ssr")]
mod ssr {
    pub use crate::api::admin;
    pub use crate::service::campaigns as service;
    pub use crate::state::pool;
}
