//! The researcher's live dashboard of a judging campaign: Fleiss' kappa, Krippendorff's alpha,
//! Gwet's AC1, kappa against the majority, the vote distribution (SVG), vote labels against
//! Dawid-Skene, and each worker's numbers under a pseudonym.
//!
//! The statistics over all judgments (2 s for 750,000 judgments, mostly reading them) are cached
//! per campaign: a load serves the cached ones when nothing they count has changed, serves them
//! marked stale and recomputes in the background when judgments came in, and computes only when
//! the campaign has none (one computation at a time per campaign).
use crate::domain::{CampaignId, CampaignKind, UserId};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

use sqlx::PgPool;

use crate::db::{campaigns, judge as db};
use crate::domain::account::pseudonym;
use crate::domain::judge::gate::below_test_bar;
use crate::domain::judge::report::{
    agreement, agreement_over_time, agreement_over_time_svg, vote_distribution_svg, Agreement,
    WorkerAgreement,
};
use crate::domain::judge::settings::JudgeSettings;
use crate::dto::judge_report::{JudgeReportView, JudgeWorkerReport, StatusEvent};
use crate::error::AppError;

/// What the statistics were computed over: they are current while it is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    judgments: i64,
    paraphrase_votes: i64,
    workers: usize,
}

/// The statistics over a campaign's trusted judgments.
struct Statistics {
    fingerprint: Fingerprint,
    computed_at: time::OffsetDateTime,
    agreement: Agreement,
    /// Each worker's numbers by user id (`agreement.workers` is in computation order).
    by_worker: HashMap<UserId, WorkerAgreement>,
    votes_svg: Option<String>,
    over_time_svg: Option<String>,
    compute_ms: f64,
}

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Statistics>>>>;

static SLOTS: LazyLock<Mutex<HashMap<CampaignId, Slot>>> = LazyLock::new(Default::default);
static REFRESHING: LazyLock<Mutex<HashSet<CampaignId>>> = LazyLock::new(Default::default);

fn slot(campaign_id: CampaignId) -> Slot {
    let mut slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
    slots.entry(campaign_id).or_default().clone()
}

/// The cached statistics and whether they are stale (see the module comment).
async fn statistics(
    pool: &PgPool,
    campaign_id: CampaignId,
    settings: JudgeSettings,
    fingerprint: Fingerprint,
) -> Result<(Arc<Statistics>, bool), AppError> {
    let slot = slot(campaign_id);
    let mut guard = slot.lock().await;
    match guard.as_ref() {
        Some(s) if s.fingerprint == fingerprint => Ok((s.clone(), false)),
        Some(s) => {
            let stale = s.clone();
            drop(guard);
            let first = REFRESHING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(campaign_id);
            if first {
                let (pool, slot) = (pool.clone(), slot.clone());
                tokio::spawn(async move {
                    match compute(&pool, campaign_id, settings).await {
                        Ok(s) => *slot.lock().await = Some(Arc::new(s)),
                        Err(e) => {
                            tracing::warn!(%campaign_id, error = %e, "dashboard refresh failed")
                        }
                    }
                    REFRESHING
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .remove(&campaign_id);
                });
            }
            Ok((stale, true))
        }
        None => {
            let s = Arc::new(compute(pool, campaign_id, settings).await?);
            *guard = Some(s.clone());
            Ok((s, false))
        }
    }
}

async fn fingerprint(
    pool: &PgPool,
    campaign_id: CampaignId,
    workers: usize,
) -> Result<Fingerprint, AppError> {
    let progress = db::progress(pool, campaign_id).await?;
    Ok(Fingerprint {
        judgments: progress.judgments,
        paraphrase_votes: progress.paraphrase_votes,
        workers,
    })
}

/// Reads every trusted judgment and computes the statistics (off the async threads).
async fn compute(
    pool: &PgPool,
    campaign_id: CampaignId,
    settings: JudgeSettings,
) -> Result<Statistics, AppError> {
    let workers = db::list_workers(pool, campaign_id).await?;
    let fingerprint = fingerprint(pool, campaign_id, workers.len()).await?;
    let rows = db::trusted_judgments(pool, campaign_id).await?;
    let computed_at = time::OffsetDateTime::now_utc();
    tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let worker_ids: Vec<UserId> = workers.iter().map(|w| w.app_user_id).collect();
        let (judgments, pairs) = super::quality::index_judgments(&rows, &worker_ids);
        let a = agreement(
            &judgments,
            pairs,
            worker_ids.len(),
            settings.judgments_per_pair,
            settings.thresholds,
        );
        let over_time = agreement_over_time(&judgments, pairs, 24);
        let compute_ms = started.elapsed().as_secs_f64() * 1000.0;
        Statistics {
            fingerprint,
            computed_at,
            by_worker: worker_ids
                .into_iter()
                .zip(a.workers.iter().cloned())
                .collect(),
            votes_svg: (a.vote_distribution.iter().sum::<u64>() > 0)
                .then(|| vote_distribution_svg(&a.vote_distribution)),
            over_time_svg: over_time
                .iter()
                .any(|p| p.alpha.is_some())
                .then(|| agreement_over_time_svg(&over_time)),
            agreement: a,
            compute_ms,
        }
    })
    .await
    .map_err(|e| {
        tracing::error!(error = %e, "dashboard computation panicked");
        AppError::Internal
    })
}

use super::rfc3339;

/// The dashboard of judging campaign `id`.
pub async fn report(pool: &PgPool, id: CampaignId) -> Result<JudgeReportView, AppError> {
    let campaign = match campaigns::find(pool, id).await? {
        Some(c) if c.kind == CampaignKind::Judge => c,
        _ => return Err(AppError::NotFound),
    };
    let settings = db::settings(pool, id).await?.ok_or(AppError::NotFound)?;
    let workers = db::list_workers(pool, id).await?;
    let progress = db::progress(pool, id).await?;
    let current = Fingerprint {
        judgments: progress.judgments,
        paraphrase_votes: progress.paraphrase_votes,
        workers: workers.len(),
    };
    let (stats, stale) = statistics(pool, id, settings, current).await?;
    let workers = workers
        .iter()
        .map(|w| {
            let s = stats.by_worker.get(&w.app_user_id);
            JudgeWorkerReport {
                worker: pseudonym(&w.app_user_id),
                status: w.status,
                judgments_made: w.judgments,
                low_test_accuracy: below_test_bar(w.tests_answered, w.test_accuracy(), &settings),
                tests_answered: w.tests_answered,
                test_accuracy: w.test_accuracy(),
                agreement: s.cloned().unwrap_or_default(),
            }
        })
        .collect();
    let history = db::list_events(pool, id)
        .await?
        .into_iter()
        .map(|e| StatusEvent {
            worker: pseudonym(&e.app_user_id),
            status: e.status,
            reason: e.reason,
            judgments: e.judgments,
            test_accuracy: e.test_accuracy,
            kappa: e.kappa,
            by_admin: e.by_admin,
            at: rfc3339(e.created_at),
        })
        .collect();
    Ok(JudgeReportView {
        pending_republished: db::pending_republished(pool, id).await?,
        history,
        title: campaign.title,
        status: campaign.status,
        definition: settings.definition.as_str().to_owned(),
        judgments_per_pair: settings.judgments_per_pair,
        pairs: progress.pairs,
        complete_pairs: progress.complete_pairs,
        agreement: stats.agreement.clone(),
        votes_svg: stats.votes_svg.clone(),
        over_time_svg: stats.over_time_svg.clone(),
        workers,
        compute_ms: stats.compute_ms,
        computed_at: rfc3339(stats.computed_at),
        stale,
    })
}
