//! Judgments: the trusted ones for the statistics, and republishing (an answer stores its
//! judgment in `judge_answer`).
use crate::domain::{CampaignId, PairId, UserId};
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

use super::TrustFlip;

/// A trusted judgment of an ordinary pair, for the agreement statistics (in time order).
#[derive(Debug, Clone)]
pub struct JudgmentRow {
    /// The pair judged.
    pub pair_id: PairId,
    /// The worker.
    pub app_user_id: UserId,
    /// Their answer.
    pub is_paraphrase: bool,
    /// Seconds from serving to answering.
    pub seconds: f64,
}

/// The campaign's trusted judgments of ordinary pairs, oldest first.
pub async fn trusted_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<JudgmentRow>, AppError> {
    Ok(sqlx::query_as!(
        JudgmentRow,
        r#"select pair_id as "pair_id: _", app_user_id as "app_user_id: _", is_paraphrase, seconds
           from judge_judgment
           where campaign_id = $1 and trusted and not is_test order by created_at, judgment_id"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?)
}

/// Every judgment of an ordinary pair, trusted or set aside, oldest first, with whether it is
/// trusted: what the check for accounts that answer alike reads (an account excluded stays
/// beside the ones it answered alike with).
pub async fn ordinary_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<(bool, JudgmentRow)>, AppError> {
    let rows = sqlx::query!(
        r#"select pair_id as "pair_id: PairId", app_user_id as "app_user_id: UserId",
                  is_paraphrase, seconds, trusted
           from judge_judgment
           where campaign_id = $1 and not is_test order by created_at, judgment_id"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.trusted,
                JudgmentRow {
                    pair_id: r.pair_id,
                    app_user_id: r.app_user_id,
                    is_paraphrase: r.is_paraphrase,
                    seconds: r.seconds,
                },
            )
        })
        .collect())
}

/// Sets aside the trusted judgments of ordinary pairs by `workers` (untrusted, republished) and
/// gives their slots back, so trusted workers replace them. Returns the judgments it flipped;
/// [`set_aside_stopped`] does the same for the judgments that had already stopped counting.
pub async fn republish(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    workers: &[UserId],
) -> Result<Vec<TrustFlip>, AppError> {
    Ok(sqlx::query_as!(
        TrustFlip,
        r#"with flipped as (
               update judge_judgment set trusted = false, republished = true
               where campaign_id = $1 and app_user_id = any($2) and trusted and not is_test
               returning pair_id, app_user_id, is_paraphrase),
           per_pair as (
               select pair_id, count(*)::int as n, count(*) filter (where is_paraphrase)::int as np
               from flipped group by pair_id),
           moved as (
               update judge_pair p
               set n_judgments = p.n_judgments - f.n, n_paraphrase = p.n_paraphrase - f.np,
                   open_slots = p.open_slots + f.n
               from per_pair f where p.pair_id = f.pair_id
               returning p.pair_id, p.n_judgments, p.n_paraphrase, -f.n as moved,
                         -f.np as moved_paraphrase)
           select f.pair_id as "pair_id: _", f.app_user_id as "app_user_id: _",
                  false as "trusted!", m.n_judgments, m.n_paraphrase,
                  m.moved as "moved!", m.moved_paraphrase as "moved_paraphrase!"
           from flipped f join moved m using (pair_id)"#,
        campaign_id as CampaignId,
        workers as &[UserId]
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// Sets aside the judgments of ordinary pairs by `workers` that had already stopped counting
/// (a stopped worker's: they held their slots) and gives their slots back, so other workers
/// replace them. Returns the pair of each judgment set aside (a pair once per judgment).
pub async fn set_aside_stopped(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    workers: &[UserId],
) -> Result<Vec<PairId>, AppError> {
    let pairs: Vec<PairId> = sqlx::query_scalar!(
        r#"update judge_judgment set republished = true
           where campaign_id = $1 and app_user_id = any($2) and not trusted and not republished
             and not is_test
           returning pair_id as "pair_id: PairId""#,
        campaign_id as CampaignId,
        workers as &[UserId]
    )
    .fetch_all(&mut *conn)
    .await?;
    if pairs.is_empty() {
        return Ok(pairs);
    }
    sqlx::query!(
        r#"update judge_pair p set open_slots = p.open_slots + f.n
           from (select pair_id, count(*)::int as n from unnest($1::uuid[]) as t(pair_id)
                 group by pair_id) f
           where p.pair_id = f.pair_id"#,
        &pairs as &[PairId]
    )
    .execute(&mut *conn)
    .await?;
    Ok(pairs)
}

/// Pairs with republished judgments that still wait for replacements (not settled meanwhile,
/// and a slot not yet taken: `judge_pair_taken`).
pub async fn pending_republished(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "n!" from judge_pair p join judge_settings s using (campaign_id)
           where p.campaign_id = $1 and p.n_judgments < s.judgments_per_pair
             and p.settled_label is null and not p.is_test
             and judge_pair_taken(p.pair_id) < s.judgments_per_pair
             and exists (select 1 from judge_judgment j where j.pair_id = p.pair_id and j.republished)"#,
        campaign_id as CampaignId
    )
    .fetch_one(db)
    .await?)
}
