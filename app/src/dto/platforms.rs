//! The payments page's platform section: connections, the reconciliation table and the calls
//! made to a platform.
use serde::{Deserialize, Serialize};

use crate::domain::study::reconcile::Standing;
use crate::domain::{BatchId, PlatformCallId, StudyLinkId};

/// A campaign's Prolific links and what the server can do with them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProlificView {
    /// Whether the server has an API token (`PARACROWD_PROLIFIC_TOKEN` or its `_FILE`).
    pub token_configured: bool,
    /// The campaign's Prolific links.
    pub links: Vec<ProlificLinkView>,
    /// The calls made that change something on Prolific, newest first.
    pub calls: Vec<CallView>,
    /// The campaign's bonus batches, newest first, with their bulk bonus on Prolific if any.
    pub batches: Vec<BonusBatchView>,
}

/// A bonus batch as the Prolific section shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BonusBatchView {
    pub batch_id: BatchId,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub workers: i64,
    /// What paracrowd owes in it, in cents.
    pub total_cents: i64,
    /// Marked paid (by hand, or by Prolific's answer).
    pub paid: bool,
    /// Its bulk bonus on Prolific, once set up.
    pub bonus: Option<BulkBonusView>,
}

/// A bulk bonus on Prolific.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkBonusView {
    /// As Prolific counted them, in cents.
    pub amount_cents: i32,
    pub fees_cents: i32,
    pub total_cents: i32,
    pub state: BonusState,
    /// Prolific's message of the last refusal or failure.
    pub detail: String,
    /// The researcher may settle it from what Prolific shows: no answer came, or its server
    /// stopped while paying it more than 15 minutes ago.
    pub settle_by_hand: bool,
}

/// Where a bulk bonus stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum BonusState {
    /// Made on Prolific, not paid: can be paid.
    Created,
    /// Being paid (or its server stopped while paying it).
    Paying,
    /// Prolific accepted the payment.
    Paid,
    /// No answer when paying: it may have paid.
    Unknown,
}

impl BonusState {
    /// The stored state.
    pub fn parse(s: &str) -> BonusState {
        match s {
            "created" => BonusState::Created,
            "paid" => BonusState::Paid,
            "unknown" => BonusState::Unknown,
            _ => BonusState::Paying,
        }
    }
}

/// One Prolific link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProlificLinkView {
    pub study_link_id: StudyLinkId,
    /// The id this link's next approval is made with (a double click makes one call).
    pub approve_call_id: PlatformCallId,
    /// The researcher's name for it (or its address part).
    pub label: String,
    /// The Prolific study it is connected to.
    pub study_id: Option<String>,
    /// Study ids that workers' links carried (`STUDY_ID`), to fill the field with.
    pub seen_study_ids: Vec<String>,
}

/// A recorded call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallView {
    pub call_id: PlatformCallId,
    /// RFC 3339, UTC.
    pub made_at: String,
    /// What it did, in words ("Approve 12 submissions").
    pub what: String,
    /// What came of it, in words.
    pub outcome: String,
    /// Whether it is known to have happened.
    pub done: bool,
}

/// The reconciliation table of one link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconcileView {
    pub study_link_id: StudyLinkId,
    pub study_id: String,
    pub rows: Vec<ReconcileRow>,
    /// Submissions approvable from here.
    pub approvable: u32,
    /// Rows the researcher should look at (a code without the work, a stranger).
    pub attention: u32,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReconcileRow {
    pub participant: String,
    pub submission_id: Option<String>,
    /// The platform's status, in words ("awaiting review"; empty without a submission).
    pub status: String,
    /// "completed", "not completed" or "never arrived".
    pub here: String,
    pub standing: Standing,
    /// What the row means.
    pub meaning: String,
    /// For a submission awaiting review: the id its rejection is made with (a double click
    /// makes one call).
    pub reject_call_id: Option<PlatformCallId>,
}

/// What an approval did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApproveOutcome {
    /// Submissions named in the call.
    pub approved: u32,
    /// The call's outcome, in words.
    pub message: String,
    /// True when this request found the call already made (a second click or tab).
    pub repeated: bool,
}

/// A campaign's MTurk links and their bonus batches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MturkView {
    /// The campaign's MTurk links.
    pub links: Vec<MturkLinkView>,
    /// The calls made that change something on MTurk, newest first.
    pub calls: Vec<CallView>,
    /// The campaign's bonus batches, newest first, with what MTurk paid of each.
    pub batches: Vec<MturkBatchView>,
}

/// One MTurk link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MturkLinkView {
    pub study_link_id: StudyLinkId,
    /// The id this link's next approval is made with (a double click makes one call).
    pub approve_call_id: PlatformCallId,
    /// The researcher's name for it (or its address part).
    pub label: String,
    /// The connected HITs (empty before it is connected).
    pub hit_ids: Vec<String>,
    /// Whether they are in the sandbox (none before it is connected).
    pub sandbox: Option<bool>,
    /// HIT ids that workers' links carried, to fill the field with.
    pub seen_hit_ids: Vec<String>,
    /// Whether most workers came from the sandbox.
    pub seen_sandbox: Option<bool>,
}

/// A bonus batch as the MTurk section shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MturkBatchView {
    pub batch_id: BatchId,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub workers: i64,
    /// What paracrowd owes in it, in cents.
    pub total_cents: i64,
    /// Marked paid (by hand, or once MTurk paid every worker).
    pub paid: bool,
    /// Bonuses MTurk accepted, and their amount in cents.
    pub sent: i64,
    pub sent_cents: i64,
    /// Bonuses MTurk refused (nothing paid; sent again on the next press).
    pub refused: i64,
    /// Bonuses without an answer, or being sent: read back from MTurk before any new call.
    pub unsure: i64,
    /// MTurk's last refusal or failure.
    pub detail: String,
}
