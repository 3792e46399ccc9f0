//! The researcher's live view of an APT campaign: the paper's Table 2, Figure 2, earnings, and
//! which scorer produced the Checks.
use crate::domain::{CampaignId, CampaignKind, SourceId};
use sqlx::PgPool;

use crate::domain::account::pseudonym;
use crate::domain::apt::{chart, stats};
use crate::dto::apt_report::{AptReportView, ScorerUse, WorkerEarning};
use crate::error::AppError;

/// APT campaign `id`'s Table 2, Figure 2, earnings and scorers.
pub async fn report(pool: &PgPool, id: CampaignId) -> Result<AptReportView, AppError> {
    let campaign = match crate::db::campaigns::find(pool, id).await? {
        Some(c) if c.kind == CampaignKind::Apt => c,
        _ => return Err(AppError::NotFound),
    };
    let points: Vec<stats::AttemptPoint<SourceId>> = crate::db::apt::list_attempt_points(pool, id)
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
    let workers = crate::db::apt::list_worker_earnings(pool, id)
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
    let scorers = crate::db::apt::count_attempts_by_scorer(pool, id)
        .await?
        .into_iter()
        .map(|c| ScorerUse {
            is_papers: crate::ml::ScorerKind::parse(&c.scorer_kind).is_some_and(|k| k.is_papers()),
            scorer: c.scorer,
            attempts: c.attempts,
        })
        .collect();
    Ok(AptReportView {
        scorers,
        campaign_id: id,
        title: campaign.title,
        status: campaign.status,
        bleurt_threshold: threshold,
        table2,
        figure2_svg,
        workers,
    })
}
