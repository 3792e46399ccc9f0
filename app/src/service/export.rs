//! Dataset exports put together: a checked [`ExportSpec`] becomes a stream of file
//! chunks read from a database cursor (constant memory, no time limit), shared by the download
//! route and `paracrowd export`; and a campaign's statistics per split for the export page.
//!
//! The split is computed first from small per-row keys (group, time); then rows flow from a
//! cursor through a bounded channel, are labelled, filtered to the asked part and written in
//! chunks of about 64 KiB. A database error part-way ends the stream with an error, so nobody
//! takes a cut-off file for a whole one.
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use axum::body::Bytes;
use futures_util::Stream;
use sqlx::PgPool;
use tokio::sync::mpsc;

use crate::db::export::{ExportAttempt, ExportJudgment, ExportPair};
use crate::domain::account::pseudonym;
use crate::domain::export::format::{
    attempt_line, header_for, judgment_line, pair_line, AttemptRow, JudgmentRow, PairRow,
};
use crate::domain::export::labels::{model_labels, Vote};
use crate::domain::export::spec::{CampaignKind, ExportQuery, ExportSpec, LabelBy, Rows};
use crate::domain::export::split::{split, Part, Row};
use crate::domain::export::stats::{
    dataset_stats, DatasetStats, StatRow, Unlabelled, UnlabelledCounts,
};
use crate::domain::judge::labels::{pair_label, PairVotes, VoteLabel};
use crate::domain::judge::settings::JudgeSettings;
use crate::domain::{CampaignId, PairId, SourceId, UserId};
use crate::error::AppError;

/// Rows waiting between the database and the writer.
const CHANNEL: usize = 256;
/// Lines are gathered into chunks of about this many bytes.
const CHUNK: usize = 64 * 1024;

pub type ChunkStream = Pin<Box<dyn Stream<Item = Result<Bytes, std::io::Error>> + Send>>;

/// An export ready to be written.
pub struct Export {
    pub file_name: String,
    pub content_type: &'static str,
    /// Rows the export reads from the database (before keeping one part or dropping unresolved
    /// pairs): the whole of a progress bar.
    pub source_rows: u64,
    /// Rows read so far (grows as the body is consumed).
    pub rows_read: Arc<AtomicU64>,
    pub body: ChunkStream,
}

/// The campaign's kind and the checked spec; `NotFound` for no such campaign.
pub async fn check(
    pool: &PgPool,
    campaign_id: CampaignId,
    query: &ExportQuery,
) -> Result<(CampaignKind, ExportSpec), AppError> {
    let campaign = crate::db::campaigns::find(pool, campaign_id)
        .await?
        .ok_or(AppError::NotFound)?;
    let kind = campaign.kind;
    let spec = ExportSpec::parse(kind, query)?;
    Ok((kind, spec))
}

/// Opens an export of `campaign_id` (the caller has checked who may read it).
pub async fn open(
    pool: &PgPool,
    campaign_id: CampaignId,
    query: &ExportQuery,
) -> Result<Export, AppError> {
    let (kind, spec) = check(pool, campaign_id, query).await?;
    let file_name = spec.file_name(kind, &campaign_id.to_string());
    let content_type = spec.format.content_type();
    let (pairs, judgments, trusted, attempts, submissions) =
        crate::db::export::row_counts(pool, campaign_id).await?;
    let source_rows = match spec.rows {
        Rows::Pairs => pairs,
        Rows::Judgments if spec.keep_untrusted => judgments,
        Rows::Judgments => trusted,
        Rows::Attempts => attempts,
        Rows::Submissions => submissions,
    }
    .max(0) as u64;
    let rows_read = Arc::new(AtomicU64::new(0));
    let body = match spec.rows {
        Rows::Pairs | Rows::Judgments => {
            judge_stream(pool, campaign_id, &spec, rows_read.clone()).await?
        }
        Rows::Attempts | Rows::Submissions => {
            apt_stream(pool, campaign_id, &spec, rows_read.clone()).await?
        }
    };
    Ok(Export {
        file_name,
        content_type,
        source_rows,
        rows_read,
        body,
    })
}

/// A judging campaign's labels: gold for test pairs; otherwise by vote over trusted judgments
/// (a pair short of its judgments has none) or by a model of the workers (Dawid-Skene, GLAD,
/// MACE).
struct Labeller {
    settings: JudgeSettings,
    by_model: Option<HashMap<PairId, Option<u8>>>,
}

impl Labeller {
    async fn load(
        pool: &PgPool,
        campaign_id: CampaignId,
        by: LabelBy,
        pair_ids: &[PairId],
    ) -> Result<Labeller, AppError> {
        let settings = crate::db::judge::settings(pool, campaign_id)
            .await?
            .ok_or(AppError::NotFound)?;
        let by_model = match by.model() {
            None => None,
            Some(model) => {
                // Every trusted judgment of an ordinary pair at once: EM needs them all.
                let judgments = crate::db::judge::trusted_judgments(pool, campaign_id).await?;
                let pair_index: HashMap<PairId, usize> =
                    pair_ids.iter().enumerate().map(|(i, p)| (*p, i)).collect();
                // Workers numbered as the dashboard numbers them (`list_workers`' order): MACE
                // starts from a seeded draw per worker in that order, so both give one label.
                let workers: HashMap<UserId, usize> =
                    crate::db::judge::list_workers(pool, campaign_id)
                        .await?
                        .iter()
                        .enumerate()
                        .map(|(i, w)| (w.app_user_id, i))
                        .collect();
                let votes: Vec<Vote> = judgments
                    .iter()
                    .filter_map(|j| {
                        Some(Vote {
                            pair: *pair_index.get(&j.pair_id)?,
                            worker: *workers.get(&j.app_user_id)?,
                            is_paraphrase: j.is_paraphrase,
                        })
                    })
                    .collect();
                // EM over every judgment is CPU work: off the request threads.
                let (pairs, n_workers) = (pair_ids.len(), workers.len());
                let labels = tokio::task::spawn_blocking(move || {
                    model_labels(model, &votes, pairs, n_workers)
                })
                .await
                .map_err(|e| {
                    tracing::error!(error = %e, "labelling an export panicked");
                    AppError::Internal
                })?;
                Some(pair_ids.iter().copied().zip(labels).collect())
            }
        };
        Ok(Labeller { settings, by_model })
    }

    /// The pair's label, or why it has none.
    fn label(&self, p: &ExportPair) -> Result<u8, Unlabelled> {
        if p.is_test {
            return p
                .gold_label
                .map(u8::from)
                .ok_or(Unlabelled::ShortOfJudgments);
        }
        if let Some(by_model) = &self.by_model {
            // A model labels every judged pair but one whose two posteriors are equal.
            return match by_model.get(&p.pair_id).copied().flatten() {
                Some(label) => Ok(label),
                None if p.n_judgments > 0 => Err(Unlabelled::Unresolved),
                None => Err(Unlabelled::ShortOfJudgments),
            };
        }
        let votes = PairVotes {
            judgments: p.n_judgments.max(0) as u32,
            paraphrase: p.n_paraphrase.max(0) as u32,
            taken: p.taken.max(0) as u32,
            settled: p.settled_label,
            posterior: p.posterior,
        };
        match pair_label(votes, self.settings.label_rule()) {
            None => Err(Unlabelled::ShortOfJudgments),
            Some(VoteLabel::Paraphrase) => Ok(1),
            Some(VoteLabel::NotParaphrase) => Ok(0),
            Some(VoteLabel::Unresolved) => Err(Unlabelled::Unresolved),
        }
    }
}

/// The part of every pair of a judging campaign, and the pair ids in export order.
async fn judge_parts(
    pool: &PgPool,
    campaign_id: CampaignId,
    spec: &ExportSpec,
) -> Result<(Vec<PairId>, HashMap<PairId, Part>), AppError> {
    let keys = crate::db::export::pair_keys(pool, campaign_id).await?;
    let rows: Vec<Row<&str, time::OffsetDateTime>> = keys
        .iter()
        .map(|(_, g, t)| Row {
            group: g.as_deref(),
            time: *t,
        })
        .collect();
    let parts = split(&rows, spec.shares, spec.split_by, spec.seed);
    let ids: Vec<PairId> = keys.iter().map(|k| k.0).collect();
    let map = ids.iter().copied().zip(parts).collect();
    Ok((ids, map))
}

/// Runs `source` on its own task, feeding a channel; returns the receiving end and a flag set
/// when the source failed.
fn spawn_source<T, F, Fut>(source: F) -> (mpsc::Receiver<T>, Arc<AtomicBool>)
where
    T: Send + 'static,
    F: FnOnce(mpsc::Sender<T>) -> Fut,
    Fut: std::future::Future<Output = Result<u64, AppError>> + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<T>(CHANNEL);
    let failed = Arc::new(AtomicBool::new(false));
    let flag = failed.clone();
    let fut = source(tx);
    tokio::spawn(async move {
        if let Err(e) = fut.await {
            tracing::error!(error = %e, "export stopped by a database error");
            flag.store(true, Ordering::SeqCst);
        }
    });
    (rx, failed)
}

/// The header, then the lines of the rows `rx` yields, gathered into chunks; an error at the end
/// when the source failed.
fn chunks<T, L>(
    head: String,
    rx: mpsc::Receiver<T>,
    failed: Arc<AtomicBool>,
    rows_read: Arc<AtomicU64>,
    line_of: L,
) -> ChunkStream
where
    T: Send + 'static,
    L: Fn(T) -> Option<String> + Send + 'static,
{
    struct State<T, L> {
        rx: mpsc::Receiver<T>,
        line_of: L,
        failed: Arc<AtomicBool>,
        rows_read: Arc<AtomicU64>,
        pending: String,
        ended: bool,
    }
    let state = State {
        rx,
        line_of,
        failed,
        rows_read,
        pending: head,
        ended: false,
    };
    Box::pin(futures_util::stream::unfold(state, |mut s| async move {
        if s.ended {
            return None;
        }
        loop {
            match s.rx.recv().await {
                Some(row) => {
                    s.rows_read.fetch_add(1, Ordering::Relaxed);
                    if let Some(line) = (s.line_of)(row) {
                        s.pending.push_str(&line);
                        if s.pending.len() >= CHUNK {
                            let chunk = Bytes::from(std::mem::take(&mut s.pending));
                            return Some((Ok(chunk), s));
                        }
                    }
                }
                None if s.failed.load(Ordering::SeqCst) => {
                    s.ended = true;
                    let e = std::io::Error::other("the export stopped on a database error");
                    return Some((Err(e), s));
                }
                None if s.pending.is_empty() => return None,
                None => {
                    s.ended = true;
                    let chunk = Bytes::from(std::mem::take(&mut s.pending));
                    return Some((Ok(chunk), s));
                }
            }
        }
    }))
}

async fn judge_stream(
    pool: &PgPool,
    campaign_id: CampaignId,
    spec: &ExportSpec,
    rows_read: Arc<AtomicU64>,
) -> Result<ChunkStream, AppError> {
    let (ids, parts) = judge_parts(pool, campaign_id, spec).await?;
    let part_of = move |id: &PairId| parts.get(id).copied().unwrap_or(Part::Train);
    let want = spec.part;
    let (format, out) = (spec.format, spec.output());
    match spec.rows {
        Rows::Pairs => {
            let labeller = Labeller::load(pool, campaign_id, spec.labels, &ids).await?;
            drop(ids);
            let keep_unresolved = spec.keep_unresolved;
            let pool = pool.clone();
            let (rx, failed) = spawn_source(move |tx| async move {
                crate::db::export::send_pairs(&pool, campaign_id, tx).await
            });
            let line_of = move |p: ExportPair| {
                let part = part_of(&p.pair_id);
                if want.is_some_and(|w| w != part) {
                    return None;
                }
                let label = labeller.label(&p).ok();
                if label.is_none() && !keep_unresolved {
                    return None;
                }
                pair_line(out, &pair_row(p, label, part, labeller.by_model.is_some()))
            };
            Ok(chunks(
                header_for::<PairRow>(format),
                rx,
                failed,
                rows_read,
                line_of,
            ))
        }
        _ => {
            drop(ids);
            let (pool, keep_untrusted) = (pool.clone(), spec.keep_untrusted);
            let (rx, failed) = spawn_source(move |tx| async move {
                crate::db::export::send_judgments(&pool, campaign_id, keep_untrusted, tx).await
            });
            let line_of = move |j: ExportJudgment| {
                let part = part_of(&j.pair_id);
                if want.is_some_and(|w| w != part) {
                    return None;
                }
                judgment_line(out, &judgment_row(j, part))
            };
            Ok(chunks(
                header_for::<JudgmentRow>(format),
                rx,
                failed,
                rows_read,
                line_of,
            ))
        }
    }
}

/// A pair's row; `by_model`: its label came from a model, which the settling rule's posterior
/// does not describe (left empty). The posterior is its label's, or for a pair kept without
/// one (unresolved) that of "paraphrase".
fn pair_row(p: ExportPair, label: Option<u8>, part: Part, by_model: bool) -> PairRow {
    let posterior = match (p.is_test || by_model, label, p.posterior) {
        (false, Some(0), Some(yes)) => Some(1.0 - yes),
        (false, _, Some(yes)) => Some(yes),
        _ => None,
    };
    PairRow {
        posterior,
        id: p.external_id.unwrap_or_else(|| p.pair_id.to_string()),
        sentence1: p.sentence1,
        sentence2: p.sentence2,
        n_paraphrase: p.n_paraphrase.max(0) as u32,
        n_judgments: p.n_judgments.max(0) as u32,
        label,
        group: p.group_key,
        // A promoted test pair's label is the crowd's: exported as a labelled pair, not gold.
        gold: p.is_test && !p.gold_promoted,
        split: Some(part.as_str().to_owned()),
    }
}

fn judgment_row(j: ExportJudgment, part: Part) -> JudgmentRow {
    JudgmentRow {
        pair_id: j.external_id.unwrap_or_else(|| j.pair_id.to_string()),
        sentence1: j.sentence1,
        sentence2: j.sentence2,
        worker: pseudonym(&j.app_user_id),
        label: u8::from(j.is_paraphrase),
        seconds: j.seconds,
        time: crate::service::rfc3339(j.created_at),
        trusted: j.trusted,
        gold: j.is_test,
        group: j.group_key,
        split: Some(part.as_str().to_owned()),
    }
}

/// The part of each source sentence of an APT campaign (split over its attempts).
async fn apt_parts(
    pool: &PgPool,
    campaign_id: CampaignId,
    spec: &ExportSpec,
) -> Result<HashMap<SourceId, Part>, AppError> {
    let keys = crate::db::export::attempt_keys(pool, campaign_id).await?;
    let rows: Vec<Row<SourceId, time::OffsetDateTime>> = keys
        .iter()
        .map(|(s, t)| Row {
            group: Some(*s),
            time: *t,
        })
        .collect();
    let parts = split(&rows, spec.shares, spec.split_by, spec.seed);
    Ok(keys.iter().map(|k| k.0).zip(parts).collect())
}

async fn apt_stream(
    pool: &PgPool,
    campaign_id: CampaignId,
    spec: &ExportSpec,
    rows_read: Arc<AtomicU64>,
) -> Result<ChunkStream, AppError> {
    let parts = apt_parts(pool, campaign_id, spec).await?;
    let (want, format, out) = (spec.part, spec.format, spec.output());
    let submitted_only = spec.rows == Rows::Submissions;
    let pool = pool.clone();
    let (rx, failed) = spawn_source(move |tx| async move {
        crate::db::export::send_attempts(&pool, campaign_id, submitted_only, tx).await
    });
    let line_of = move |a: ExportAttempt| {
        let part = parts
            .get(&a.source_sentence_id)
            .copied()
            .unwrap_or(Part::Train);
        if want.is_some_and(|w| w != part) {
            return None;
        }
        attempt_line(out, &attempt_row(a, part))
    };
    Ok(chunks(
        header_for::<AttemptRow>(format),
        rx,
        failed,
        rows_read,
        line_of,
    ))
}

fn attempt_row(a: ExportAttempt, part: Part) -> AttemptRow {
    AttemptRow {
        token: pseudonym(&a.app_user_id),
        time: crate::service::rfc3339(a.created_at),
        duration: a.seconds_since_shown,
        dataset: a.origin,
        index: a.external_id.unwrap_or_default(),
        sentence: a.sentence,
        candidate: a.candidate,
        bleurt: f64::from(a.bleurt),
        mi: u8::from(a.is_mutual_implication),
        dollar: f64::from(a.reward_cents) / 100.0,
        submitted: a.submitted,
        split: Some(part.as_str().to_owned()),
        scorer: a.scorer,
    }
}

/// What the export page shows of a campaign: its row counts and, for the options asked, the
/// dataset's statistics per part (`all`, `train`, `dev`, `test`).
pub struct ExportOverview {
    pub campaign: crate::db::campaigns::CampaignSettings,
    /// Pairs, judgments, trusted judgments, attempts, submissions.
    pub counts: (i64, i64, i64, i64, i64),
    pub parts: Vec<(String, DatasetStats)>,
    /// A judging campaign's pairs without a label under the asked labelling, by why (left out
    /// of the rows unless unresolved pairs are kept).
    pub unlabelled: Option<UnlabelledCounts>,
}

/// The export page's numbers for `query` (checked as a download's would be).
pub async fn overview(
    pool: &PgPool,
    campaign_id: CampaignId,
    query: &ExportQuery,
) -> Result<ExportOverview, AppError> {
    let campaign = crate::db::campaigns::find(pool, campaign_id)
        .await?
        .ok_or(AppError::NotFound)?;
    let (kind, spec) = check(pool, campaign_id, query).await?;
    let counts = crate::db::export::row_counts(pool, campaign_id).await?;
    let (parts, unlabelled) = match kind {
        CampaignKind::Judge => {
            let (parts, unlabelled) = judge_statistics(pool, campaign_id, &spec).await?;
            (parts, Some(unlabelled))
        }
        CampaignKind::Apt => (apt_statistics(pool, campaign_id, &spec).await?, None),
    };
    Ok(ExportOverview {
        campaign,
        counts,
        parts,
        unlabelled,
    })
}

/// Statistics of the dataset a judging export with this spec gives (pairs, labelled as the spec
/// says), for all parts and each part (the spec's own part is ignored: the page shows them all),
/// and how many pairs have no label, by why.
pub async fn judge_statistics(
    pool: &PgPool,
    campaign_id: CampaignId,
    spec: &ExportSpec,
) -> Result<(Vec<(String, DatasetStats)>, UnlabelledCounts), AppError> {
    let (ids, parts) = judge_parts(pool, campaign_id, spec).await?;
    let labeller = Labeller::load(pool, campaign_id, spec.labels, &ids).await?;
    let pairs = crate::db::export::all_pairs(pool, campaign_id).await?;
    let labels: Vec<Result<u8, Unlabelled>> = pairs.iter().map(|p| labeller.label(p)).collect();
    let unlabelled = UnlabelledCounts::count(labels.iter().copied());
    let labelled: Vec<(Part, Option<u8>, &ExportPair)> = pairs
        .iter()
        .zip(&labels)
        .map(|(p, label)| {
            let part = parts.get(&p.pair_id).copied().unwrap_or(Part::Train);
            (part, label.ok(), p)
        })
        .filter(|(_, label, _)| label.is_some() || spec.keep_unresolved)
        .collect();
    let rows: Vec<(Part, StatRow<'_>)> = labelled
        .iter()
        .map(|(part, label, p)| {
            let row = StatRow {
                sentence1: &p.sentence1,
                sentence2: &p.sentence2,
                label: *label,
                gold: p.is_test,
                group: p.group_key.as_deref(),
            };
            (*part, row)
        })
        .collect();
    Ok((per_part(&rows), unlabelled))
}

/// Statistics of an APT campaign's attempts (or submissions, as the spec's rows say) as a
/// paraphrase dataset: source sentence and candidate, "paraphrase" when the MI judge said
/// mutual implication, grouped by source sentence, split as its export is.
pub async fn apt_statistics(
    pool: &PgPool,
    campaign_id: CampaignId,
    spec: &ExportSpec,
) -> Result<Vec<(String, DatasetStats)>, AppError> {
    let parts = apt_parts(pool, campaign_id, spec).await?;
    let submitted_only = spec.rows == Rows::Submissions;
    let attempts = crate::db::export::attempt_texts(pool, campaign_id, submitted_only).await?;
    let groups: Vec<String> = attempts
        .iter()
        .map(|a| a.source_sentence_id.to_string())
        .collect();
    let rows: Vec<(Part, StatRow<'_>)> = attempts
        .iter()
        .zip(&groups)
        .map(|(a, group)| {
            let part = parts
                .get(&a.source_sentence_id)
                .copied()
                .unwrap_or(Part::Train);
            let row = StatRow {
                sentence1: &a.sentence,
                sentence2: &a.candidate,
                label: Some(u8::from(a.is_mutual_implication)),
                gold: false,
                group: Some(group),
            };
            (part, row)
        })
        .collect();
    Ok(per_part(&rows))
}

/// The statistics of all rows, then of each part.
fn per_part(rows: &[(Part, StatRow<'_>)]) -> Vec<(String, DatasetStats)> {
    let stats_of = |keep: &dyn Fn(Part) -> bool| {
        let kept: Vec<StatRow<'_>> = rows
            .iter()
            .filter(|(part, _)| keep(*part))
            .map(|(_, r)| *r)
            .collect();
        dataset_stats(&kept)
    };
    let mut out = vec![("all".to_owned(), stats_of(&|_| true))];
    for part in [Part::Train, Part::Dev, Part::Test] {
        out.push((part.as_str().to_owned(), stats_of(&|p| p == part)));
    }
    out
}
