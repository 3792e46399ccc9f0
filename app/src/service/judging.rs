//! The MultiPIT judging round trip (MultiPIT §3): serve the next pair (one hidden test pair in
//! every block of `test_every`, at a drawn position), store an answer, and run the quality gate
//! on the server after every answer, in the same transaction.
use crate::domain::{AssignmentId, CampaignId, UserId, UserStatus, WorkerStatus};
use sqlx::{PgConnection, PgPool};

use crate::db::judge::{self as db, JudgeCampaign};
use crate::db::quick::QuickConnections;
use crate::db::sessions::SessionProof;
use crate::domain::judge::gate::{self, GateDecision};
use crate::domain::judge::rule_text;
use crate::domain::judge::schedule::{self, ServingWindows};
use crate::domain::judge::settings::JudgeSettings;
use crate::draws::Draws;
use crate::dto::judge::stop_message;
use crate::dto::judge::{AnswerOutcome, Feedback, JudgeGuide, JudgeTask};
use crate::error::AppError;
use crate::service::gate_table;
use crate::service::judge_campaign_cache::{self as campaigns, JudgeCampaignCache};

fn guide(c: &JudgeCampaign) -> JudgeGuide {
    JudgeGuide {
        title: c.title.clone(),
        definition: c.settings.definition.as_str().to_owned(),
        definition_text: c.settings.definition.text().to_owned(),
        instructions: c.instructions.clone(),
        min_display_ms: c.settings.min_display_ms,
        quality_rule: rule_text::quality_rule(&c.settings),
        has_checks: c.settings.test_every > 0,
    }
}

const STOPPED: &str = "Thank you for your work. Your answers did not meet this study's quality bar, so we cannot give you more pairs. Your judgments so far are kept and count as work done: the researcher decides how it is paid.";

async fn last_reason(pool: &PgPool, cid: CampaignId, user: UserId) -> Result<String, AppError> {
    let reason = db::last_reason(pool, cid, user).await?;
    Ok(match reason {
        Some(r) => format!("{STOPPED} {r}"),
        None => STOPPED.to_owned(),
    })
}

/// Locks the worker's row. The caller's session and account are checked here, in the same
/// statement: the judging calls read the caller from a copy of the session this server keeps
/// (`service::session_cache`), which is refused with [`AppError::SessionChanged`] unless it is
/// still stored as it was read, and they do not reload the account, whose status this
/// statement reads instead: blocked since the session began, it is refused. A deleted account
/// has no row to read the session with, and is refused as unauthenticated either way (a session
/// id stands for one account: it is cycled at every login).
async fn lock_worker(
    tx: &mut PgConnection,
    cid: CampaignId,
    user: UserId,
    session: SessionProof<'_>,
) -> Result<db::WorkerRow, AppError> {
    let worker = db::lock_worker(tx, cid, user, session).await?;
    check_caller(worker.as_ref())?;
    worker.ok_or(AppError::Unauthenticated)
}

/// Refuses a call whose session changed since it was read, then one whose account is no longer
/// active (or gone: `None`).
fn check_caller(worker: Option<&db::WorkerRow>) -> Result<(), AppError> {
    match worker {
        Some(w) if !w.session_current => Err(AppError::SessionChanged),
        Some(w) if w.user_status == UserStatus::Active => Ok(()),
        _ => Err(AppError::Unauthenticated),
    }
}

/// The pair `user` holds (its lease renewed), else a newly leased one: a test pair in the
/// block's test slot, else the ordinary pair that most needs judgments. `session` is the
/// caller's, as read ([`lock_worker`]).
pub async fn next(
    pool: &PgPool,
    cache: &JudgeCampaignCache,
    draws: &Draws,
    session: SessionProof<'_>,
    user: UserId,
    campaign_id: CampaignId,
) -> Result<JudgeTask, AppError> {
    let campaign = campaigns::open_campaign(pool, cache, campaign_id).await?;
    let cid = campaign.campaign_id;
    let mut tx = pool.begin().await?;
    // The worker's row lock serialises two tabs of the same worker.
    let worker = lock_worker(&mut tx, cid, user, session).await?;
    let campaign = campaigns::current(&mut tx, cache, campaign, &worker).await?;
    let settings = &campaign.settings;
    let judged = i64::from(worker.judgments);
    if worker.status == WorkerStatus::Stopped {
        tx.commit().await?;
        let message = last_reason(pool, cid, user).await?;
        return Ok(JudgeTask::Stopped { judged, message });
    }
    // An answer's stop is a transaction of its own after the answer's (`answer`): if the server
    // went down between the two, the counts stored say so, and the stop happens here.
    let numbers = worker.counts().numbers();
    if !worker.gate_overridden {
        if let GateDecision::Stop(why) = gate::decide(settings, &numbers) {
            let reason = stop_message(&why);
            let leased = db::current_lease(&mut tx, cid, user).await?;
            stop_worker(&mut tx, cid, user, leased, &reason, &numbers).await?;
            tx.commit().await?;
            let message = format!("{STOPPED} {reason}");
            return Ok(JudgeTask::Stopped { judged, message });
        }
    }
    let how = serving(cache, draws, cid, settings);
    let mut served = db::next_pair(&mut tx, cid, user, &worker, &how).await?.pair;
    // Leases skip the pairs other requests hold this moment. Before telling the worker that
    // nothing is left, wait for such a pair if one with a free slot is unseen by them. Safe
    // here, not in `answer`: this transaction holds only the worker's own row, which nobody
    // else waits for.
    if served.is_none() && db::wait_for_held_free_pair(&mut tx, cid, user).await? {
        let how = serving(cache, draws, cid, settings);
        served = db::next_pair(&mut tx, cid, user, &worker, &how).await?.pair;
    }
    let waiting = served.is_none() && db::pairs_left(&mut *tx, cid, user).await?;
    tx.commit().await?;
    Ok(task(served, waiting, judged, &campaign))
}

/// How the next pair is served: the campaign's settings and this call's draws. Every call that
/// may lease takes the same two draws, whatever it finds in the database, so a seeded server
/// (`PARACROWD_RANDOM_SEED`) replays the same schedule for the same requests. Expired leases
/// give their slots back first at most once a second per campaign on this server
/// (`judge_campaign_cache::SWEEP_EVERY`), and always before answering that nothing is left.
fn serving(
    cache: &JudgeCampaignCache,
    draws: &Draws,
    cid: CampaignId,
    settings: &JudgeSettings,
) -> db::Serving {
    db::Serving {
        lease_seconds: settings.lease_seconds,
        test_every: settings.test_every,
        judgments_per_pair: settings.judgments_per_pair,
        new_block_position: schedule::test_position(settings.test_every, draws.unit()),
        random_key: draws.key(),
        windows: ServingWindows::for_schedule(settings.test_every),
        sweep: cache.sweep_due(cid),
    }
}

/// What the worker is shown: the pair served; else, when `waiting` (pairs are left for them, held
/// by other workers' leases), to look again soon; else that nothing is left.
fn task(
    served: Option<db::ServedPair>,
    waiting: bool,
    judged: i64,
    campaign: &JudgeCampaign,
) -> JudgeTask {
    match served {
        Some(p) => JudgeTask::Judge {
            assignment_id: p.assignment_id,
            sentence1: p.sentence1,
            sentence2: p.sentence2,
            judged,
            guide: guide(campaign),
        },
        None if waiting => JudgeTask::Waiting { judged },
        None => JudgeTask::NothingLeft { judged },
    }
}

/// Stores `user`'s answer to an assignment (once: a repeat answers as the first did), runs the
/// gate unless an admin overrode it, and leases the next pair. The time spent is measured on the
/// server. `session` is the caller's, as read ([`lock_worker`]).
///
/// Every answer is one call of the database (`db::judge::answer`): the worker, assignment and
/// pair locked, the caller checked, the judgment stored, the gate's counts and the others'
/// changes recorded, the next pair leased, in one round trip and one transaction. The gate
/// decides on the counts it returns; when it stops the worker, the stop (and the pair just
/// leased, given back) is a second transaction, and a stop the server did not live to make is
/// made by the worker's next request (`next`).
#[allow(clippy::too_many_arguments)]
pub async fn answer(
    pool: &PgPool,
    quick: &QuickConnections,
    cache: &JudgeCampaignCache,
    draws: &Draws,
    session: SessionProof<'_>,
    user: UserId,
    campaign_id: CampaignId,
    assignment_id: AssignmentId,
    is_paraphrase: bool,
) -> Result<AnswerOutcome, AppError> {
    let mut campaign = campaigns::open_campaign(pool, cache, campaign_id).await?;
    // Made again when something changed beside it ([`RETRIES`]).
    for _ in 0..RETRIES {
        let cid = campaign.campaign_id;
        let settings = &campaign.settings;
        let call = db::AnswerCall {
            campaign_id: cid,
            user,
            assignment_id,
            session,
            is_paraphrase,
            version: campaign.version,
            serving: serving(cache, draws, cid, settings),
        };
        let mut conn = quick.acquire().await?;
        let answered = db::answer(conn.conn(), &call).await?;
        conn.done();
        return match answered {
            db::Answered::Judged {
                counts,
                gate_overridden,
                pair,
                next,
                follow_up,
            } => {
                crate::metrics::judgment_recorded();
                if follow_up {
                    crate::service::mining_follow_up::wake_sweeper();
                }
                let judged = i64::from(counts.judgments);
                let numbers = counts.numbers();
                let is_correct = pair.is_test.then(|| pair.gold_label == Some(is_paraphrase));
                let mut stopped = None;
                if !gate_overridden {
                    if let GateDecision::Stop(why) = gate::decide(settings, &numbers) {
                        let reason = stop_message(&why);
                        let leased = next.as_ref().map(|p| p.assignment_id);
                        let mut tx = pool.begin().await?;
                        stop_worker(&mut tx, cid, user, leased, &reason, &numbers).await?;
                        tx.commit().await?;
                        stopped = Some(format!("{STOPPED} {reason}"));
                    }
                }
                // Said only with a missed check question, whose feedback shows it was one
                // anyway: a warning that came or changed after other answers would tell which
                // pairs were checks.
                let warning = (stopped.is_none() && !gate_overridden && is_correct == Some(false))
                    .then(|| rule_text::warning(settings, &numbers))
                    .flatten();
                let next = match &stopped {
                    Some(message) => JudgeTask::Stopped {
                        judged,
                        message: message.clone(),
                    },
                    None => {
                        // Rare (the last pairs, or a study's last item): told apart here.
                        let waiting = next.is_none() && db::pairs_left(pool, cid, user).await?;
                        task(next, waiting, judged, &campaign)
                    }
                };
                Ok(AnswerOutcome {
                    judged,
                    feedback: feedback_for(&pair, is_paraphrase),
                    stopped,
                    was_already_answered: false,
                    warning,
                    next: Some(next),
                })
            }
            db::Answered::AlreadyAnswered {
                stored,
                judgments,
                pair,
            } => Ok(AnswerOutcome {
                judged: i64::from(judgments),
                feedback: feedback_for(&pair, stored.unwrap_or(is_paraphrase)),
                stopped: None,
                was_already_answered: true,
                warning: None,
                next: None,
            }),
            db::Answered::SessionChanged => Err(AppError::SessionChanged),
            db::Answered::Unauthenticated => Err(AppError::Unauthenticated),
            db::Answered::NotOpen => Err(campaigns::not_open()),
            db::Answered::Stopped => Err(AppError::Forbidden),
            db::Answered::Done => Err(crate::service::study_completion::items_done()),
            db::Answered::Gone => Err(AppError::Conflict(
                "This pair waited too long and went to another worker. Here is the next one."
                    .into(),
            )),
            db::Answered::Missing => Err(AppError::NotFound),
            db::Answered::Stale => {
                campaign = campaigns::reload(pool, cache, cid).await?;
                continue;
            }
            db::Answered::Raced => continue,
        };
    }
    Err(AppError::Conflict(
        "This study is being changed. Please answer again.".into(),
    ))
}

/// The right answer and its explanation after `answer` to `pair`, a missed check question;
/// `None` for any other answer (an ordinary pair reveals nothing).
fn feedback_for(pair: &db::AnsweredPair, answer: bool) -> Option<Feedback> {
    (pair.is_test && pair.gold_label.is_some_and(|g| g != answer)).then(|| Feedback {
        is_paraphrase: pair.gold_label.unwrap_or(false),
        explanation: pair.gold_explanation.clone().unwrap_or_default(),
    })
}

/// The feedback `user`'s stored answer to their `assignment` earned: the right answer and its
/// explanation if it was a missed check question, else `None` (also for an assignment that is
/// not theirs or not answered). It tells nothing the answer did not already tell them.
pub async fn feedback(
    pool: &PgPool,
    campaign_id: CampaignId,
    user: UserId,
    assignment_id: AssignmentId,
) -> Result<Option<Feedback>, AppError> {
    Ok(db::stored_answer(pool, campaign_id, user, assignment_id)
        .await?
        .and_then(|(answer, pair)| feedback_for(&pair, answer)))
}

/// How many times an answer is made again when the call wrote nothing because something changed
/// beside it: the campaign since this server read it (an admin's edit; read afresh), or a delete
/// of a row the answer names.
const RETRIES: usize = 3;

/// Stops a worker the gate has stopped, in the caller's transaction: unless an admin has
/// reinstated them since, the pair `leased` to them goes back as though never leased (when it is
/// still leased), and if they are still active their status changes, with `reason` and the
/// numbers behind it, and their judgments stop counting.
async fn stop_worker(
    tx: &mut PgConnection,
    cid: CampaignId,
    user: UserId,
    leased: Option<AssignmentId>,
    reason: &str,
    numbers: &gate::GateNumbers,
) -> Result<(), AppError> {
    let Some((status, overridden)) = db::lock_standing(tx, cid, user).await? else {
        return Ok(());
    };
    if overridden {
        return Ok(());
    }
    if let Some(assignment) = leased {
        db::unlease(tx, assignment).await?;
    }
    if status == WorkerStatus::Active {
        let flips =
            db::set_worker_status(tx, cid, user, WorkerStatus::Stopped, reason, numbers, None)
                .await?;
        gate_table::after_flips(tx, cid, &flips).await?;
    }
    Ok(())
}
