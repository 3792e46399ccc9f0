//! The researcher's live dashboard of a judging campaign: Fleiss' kappa, Krippendorff's alpha,
//! Gwet's AC1, kappa against the majority, the vote distribution (SVG), vote labels against
//! Dawid-Skene, and each worker's numbers under a pseudonym.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::judge::report::Agreement;
use crate::error::AppError;

/// One worker's line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeWorkerReport {
    pub worker: String,
    pub status: String,
    pub tests_answered: i64,
    pub test_accuracy: Option<f64>,
    pub judgments: u64,
    pub kappa_vs_majority: Option<f64>,
    pub sensitivity: Option<f64>,
    pub specificity: Option<f64>,
    pub median_seconds: Option<f64>,
}

/// A worker's status change with the numbers behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusEvent {
    pub worker: String,
    pub status: String,
    pub reason: String,
    pub judgments: i32,
    pub test_accuracy: Option<f64>,
    pub kappa: Option<f64>,
    pub by_admin: bool,
    /// RFC 3339, UTC.
    pub at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeReportView {
    pub title: String,
    pub status: String,
    pub definition: String,
    pub judgments_per_pair: u32,
    pub pairs: i64,
    pub complete_pairs: i64,
    pub agreement: Agreement,
    /// The vote distribution as SVG markup drawn on the server.
    pub votes_svg: String,
    /// Krippendorff's alpha as the judgments came in (SVG line chart).
    pub over_time_svg: Option<String>,
    pub workers: Vec<JudgeWorkerReport>,
    /// Pairs whose republished judgments still wait for replacements.
    pub pending_republished: i64,
    /// Status changes (gate, admin, republishing), newest first.
    pub history: Vec<StatusEvent>,
    /// Milliseconds the statistics took on the server.
    pub compute_ms: f64,
}

/// Researchers and admins only.
#[server(endpoint = "research/judge_report")]
pub async fn judge_report(campaign_id: String) -> Result<JudgeReportView, AppError> {
    super::with_status(ssr::report(campaign_id).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use std::collections::HashMap;

    use super::*;
    use crate::db::{campaigns, judge as db};
    use crate::domain::account::pseudonym;
    use crate::domain::judge::report::{
        agreement, agreement_over_time, agreement_over_time_svg, vote_distribution_svg, Judgment,
    };
    use crate::domain::Role;

    pub async fn report(campaign_id: String) -> Result<JudgeReportView, AppError> {
        let pool = crate::state::pool()?;
        crate::session::require_role(&[Role::Researcher, Role::Admin]).await?;
        let id = crate::api::parse_id(&campaign_id, "campaign_id")?;
        let campaign = match campaigns::find(&pool, id).await? {
            Some(c) if c.kind == "judge" => c,
            _ => return Err(AppError::NotFound),
        };
        let settings = db::settings(&pool, id).await?.ok_or(AppError::NotFound)?;
        let rows = db::trusted_judgments(&pool, id).await?;
        let workers = db::list_workers(&pool, id).await?;
        let progress = db::progress(&pool, id).await?;

        let started = std::time::Instant::now();
        let mut pair_index: HashMap<uuid::Uuid, usize> = HashMap::new();
        let worker_index: HashMap<uuid::Uuid, usize> = workers
            .iter()
            .enumerate()
            .map(|(i, w)| (w.app_user_id, i))
            .collect();
        let judgments: Vec<Judgment> = rows
            .iter()
            .filter_map(|r| {
                let next = pair_index.len();
                let pair = *pair_index.entry(r.pair_id).or_insert(next);
                Some(Judgment {
                    pair,
                    worker: *worker_index.get(&r.app_user_id)?,
                    is_paraphrase: r.is_paraphrase,
                    seconds: r.seconds,
                })
            })
            .collect();
        let a = agreement(
            &judgments,
            pair_index.len(),
            workers.len(),
            settings.judgments_per_pair,
            settings.thresholds,
        );
        let over_time = agreement_over_time(&judgments, pair_index.len(), 24);
        let compute_ms = started.elapsed().as_secs_f64() * 1000.0;
        let over_time_svg = (!over_time.is_empty()).then(|| agreement_over_time_svg(&over_time));
        let votes_svg = vote_distribution_svg(&a.vote_distribution);
        let workers = workers
            .iter()
            .zip(&a.workers)
            .map(|(w, s)| JudgeWorkerReport {
                worker: pseudonym(&w.app_user_id),
                status: w.status.clone(),
                tests_answered: w.tests_answered,
                test_accuracy: (w.tests_answered > 0)
                    .then(|| w.tests_correct as f64 / w.tests_answered as f64),
                judgments: s.judgments,
                kappa_vs_majority: s.kappa_vs_majority,
                sensitivity: s.sensitivity,
                specificity: s.specificity,
                median_seconds: s.median_seconds,
            })
            .collect();
        let history = db::list_events(&pool, id)
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
                at: e
                    .created_at
                    .format(&time::format_description::well_known::Rfc3339)
                    .unwrap_or_default(),
            })
            .collect();
        Ok(JudgeReportView {
            pending_republished: db::pending_republished(&pool, id).await?,
            history,
            title: campaign.title,
            status: campaign.status,
            definition: settings.definition.as_str().to_owned(),
            judgments_per_pair: settings.judgments_per_pair,
            pairs: progress.pairs,
            complete_pairs: progress.complete_pairs,
            agreement: a,
            votes_svg,
            over_time_svg,
            workers,
            compute_ms,
        })
    }
}
