//! Reads for dataset exports: the small per-pair keys a split needs (group, time), and the pairs
//! themselves as a stream (a server-side cursor), so an export never holds a campaign in memory.
use futures_util::TryStreamExt;
use sqlx::{FromRow, PgExecutor, PgPool};
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

/// Sends the campaign's pairs in export order into `out` as the database cursor yields them;
/// a full channel waits (the reader sets the pace), a closed one ends early. Returns the rows
/// sent.
pub async fn send_pairs(
    pool: &PgPool,
    campaign_id: Uuid,
    out: tokio::sync::mpsc::Sender<ExportPair>,
) -> Result<u64, AppError> {
    let mut rows = sqlx::query_as::<_, ExportPair>(
        r#"select pair_id, external_id, sentence1, sentence2, group_key, is_test,
                  gold_label, n_judgments, n_paraphrase
           from judge_pair where campaign_id = $1 order by created_at, pair_id"#,
    )
    .bind(campaign_id)
    .fetch(pool);
    let mut sent = 0;
    while let Some(row) = rows.try_next().await? {
        if out.send(row).await.is_err() {
            break;
        }
        sent += 1;
    }
    Ok(sent)
}
