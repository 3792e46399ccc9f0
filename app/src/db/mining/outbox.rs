//! `follow_up_outbox`: group follow-ups a judgment made due, written in the judgment's own
//! transaction so that none is lost to a server that dies after the commit (issue #24).
use sqlx::PgExecutor;

use crate::domain::{CampaignId, PairId};
use crate::error::AppError;

/// Records that a judgment completed `pair` and its group's follow-up may be due: only for a
/// mined pair (others have no group). A row already there is due again, its attempts counted
/// afresh. Whether a row was written (the sweeper need not wake for a pair that is not mined).
pub async fn enqueue_follow_up(
    db: impl PgExecutor<'_>,
    campaign: CampaignId,
    pair: PairId,
) -> Result<bool, AppError> {
    let done = sqlx::query!(
        "insert into follow_up_outbox (campaign_id, pair_id)
         select $1, $2 where exists (select 1 from judge_pair p
                                     where p.pair_id = $2 and p.mining_run_id is not null)
         on conflict (campaign_id, pair_id) do update set due_at = now(), attempts = 0",
        campaign as CampaignId,
        pair as PairId,
    )
    .execute(db)
    .await?;
    Ok(done.rows_affected() > 0)
}

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
