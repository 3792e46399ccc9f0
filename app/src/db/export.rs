//! Reads for dataset exports: the small keys a split needs (group, time), and the rows
//! themselves as streams (a server-side cursor), so an export never holds a campaign in memory.
use futures_util::TryStreamExt;
use sqlx::postgres::{PgArguments, PgRow};
use sqlx::query::QueryAs;
use sqlx::{FromRow, PgExecutor, PgPool, Postgres};
use uuid::Uuid;

use crate::error::AppError;

/// (pair, group, created) of every pair of a campaign, in export order.
pub async fn pair_keys(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<(Uuid, Option<String>, time::OffsetDateTime)>, AppError> {
    Ok(sqlx::query_as(
        r#"select pair_id, group_key, created_at from judge_pair
           where campaign_id = $1 order by created_at, pair_id"#,
    )
    .bind(campaign_id)
    .fetch_all(db)
    .await?)
}

/// (source sentence, created) of every attempt of an APT campaign: an APT split is by source
/// sentence over all attempts, so the attempt and submission exports agree on each sentence's
/// part.
pub async fn attempt_keys(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<(Uuid, time::OffsetDateTime)>, AppError> {
    Ok(sqlx::query_as(
        r#"select source_sentence_id, created_at from apt_attempt
           where campaign_id = $1 order by created_at, apt_attempt_id"#,
    )
    .bind(campaign_id)
    .fetch_all(db)
    .await?)
}

/// A pair as exported.
#[derive(Debug, Clone, FromRow)]
pub struct ExportPair {
    pub pair_id: Uuid,
    pub external_id: Option<String>,
    pub sentence1: String,
    pub sentence2: String,
    pub group_key: Option<String>,
    pub is_test: bool,
    pub gold_label: Option<bool>,
    pub n_judgments: i32,
    pub n_paraphrase: i32,
}

/// A judgment as exported, with its pair's texts.
#[derive(Debug, Clone, FromRow)]
pub struct ExportJudgment {
    pub pair_id: Uuid,
    pub external_id: Option<String>,
    pub sentence1: String,
    pub sentence2: String,
    pub group_key: Option<String>,
    pub app_user_id: Uuid,
    pub is_paraphrase: bool,
    pub seconds: f64,
    pub created_at: time::OffsetDateTime,
    pub trusted: bool,
    pub is_test: bool,
}

/// An APT attempt as exported.
#[derive(Debug, Clone, FromRow)]
pub struct ExportAttempt {
    pub app_user_id: Uuid,
    pub created_at: time::OffsetDateTime,
    pub seconds_since_shown: f64,
    pub origin: String,
    pub external_id: Option<String>,
    pub source_sentence_id: Uuid,
    pub sentence: String,
    pub candidate: String,
    pub bleurt: f32,
    pub is_mutual_implication: bool,
    pub reward_cents: i32,
    pub submitted: bool,
    /// Which scorer produced the Check, in words.
    pub scorer: String,
}

const PAIRS: &str = r#"select pair_id, external_id, sentence1, sentence2, group_key, is_test,
       gold_label, n_judgments, n_paraphrase
  from judge_pair where campaign_id = $1 order by created_at, pair_id"#;

const JUDGMENTS: &str = r#"select j.pair_id, p.external_id, p.sentence1, p.sentence2, p.group_key,
       j.app_user_id, j.is_paraphrase, j.seconds, j.created_at, j.trusted, j.is_test
  from judge_judgment j join judge_pair p using (pair_id)
 where j.campaign_id = $1 and (j.trusted or $2)
 order by j.created_at, j.judgment_id"#;

const ATTEMPTS: &str = r#"select a.app_user_id, a.created_at, a.seconds_since_shown, s.origin,
       s.external_id, s.source_sentence_id, s.text as sentence, a.text as candidate, a.bleurt,
       a.is_mutual_implication, a.reward_cents, (sub.apt_attempt_id is not null) as submitted,
       a.scorer
  from apt_attempt a
  join source_sentence s using (source_sentence_id)
  left join apt_submission sub on sub.apt_attempt_id = a.apt_attempt_id
 where a.campaign_id = $1 and (sub.apt_attempt_id is not null or not $2)
 order by a.created_at, a.apt_attempt_id"#;

/// Sends the rows of `query` into `out` as the cursor yields them; a full channel waits (the
/// reader sets the pace), a closed one ends early. Returns the rows sent.
async fn send<T>(
    pool: &PgPool,
    query: QueryAs<'static, Postgres, T, PgArguments>,
    out: tokio::sync::mpsc::Sender<T>,
) -> Result<u64, AppError>
where
    T: for<'r> FromRow<'r, PgRow> + Send + Unpin,
{
    let mut rows = query.fetch(pool);
    let mut sent = 0;
    while let Some(row) = rows.try_next().await? {
        if out.send(row).await.is_err() {
            break;
        }
        sent += 1;
    }
    Ok(sent)
}

/// The campaign's pairs in export order.
pub async fn send_pairs(
    pool: &PgPool,
    campaign_id: Uuid,
    out: tokio::sync::mpsc::Sender<ExportPair>,
) -> Result<u64, AppError> {
    send(pool, sqlx::query_as(PAIRS).bind(campaign_id), out).await
}

/// Every pair at once, for the statistics page (a campaign's pairs fit in memory; its
/// judgments are what a cursor is for).
pub async fn all_pairs(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<Vec<ExportPair>, AppError> {
    Ok(sqlx::query_as::<_, ExportPair>(PAIRS)
        .bind(campaign_id)
        .fetch_all(db)
        .await?)
}

/// The campaign's judgments, oldest first; untrusted ones only with `keep_untrusted`.
pub async fn send_judgments(
    pool: &PgPool,
    campaign_id: Uuid,
    keep_untrusted: bool,
    out: tokio::sync::mpsc::Sender<ExportJudgment>,
) -> Result<u64, AppError> {
    let query = sqlx::query_as(JUDGMENTS)
        .bind(campaign_id)
        .bind(keep_untrusted);
    send(pool, query, out).await
}

/// The campaign's attempts, oldest first; with `submitted_only`, the submitted ones.
pub async fn send_attempts(
    pool: &PgPool,
    campaign_id: Uuid,
    submitted_only: bool,
    out: tokio::sync::mpsc::Sender<ExportAttempt>,
) -> Result<u64, AppError> {
    let query = sqlx::query_as(ATTEMPTS)
        .bind(campaign_id)
        .bind(submitted_only);
    send(pool, query, out).await
}

/// Counts for progress: (pairs, judgments incl. untrusted, trusted judgments, attempts,
/// submissions).
pub async fn row_counts(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
) -> Result<(i64, i64, i64, i64, i64), AppError> {
    Ok(sqlx::query_as(
        r#"select (select count(*) from judge_pair where campaign_id = $1),
                  (select count(*) from judge_judgment where campaign_id = $1),
                  (select count(*) from judge_judgment where campaign_id = $1 and trusted),
                  (select count(*) from apt_attempt where campaign_id = $1),
                  (select count(*) from apt_submission where campaign_id = $1)"#,
    )
    .bind(campaign_id)
    .fetch_one(db)
    .await?)
}

/// An APT attempt's texts and verdict, for the statistics page.
#[derive(Debug, Clone, FromRow)]
pub struct AttemptText {
    pub source_sentence_id: Uuid,
    pub sentence: String,
    pub candidate: String,
    pub is_mutual_implication: bool,
}

/// Every attempt (or, with `submitted_only`, every submitted one) of an APT campaign.
pub async fn attempt_texts(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    submitted_only: bool,
) -> Result<Vec<AttemptText>, AppError> {
    Ok(sqlx::query_as::<_, AttemptText>(
        r#"select a.source_sentence_id, s.text as sentence, a.text as candidate,
                  a.is_mutual_implication
             from apt_attempt a
             join source_sentence s using (source_sentence_id)
            where a.campaign_id = $1
              and (not $2 or exists (select 1 from apt_submission sub
                                       where sub.apt_attempt_id = a.apt_attempt_id))
            order by a.created_at, a.apt_attempt_id"#,
    )
    .bind(campaign_id)
    .bind(submitted_only)
    .fetch_all(db)
    .await?)
}
