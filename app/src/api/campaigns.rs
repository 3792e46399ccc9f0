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
            let pool = crate::state::pool()?;
            let me = crate::session::require_role(&[crate::domain::Role::Admin]).await?;
            if kind != "apt" && kind != "judge" {
                return Err(AppError::validation(
                    "kind",
                    "A campaign is `apt` or `judge`.",
                ));
            }
            let title = check_title(&title)?;
            check_instructions(&instructions)?;
            if !(1..=1_000_000).contains(&budget_cap_cents) {
                return Err(AppError::validation(
                    "budget_cap_cents",
                    "The cap must be 1 to 1,000,000 cents.",
                ));
            }
            if !bleurt_threshold.is_finite() || !(-10.0..=10.0).contains(&bleurt_threshold) {
                return Err(AppError::validation(
                    "bleurt_threshold",
                    "The BLEURT threshold must be a number between -10 and 10.",
                ));
            }
            let mut tx = pool.begin().await?;
            let id = crate::db::campaigns::insert(
                &mut *tx,
                &kind,
                title,
                &instructions,
                budget_cap_cents,
                bleurt_threshold,
                me.app_user_id,
            )
            .await?;
            if kind == "judge" {
                // MultiPIT's settings; `create_judge_campaign` sets them explicitly.
                let settings = crate::domain::judge::settings::JudgeSettings::default();
                crate::db::judge::insert_settings(&mut *tx, id, &settings).await?;
            }
            tx.commit().await?;
            Ok(id.to_string())
        }
        .await,
    )
}

/// A campaign title: 1 to 200 characters after trimming.
#[cfg(feature = "ssr")]
pub(crate) fn check_title(title: &str) -> Result<&str, AppError> {
    let title = title.trim();
    if crate::domain::text::check(title).is_err() || title.chars().count() > 200 {
        return Err(AppError::validation(
            "title",
            "Give the campaign a title of 1 to 200 visible characters (no control characters).",
        ));
    }
    Ok(title)
}

/// Instructions: at most 20,000 characters.
#[cfg(feature = "ssr")]
pub(crate) fn check_instructions(instructions: &str) -> Result<(), AppError> {
    if instructions.chars().count() > 20_000 {
        return Err(AppError::validation(
            "instructions",
            "Instructions are limited to 20,000 characters.",
        ));
    }
    Ok(())
}

/// A campaign as admins see it in their list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminCampaign {
    pub campaign_id: String,
    pub kind: String,
    pub title: String,
    pub status: String,
    pub instructions: String,
    pub budget_cap_cents: i32,
    /// Source sentences (APT) or pairs including test pairs (judging).
    pub items: i64,
    /// Attempts (APT) or judgments (judging).
    pub work: i64,
    /// RFC 3339, UTC.
    pub created_at: String,
}

/// Every campaign, newest first, with counts. Admins only.
#[server(endpoint = "admin/list_campaigns")]
pub async fn list_campaigns() -> Result<Vec<AdminCampaign>, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            crate::session::require_role(&[crate::domain::Role::Admin]).await?;
            Ok(crate::db::campaigns::list_all(&pool)
                .await?
                .into_iter()
                .map(admin_view)
                .collect())
        }
        .await,
    )
}

/// One campaign with counts. Admins only.
#[server(endpoint = "admin/get_campaign")]
pub async fn get_campaign(campaign_id: String) -> Result<AdminCampaign, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            crate::session::require_role(&[crate::domain::Role::Admin]).await?;
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            crate::db::campaigns::list_all(&pool)
                .await?
                .into_iter()
                .find(|c| c.campaign_id == id)
                .map(admin_view)
                .ok_or(AppError::NotFound)
        }
        .await,
    )
}

#[cfg(feature = "ssr")]
fn admin_view(c: crate::db::campaigns::CampaignListRow) -> AdminCampaign {
    AdminCampaign {
        campaign_id: c.campaign_id.to_string(),
        kind: c.kind,
        title: c.title,
        status: c.status,
        instructions: c.instructions,
        budget_cap_cents: c.budget_cap_cents,
        items: c.items,
        work: c.work,
        created_at: c
            .created_at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
    }
}

/// Opens, closes or drafts a campaign. Admins only.
#[server(endpoint = "admin/set_campaign_status")]
pub async fn set_campaign_status(campaign_id: String, status: String) -> Result<(), AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            crate::session::require_role(&[crate::domain::Role::Admin]).await?;
            if !["draft", "open", "closed"].contains(&status.as_str()) {
                return Err(AppError::validation(
                    "status",
                    "Status is draft, open or closed.",
                ));
            }
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            crate::db::campaigns::update_status(&pool, id, &status).await
        }
        .await,
    )
}

/// The result of importing a file of source sentences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportSummary {
    pub imported: u64,
    pub duplicates_in_file: u64,
    pub already_in_campaign: u64,
}

/// Imports source sentences into an APT campaign from a file's text (MSRP, CSV, TSV, JSONL).
/// All or nothing: a bad line is reported by number and nothing is stored. Admins only.
#[server(endpoint = "admin/import_sources")]
pub async fn import_sources(
    campaign_id: String,
    filename: String,
    content: String,
    default_origin: String,
) -> Result<ImportSummary, AppError> {
    super::with_status(
        async {
            let pool = crate::state::pool()?;
            crate::session::require_role(&[crate::domain::Role::Admin]).await?;
            let id = super::parse_id(&campaign_id, "campaign_id")?;
            crate::service::campaign_of_kind(
                &pool,
                id,
                "apt",
                "Source sentences belong to APT campaigns.",
            )
            .await?;
            crate::service::imports::sources(&pool, id, &filename, &content, &default_origin).await
        }
        .await,
    )
}
