//! Judgments: storing one, counting them, the gate's evidence, the trusted ones for the
//! statistics, and republishing.
use crate::domain::judge::gate::Comparison;
use crate::domain::{AssignmentId, CampaignId, PairId, UserId};
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

use super::AssignmentRow;

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

/// Stores a judgment, closes the assignment and counts the vote on the pair.
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
) -> Result<(), AppError> {
    sqlx::query!(
        r#"insert into judge_judgment (assignment_id, campaign_id, pair_id, app_user_id,
               is_paraphrase, is_test, is_correct, seconds)
           values ($1, $2, $3, $4, $5, $6, $7, $8)"#,
        assignment_id as AssignmentId,
        campaign_id as CampaignId,
        a.pair_id as PairId,
        user as UserId,
        is_paraphrase,
        a.is_test,
        is_correct,
        seconds
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        "update judge_assignment set status = 'judged' where assignment_id = $1",
        assignment_id as AssignmentId
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        r#"update judge_pair set n_judgments = n_judgments + 1,
               n_paraphrase = n_paraphrase + $2::int
           where pair_id = $1"#,
        a.pair_id as PairId,
        is_paraphrase as i32
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        r#"update judge_worker set judgments = judgments + 1,
               tests_answered = tests_answered + $3::int, tests_correct = tests_correct + $4::int
           where campaign_id = $1 and app_user_id = $2"#,
        campaign_id as CampaignId,
        user as UserId,
        a.is_test as i32,
        (is_correct == Some(true)) as i32
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// How many judgments the worker has in the campaign.
pub async fn count_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "n!" from judge_judgment where campaign_id = $1 and app_user_id = $2"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_one(db)
    .await?)
}

/// The worker's test answers (correct or not) and, for each ordinary pair they judged, the
/// other workers' trusted votes (the pair's counts minus the worker's own trusted vote).
pub async fn gate_evidence(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<(Vec<bool>, Vec<Comparison>), AppError> {
    let tests: Vec<bool> = sqlx::query_scalar!(
        r#"select is_correct as "is_correct!" from judge_judgment
           where campaign_id = $1 and app_user_id = $2 and is_test and is_correct is not null"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_all(&mut *conn)
    .await?;
    let rows = sqlx::query!(
        r#"select j.is_paraphrase,
                  p.n_paraphrase - (j.trusted and j.is_paraphrase)::int as "others_paraphrase!",
                  p.n_judgments - p.n_paraphrase - (j.trusted and not j.is_paraphrase)::int
                      as "others_not!"
           from judge_judgment j join judge_pair p using (pair_id)
           where j.campaign_id = $1 and j.app_user_id = $2 and not j.is_test"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_all(&mut *conn)
    .await?;
    let comparisons = rows
        .into_iter()
        .map(|r| Comparison {
            label: r.is_paraphrase,
            others_paraphrase: r.others_paraphrase.max(0) as u32,
            others_not: r.others_not.max(0) as u32,
        })
        .collect();
    Ok((tests, comparisons))
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
/// gives their slots back, so trusted workers replace them. Returns (judgments, pairs).
pub async fn republish(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    workers: &[UserId],
) -> Result<(i64, i64), AppError> {
    let moved = sqlx::query!(
        r#"with flipped as (
               update judge_judgment set trusted = false, republished = true
               where campaign_id = $1 and app_user_id = any($2) and trusted and not is_test
               returning pair_id, is_paraphrase),
           per_pair as (
               select pair_id, count(*)::int as n, count(*) filter (where is_paraphrase)::int as np
               from flipped group by pair_id),
           moved as (
               update judge_pair p
               set n_judgments = p.n_judgments - f.n, n_paraphrase = p.n_paraphrase - f.np,
                   open_slots = p.open_slots + f.n
               from per_pair f where p.pair_id = f.pair_id
               returning f.n)
           select sum(n)::int8 as judgments, count(*) as "pairs!" from moved"#,
        campaign_id as CampaignId,
        workers as &[UserId]
    )
    .fetch_one(&mut *conn)
    .await?;
    Ok((moved.judgments.unwrap_or(0), moved.pairs))
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
