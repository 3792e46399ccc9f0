//! Judgments: storing one, the trusted ones for the statistics, and republishing.
use crate::domain::judge::gate_table::Votes;
use crate::domain::{AssignmentId, CampaignId, PairId, UserId};
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

use super::{AssignmentRow, PairJudgment, TrustFlip};

/// The answer stored for an assignment already judged.
pub async fn find_judgment(
    db: impl PgExecutor<'_>,
    assignment_id: AssignmentId,
) -> Result<Option<(bool, Option<bool>)>, AppError> {
    Ok(sqlx::query!(
        "select is_paraphrase, is_correct from judge_judgment where assignment_id = $1",
        assignment_id as AssignmentId
    )
    .fetch_optional(db)
    .await?
    .map(|r| (r.is_paraphrase, r.is_correct)))
}

/// A judgment just stored: the pair's trusted votes after it, and every ordinary judgment on the
/// pair (this one included; none for a test pair).
#[derive(Debug, Clone)]
pub struct StoredJudgment {
    /// The pair's trusted votes after the judgment.
    pub votes: Votes,
    /// The ordinary judgments on the pair, this one included.
    pub on_pair: Vec<PairJudgment>,
}

/// Stores a judgment, closes the assignment, counts the vote on the pair and reads the pair's
/// other judgments, in one statement. The caller holds the pair's row lock
/// ([`super::lock_for_answer`]) from before this statement began, so its snapshot holds every
/// judgment that counts in the votes; the new one, invisible to the statement's own reads, is
/// added from the insert's result.
#[allow(clippy::too_many_arguments)]
pub async fn insert_judgment(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
    assignment_id: AssignmentId,
    a: &AssignmentRow,
    is_paraphrase: bool,
    is_correct: Option<bool>,
    seconds: f64,
) -> Result<StoredJudgment, AppError> {
    // The statement is the database function's (migration `judge_answer_in_one_call`), which
    // `judge_answer` calls too.
    let row = sqlx::query!(
        r#"select n_judgments as "n_judgments!", n_paraphrase as "n_paraphrase!",
                  users as "users!: Vec<UserId>", labels as "labels!", trusted as "trusted!"
           from judge_record_judgment($1, $2, $3, $4, $5, $6, $7, $8)
           where n_judgments is not null"#,
        assignment_id as AssignmentId,
        campaign_id as CampaignId,
        a.pair_id as PairId,
        user as UserId,
        is_paraphrase,
        a.is_test,
        is_correct,
        seconds
    )
    .fetch_optional(&mut *conn)
    .await?
    .ok_or(AppError::NotFound)?;
    let votes = Votes {
        paraphrase: i64::from(row.n_paraphrase),
        not: i64::from(row.n_judgments - row.n_paraphrase),
    };
    let on_pair = row
        .users
        .into_iter()
        .zip(row.labels)
        .zip(row.trusted)
        .map(|((app_user_id, is_paraphrase), trusted)| PairJudgment {
            pair_id: a.pair_id,
            app_user_id,
            is_paraphrase,
            trusted,
        })
        .collect();
    Ok(StoredJudgment { votes, on_pair })
}

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

/// Sets aside the trusted judgments of ordinary pairs by `workers` (untrusted, republished) and
/// gives their slots back, so trusted workers replace them. Returns the judgments it flipped.
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

/// Pairs with republished judgments that still wait for replacements.
pub async fn pending_republished(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "n!" from judge_pair p join judge_settings s using (campaign_id)
           where p.campaign_id = $1 and p.n_judgments < s.judgments_per_pair
             and exists (select 1 from judge_judgment j where j.pair_id = p.pair_id and j.republished)"#,
        campaign_id as CampaignId
    )
    .fetch_one(db)
    .await?)
}
