//! Importing files: an APT campaign's source sentences, a judging campaign's pairs, a corpus to
//! mine. Each parses the whole file first (a bad line is reported by number) and stores it in
//! one transaction: all or nothing. Shared by the admin pages and the CLI.
use sqlx::PgPool;

use crate::domain::apt::source_import::{self, check_size, detect_format, parse_sources};
use crate::domain::judge::pair_import::parse_pairs;
use crate::domain::judge::settings::JudgeSettings;
use crate::domain::mining::corpus::{parse, Columns, CorpusShape};
use crate::domain::{CampaignId, UserId};
use crate::dto::campaigns::ImportSummary;
use crate::dto::judge_admin::PairImportSummary;
use crate::dto::mining::CorpusView;
use crate::error::AppError;

/// Source sentences into an APT campaign (MSRP, CSV, TSV, JSONL); rows without an origin get
/// `default_origin`, or `msrp` for MSRP's files, or `upload`.
pub async fn sources(
    pool: &PgPool,
    campaign_id: CampaignId,
    filename: &str,
    content: &str,
    default_origin: &str,
) -> Result<ImportSummary, AppError> {
    let format = detect_format(filename, content);
    let origin = source_import::default_origin(format, default_origin);
    let parsed = off_the_async_threads(content, move |content| {
        check_size(content)?;
        parse_sources(content, format, &origin)
    })
    .await?
    .map_err(|e| AppError::validation("content", e))?;
    let mut tx = pool.begin().await?;
    let (imported, skipped) =
        crate::db::apt::insert_sources(&mut tx, campaign_id, &parsed.rows).await?;
    tx.commit().await?;
    Ok(ImportSummary {
        imported,
        duplicates_in_file: parsed.duplicates_in_file as u64,
        already_in_campaign: skipped,
    })
}

/// Sentence pairs into a judging campaign; with `labels_are_tests`, labelled rows become hidden
/// test pairs.
pub async fn judge_pairs(
    pool: &PgPool,
    campaign_id: CampaignId,
    settings: &JudgeSettings,
    filename: &str,
    content: &str,
    labels_are_tests: bool,
) -> Result<PairImportSummary, AppError> {
    let filename_owned = filename.to_owned();
    let parsed = off_the_async_threads(content, move |content| {
        parse_pairs(&filename_owned, content, labels_are_tests)
    })
    .await?
    .map_err(|e| AppError::validation("content", e))?;
    let mut tx = pool.begin().await?;
    let (imported, skipped) = crate::db::judge::insert_pairs(
        &mut tx,
        campaign_id,
        &parsed.rows,
        settings.judgments_per_pair,
    )
    .await?;
    // Test pairs uploaded again with an explanation get it.
    let explanations_updated =
        crate::db::judge::update_explanations(&mut tx, campaign_id, &parsed.rows).await?;
    tx.commit().await?;
    pairs_arrived(pool, imported).await;
    Ok(PairImportSummary {
        imported,
        duplicates_in_file: parsed.duplicates_in_file as u64,
        already_in_campaign: skipped,
        explanations_updated,
        tests_in_file: parsed.tests as u64,
        identical: parsed.identical as u64,
    })
}

/// A corpus to mine. `shape`: `documents`, `grouped` or `sentences`.
#[allow(clippy::too_many_arguments)]
pub async fn corpus(
    pool: &PgPool,
    created_by: Option<UserId>,
    name: &str,
    filename: &str,
    content: &str,
    shape: &str,
    columns: &Columns,
    skip_headings: bool,
) -> Result<CorpusView, AppError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(AppError::validation(
            "name",
            "Give the corpus a name of 1 to 200 characters.",
        ));
    }
    let shape = CorpusShape::parse(shape).ok_or_else(|| {
        AppError::validation(
            "shape",
            "The shape is `documents`, `grouped` or `sentences`.",
        )
    })?;
    let (filename_owned, columns) = (filename.to_owned(), columns.clone());
    let docs = off_the_async_threads(content, move |content| {
        parse(&filename_owned, content, shape, &columns, skip_headings)
    })
    .await?
    .map_err(|e| AppError::validation("content", e))?;
    if docs.iter().all(|d| d.sentences.is_empty()) {
        return Err(AppError::validation(
            "content",
            "The file has no sentences.",
        ));
    }
    let mut tx = pool.begin().await?;
    let (id, _) =
        crate::db::mining::insert_corpus(&mut tx, name, shape, filename.trim(), &docs, created_by)
            .await?;
    let row = crate::db::mining::find_corpus(&mut *tx, id)
        .await?
        .ok_or(AppError::Internal)?;
    tx.commit().await?;
    Ok(row)
}

/// Runs `parse` on a copy of `content` on the blocking threads. A large file takes seconds of
/// CPU to parse; on an async worker thread that would stall every other request of the server,
/// `/health` included.
async fn off_the_async_threads<T: Send + 'static>(
    content: &str,
    parse: impl FnOnce(&str) -> T + Send + 'static,
) -> Result<T, AppError> {
    let content = content.to_owned();
    tokio::task::spawn_blocking(move || parse(&content))
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "a file's parse panicked");
            AppError::Internal
        })
}

/// After pairs were committed to a judging campaign: the planner samples the pair table again
/// (`db::judge::sample_pairs_for_the_planner` says why). The pairs are in; a failure here only
/// costs speed until autovacuum samples it, so it is logged, not returned.
pub(super) async fn pairs_arrived(pool: &PgPool, added: u64) {
    if added == 0 {
        return;
    }
    if let Err(e) = crate::db::judge::sample_pairs_for_the_planner(pool).await {
        tracing::warn!(error = %e, "could not sample judge_pair for the planner after an import");
    }
}
