//! MultiPIT's adaptive follow-up (§2.3) in a judging campaign: when the last first-batch pair
//! of a mined group gets its last judgment, the paraphrases found decide how many more pairs of
//! the group's follow-up reserve are deployed (`domain::mining::group_select`). Runs after the
//! judgment is committed, off the annotator's request; the decision is recorded once per
//! (campaign, run, group), so two judgments finishing a group at once deploy it once.
//!
//! The judgment's transaction writes an outbox row for it (`follow_up_outbox`), and
//! the servers running jobs do the checks from there ([`start_sweeper`]): the server that took
//! the judgment wakes its own sweeper if it has one, and a row left by a server that died, or by
//! a web-only server, is done by whichever job server claims it first. The check is safe to
//! repeat: the decision is recorded once.
use std::sync::LazyLock;
use std::time::Duration;

use sqlx::PgPool;

use crate::db::{judge as judge_db, mining as db};
use crate::domain::mining::group_select::{follow_up_decision, GroupParams};
use crate::domain::{CampaignId, PairId};
use crate::error::AppError;

/// Follow-ups claimed per sweep.
const SWEEP_BATCH: i64 = 100;
/// How long a claimed follow-up is a sweeper's before another may claim it again (one whose
/// server died mid-check).
const SWEEP_LEASE: Duration = Duration::from_secs(30);
/// Checks of one follow-up at most. One that keeps failing stays in the table, logged as an
/// error; `update follow_up_outbox set attempts = 0` (or another completing judgment of its
/// pair, after a republish) arms it again once the cause is fixed.
const MAX_ATTEMPTS: i32 = 5;

/// Wakes this process's sweeper, if it runs one: a judgment just committed a follow-up row.
pub fn wake_sweeper() {
    WAKE.notify_waiters();
}

/// A judgment of this process committed an outbox row (only a shortcut: the row is the truth).
static WAKE: LazyLock<tokio::sync::Notify> = LazyLock::new(tokio::sync::Notify::new);

async fn check_and_clear(
    pool: &PgPool,
    campaign_id: CampaignId,
    pair_id: PairId,
) -> Result<(), AppError> {
    check(pool, campaign_id, pair_id).await?;
    db::follow_up_done(pool, campaign_id, pair_id).await
}

/// Checks the follow-ups in the outbox as they come (a server running jobs), looking at least
/// every `poll`, until `server` is gone or the pool is closed.
pub fn start_sweeper(
    pool: PgPool,
    poll: Duration,
    server: std::sync::Weak<()>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while server.strong_count() > 0 && !pool.is_closed() {
            match sweep(&pool).await {
                Ok(0) => {
                    let _ = tokio::time::timeout(poll, WAKE.notified()).await;
                }
                Ok(n) => tracing::debug!(follow_ups = n, "follow-ups checked"),
                Err(e) => {
                    tracing::warn!(error = %e, "could not sweep the follow-up outbox");
                    tokio::time::sleep(poll).await;
                }
            }
        }
    })
}

/// One sweep: the follow-ups that fell due, each checked and cleared. Returns how many.
pub async fn sweep(pool: &PgPool) -> Result<usize, AppError> {
    let due = db::claim_due_follow_ups(pool, SWEEP_BATCH, SWEEP_LEASE, MAX_ATTEMPTS).await?;
    for &(campaign_id, pair_id, attempts) in &due {
        if let Err(e) = check_and_clear(pool, campaign_id, pair_id).await {
            if attempts >= MAX_ATTEMPTS {
                tracing::error!(%campaign_id, %pair_id, attempts, error = %e, "follow-up check failed for the last time; it stays in follow_up_outbox (set attempts = 0 to retry)");
            } else {
                tracing::warn!(%campaign_id, %pair_id, attempts, error = %e, "follow-up check failed; it will be tried again");
            }
        }
    }
    Ok(due.len())
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
    let votes = db::first_batch_votes(pool, campaign_id, run_id, &group).await?;
    let Some((paraphrases, pairs)) = follow_up_decision(&votes, settings.label_rule(), &params)
    else {
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
