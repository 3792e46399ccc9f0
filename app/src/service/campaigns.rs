//! Campaigns: the open ones an annotator can work on, and creating, listing and opening or
//! closing them (admins).
use sqlx::PgPool;

use crate::db::{campaigns as db, judge};
use crate::domain::judge::settings::JudgeSettings;
use crate::domain::{CampaignId, CampaignKind, CampaignStatus, UserId};
use crate::dto::campaigns::{AdminCampaign, CampaignSummary};
use crate::error::AppError;

/// Open campaigns, as `user` sees them (not those whose gate stopped them).
pub async fn list_open(pool: &PgPool, user: UserId) -> Result<Vec<CampaignSummary>, AppError> {
    Ok(db::list_open(pool, user)
        .await?
        .into_iter()
        .map(|c| CampaignSummary {
            campaign_id: c.campaign_id,
            kind: c.kind,
            title: c.title,
        })
        .collect())
}

/// A campaign title: 1 to 200 characters after trimming.
pub fn check_title(title: &str) -> Result<&str, AppError> {
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
pub fn check_instructions(instructions: &str) -> Result<(), AppError> {
    if instructions.chars().count() > 20_000 {
        return Err(AppError::validation(
            "instructions",
            "Instructions are limited to 20,000 characters.",
        ));
    }
    Ok(())
}

/// Creates a draft campaign of `kind` (`apt` or `judge`; a judging one gets MultiPIT's
/// settings) and returns its id.
pub async fn create(
    pool: &PgPool,
    by: UserId,
    kind: &str,
    title: &str,
    instructions: &str,
    budget_cap_cents: i32,
    bleurt_threshold: f64,
) -> Result<CampaignId, AppError> {
    let kind = CampaignKind::parse(kind)
        .ok_or_else(|| AppError::validation("kind", "A campaign is `apt` or `judge`."))?;
    let title = check_title(title)?;
    check_instructions(instructions)?;
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
    let id = db::insert(
        &mut *tx,
        kind,
        title,
        instructions,
        budget_cap_cents,
        bleurt_threshold,
        by,
    )
    .await?;
    if kind == CampaignKind::Judge {
        // MultiPIT's settings; `judge_campaigns::create` sets them explicitly.
        judge::insert_settings(&mut *tx, id, &JudgeSettings::default()).await?;
    }
    tx.commit().await?;
    Ok(id)
}

fn admin_view(c: db::CampaignListRow) -> AdminCampaign {
    AdminCampaign {
        campaign_id: c.campaign_id,
        kind: c.kind,
        title: c.title,
        status: c.status,
        instructions: c.instructions,
        budget_cap_cents: c.budget_cap_cents,
        items: c.items,
        work: c.work,
        created_at: super::rfc3339(c.created_at),
    }
}

/// Every campaign, newest first, with counts.
pub async fn list_all(pool: &PgPool) -> Result<Vec<AdminCampaign>, AppError> {
    Ok(db::list_all(pool)
        .await?
        .into_iter()
        .map(admin_view)
        .collect())
}

/// One campaign with counts.
pub async fn get(pool: &PgPool, id: CampaignId) -> Result<AdminCampaign, AppError> {
    db::list_all(pool)
        .await?
        .into_iter()
        .find(|c| c.campaign_id == id)
        .map(admin_view)
        .ok_or(AppError::NotFound)
}

/// Opens, closes or drafts a campaign.
pub async fn set_status(pool: &PgPool, id: CampaignId, status: &str) -> Result<(), AppError> {
    let status = CampaignStatus::parse(status)
        .ok_or_else(|| AppError::validation("status", "Status is draft, open or closed."))?;
    db::update_status(pool, id, status).await
}
