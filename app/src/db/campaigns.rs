//! `campaign`: the studies annotators work on (APT writing, MultiPIT judging).
use sqlx::{FromRow, PgExecutor};
use uuid::Uuid;

use crate::error::AppError;

/// A campaign as listed on the home page.
#[derive(Debug, Clone, FromRow)]
pub struct CampaignRow {
    pub campaign_id: Uuid,
    pub kind: String,
    pub title: String,
    pub status: String,
}

/// Campaigns open for work, newest first.
pub async fn list_open(db: impl PgExecutor<'_>) -> Result<Vec<CampaignRow>, AppError> {
    Ok(sqlx::query_as::<_, CampaignRow>(
        r#"select campaign_id, kind, title, status from campaign
           where status = 'open' order by created_at desc"#,
    )
    .fetch_all(db)
    .await?)
}

/// Settings of one campaign.
#[derive(Debug, Clone, FromRow)]
pub struct CampaignSettings {
    pub campaign_id: Uuid,
    pub kind: String,
    pub title: String,
    pub status: String,
    pub instructions: String,
    pub budget_cap_cents: i32,
    pub bleurt_threshold: f64,
}

/// Inserts a campaign (status `draft`).
pub async fn insert(
    db: impl PgExecutor<'_>,
    kind: &str,
    title: &str,
    instructions: &str,
    budget_cap_cents: i32,
    bleurt_threshold: f64,
    created_by: Uuid,
) -> Result<Uuid, AppError> {
    Ok(sqlx::query_scalar(
        r#"insert into campaign (kind, title, instructions, budget_cap_cents, bleurt_threshold, created_by)
           values ($1, $2, $3, $4, $5, $6) returning campaign_id"#,
    )
    .bind(kind)
    .bind(title)
    .bind(instructions)
    .bind(budget_cap_cents)
    .bind(bleurt_threshold)
    .bind(created_by)
    .fetch_one(db)
    .await?)
}

pub async fn find(db: impl PgExecutor<'_>, id: Uuid) -> Result<Option<CampaignSettings>, AppError> {
    Ok(sqlx::query_as::<_, CampaignSettings>(
        r#"select campaign_id, kind, title, status, instructions, budget_cap_cents, bleurt_threshold
           from campaign where campaign_id = $1"#,
    )
    .bind(id)
    .fetch_optional(db)
    .await?)
}

pub async fn update_status(
    db: impl PgExecutor<'_>,
    id: Uuid,
    status: &str,
) -> Result<(), AppError> {
    let done =
        sqlx::query("update campaign set status = $2, updated_at = now() where campaign_id = $1")
            .bind(id)
            .bind(status)
            .execute(db)
            .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::NotFound);
    }
    Ok(())
}

/// A campaign with its counts, for the admin's list.
#[derive(Debug, Clone, FromRow)]
pub struct CampaignListRow {
    pub campaign_id: Uuid,
    pub kind: String,
    pub title: String,
    pub status: String,
    pub instructions: String,
    pub budget_cap_cents: i32,
    pub items: i64,
    pub work: i64,
    pub created_at: time::OffsetDateTime,
}

/// Every campaign, newest first, with its sources or pairs and its attempts or judgments.
pub async fn list_all(db: impl PgExecutor<'_>) -> Result<Vec<CampaignListRow>, AppError> {
    Ok(sqlx::query_as::<_, CampaignListRow>(
        r#"select c.campaign_id, c.kind, c.title, c.status, c.instructions, c.budget_cap_cents,
                  case when c.kind = 'apt'
                       then (select count(*) from source_sentence s where s.campaign_id = c.campaign_id)
                       else (select count(*) from judge_pair p where p.campaign_id = c.campaign_id)
                  end as items,
                  case when c.kind = 'apt'
                       then (select count(*) from apt_attempt a where a.campaign_id = c.campaign_id)
                       else (select count(*) from judge_judgment j where j.campaign_id = c.campaign_id)
                  end as work,
                  c.created_at
           from campaign c order by c.created_at desc"#,
    )
    .fetch_all(db)
    .await?)
}
