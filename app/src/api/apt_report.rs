//! The researcher's live view of an APT campaign: the paper's Table 2, Figure 2 and earnings.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::apt::stats::Table2;
use crate::error::AppError;

/// One worker's line, under a pseudonym (the same one the AP_H export will use).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerEarning {
    pub worker: String,
    pub attempts: i64,
    pub submissions: i64,
    pub earned_cents: i64,
    pub is_complete: bool,
}

/// How many of the campaign's Checks one scorer produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorerUse {
    /// In words, as the annotators saw it.
    pub scorer: String,
    pub attempts: i64,
    /// The paper's models (or their int8 copy), which score as the study did.
    pub is_papers: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AptReportView {
    pub campaign_id: String,
    pub title: String,
    pub status: String,
    pub bleurt_threshold: f64,
    pub table2: Table2,
    /// Figure 2 as SVG markup drawn on the server (numbers only); `None` before any attempt.
    pub figure2_svg: Option<String>,
    pub workers: Vec<WorkerEarning>,
    /// Attempts per scorer, most first (more than one when the models changed mid-study).
    pub scorers: Vec<ScorerUse>,
}

/// Researchers and admins only.
#[server(endpoint = "research/apt_report")]
pub async fn apt_report(campaign_id: String) -> Result<AptReportView, AppError> {
    super::with_status(ssr::report(campaign_id).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::domain::account::pseudonym;
    use crate::domain::apt::{chart, stats};
    use crate::domain::Role;

    pub async fn report(campaign_id: String) -> Result<AptReportView, AppError> {
        let pool = crate::state::pool()?;
        crate::session::require_role(&[Role::Researcher, Role::Admin]).await?;
        let id = crate::api::parse_id(&campaign_id, "campaign_id")?;
        let campaign = match crate::db::campaigns::find(&pool, id).await? {
            Some(c) if c.kind == "apt" => c,
            _ => return Err(AppError::NotFound),
        };
        let points: Vec<stats::AttemptPoint<uuid::Uuid>> =
            crate::db::apt::list_attempt_points(&pool, id)
                .await?
                .into_iter()
                .map(|(source, mi, bleurt)| stats::AttemptPoint {
                    source,
                    is_mutual_implication: mi,
                    bleurt: f64::from(bleurt),
                })
                .collect();
        let threshold = campaign.bleurt_threshold;
        let table2 = stats::table2(&points, threshold);
        let figure2_svg =
            stats::histograms(&points, threshold, 100).map(|h| chart::histogram_svg(&h, threshold));
        let workers = crate::db::apt::list_worker_earnings(&pool, id)
            .await?
            .into_iter()
            .map(|w| WorkerEarning {
                worker: pseudonym(&w.app_user_id),
                attempts: w.attempts,
                submissions: w.submissions,
                earned_cents: i64::from(w.earned_cents),
                is_complete: w.is_complete,
            })
            .collect();
        let scorers = crate::db::apt::count_attempts_by_scorer(&pool, id)
            .await?
            .into_iter()
            .map(|c| ScorerUse {
                is_papers: crate::ml::ScorerKind::parse(&c.scorer_kind)
                    .is_some_and(|k| k.is_papers()),
                scorer: c.scorer,
                attempts: c.attempts,
            })
            .collect();
        Ok(AptReportView {
            scorers,
            campaign_id: id.to_string(),
            title: campaign.title,
            status: campaign.status,
            bleurt_threshold: threshold,
            table2,
            figure2_svg,
            workers,
        })
    }
}
