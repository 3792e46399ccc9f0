//! An answer in one call: the database function `judge_answer` (migration
//! `judge_answer_in_one_call`) locks the worker, the assignment and its pair, checks the caller,
//! stores the judgment, records the gate table's changes and leases the next pair, in one round
//! trip and one implicit transaction. Anything but the common case writes nothing and says why,
//! and `service::judging` takes its step-by-step path for it.
use crate::db::sessions::SessionProof;
use crate::domain::judge::gate_table::GateCounts;
use crate::domain::{AssignmentId, CampaignId, UserId};
use crate::error::AppError;
use sqlx::PgExecutor;

use super::gate::stored_counts;
use super::lease::{served, ServedPair};

/// What the call needs besides the caller and the assignment: the campaign's settings as the
/// caller's copy has them, and the server's draws.
#[derive(Debug, Clone, Copy)]
pub struct AnswerCall<'a> {
    /// The campaign.
    pub campaign_id: CampaignId,
    /// The worker.
    pub user: UserId,
    /// The assignment answered.
    pub assignment_id: AssignmentId,
    /// The caller's session, as read.
    pub session: SessionProof<'a>,
    /// "Paraphrase".
    pub is_paraphrase: bool,
    /// The campaign version the settings below are from; another one in the database and the
    /// call writes nothing ([`Answered::Stale`]).
    pub version: i64,
    /// Seconds a lease lasts.
    pub lease_seconds: u32,
    /// One test pair in every this many (0: none).
    pub test_every: u32,
    /// Judgments per pair.
    pub judgments_per_pair: u32,
    /// The test position a new block gets (`schedule::test_position` of a draw).
    pub new_block_position: u32,
    /// Orders the lease's window at random.
    pub random_key: i64,
    /// The windows' sizes (`schedule::ServingWindows`).
    pub ordinary_per_test_pair: u32,
    /// The test window's bound.
    pub test_window_max: u32,
    /// Sweep the campaign's expired leases before leasing.
    pub sweep: bool,
}

/// The pair answered, as feedback needs it.
#[derive(Debug, Clone)]
pub struct AnsweredPair {
    /// A hidden test pair.
    pub is_test: bool,
    /// Its right answer.
    pub gold_label: Option<bool>,
    /// Shown when it is missed.
    pub gold_explanation: Option<String>,
}

/// What the call did.
#[derive(Debug, Clone)]
pub enum Answered {
    /// Stored and counted; the next pair leased when there was one.
    Judged {
        /// The worker's gate counts after the answer.
        counts: GateCounts,
        /// An admin reinstated the worker: the gate does not stop them.
        gate_overridden: bool,
        /// The pair answered.
        pair: AnsweredPair,
        /// The next pair.
        next: Option<ServedPair>,
        /// The judgment completed a mined pair, whose follow-up is now queued.
        follow_up: bool,
    },
    /// Answered before: the answer stored then.
    AlreadyAnswered {
        /// The stored answer (`None` if it could not be read).
        stored: Option<bool>,
        /// The worker's judgments.
        judgments: i32,
        /// The pair answered.
        pair: AnsweredPair,
    },
    /// The session is no longer stored as presented.
    SessionChanged,
    /// The account is blocked.
    Unauthenticated,
    /// The campaign is not open.
    NotOpen,
    /// The campaign changed since the caller read its settings.
    Stale,
    /// The gate stopped the worker.
    Stopped,
    /// The lease ran out: the step-by-step path decides (the slot may have gone).
    Expired,
    /// No such assignment of this worker's, or no worker row yet.
    Missing,
}

/// Makes the call; see the module's documentation.
pub async fn answer(db: impl PgExecutor<'_>, call: &AnswerCall<'_>) -> Result<Answered, AppError> {
    let r = sqlx::query!(
        r#"select outcome as "outcome!", stored_label, judgments, tests_answered, tests_correct,
                  kappa_pp, kappa_pn, kappa_np, kappa_nn, gate_overridden, is_test, gold_label,
                  gold_explanation, next_assignment as "next_assignment: AssignmentId",
                  sentence1, sentence2, follow_up
           from judge_answer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"#,
        call.campaign_id as CampaignId,
        call.user as UserId,
        call.assignment_id as AssignmentId,
        call.session.id,
        call.session.data,
        call.is_paraphrase,
        call.version,
        f64::from(call.lease_seconds),
        call.test_every as i32,
        call.judgments_per_pair as i32,
        call.new_block_position as i32,
        call.random_key,
        call.ordinary_per_test_pair as i32,
        call.test_window_max as i32,
        call.sweep
    )
    .fetch_one(db)
    .await?;
    let pair = || AnsweredPair {
        is_test: r.is_test.unwrap_or(false),
        gold_label: r.gold_label,
        gold_explanation: r.gold_explanation.clone(),
    };
    Ok(match r.outcome.as_str() {
        "judged" => {
            let counts = [
                r.judgments,
                r.tests_answered,
                r.tests_correct,
                r.kappa_pp,
                r.kappa_pn,
                r.kappa_np,
                r.kappa_nn,
            ];
            let [Some(j), Some(ta), Some(tc), Some(pp), Some(pn), Some(np), Some(nn)] = counts
            else {
                tracing::error!("judge_answer judged without the worker's counts");
                return Err(AppError::Internal);
            };
            Answered::Judged {
                counts: stored_counts(j, ta, tc, [pp, pn, np, nn]),
                gate_overridden: r.gate_overridden.unwrap_or(false),
                pair: pair(),
                next: served(r.next_assignment, r.sentence1.clone(), r.sentence2.clone()),
                follow_up: r.follow_up.unwrap_or(false),
            }
        }
        "answered" => Answered::AlreadyAnswered {
            stored: r.stored_label,
            judgments: r.judgments.unwrap_or(0),
            pair: pair(),
        },
        "session_changed" => Answered::SessionChanged,
        "unauthenticated" => Answered::Unauthenticated,
        "not_open" => Answered::NotOpen,
        "stale" => Answered::Stale,
        "stopped" => Answered::Stopped,
        "expired" => Answered::Expired,
        "missing" => Answered::Missing,
        other => {
            tracing::error!(outcome = other, "judge_answer gave an unknown outcome");
            return Err(AppError::Internal);
        }
    })
}
