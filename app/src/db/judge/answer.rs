//! An answer in one call: the database function `judge_answer`
//! (`migrations/functions/judge_answer.sql`) locks the worker, the assignment and its pair,
//! checks the caller, stores the judgment, records the gate table's changes and leases the next
//! pair, in one round trip and one implicit transaction. Every answer takes it; one it refuses
//! writes nothing and says why.
use crate::db::sessions::SessionProof;
use crate::domain::judge::gate_table::GateCounts;
use crate::domain::{AssignmentId, CampaignId, UserId};
use crate::error::AppError;
use sqlx::PgExecutor;

use super::gate::{all_cells, stored_counts};
use super::lease::{served, ServedPair, Serving};

/// What the call needs besides the caller and the assignment: the campaign's version its
/// settings are from, and how the next pair is served.
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
    /// The campaign version the settings in `serving` are from; another one in the database
    /// and the call writes nothing ([`Answered::Stale`]).
    pub version: i64,
    /// How the next pair is served.
    pub serving: Serving,
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
    /// A study worker who made the items the study asks for, or completed it.
    Done,
    /// The lease ran out and the pair's slots went to other workers meanwhile.
    Gone,
    /// No such assignment of this worker's.
    Missing,
    /// A delete that ran beside the call took a row it names (another worker's row the answer
    /// records a change for, or its campaign), and the database refused the call: nothing was
    /// written, and the call made again finds the rows as the delete left them.
    Raced,
}

/// Makes the call; see the module's documentation.
pub async fn answer(db: impl PgExecutor<'_>, call: &AnswerCall<'_>) -> Result<Answered, AppError> {
    let r = sqlx::query!(
        r#"select outcome as "outcome!", stored_label, judgments, tests_answered, tests_correct,
                  kappa_pp, kappa_pn, kappa_np, kappa_nn, gate_overridden, is_test, gold_label,
                  gold_explanation, next_assignment as "next_assignment: AssignmentId",
                  sentence1, sentence2, follow_up, lead2_agreed, lead2_disagreed, lead3_agreed,
                  lead3_disagreed
           from judge_answer($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"#,
        call.campaign_id as CampaignId,
        call.user as UserId,
        call.assignment_id as AssignmentId,
        call.session.id,
        call.session.data,
        call.is_paraphrase,
        call.version,
        f64::from(call.serving.lease_seconds),
        call.serving.test_every as i32,
        call.serving.judgments_per_pair as i32,
        call.serving.new_block_position as i32,
        call.serving.random_key,
        call.serving.windows.ordinary_per_test_pair as i32,
        call.serving.windows.test as i32,
        call.serving.sweep
    )
    .fetch_one(db)
    .await;
    let r = match r {
        Err(sqlx::Error::Database(e)) if raced(e.code().as_deref(), e.constraint()) => {
            tracing::warn!(error = %e, "an answer met a delete beside it; made again");
            return Ok(Answered::Raced);
        }
        r => r?,
    };
    let pair = || AnsweredPair {
        is_test: r.is_test.unwrap_or(false),
        gold_label: r.gold_label,
        gold_explanation: r.gold_explanation.clone(),
    };
    let Some(outcome) = Outcome::parse(&r.outcome) else {
        tracing::error!(outcome = r.outcome, "judge_answer gave an unknown outcome");
        return Err(AppError::Internal);
    };
    Ok(match outcome {
        Outcome::Judged => {
            let table = all_cells([
                r.kappa_pp,
                r.kappa_pn,
                r.kappa_np,
                r.kappa_nn,
                r.lead2_agreed,
                r.lead2_disagreed,
                r.lead3_agreed,
                r.lead3_disagreed,
            ]);
            let (Some(j), Some(ta), Some(tc), Some(table)) =
                (r.judgments, r.tests_answered, r.tests_correct, table)
            else {
                tracing::error!("judge_answer judged without the worker's counts");
                return Err(AppError::Internal);
            };
            Answered::Judged {
                counts: stored_counts(j, ta, tc, table),
                gate_overridden: r.gate_overridden.unwrap_or(false),
                pair: pair(),
                next: served(r.next_assignment, r.sentence1.clone(), r.sentence2.clone()),
                follow_up: r.follow_up.unwrap_or(false),
            }
        }
        Outcome::Answered => Answered::AlreadyAnswered {
            stored: r.stored_label,
            judgments: r.judgments.unwrap_or(0),
            pair: pair(),
        },
        Outcome::SessionChanged => Answered::SessionChanged,
        Outcome::Unauthenticated => Answered::Unauthenticated,
        Outcome::NotOpen => Answered::NotOpen,
        Outcome::Stale => Answered::Stale,
        Outcome::Stopped => Answered::Stopped,
        Outcome::Done => Answered::Done,
        Outcome::Gone => Answered::Gone,
        Outcome::Missing => Answered::Missing,
    })
}

/// PostgreSQL's error codes for a key check that found its row deleted, and for two
/// transactions that waited for each other (one is rolled back).
const FOREIGN_KEY_VIOLATION: &str = "23503";
const DEADLOCK: &str = "40P01";

/// The keys of the rows an answer writes (migration `judging_rows_reference_their_rows`).
const ANSWER_KEYS: [&str; 4] = [
    "judge_gate_change_worker_fkey",
    "judge_assignment_worker_fkey",
    "judge_assignment_pair_id_fkey",
    "judge_judgment_assignment_id_fkey",
];

/// Whether an error of the call is a delete beside it (made again), not a fault: a deadlock, or
/// one of the answer's own keys finding its row gone. Any other key violation is a bug and fails.
fn raced(code: Option<&str>, constraint: Option<&str>) -> bool {
    match code {
        Some(DEADLOCK) => true,
        Some(FOREIGN_KEY_VIOLATION) => constraint.is_some_and(|c| ANSWER_KEYS.contains(&c)),
        _ => false,
    }
}

/// The `outcome` column of `judge_answer`'s result, as the function's comment lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Judged,
    Answered,
    SessionChanged,
    Unauthenticated,
    NotOpen,
    Stale,
    Stopped,
    Done,
    Gone,
    Missing,
}

impl Outcome {
    const ALL: [(Outcome, &'static str); 10] = [
        (Outcome::Judged, "judged"),
        (Outcome::Answered, "answered"),
        (Outcome::SessionChanged, "session_changed"),
        (Outcome::Unauthenticated, "unauthenticated"),
        (Outcome::NotOpen, "not_open"),
        (Outcome::Stale, "stale"),
        (Outcome::Stopped, "stopped"),
        (Outcome::Done, "done"),
        (Outcome::Gone, "gone"),
        (Outcome::Missing, "missing"),
    ];

    fn parse(s: &str) -> Option<Outcome> {
        Self::ALL
            .iter()
            .find(|(_, name)| *name == s)
            .map(|(o, _)| *o)
    }
}

/// The caller's stored answer to one of their assignments in `campaign_id`, with the pair as
/// feedback needs it; `None` when it is not theirs or not answered. Read after a plain form's
/// answer (the page was reloaded), so a missed check question is explained as it is after one
/// sent by the page.
pub async fn stored_answer(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    user: UserId,
    assignment_id: AssignmentId,
) -> Result<Option<(bool, AnsweredPair)>, AppError> {
    let row = sqlx::query!(
        r#"select j.is_paraphrase, p.is_test, p.gold_label, p.gold_explanation
           from judge_judgment j
           join judge_pair p on p.pair_id = j.pair_id
           where j.assignment_id = $1 and j.app_user_id = $2 and j.campaign_id = $3"#,
        assignment_id as AssignmentId,
        user as UserId,
        campaign_id as CampaignId,
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| {
        (
            r.is_paraphrase,
            AnsweredPair {
                is_test: r.is_test,
                gold_label: r.gold_label,
                gold_explanation: r.gold_explanation,
            },
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::Outcome;

    /// The outcomes the function's source returns are exactly the ones parsed here.
    #[test]
    fn the_outcomes_are_the_ones_the_function_returns() {
        let source = include_str!("../../../../migrations/functions/judge_answer.sql");
        for (outcome, name) in Outcome::ALL {
            assert!(
                source.contains(&format!("'{name}'")),
                "{name} is not in judge_answer.sql"
            );
            assert_eq!(Outcome::parse(name), Some(outcome));
        }
        // Every string the function gives as an outcome: `then '...'`, `else '...'`,
        // `outcome := '...'` and the judged row's `row('...'`.
        let mut returned = Vec::new();
        for marker in ["then '", "else '", "outcome := '", "row('"] {
            for (i, _) in source.match_indices(marker) {
                let rest = &source[i + marker.len()..];
                returned.push(&rest[..rest.find('\'').unwrap()]);
            }
        }
        assert!(returned.len() >= 10, "{returned:?}");
        for name in returned {
            assert!(
                Outcome::parse(name).is_some(),
                "judge_answer returns '{name}'"
            );
        }
        assert_eq!(Outcome::parse("expired"), None);
    }

    /// The keys the retry names are the ones the migration adds.
    #[test]
    fn only_the_answers_own_keys_and_deadlocks_are_made_again() {
        let migration = include_str!(
            "../../../../migrations/20261209000029_judging_rows_reference_their_rows.sql"
        );
        for key in super::ANSWER_KEYS {
            assert!(migration.contains(&format!("constraint {key} ")), "{key}");
            assert!(super::raced(Some("23503"), Some(key)));
        }
        assert!(super::raced(Some("40P01"), None));
        assert!(!super::raced(
            Some("23503"),
            Some("judge_worker_app_user_id_fkey")
        ));
        assert!(!super::raced(
            Some("23505"),
            Some("judge_assignment_pair_id_fkey")
        ));
    }
}
