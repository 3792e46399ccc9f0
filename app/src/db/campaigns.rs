//! `campaign`: the studies annotators work on (APT writing, MultiPIT judging).
use crate::domain::{CampaignId, CampaignKind, CampaignStatus, UserId};
use crate::error::AppError;
use sqlx::PgExecutor;

/// A campaign as listed on the home page.
#[derive(Debug, Clone)]
pub struct CampaignRow {
    /// The campaign's id.
    pub campaign_id: CampaignId,
    /// APT writing or MultiPIT judging.
    pub kind: CampaignKind,
    /// The title workers see.
    pub title: String,
    /// Draft, open or closed.
    pub status: CampaignStatus,
}

/// Campaigns open for work, newest first, without the judging campaigns whose gate stopped
/// `user` (there is nothing left for them there).
pub async fn list_open(
    db: impl PgExecutor<'_>,
    user: UserId,
) -> Result<Vec<CampaignRow>, AppError> {
    Ok(sqlx::query_as!(
        CampaignRow,
        r#"select c.campaign_id as "campaign_id: _", c.kind as "kind: CampaignKind", c.title,
                  c.status as "status: CampaignStatus"
           from campaign c
           where c.status = 'open'
             and not exists (select 1 from judge_worker w
                             where w.campaign_id = c.campaign_id and w.app_user_id = $1
                               and w.status = 'stopped')
             -- A worker recruited through a study link sees only the studies they arrived in.
             and (not exists (select 1 from platform_account p where p.app_user_id = $1)
                  or exists (select 1 from study_arrival a
                             where a.campaign_id = c.campaign_id and a.app_user_id = $1))
           order by c.created_at desc"#,
        user as UserId
    )
    .fetch_all(db)
    .await?)
}

/// Settings of one campaign.
#[derive(Debug, Clone)]
pub struct CampaignSettings {
    /// The campaign's id.
    pub campaign_id: CampaignId,
    /// APT writing or MultiPIT judging.
    pub kind: CampaignKind,
    /// The title workers see.
    pub title: String,
    /// Draft, open or closed.
    pub status: CampaignStatus,
    /// What workers read before they start.
    pub instructions: String,
    /// APT: what one worker may earn in the campaign, in cents.
    pub budget_cap_cents: i32,
    /// APT: the BLEURT score above which a Check pays nothing.
    pub bleurt_threshold: f64,
}

/// Inserts a campaign (status `draft`).
pub async fn insert(
    db: impl PgExecutor<'_>,
    kind: CampaignKind,
    title: &str,
    instructions: &str,
    budget_cap_cents: i32,
    bleurt_threshold: f64,
    created_by: UserId,
) -> Result<CampaignId, AppError> {
    Ok(sqlx::query_scalar!(
        r#"insert into campaign (kind, title, instructions, budget_cap_cents, bleurt_threshold, created_by)
           values ($1, $2, $3, $4, $5, $6)
           returning campaign_id as "campaign_id: CampaignId""#,
        kind as CampaignKind,
        title,
        instructions,
        budget_cap_cents,
        bleurt_threshold,
        created_by as UserId
    )
    .fetch_one(db)
    .await?)
}

/// One campaign's settings.
pub async fn find(
    db: impl PgExecutor<'_>,
    id: CampaignId,
) -> Result<Option<CampaignSettings>, AppError> {
    Ok(sqlx::query_as!(
        CampaignSettings,
        r#"select campaign_id as "campaign_id: _", kind as "kind: CampaignKind", title,
                  status as "status: CampaignStatus", instructions, budget_cap_cents,
                  bleurt_threshold
           from campaign where campaign_id = $1"#,
        id as CampaignId
    )
    .fetch_optional(db)
    .await?)
}

/// Opens, closes or reopens a campaign; `NotFound` when there is no such campaign.
pub async fn update_status(
    db: impl PgExecutor<'_>,
    id: CampaignId,
    status: CampaignStatus,
) -> Result<(), AppError> {
    let done = sqlx::query!(
        "update campaign set status = $2, updated_at = now() where campaign_id = $1",
        id as CampaignId,
        status as CampaignStatus
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::NotFound);
    }
    Ok(())
}

/// A campaign with its counts, for the admin's list.
#[derive(Debug, Clone)]
pub struct CampaignListRow {
    /// The campaign's id.
    pub campaign_id: CampaignId,
    /// APT writing or MultiPIT judging.
    pub kind: CampaignKind,
    /// The title workers see.
    pub title: String,
    /// Draft, open or closed.
    pub status: CampaignStatus,
    /// What workers read before they start.
    pub instructions: String,
    /// APT: what one worker may earn, in cents.
    pub budget_cap_cents: i32,
    /// Source sentences (APT) or pairs (judging).
    pub items: i64,
    /// Checks (APT) or judgments (judging).
    pub work: i64,
    /// When it was created.
    pub created_at: time::OffsetDateTime,
}

/// Every campaign, newest first, with its sources or pairs and its attempts or judgments.
pub async fn list_all(db: impl PgExecutor<'_>) -> Result<Vec<CampaignListRow>, AppError> {
    Ok(sqlx::query_as!(
        CampaignListRow,
        r#"select c.campaign_id as "campaign_id: _", c.kind as "kind: CampaignKind", c.title,
                  c.status as "status: CampaignStatus", c.instructions, c.budget_cap_cents,
                  case when c.kind = 'apt'
                       then (select count(*) from source_sentence s where s.campaign_id = c.campaign_id)
                       else (select count(*) from judge_pair p where p.campaign_id = c.campaign_id)
                  end as "items!",
                  case when c.kind = 'apt'
                       then (select count(*) from apt_attempt a where a.campaign_id = c.campaign_id)
                       else (select count(*) from judge_judgment j where j.campaign_id = c.campaign_id)
                  end as "work!",
                  c.created_at
           from campaign c order by c.created_at desc"#
    )
    .fetch_all(db)
    .await?)
}
