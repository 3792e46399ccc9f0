//! The MultiPIT judging task for annotators: get the next pair, answer it. A hidden test pair is
//! served exactly like any other pair; only a missed one reveals itself, with the right answer
//! and its explanation. The quality gate runs on the server after every answer. The use cases
//! are in [`crate::service::judging`].
use leptos::prelude::*;

use crate::domain::{AssignmentId, CampaignId};
use crate::error::AppError;

pub use crate::dto::judge::{AnswerOutcome, Feedback, JudgeGuide, JudgeTask};

#[server(endpoint = "judge/next")]
pub async fn judge_next(campaign_id: CampaignId) -> Result<JudgeTask, AppError> {
    super::with_status(ssr::next(campaign_id).await)
}

/// Answers an assignment: `is_paraphrase` true for "Paraphrase". The time spent is measured on
/// the server, from when the pair was served. The outcome carries the next task.
#[server(endpoint = "judge/answer")]
pub async fn judge_answer(
    campaign_id: CampaignId,
    assignment_id: AssignmentId,
    is_paraphrase: bool,
) -> Result<AnswerOutcome, AppError> {
    let result = ssr::answer(campaign_id, assignment_id, is_paraphrase).await;
    // A plain form (the page's answer buttons before its script runs, or without JavaScript)
    // goes back to the judging page, which shows the next pair; a missed check question's
    // feedback is read there (`judge_feedback`).
    if crate::error::is_form_post() {
        let missed = matches!(
            &result,
            Ok(AnswerOutcome {
                feedback: Some(_),
                ..
            })
        );
        leptos_axum::redirect(&after_form(campaign_id, assignment_id, missed));
    }
    super::with_status(result)
}

/// Where a plain form's answer sends the browser: the judging page, told which answer to
/// explain when it missed a check question.
pub fn after_form(campaign_id: CampaignId, assignment_id: AssignmentId, missed: bool) -> String {
    if missed {
        format!("/judge/{campaign_id}?missed={assignment_id}")
    } else {
        format!("/judge/{campaign_id}")
    }
}

/// The feedback the caller's answer to `assignment_id` earned: the right answer and its
/// explanation when it missed a check question, else nothing. The judging page reads it after a
/// plain form's answer.
#[server(endpoint = "judge/feedback")]
pub async fn judge_feedback(
    campaign_id: CampaignId,
    assignment_id: AssignmentId,
) -> Result<Option<Feedback>, AppError> {
    super::with_status(ssr::feedback(campaign_id, assignment_id).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::api::judging_call;
    use crate::service::judging as service;

    pub async fn next(campaign_id: CampaignId) -> Result<JudgeTask, AppError> {
        // The state before the first `.await` (see `state::app_state`).
        let state = &crate::state::app_state()?;
        judging_call(state, campaign_id, |session, user, campaign| async move {
            let (pool, campaigns, draws) = (&state.pool, &state.judge_campaigns, &state.draws);
            service::next(pool, campaigns, draws, session.proof(), user, campaign).await
        })
        .await
    }

    pub async fn feedback(
        campaign_id: CampaignId,
        assignment_id: AssignmentId,
    ) -> Result<Option<Feedback>, AppError> {
        let state = &crate::state::app_state()?;
        judging_call(state, campaign_id, |_, user, campaign| async move {
            service::feedback(&state.pool, campaign, user, assignment_id).await
        })
        .await
    }

    pub async fn answer(
        campaign_id: CampaignId,
        assignment_id: AssignmentId,
        is_paraphrase: bool,
    ) -> Result<AnswerOutcome, AppError> {
        let state = &crate::state::app_state()?;
        judging_call(state, campaign_id, |session, user, campaign| async move {
            service::answer(
                &state.pool,
                &state.quick,
                &state.judge_campaigns,
                &state.draws,
                session.proof(),
                user,
                campaign,
                assignment_id,
                is_paraphrase,
            )
            .await
        })
        .await
    }
}
