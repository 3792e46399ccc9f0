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
