//! MultiPIT's adaptive follow-up (§2.3) in a judging campaign: when the last first-batch pair
//! of a mined group gets its last judgment, the paraphrases found decide how many more pairs of
//! the group's follow-up reserve are deployed (`domain::mining::group_select`). Runs after the
//! judgment is committed, off the annotator's request; the decision is recorded once per
//! (campaign, run, group), so two judgments finishing a group at once deploy it once.
use sqlx::PgPool;

use crate::db::{judge as judge_db, mining as db};
use crate::domain::mining::group_select::{follow_up_decision, GroupParams};
use crate::domain::{CampaignId, PairId};
use crate::error::AppError;

/// After a judgment of `pair_id`: deploys its group's follow-up if the first batch is now done.
pub fn after_judgment(pool: PgPool, campaign_id: CampaignId, pair_id: PairId) {
    tokio::spawn(async move {
        if let Err(e) = check(&pool, campaign_id, pair_id).await {
            tracing::warn!(%campaign_id, %pair_id, error = %e, "follow-up check failed");
        }
    });
}

/// The check itself: Some(pairs added) when this call deployed a follow-up.
pub async fn check(
    pool: &PgPool,
    campaign_id: CampaignId,
    pair_id: PairId,
) -> Result<Option<u64>, AppError> {
    let Some((run_id, group, params)) = db::first_batch_of_pair(pool, pair_id).await? else {
        return Ok(None);
    };
    let params: GroupParams = serde_json::from_value(params).map_err(|_| AppError::Internal)?;
    let settings = judge_db::settings(pool, campaign_id)
        .await?
        .ok_or(AppError::NotFound)?;
    let votes: Vec<(u32, u32)> = db::first_batch_votes(pool, campaign_id, run_id, &group)
        .await?
        .into_iter()
        .map(|(n, yes)| (n.max(0) as u32, yes.max(0) as u32))
        .collect();
    let Some((paraphrases, pairs)) = follow_up_decision(
        &votes,
        settings.judgments_per_pair,
        settings.thresholds,
        &params,
    ) else {
        return Ok(None);
    };
    let mut tx = pool.begin().await?;
    let added = db::deploy_follow_up(
        &mut tx,
        campaign_id,
        run_id,
        &group,
        paraphrases,
        pairs,
        settings.judgments_per_pair,
    )
    .await?;
    tx.commit().await?;
    if let Some(added) = added {
        tracing::info!(%campaign_id, %run_id, group, paraphrases, pairs, added, "group follow-up deployed");
    }
    Ok(added)
}
