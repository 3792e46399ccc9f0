//! Reads for dataset exports: the small keys a split needs (group, time), and the rows
//! themselves as streams (a server-side cursor), so an export never holds a campaign in memory.
use crate::domain::{CampaignId, PairId, SourceId, UserId};
use crate::error::AppError;
use futures_util::stream::BoxStream;
use futures_util::TryStreamExt;
use sqlx::{PgExecutor, PgPool};

/// (pair, group, created) of every pair of a campaign, in export order.
pub async fn pair_keys(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<(PairId, Option<String>, time::OffsetDateTime)>, AppError> {
    Ok(sqlx::query!(
        r#"select pair_id as "pair_id: PairId", group_key, created_at from judge_pair
           where campaign_id = $1 order by created_at, pair_id"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.pair_id, r.group_key, r.created_at))
    .collect())
}

/// (source sentence, created) of every attempt of an APT campaign: an APT split is by source
/// sentence over all attempts, so the attempt and submission exports agree on each sentence's
/// part.
pub async fn attempt_keys(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<(SourceId, time::OffsetDateTime)>, AppError> {
    Ok(sqlx::query!(
        r#"select source_sentence_id as "source_sentence_id: SourceId", created_at from apt_attempt
           where campaign_id = $1 order by created_at, apt_attempt_id"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.source_sentence_id, r.created_at))
    .collect())
}

/// A pair as exported.
#[derive(Debug, Clone)]
pub struct ExportPair {
    /// The pair's database id.
    pub pair_id: PairId,
    /// Its id in the uploaded file, if it had one.
    pub external_id: Option<String>,
    /// The first sentence.
    pub sentence1: String,
    /// The second sentence.
    pub sentence2: String,
    /// The group (trend, URL, topic) the split keeps together.
    pub group_key: Option<String>,
    /// A hidden test pair.
    pub is_test: bool,
    /// The reference or gold label (`true` = paraphrase), if the upload had one.
    pub gold_label: Option<bool>,
    /// Trusted judgments so far; for a test pair, every answer it got (workers stopped since
    /// included: its label is the gold one, and the count says how often it was checked).
    pub n_judgments: i32,
    /// Trusted "paraphrase" votes so far (a test pair: every "paraphrase" answer).
    pub n_paraphrase: i32,
    /// The label it settled on before its maximum (adaptive redundancy).
    pub settled_label: Option<bool>,
    /// Judgments holding one of its slots (`judge_pair_taken`), counted only where it can have
    /// reached the maximum without that many trusted judgments (no slot open); elsewhere the
    /// trusted judgments, on the same side of the maximum.
    pub taken: i32,
    /// A test pair promoted from a settled pair: its gold label is the crowd's.
    pub gold_promoted: bool,
    /// The posterior of "paraphrase" as of its last judgment; `None` before the first.
    pub posterior: Option<f64>,
}

/// A judgment as exported, with its pair's texts.
#[derive(Debug, Clone)]
pub struct ExportJudgment {
    /// The pair's database id.
    pub pair_id: PairId,
    /// The pair's id in the uploaded file, if it had one.
    pub external_id: Option<String>,
    /// The pair's first sentence.
    pub sentence1: String,
    /// The pair's second sentence.
    pub sentence2: String,
    /// The pair's group (trend, URL, topic).
    pub group_key: Option<String>,
    /// The worker who judged.
    pub app_user_id: UserId,
    /// The worker said "paraphrase".
    pub is_paraphrase: bool,
    /// How long the worker took, in seconds.
    pub seconds: f64,
    /// When the judgment was made.
    pub created_at: time::OffsetDateTime,
    /// The judgment counts: worker not stopped, judgment not set aside.
    pub trusted: bool,
    /// The pair was a hidden test pair.
    pub is_test: bool,
}

/// An APT attempt as exported.
#[derive(Debug, Clone)]
pub struct ExportAttempt {
    /// The worker who ran the Check.
    pub app_user_id: UserId,
    /// When the Check ran.
    pub created_at: time::OffsetDateTime,
    /// Seconds from showing the source sentence to the Check.
    pub seconds_since_shown: f64,
    /// The data set the source sentence comes from.
    pub origin: String,
    /// The source sentence's id in its data set, if known.
    pub external_id: Option<String>,
    /// The source sentence's database id (the split's group).
    pub source_sentence_id: SourceId,
    /// The source sentence.
    pub sentence: String,
    /// The worker's paraphrase attempt.
    pub candidate: String,
    /// BLEURT score of the attempt against the source.
    pub bleurt: f32,
    /// The MI judge found the attempt and source imply each other.
    pub is_mutual_implication: bool,
    /// What the attempt earned, in cents, before the cap.
    pub reward_cents: i32,
    /// The worker submitted this attempt.
    pub submitted: bool,
    /// Which scorer produced the Check, in words.
    pub scorer: String,
}

/// Sends `rows` into `out` as the cursor yields them; a full channel waits (the reader sets the
/// pace), a closed one ends early. Returns the rows sent.
async fn send<T>(
    mut rows: BoxStream<'_, Result<T, sqlx::Error>>,
    out: tokio::sync::mpsc::Sender<T>,
) -> Result<u64, AppError> {
    let mut sent = 0;
    while let Some(row) = rows.try_next().await? {
        if out.send(row).await.is_err() {
            break;
        }
        sent += 1;
    }
    Ok(sent)
}

/// The campaign's pairs in export order, as a cursor.
fn pair_rows<'e>(
    db: impl PgExecutor<'e> + 'e,
    campaign_id: CampaignId,
) -> BoxStream<'e, Result<ExportPair, sqlx::Error>> {
    sqlx::query_as!(
        ExportPair,
        // A test pair's counters, like any pair's, hold trusted judgments only, and stopping a
        // worker takes theirs away; its label is the gold one, so its row counts every answer
        // it got instead (the subqueries run for test pairs only).
        r#"select p.pair_id as "pair_id: _", p.external_id, p.sentence1, p.sentence2, p.group_key,
                  p.is_test, p.gold_label,
                  case when p.is_test
                       then (select count(*) from judge_judgment j where j.pair_id = p.pair_id)::int4
                       else p.n_judgments end as "n_judgments!",
                  case when p.is_test
                       then (select count(*) from judge_judgment j
                             where j.pair_id = p.pair_id and j.is_paraphrase)::int4
                       else p.n_paraphrase end as "n_paraphrase!",
                  p.settled_label, p.posterior, p.gold_promoted,
                  case when p.is_test or p.n_judgments >= s.judgments_per_pair or p.open_slots > 0
                       then p.n_judgments else judge_pair_taken(p.pair_id) end as "taken!"
           from judge_pair p
           join judge_settings s using (campaign_id)
           where p.campaign_id = $1 order by p.created_at, p.pair_id"#,
        campaign_id as CampaignId
    )
    .fetch(db)
}

/// The campaign's pairs in export order.
pub async fn send_pairs(
    pool: &PgPool,
    campaign_id: CampaignId,
    out: tokio::sync::mpsc::Sender<ExportPair>,
) -> Result<u64, AppError> {
    send(pair_rows(pool, campaign_id), out).await
}

/// Every pair at once, for the statistics page (a campaign's pairs fit in memory; its
/// judgments are what a cursor is for).
pub async fn all_pairs<'e>(
    db: impl PgExecutor<'e> + 'e,
    campaign_id: CampaignId,
) -> Result<Vec<ExportPair>, AppError> {
    Ok(pair_rows(db, campaign_id).try_collect().await?)
}

/// The campaign's judgments, oldest first; untrusted ones only with `keep_untrusted`.
pub async fn send_judgments(
    pool: &PgPool,
    campaign_id: CampaignId,
    keep_untrusted: bool,
    out: tokio::sync::mpsc::Sender<ExportJudgment>,
) -> Result<u64, AppError> {
    let rows = sqlx::query_as!(
        ExportJudgment,
        r#"select j.pair_id as "pair_id: _", p.external_id, p.sentence1, p.sentence2, p.group_key,
                  j.app_user_id as "app_user_id: _", j.is_paraphrase, j.seconds, j.created_at, j.trusted, j.is_test
           from judge_judgment j join judge_pair p using (pair_id)
           where j.campaign_id = $1 and (j.trusted or $2)
           order by j.created_at, j.judgment_id"#,
        campaign_id as CampaignId,
        keep_untrusted
    )
    .fetch(pool);
    send(rows, out).await
}

/// The campaign's attempts, oldest first; with `submitted_only`, the submitted ones.
pub async fn send_attempts(
    pool: &PgPool,
    campaign_id: CampaignId,
    submitted_only: bool,
    out: tokio::sync::mpsc::Sender<ExportAttempt>,
) -> Result<u64, AppError> {
    let rows = sqlx::query_as!(
        ExportAttempt,
        r#"select a.app_user_id as "app_user_id: _", a.created_at, a.seconds_since_shown, s.origin, s.external_id,
                  s.source_sentence_id as "source_sentence_id: _", s.text as sentence, a.text as candidate, a.bleurt,
                  a.is_mutual_implication, a.reward_cents,
                  (sub.apt_attempt_id is not null) as "submitted!", a.scorer
           from apt_attempt a
           join source_sentence s using (source_sentence_id)
           left join apt_submission sub on sub.apt_attempt_id = a.apt_attempt_id
           where a.campaign_id = $1 and (sub.apt_attempt_id is not null or not $2)
           order by a.created_at, a.apt_attempt_id"#,
        campaign_id as CampaignId,
        submitted_only
    )
    .fetch(pool);
    send(rows, out).await
}

/// Counts for progress: (pairs, judgments incl. untrusted, trusted judgments, attempts,
/// submissions).
pub async fn row_counts(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<(i64, i64, i64, i64, i64), AppError> {
    let r = sqlx::query!(
        r#"select (select count(*) from judge_pair where campaign_id = $1) as "pairs!",
                  (select count(*) from judge_judgment where campaign_id = $1) as "judgments!",
                  (select count(*) from judge_judgment where campaign_id = $1 and trusted)
                      as "trusted!",
                  (select count(*) from apt_attempt where campaign_id = $1) as "attempts!",
                  (select count(*) from apt_submission where campaign_id = $1) as "submissions!""#,
        campaign_id as CampaignId
    )
    .fetch_one(db)
    .await?;
    Ok((r.pairs, r.judgments, r.trusted, r.attempts, r.submissions))
}

/// An APT attempt's texts and verdict, for the statistics page.
#[derive(Debug, Clone)]
pub struct AttemptText {
    /// The source sentence's database id.
    pub source_sentence_id: SourceId,
    /// The source sentence.
    pub sentence: String,
    /// The worker's paraphrase attempt.
    pub candidate: String,
    /// The MI judge found the attempt and source imply each other.
    pub is_mutual_implication: bool,
}

/// Every attempt (or, with `submitted_only`, every submitted one) of an APT campaign.
pub async fn attempt_texts(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    submitted_only: bool,
) -> Result<Vec<AttemptText>, AppError> {
    Ok(sqlx::query_as!(
        AttemptText,
        r#"select a.source_sentence_id as "source_sentence_id: _", s.text as sentence, a.text as candidate,
                  a.is_mutual_implication
             from apt_attempt a
             join source_sentence s using (source_sentence_id)
            where a.campaign_id = $1
              and (not $2 or exists (select 1 from apt_submission sub
                                       where sub.apt_attempt_id = a.apt_attempt_id))
            order by a.created_at, a.apt_attempt_id"#,
        campaign_id as CampaignId,
        submitted_only
    )
    .fetch_all(db)
    .await?)
}
