//! The researcher's dashboard of a judging campaign.
use serde::{Deserialize, Serialize};

use crate::domain::judge::report::{Agreement, WorkerAgreement};
use crate::domain::{CampaignStatus, WorkerStatus};

/// One worker's line: their standing and their agreement numbers (whose fields sit beside the
/// others on the wire).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeWorkerReport {
    pub worker: String,
    pub status: WorkerStatus,
    /// Every judgment the worker made (test pairs and judgments no longer trusted included);
    /// the agreement's `judgments` counts only trusted judgments of ordinary pairs.
    pub judgments_made: i64,
    /// Test accuracy at or below the campaign's bar (`gate::below_test_bar`), whatever the
    /// gate rule decided.
    pub low_test_accuracy: bool,
    pub tests_answered: i64,
    pub test_accuracy: Option<f64>,
    /// Test pairs answered far better than ordinary pairs (`domain::judge::harvest`): the
    /// one-sided p-value of Fisher's exact test, `None` before enough test answers.
    pub tests_vs_ordinary_p: Option<f64>,
    /// Ordinary pairs that agree with the others' majority, of those with one.
    pub ordinary_agreement: (u32, u32),
    /// How much likelier the answers are from someone who has the test answers and guesses the
    /// rest than from an honest worker (`domain::judge::harvest`); `None` before enough test
    /// answers.
    #[serde(default)]
    pub harvest_likelihood_ratio: Option<f64>,
    /// Fisher's test or the likelihood ratio flags them (`domain::judge::harvest`): a
    /// researcher should look at this worker.
    pub harvest_flag: bool,
    /// An admin reinstated them after the gate stopped them: only an admin stops them again,
    /// so they cannot be excluded.
    #[serde(default)]
    pub gate_overridden: bool,
    /// A stopped worker's judgments of ordinary pairs that still hold their pairs' slots:
    /// excluding them gives the slots back (0 for an active or an excluded worker).
    #[serde(default)]
    pub held_slots: i64,
    /// The numbers of the account groups they are in (`JudgeReportView::groups`).
    #[serde(default)]
    pub groups: Vec<u32>,
    /// Where the gate stands on them.
    #[serde(default)]
    pub gate: crate::dto::judge_admin::GateStanding,
    #[serde(flatten)]
    pub agreement: WorkerAgreement,
}

/// A worker's status change with the numbers behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusEvent {
    pub worker: String,
    pub status: WorkerStatus,
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
    pub status: CampaignStatus,
    pub definition: String,
    pub judgments_per_pair: u32,
    pub pairs: i64,
    pub complete_pairs: i64,
    pub agreement: Agreement,
    /// The vote distribution as SVG markup drawn on the server; `None` until a pair is complete.
    pub votes_svg: Option<String>,
    /// Krippendorff's alpha as the judgments came in (SVG line chart); `None` until alpha is
    /// defined at some point (a pair judged twice, and both answers given somewhere).
    pub over_time_svg: Option<String>,
    pub workers: Vec<JudgeWorkerReport>,
    /// Pairs whose republished judgments still wait for replacements.
    pub pending_republished: i64,
    /// Accounts to review together: answering alike, or opened from one network and browser.
    #[serde(default)]
    pub groups: Vec<AccountGroup>,
    /// Status changes (gate, admin, republishing), newest first.
    pub history: Vec<StatusEvent>,
    /// Milliseconds the statistics took on the server.
    pub compute_ms: f64,
    /// When the statistics were computed (RFC 3339, UTC).
    pub computed_at: String,
    /// True when judgments came in since: these statistics are being recomputed in the
    /// background (a reload in a few seconds shows them).
    pub stale: bool,
}

/// What excluding a worker did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludeSummary {
    /// Their judgments of ordinary pairs set aside.
    pub judgments: i64,
    /// The pairs those judgments were of, back in the queue.
    pub pairs: i64,
}

/// Why accounts are shown together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GroupKind {
    /// They part from the others' majority together far more often than chance
    /// (`domain::judge::alike`).
    AnswersAlike,
    /// They opened the study link from the same network with the same browser signature
    /// (`domain::study::visit`).
    SameNetworkAndBrowser,
}

impl GroupKind {
    pub fn title(self) -> &'static str {
        match self {
            GroupKind::AnswersAlike => "answer alike",
            GroupKind::SameNetworkAndBrowser => "same network and browser",
        }
    }
}

/// Accounts a researcher should look at together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccountGroup {
    /// Numbered from 1 on the page.
    pub number: u32,
    pub kind: GroupKind,
    /// Pseudonyms.
    pub members: Vec<String>,
    /// Why, in sentences.
    pub evidence: Vec<String>,
}
