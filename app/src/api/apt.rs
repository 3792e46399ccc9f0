//! The APT writing task for annotators: get a sentence, Check a rewrite (every Check is stored),
//! Submit a checked rewrite (paid once, within the cap), skip.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;

/// Longest rewrite accepted, in characters.
pub const MAX_ATTEMPT_CHARS: usize = 1000;

/// What the page shows next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum AptTask {
    Write {
        source_id: String,
        source: String,
        total_cents: i64,
        cap_cents: i64,
        instructions: String,
    },
    /// No sentence left that this worker has not seen.
    Exhausted { total_cents: i64 },
    /// The cap is reached: the study is over for this worker.
    Complete {
        total_cents: i64,
        completion_code: String,
    },
}

/// How a Check came out, in the study's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// MI and BLEURT at or under the threshold: pays.
    Passes,
    /// Not mutually implicative: "not logically equivalent".
    NotEquivalent,
    /// MI but BLEURT above the threshold: "too similar".
    TooSimilar,
}

/// The answer to a Check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckOutcome {
    pub attempt_id: String,
    pub verdict: Verdict,
    pub is_mutual_implication: bool,
    pub bleurt: f32,
    pub reward_cents: i64,
    pub mi_model: String,
    pub bleurt_model: String,
    /// Which scorer this was, in words ("the APT paper's models", "lite stand-in, ...").
    pub scorer: String,
}

/// The answer to a Submit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmitOutcome {
    pub paid_cents: i64,
    pub total_cents: i64,
    pub is_complete: bool,
    /// A repeated Submit (double click, second tab, retry): nothing new was paid.
    pub was_already_submitted: bool,
}

#[server(endpoint = "apt/next")]
pub async fn apt_next(campaign_id: String) -> Result<AptTask, AppError> {
    super::with_status(ssr::next(campaign_id).await)
}

#[server(endpoint = "apt/check")]
pub async fn apt_check(
    campaign_id: String,
    source_id: String,
    text: String,
) -> Result<CheckOutcome, AppError> {
    super::with_status(ssr::check(campaign_id, source_id, text).await)
}

#[server(endpoint = "apt/submit")]
pub async fn apt_submit(
    campaign_id: String,
    attempt_id: String,
) -> Result<SubmitOutcome, AppError> {
    super::with_status(ssr::submit(campaign_id, attempt_id).await)
}

#[server(endpoint = "apt/skip")]
pub async fn apt_skip(campaign_id: String, source_id: String) -> Result<(), AppError> {
    super::with_status(ssr::skip(campaign_id, source_id).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use rand::Rng;
    use uuid::Uuid;

    use super::*;
    use crate::api::parse_id;
    use crate::db::{apt as db, campaigns};
    use crate::domain::apt::{budget, serving};
    use crate::domain::reward::{attempt_contains_source, passes_apt, reward_cents};
    use crate::ml::ScoreError;
    use crate::session::require_user;
    use crate::state::app_state;

    async fn open_apt_campaign(
        pool: &sqlx::PgPool,
        raw: &str,
    ) -> Result<campaigns::CampaignSettings, AppError> {
        let id = parse_id(raw, "campaign_id")?;
        match campaigns::find(pool, id).await? {
            Some(c) if c.kind == "apt" && c.status == "open" => Ok(c),
            Some(c) if c.kind == "apt" => Err(AppError::Conflict("This study is not open.".into())),
            _ => Err(AppError::NotFound),
        }
    }

    /// The state, the logged-in worker and the open APT campaign every call starts from.
    async fn caller(
        campaign_id: &str,
    ) -> Result<(crate::state::AppState, Uuid, campaigns::CampaignSettings), AppError> {
        let state = app_state()?;
        let user = require_user().await?.app_user_id;
        let campaign = open_apt_campaign(&state.pool, campaign_id).await?;
        Ok((state, user, campaign))
    }

    pub async fn next(campaign_id: String) -> Result<AptTask, AppError> {
        let (state, user, campaign) = caller(&campaign_id).await?;
        let cid = campaign.campaign_id;
        let worker = db::ensure_worker(&state.pool, cid, user).await?;
        let total = i64::from(worker.earned_cents);
        if let Some(code) = worker.completion_code {
            return Ok(AptTask::Complete {
                total_cents: total,
                completion_code: code,
            });
        }
        // Two tabs may race here; the partial unique index lets one assignment win and both
        // then read the same one.
        for _ in 0..3 {
            if let Some(active) = db::find_active(&state.pool, cid, user).await? {
                return Ok(AptTask::Write {
                    source_id: active.source_sentence_id.to_string(),
                    source: active.text,
                    total_cents: total,
                    cap_cents: i64::from(campaign.budget_cap_cents),
                    instructions: campaign.instructions.clone(),
                });
            }
            let unseen = db::unseen_by_origin(&state.pool, cid, user).await?;
            let u: f64 = rand::thread_rng().gen();
            let Some(origin) = serving::choose_origin(&unseen, u) else {
                return Ok(AptTask::Exhausted { total_cents: total });
            };
            db::assign_random(&state.pool, cid, user, origin).await?;
        }
        Err(AppError::Conflict(
            "Could not pick a sentence; please reload.".into(),
        ))
    }

    fn validate(source: &str, text: &str) -> Result<String, AppError> {
        use crate::domain::text::{check, TextProblem};
        let text = text.trim();
        match check(text) {
            Ok(()) => {}
            Err(TextProblem::Empty) => {
                return Err(AppError::validation("text", "Write a sentence first."))
            }
            Err(problem) => {
                return Err(AppError::validation(
                    "text",
                    format!("Your sentence {problem}."),
                ))
            }
        }
        if text.chars().count() > MAX_ATTEMPT_CHARS {
            return Err(AppError::validation(
                "text",
                format!("Your sentence is longer than {MAX_ATTEMPT_CHARS} characters; shorten it."),
            ));
        }
        let norm = |s: &str| {
            s.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        if norm(text) == norm(source) {
            return Err(AppError::validation(
                "text",
                "That is the given sentence itself; write it differently.",
            ));
        }
        if attempt_contains_source(source, text) {
            return Err(AppError::validation(
                "text",
                "Your sentence contains the given sentence; such rewrites earn nothing. Rephrase it.",
            ));
        }
        Ok(text.to_owned())
    }

    pub async fn check(
        campaign_id: String,
        source_id: String,
        text: String,
    ) -> Result<CheckOutcome, AppError> {
        // A full model queue answers "busy" before the session and database work below, so a
        // burst of Checks costs little beyond what can be scored. It tells the caller nothing
        // but that the server is busy.
        if let Err(ScoreError::Busy) = app_state()?.scorer.admit() {
            return Err(AppError::Overloaded);
        }
        let (state, user, campaign) = caller(&campaign_id).await?;
        let cid = campaign.campaign_id;
        let source_id = parse_id(&source_id, "source_id")?;
        let active = db::find_active(&state.pool, cid, user)
            .await?
            .filter(|a| a.source_sentence_id == source_id)
            .ok_or_else(|| {
                AppError::Conflict(
                    "This sentence is no longer yours to rewrite; reload for the current one."
                        .into(),
                )
            })?;
        let text = validate(&active.text, &text)?;
        let scores = state
            .scorer
            .score(active.text.clone(), text.clone())
            .await
            .map_err(|e| match e {
                ScoreError::Busy => AppError::Overloaded,
                other => {
                    tracing::error!(error = %other, "scoring failed");
                    AppError::Internal
                }
            })?;
        let threshold = campaign.bleurt_threshold;
        let bleurt = f64::from(scores.bleurt);
        let reward = reward_cents(scores.is_mutual_implication, bleurt, threshold);
        let attempt_id = db::insert_attempt(
            &state.pool,
            cid,
            user,
            source_id,
            &text,
            &scores,
            reward,
            active.seconds_since_shown,
        )
        .await?;
        crate::metrics::attempt_recorded();
        let verdict = if !scores.is_mutual_implication {
            Verdict::NotEquivalent
        } else if passes_apt(true, bleurt, threshold) {
            Verdict::Passes
        } else {
            Verdict::TooSimilar
        };
        Ok(CheckOutcome {
            attempt_id: attempt_id.to_string(),
            verdict,
            is_mutual_implication: scores.is_mutual_implication,
            bleurt: scores.bleurt,
            reward_cents: reward,
            mi_model: scores.versions.mi.clone(),
            bleurt_model: scores.versions.bleurt.clone(),
            scorer: scores.versions.description.clone(),
        })
    }

    pub async fn submit(
        campaign_id: String,
        attempt_id: String,
    ) -> Result<SubmitOutcome, AppError> {
        let (state, user, campaign) = caller(&campaign_id).await?;
        let cid = campaign.campaign_id;
        let attempt_id = parse_id(&attempt_id, "attempt_id")?;
        let attempt = db::find_attempt(&state.pool, cid, user, attempt_id)
            .await?
            .ok_or(AppError::NotFound)?;
        db::ensure_worker(&state.pool, cid, user).await?;

        let mut tx = state.pool.begin().await?;
        let earned = db::lock_worker(&mut tx, cid, user).await?;
        if let Some(paid) = db::find_submission(&mut *tx, user, attempt.source_sentence_id).await? {
            tx.commit().await?;
            let cap = i64::from(campaign.budget_cap_cents);
            return Ok(SubmitOutcome {
                paid_cents: i64::from(paid),
                total_cents: i64::from(earned),
                is_complete: i64::from(earned) >= cap,
                was_already_submitted: true,
            });
        }
        let active = db::find_active(&mut *tx, cid, user).await?;
        if active.map(|a| a.source_sentence_id) != Some(attempt.source_sentence_id) {
            return Err(AppError::Conflict(
                "This sentence was skipped or replaced; reload for the current one.".into(),
            ));
        }
        let p = budget::payout(
            i64::from(earned),
            i64::from(attempt.reward_cents),
            i64::from(campaign.budget_cap_cents),
        );
        db::insert_submission(
            &mut tx,
            cid,
            user,
            attempt.source_sentence_id,
            attempt_id,
            attempt.reward_cents,
            p.paid_cents as i32,
        )
        .await?;
        let code = p.is_complete.then(completion_code);
        db::update_worker_total(&mut tx, cid, user, p.total_cents as i32, code.as_deref()).await?;
        tx.commit().await?;
        crate::metrics::submission_recorded();
        Ok(SubmitOutcome {
            paid_cents: p.paid_cents,
            total_cents: p.total_cents,
            is_complete: p.is_complete,
            was_already_submitted: false,
        })
    }

    /// A code the worker gives the crowd platform to be paid: 10 characters, no look-alikes.
    fn completion_code() -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
        let mut rng = rand::thread_rng();
        (0..10)
            .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
            .collect()
    }

    pub async fn skip(campaign_id: String, source_id: String) -> Result<(), AppError> {
        let (state, user, campaign) = caller(&campaign_id).await?;
        let source_id = parse_id(&source_id, "source_id")?;
        db::skip_active(&state.pool, campaign.campaign_id, user, source_id).await?;
        Ok(())
    }
}
