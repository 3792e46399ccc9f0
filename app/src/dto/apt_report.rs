//! The researcher's view of an APT campaign.
use serde::{Deserialize, Serialize};

use crate::domain::apt::stats::Table2;
use crate::domain::{CampaignId, CampaignStatus};

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
    pub campaign_id: CampaignId,
    pub title: String,
    pub status: CampaignStatus,
    pub bleurt_threshold: f64,
    pub table2: Table2,
    /// Figure 2 as SVG markup drawn on the server (numbers only); `None` before any attempt.
    pub figure2_svg: Option<String>,
    pub workers: Vec<WorkerEarning>,
    /// Attempts per scorer, most first (more than one when the models changed mid-study).
    pub scorers: Vec<ScorerUse>,
}
