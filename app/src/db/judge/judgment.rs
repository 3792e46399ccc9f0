//! Judgments: storing one, counting them, the gate's evidence, the trusted ones for the
//! statistics, and republishing.
use sqlx::{FromRow, PgConnection, PgExecutor};
use uuid::Uuid;

use crate::domain::judge::gate::Comparison;
use crate::error::AppError;

use super::AssignmentRow;

/// The answer stored for an assignment already judged.
pub async fn find_judgment(
    db: impl PgExecutor<'_>,
    assignment_id: Uuid,
) -> Result<Option<(bool, Option<bool>)>, AppError> {
    Ok(sqlx::query_as::<_, (bool, Option<bool>)>(
        "select is_paraphrase, is_correct from judge_judgment where assignment_id = $1",
    )
    .bind(assignment_id)
    .fetch_optional(db)
    .await?)
}

/// Stores a judgment, closes the assignment and counts the vote on the pair.
#[allow(clippy::too_many_arguments)]
pub async fn insert_judgment(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
    assignment_id: Uuid,
    a: &AssignmentRow,
    is_paraphrase: bool,
    is_correct: Option<bool>,
    seconds: f64,
) -> Result<(), AppError> {
    sqlx::query(
        r#"insert into judge_judgment (assignment_id, campaign_id, pair_id, app_user_id,
               is_paraphrase, is_test, is_correct, seconds)
           values ($1, $2, $3, $4, $5, $6, $7, $8)"#,
    )
    .bind(assignment_id)
    .bind(campaign_id)
    .bind(a.pair_id)
    .bind(user)
    .bind(is_paraphrase)
    .bind(a.is_test)
    .bind(is_correct)
    .bind(seconds)
    .execute(&mut *conn)
    .await?;
    sqlx::query("update judge_assignment set status = 'judged' where assignment_id = $1")
        .bind(assignment_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        r#"update judge_pair set n_judgments = n_judgments + 1,
               n_paraphrase = n_paraphrase + $2::int
           where pair_id = $1"#,
    )
    .bind(a.pair_id)
    .bind(is_paraphrase as i32)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        r#"update judge_worker set judgments = judgments + 1,
               tests_answered = tests_answered + $3::int, tests_correct = tests_correct + $4::int
           where campaign_id = $1 and app_user_id = $2"#,
    )
    .bind(campaign_id)
    .bind(user)
    .bind(a.is_test as i32)
    .bind((is_correct == Some(true)) as i32)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// How many judgments the worker has in the campaign.
pub async fn count_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        "select count(*) from judge_judgment where campaign_id = $1 and app_user_id = $2",
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_one(db)
    .await?)
}

/// The worker's test answers (correct or not) and, for each ordinary pair they judged, the
/// other workers' trusted votes (the pair's counts minus the worker's own trusted vote).
pub async fn gate_evidence(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    user: Uuid,
) -> Result<(Vec<bool>, Vec<Comparison>), AppError> {
    let tests: Vec<bool> = sqlx::query_scalar(
        r#"select is_correct from judge_judgment
           where campaign_id = $1 and app_user_id = $2 and is_test and is_correct is not null"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_all(&mut *conn)
    .await?;
    let rows: Vec<(bool, i32, i32)> = sqlx::query_as(
        r#"select j.is_paraphrase,
                  p.n_paraphrase - (j.trusted and j.is_paraphrase)::int,
                  p.n_judgments - p.n_paraphrase - (j.trusted and not j.is_paraphrase)::int
           from judge_judgment j join judge_pair p using (pair_id)
           where j.campaign_id = $1 and j.app_user_id = $2 and not j.is_test"#,
    )
    .bind(campaign_id)
    .bind(user)
    .fetch_all(&mut *conn)
    .await?;
    let comparisons = rows
        .into_iter()
        .map(|(label, p, n)| Comparison {
            label,
            others_paraphrase: p.max(0) as u32,
            others_not: n.max(0) as u32,
        })
        .collect();
    Ok((tests, comparisons))
}

/// A trusted judgment of an ordinary pair, for the agreement statistics (in time order).
#[derive(Debug, Clone, FromRow)]
pub struct JudgmentRow {
    pub pair_id: Uuid,
    pub app_user_id: Uuid,
    pub is_paraphrase: bool,
    pub seconds: f64,
}

pub async fn trusted_judgments(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<JudgmentRow>, AppError> {
    Ok(sqlx::query_as::<_, JudgmentRow>(
        r#"select pair_id, app_user_id, is_paraphrase, seconds from judge_judgment
           where campaign_id = $1 and trusted and not is_test order by created_at, judgment_id"#,
    )
    .bind(campaign_id)
    .fetch_all(db)
    .await?)
}

/// Sets aside the trusted judgments of ordinary pairs by `workers` (untrusted, republished) and
/// gives their slots back, so trusted workers replace them. Returns (judgments, pairs).
pub async fn republish(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    workers: &[Uuid],
) -> Result<(i64, i64), AppError> {
    let (judgments, pairs): (Option<i64>, i64) = sqlx::query_as(
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
           select sum(n)::int8, count(*) from moved"#,
    )
    .bind(campaign_id)
    .bind(workers)
    .fetch_one(&mut *conn)
    .await?;
    Ok((judgments.unwrap_or(0), pairs))
}

/// Pairs with republished judgments that still wait for replacements.
pub async fn pending_republished(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        r#"select count(*) from judge_pair p join judge_settings s using (campaign_id)
           where p.campaign_id = $1 and p.n_judgments < s.judgments_per_pair
             and exists (select 1 from judge_judgment j where j.pair_id = p.pair_id and j.republished)"#,
    )
    .bind(campaign_id)
    .fetch_one(db)
    .await?)
}
