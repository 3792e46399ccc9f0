//! `judge_dashboard`: the dashboard statistics of each judging campaign, shared by every server
//!: computed by one, read by all.
use sqlx::PgExecutor;

use crate::domain::CampaignId;
use crate::error::AppError;

/// The stored statistics of a campaign.
#[derive(Debug, Clone)]
pub struct DashboardRow {
    /// Judgments counted when they were computed.
    pub judgments: i64,
    /// Paraphrase votes counted then.
    pub paraphrase_votes: i64,
    /// Workers then.
    pub workers: i32,
    /// The statistics (`service::judge_report`'s own shape, as JSON).
    pub statistics: serde_json::Value,
    /// When they were computed.
    pub computed_at: time::OffsetDateTime,
}

/// The campaign's stored statistics, if any were computed.
pub async fn find_dashboard(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<Option<DashboardRow>, AppError> {
    Ok(sqlx::query_as!(
        DashboardRow,
        "select judgments, paraphrase_votes, workers, statistics, computed_at
         from judge_dashboard where campaign_id = $1",
        campaign as CampaignId,
    )
    .fetch_optional(db)
    .await?)
}

/// Stores statistics computed at `row.computed_at`, unless newer ones are already stored, and
/// ends any refresh in progress either way.
pub async fn store_dashboard(
    db: &mut sqlx::PgConnection,
    campaign: CampaignId,
    row: &DashboardRow,
) -> Result<(), AppError> {
    sqlx::query!(
        "insert into judge_dashboard as d (campaign_id, judgments, paraphrase_votes, workers,
                                           statistics, computed_at)
         values ($1, $2, $3, $4, $5, $6)
         on conflict (campaign_id) do update
         set judgments = excluded.judgments, paraphrase_votes = excluded.paraphrase_votes,
             workers = excluded.workers, statistics = excluded.statistics,
             computed_at = excluded.computed_at, refreshing_until = null
         where d.computed_at < excluded.computed_at",
        campaign as CampaignId,
        row.judgments,
        row.paraphrase_votes,
        row.workers,
        row.statistics,
        row.computed_at,
    )
    .execute(&mut *db)
    .await?;
    drop_dashboard_refresh(&mut *db, campaign).await
}

/// Serialises the first computation of a campaign's statistics (in the caller's transaction):
/// concurrent first loads on any server wait for one, then read what it stored.
pub async fn lock_dashboard(
    db: &mut sqlx::PgConnection,
    campaign: CampaignId,
) -> Result<(), AppError> {
    sqlx::query!(
        "select pg_advisory_xact_lock(hashtextextended('judge_dashboard:' || $1::text, 0))",
        campaign as CampaignId,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Takes the refresh of the campaign's statistics for `lease` (false when another server is
/// refreshing them): one server computes, the others keep serving the stored ones.
pub async fn take_dashboard_refresh(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    lease: std::time::Duration,
) -> Result<bool, AppError> {
    Ok(sqlx::query!(
        "update judge_dashboard set refreshing_until = now() + make_interval(secs => $2)
         where campaign_id = $1 and (refreshing_until is null or refreshing_until < now())",
        campaign as CampaignId,
        lease.as_secs_f64(),
    )
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

/// Gives the refresh back (the computation failed), so another load may try.
pub async fn drop_dashboard_refresh(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
) -> Result<(), AppError> {
    sqlx::query!(
        "update judge_dashboard set refreshing_until = null where campaign_id = $1",
        campaign as CampaignId,
    )
    .execute(db)
    .await?;
    Ok(())
}
