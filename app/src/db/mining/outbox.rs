//! `follow_up_outbox`: group follow-ups a judgment made due, written in the judgment's own
//! transaction so that none is lost to a server that dies after the commit.
use sqlx::PgExecutor;

use crate::domain::{CampaignId, PairId};
use crate::error::AppError;

/// The follow-up of `pair` is done (or was not due).
pub async fn follow_up_done(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    pair: PairId,
) -> Result<(), AppError> {
    sqlx::query!(
        "delete from follow_up_outbox where campaign_id = $1 and pair_id = $2",
        campaign as CampaignId,
        pair as PairId,
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Claims up to `limit` due follow-ups for `lease` (a claim whose server dies mid-check falls
/// due again after it), at most `max_attempts` times each: (campaign, pair, attempts so far).
pub async fn claim_due_follow_ups(
    db: impl PgExecutor<'_>,
    limit: i64,
    lease: std::time::Duration,
    max_attempts: i32,
) -> Result<Vec<(CampaignId, PairId, i32)>, AppError> {
    Ok(sqlx::query!(
        r#"update follow_up_outbox o
           set due_at = now() + make_interval(secs => $2), attempts = o.attempts + 1
           where (o.campaign_id, o.pair_id) in (
               select campaign_id, pair_id from follow_up_outbox
               where due_at <= now() and attempts < $3
               order by due_at
               limit $1
               for update skip locked)
           returning o.campaign_id as "campaign_id: CampaignId", o.pair_id as "pair_id: PairId",
                     o.attempts"#,
        limit,
        lease.as_secs_f64(),
        max_attempts,
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.campaign_id, r.pair_id, r.attempts))
    .collect())
}
