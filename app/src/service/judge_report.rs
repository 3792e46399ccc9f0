//! The researcher's live dashboard of a judging campaign: Fleiss' kappa, Krippendorff's alpha,
//! Gwet's AC1, kappa against the majority, the vote distribution (SVG), vote labels against
//! Dawid-Skene, GLAD and MACE, and each worker's numbers under a pseudonym, with the workers
//! flagged for review (test pairs answered far better than ordinary pairs) and the accounts to
//! review together (`service::account_groups`).
//!
//! The statistics over all judgments (about 8 s for 750,000 judgments on 2 cores: reading them, and GLAD's 6 s) are kept
//! in PostgreSQL (`judge_dashboard`), one row per campaign, shared by every server: a
//! load serves the stored ones when nothing they count has changed; when judgments came in
//! (through any server) it serves them marked stale, and the one server that takes the refresh
//! recomputes in the background; it computes inline only when the campaign has none stored.
//! Every server shows the same numbers and the same "computed at".
use crate::domain::{CampaignId, CampaignKind, UserId};
use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sqlx::PgPool;

use crate::db::{campaigns, judge as db};
use crate::domain::account::pseudonym;
use crate::domain::judge::gate::below_test_bar;
use crate::domain::judge::harvest::{HarvestCheck, MIN_TESTS};
use crate::domain::judge::report::{
    agreement, agreement_over_time, agreement_over_time_svg, vote_distribution_svg, Agreement,
    WorkerAgreement,
};
use crate::domain::judge::settings::JudgeSettings;
use crate::dto::judge_report::{JudgeReportView, JudgeWorkerReport, StatusEvent};
use crate::error::AppError;

/// How long a server may take to recompute before another may try.
const REFRESH_LEASE: Duration = Duration::from_secs(120);

/// What the statistics were computed over: they are current while it is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    judgments: i64,
    paraphrase_votes: i64,
    workers: usize,
}

/// The statistics over a campaign's trusted judgments, as stored (JSON).
#[derive(Serialize, Deserialize)]
struct Computed {
    agreement: Agreement,
    /// Each worker's numbers by user id (`agreement.workers` is in computation order).
    by_worker: Vec<(UserId, WorkerAgreement)>,
    votes_svg: Option<String>,
    over_time_svg: Option<String>,
    /// Workers flagged as answering alike (`domain::judge::alike`).
    alike: Vec<super::account_groups::AlikeEdge>,
    compute_ms: f64,
}

/// Statistics with what they were computed over, and when.
struct Statistics {
    fingerprint: Fingerprint,
    computed_at: time::OffsetDateTime,
    computed: Computed,
}

impl Statistics {
    fn row(&self) -> Result<db::DashboardRow, AppError> {
        Ok(db::DashboardRow {
            judgments: self.fingerprint.judgments,
            paraphrase_votes: self.fingerprint.paraphrase_votes,
            workers: i32::try_from(self.fingerprint.workers).unwrap_or(i32::MAX),
            statistics: serde_json::to_value(&self.computed).map_err(|e| {
                tracing::error!(error = %e, "BUG: dashboard statistics do not serialise");
                AppError::Internal
            })?,
            computed_at: self.computed_at,
        })
    }

    /// Reads a stored row (`None` when its shape is from another version of the app).
    fn from_row(row: db::DashboardRow) -> Option<Statistics> {
        Some(Statistics {
            fingerprint: Fingerprint {
                judgments: row.judgments,
                paraphrase_votes: row.paraphrase_votes,
                workers: usize::try_from(row.workers).ok()?,
            },
            computed_at: row.computed_at,
            computed: serde_json::from_value(row.statistics).ok()?,
        })
    }
}

/// The stored statistics and whether they are stale (see the module comment).
async fn statistics(
    pool: &PgPool,
    campaign_id: CampaignId,
    settings: JudgeSettings,
    fingerprint: Fingerprint,
) -> Result<(Statistics, bool), AppError> {
    let stored = db::find_dashboard(pool, campaign_id)
        .await?
        .and_then(Statistics::from_row);
    match stored {
        Some(s) if s.fingerprint == fingerprint => Ok((s, false)),
        Some(stale) => {
            if db::take_dashboard_refresh(pool, campaign_id, REFRESH_LEASE).await? {
                let pool = pool.clone();
                tokio::spawn(async move {
                    let fresh = compute(&pool, campaign_id, settings).await;
                    let stored = match fresh.and_then(|s| s.row()) {
                        Ok(row) => match pool.acquire().await {
                            Ok(mut conn) => db::store_dashboard(&mut conn, campaign_id, &row).await,
                            Err(e) => Err(e.into()),
                        },
                        Err(e) => Err(e),
                    };
                    if let Err(e) = stored {
                        tracing::warn!(%campaign_id, error = %e, "dashboard refresh failed");
                        let _ = db::drop_dashboard_refresh(&pool, campaign_id).await;
                    }
                });
            }
            Ok((stale, true))
        }
        None => {
            // The first load: one computation however many servers and tabs ask at once.
            let mut tx = pool.begin().await?;
            db::lock_dashboard(&mut tx, campaign_id).await?;
            if let Some(s) = db::find_dashboard(&mut *tx, campaign_id)
                .await?
                .and_then(Statistics::from_row)
            {
                let stale = s.fingerprint != fingerprint;
                return Ok((s, stale));
            }
            let s = compute(pool, campaign_id, settings).await?;
            db::store_dashboard(&mut tx, campaign_id, &s.row()?).await?;
            tx.commit().await?;
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
    // Every ordinary judgment: the statistics take the trusted ones, the check for accounts that
    // answer alike all of them.
    let all = db::ordinary_judgments(pool, campaign_id).await?;
    // In microseconds, as PostgreSQL keeps it: the first load shows what every later one reads.
    let now = time::OffsetDateTime::now_utc();
    let computed_at = now
        .replace_nanosecond(now.nanosecond() / 1000 * 1000)
        .unwrap_or(now);
    tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let worker_ids: Vec<UserId> = workers.iter().map(|w| w.app_user_id).collect();
        let rows: Vec<db::JudgmentRow> = all
            .iter()
            .filter(|(trusted, _)| *trusted)
            .map(|(_, r)| r.clone())
            .collect();
        let (judgments, pairs) = super::quality::index_judgments(&rows, &worker_ids);
        let a = agreement(
            &judgments,
            pairs,
            worker_ids.len(),
            (settings.min_judgments_per_pair, settings.judgments_per_pair),
            settings.thresholds,
        );
        let over_time = agreement_over_time(&judgments, pairs, 24);
        let every: Vec<db::JudgmentRow> = all.into_iter().map(|(_, r)| r).collect();
        let alike = super::account_groups::alike_among(&every, &worker_ids);
        let compute_ms = started.elapsed().as_secs_f64() * 1000.0;
        Statistics {
            fingerprint,
            computed_at,
            computed: Computed {
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
                alike,
                compute_ms,
            },
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
    let by_worker: HashMap<UserId, &WorkerAgreement> = stats
        .computed
        .by_worker
        .iter()
        .map(|(u, a)| (*u, a))
        .collect();
    let worker_ids: Vec<UserId> = workers.iter().map(|w| w.app_user_id).collect();
    let visits = crate::db::studies::shared_visits(pool, id).await?;
    let groups = super::account_groups::groups(&stats.computed.alike, &visits, &worker_ids);
    let workers = workers
        .iter()
        .map(|w| {
            let s = by_worker.get(&w.app_user_id).copied();
            let harvest = HarvestCheck::of(&w.counts());
            JudgeWorkerReport {
                tests_vs_ordinary_p: harvest.p_value,
                ordinary_agreement: harvest.agreement,
                harvest_likelihood_ratio: (harvest.tests.1 >= MIN_TESTS)
                    .then_some(harvest.likelihood_ratio),
                harvest_flag: harvest.flagged(),
                groups: groups
                    .iter()
                    .enumerate()
                    .filter(|(_, g)| g.members.contains(&w.app_user_id))
                    .map(|(i, _)| i as u32 + 1)
                    .collect(),
                gate: super::judge_campaigns::gate_standing(&settings, w),
                worker: pseudonym(&w.app_user_id),
                status: w.status,
                judgments_made: w.judgments,
                held_slots: w.held_slots,
                gate_overridden: w.gate_overridden,
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
        groups: super::account_groups::views(&groups),
        history,
        title: campaign.title,
        status: campaign.status,
        definition: settings.definition.as_str().to_owned(),
        judgments_per_pair: settings.judgments_per_pair,
        pairs: progress.pairs,
        complete_pairs: progress.complete_pairs,
        agreement: stats.computed.agreement.clone(),
        votes_svg: stats.computed.votes_svg.clone(),
        over_time_svg: stats.computed.over_time_svg.clone(),
        workers,
        compute_ms: stats.computed.compute_ms,
        computed_at: rfc3339(stats.computed_at),
        stale,
    })
}
