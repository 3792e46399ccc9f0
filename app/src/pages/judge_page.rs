//! The judging page (annotators): two sentences side by side, "Paraphrase" / "Not paraphrase"
//! (keys 1 and 2, or ← and →, answer and move on in one press), a progress count, the
//! definition one click away, and the right answer with its explanation after a missed test
//! pair.
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::judge::{
    judge_answer, judge_feedback, judge_next, AnswerOutcome, Feedback, JudgeAnswer, JudgeGuide,
    JudgeTask,
};
use crate::api::studies::{load_study_progress, StudyProgress};
use crate::components::study_progress::{FinishLink, StudyTerms};
use crate::domain::judge::settings::{Definition, EXAMPLES};
use crate::domain::{AssignmentId, CampaignId};
use crate::error::{AppError, ErrorMessage, PageError};
use crate::pages::{route_id, with_route_id};

#[component]
pub fn JudgePage() -> impl IntoView {
    let params = use_params_map();
    let campaign = move || route_id::<CampaignId>(params);
    let round = RwSignal::new(0u32);
    // The next task as the answer brought it (one round trip per judgment); else asked for.
    let ahead: StoredValue<Option<JudgeTask>> = StoredValue::new(None);
    // The study around the task (items asked for, pay, where to finish), read once.
    let study = Resource::new(campaign, |id| with_route_id(id, load_study_progress));
    let task = Resource::new(
        move || (campaign(), round.get()),
        move |(id, _)| {
            let given = ahead.try_update_value(Option::take).flatten();
            async move {
                if let Some(task) = given {
                    return Ok(task);
                }
                // A study worker who made the items the study asks for (and reloads before
                // finishing) is shown the way to finish, not refused a pair.
                if let Ok(s) = study.await {
                    if s.done_href.is_some()
                        && s.complete_after.is_some_and(|n| s.items >= i64::from(n))
                    {
                        return Ok(JudgeTask::NothingLeft { judged: s.items });
                    }
                }
                with_route_id(id, judge_next).await
            }
        },
    );
    // After a plain form's answer (sent before the page's script ran, or without JavaScript)
    // the server sends the browser back here, naming the answer when it missed a check question.
    let query = use_query_map();
    let missed = move || {
        query
            .read()
            .get("missed")
            .and_then(|m| m.parse::<AssignmentId>().ok())
    };
    let checked = Resource::new(
        move || (campaign(), missed()),
        |(campaign, missed)| async move {
            match (campaign, missed) {
                (Some(c), Some(m)) => judge_feedback(c, m).await.ok().flatten(),
                _ => None,
            }
        },
    );
    let next = Callback::new(move |given: Option<JudgeTask>| {
        ahead.set_value(given);
        round.update(|r| *r += 1);
    });
    // What happened to the last answer when the page moved on regardless (e.g. a timed-out pair).
    let notice: RwSignal<Option<String>> = RwSignal::new(None);
    // The gate's warning, set with each missed check (shown on the judging view only, not on the
    // stopped or nothing-left pages).
    let warning: RwSignal<Option<String>> = RwSignal::new(None);
    view! {
        <section class="card wide judge">
            {move || notice.get().map(|m| view! { <p class="notice warn" role="status">{m}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let study: StudyProgress = study.await.unwrap_or_default();
                    let Some(campaign_id) = campaign() else {
                        return view! { <PageError error=AppError::NotFound /> }.into_any();
                    };
                    let task = task.await;
                    if let Some(feedback) = checked.await {
                        let definition = match &task {
                            Ok(JudgeTask::Judge { guide, .. }) => guide.definition_text.clone(),
                            _ => Definition::Loose.text().to_owned(),
                        };
                        return view! {
                            <h1>"Check question"</h1>
                            <div class="notice warn feedback" role="status">
                                <FeedbackText feedback definition />
                                <a class="button" href=format!("/judge/{campaign_id}") data-testid="continue">"Continue"</a>
                            </div>
                        }
                            .into_any();
                    }
                    match task {
                        Ok(
                            JudgeTask::Judge { judged, .. }
                            | JudgeTask::NothingLeft { judged }
                            | JudgeTask::Waiting { judged },
                        ) if study.done_href.is_some()
                                && study.complete_after.is_some_and(|n| judged >= i64::from(n)) =>
                        {
                            view! {
                                <h1>"You have done this study's pairs"</h1>
                                <p>
                                    "You have judged " <strong data-testid="judged-total">{judged}</strong>
                                    " pairs, all this study asks for. Thank you!"
                                </p>
                                <FinishLink study />
                            }
                                .into_any()
                        }
                        Ok(JudgeTask::Judge { assignment_id, sentence1, sentence2, judged, guide }) => {
                            view! {
                                <StudyTerms study=study.clone() item="pair" />
                                <Judge
                                    campaign_id
                                    assignment_id
                                    sentence1
                                    sentence2
                                    judged
                                    guide
                                    next
                                    notice
                                    warning
                                    moved={round.get_untracked() > 0}
                                    of=study.done_href.as_ref().and(study.complete_after)
                                />
                            }
                                .into_any()
                        }
                        Ok(JudgeTask::NothingLeft { judged }) => {
                            view! {
                                <h1>"Nothing to judge right now"</h1>
                                <p>
                                    "You have judged " <strong>{judged}</strong>
                                    " pairs. Every other pair has all its judgments or is being judged by someone else; pairs that others leave unfinished come back later."
                                </p>
                                <FinishLink study />
                            }
                                .into_any()
                        }
                        Ok(JudgeTask::Waiting { judged }) => {
                            view! {
                                <h1>"Please wait a moment"</h1>
                                <p role="status">
                                    "You have judged " <strong data-testid="judged-total">{judged}</strong>
                                    " pairs. The pairs left for you are being judged by other people right now; any they leave unfinished come back within a few minutes."
                                </p>
                                <button
                                    type="button"
                                    data-testid="look-again"
                                    on:click=move |_| next.run(None)
                                >
                                    "Look again"
                                </button>
                            }
                                .into_any()
                        }
                        Ok(JudgeTask::Stopped { judged, message }) => {
                            view! {
                                <h1>"Thank you"</h1>
                                <p class="notice warn" role="status">{message}</p>
                                <p>"Judgments you made: " <strong data-testid="judged-total">{judged}</strong></p>
                                <p data-testid="stopped-pay">{stopped_pay(judged, &study)}</p>
                                <FinishLink study />
                            }
                                .into_any()
                        }
                        // A study worker refused more pairs (done, or completed elsewhere)
                        // gets the way to finish with the reason.
                        Err(error) if study.done_href.is_some() => {
                            view! { <ErrorMessage error /> <FinishLink study /> }.into_any()
                        }
                        Err(error) => view! { <PageError error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// What a stopped worker's judgments earned, and that they count.
fn stopped_pay(judged: i64, study: &StudyProgress) -> String {
    let counts = "Your judgments so far are kept and count as work done; the researcher decides on any pay beyond the study's terms.";
    // The study's terms are a study-link worker's; an in-house annotator's pay is agreed apart.
    if study.judgment_pay_mills > 0 && study.done_href.is_some() {
        let cents =
            crate::domain::study::pay::judgment_bonus_cents(judged, study.judgment_pay_mills);
        format!(
            "At {} you earned {} for them. {counts}",
            study.pay_per_item,
            crate::domain::money::usd(cents)
        )
    } else {
        counts.to_owned()
    }
}

/// Milliseconds on the browser's clock (0 while rendering on the server, where nobody presses).
fn now_ms() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

/// The answer keys: 1 or ← for "Paraphrase", 2 or → for "Not paraphrase".
fn key_answer(key: &str) -> Option<bool> {
    match key {
        "1" | "ArrowLeft" => Some(true),
        "2" | "ArrowRight" => Some(false),
        _ => None,
    }
}

#[component]
fn Judge(
    campaign_id: CampaignId,
    assignment_id: AssignmentId,
    sentence1: String,
    sentence2: String,
    judged: i64,
    guide: JudgeGuide,
    next: Callback<Option<JudgeTask>>,
    notice: RwSignal<Option<String>>,
    warning: RwSignal<Option<String>>,
    /// This pair replaced the one just answered (not the first on the page).
    moved: bool,
    /// The number of pairs the study asks for, if it sets one.
    of: Option<i32>,
) -> impl IntoView {
    let (cid, aid) = (
        StoredValue::new(campaign_id),
        StoredValue::new(assignment_id),
    );
    let error: RwSignal<Option<AppError>> = RwSignal::new(None);
    let feedback: RwSignal<Option<Feedback>> = RwSignal::new(None);
    let show_guide = RwSignal::new(false);
    let answer = Action::new(move |p: &bool| {
        let p = *p;
        async move { judge_answer(cid.get_value(), aid.get_value(), p).await }
    });
    // The task the answer brought, shown after a missed test pair's feedback is dismissed.
    let coming: StoredValue<Option<JudgeTask>> = StoredValue::new(None);
    Effect::new(move || match answer.value().get() {
        Some(Ok(AnswerOutcome {
            feedback: Some(f),
            next: given,
            warning: w,
            ..
        })) => {
            notice.set(None);
            // A missed check brings the gate's standing as it now is (none: all is well).
            warning.set(w);
            coming.set_value(given);
            feedback.set(Some(f));
        }
        Some(Ok(AnswerOutcome {
            next: given,
            warning: w,
            ..
        })) => {
            notice.set(None);
            if w.is_some() {
                warning.set(w);
            }
            next.run(given);
        }
        Some(Err(AppError::Conflict(m))) => {
            // The pair went to someone else while this page was away: say so, then move on.
            notice.set(Some(m));
            next.run(None);
        }
        Some(Err(e)) => error.set(Some(e)),
        None => {}
    });
    // A second press meant for the pair before lands here within a blink: answers to a pair on
    // screen for less than the campaign's minimum are ignored, and the page says so.
    let shown_at = StoredValue::new(now_ms());
    let min_display_ms = f64::from(guide.min_display_ms);
    let too_quick = RwSignal::new(false);
    let send = move |p: bool| {
        if answer.pending().get_untracked() || answer.value().get_untracked().is_some() {
            return;
        }
        if now_ms() - shown_at.get_value() < min_display_ms {
            too_quick.set(true);
            return;
        }
        too_quick.set(false);
        answer.dispatch(p);
    };
    let done = move || answer.pending().get() || answer.value().get().is_some_and(|r| r.is_ok());
    let dismiss = move || {
        feedback.set(None);
        next.run(coming.try_update_value(Option::take).flatten());
    };

    // The answered pair's buttons are gone: focus the new pair, so a screen reader reads it and
    // Tab reaches its answers (the keys work wherever the focus is).
    let pair_ref = NodeRef::<leptos::html::Div>::new();
    // Focus moves to the feedback's Continue button, as for any dialog.
    let continue_ref = NodeRef::<leptos::html::Button>::new();
    #[cfg(feature = "hydrate")]
    {
        Effect::new(move || {
            if let Some(pair) = pair_ref.get() {
                if moved {
                    let _ = pair.focus();
                }
            }
        });
        Effect::new(move || {
            if let Some(button) = continue_ref.get() {
                let _ = button.focus();
            }
        });
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = moved;

    #[cfg(feature = "hydrate")]
    {
        let handle = window_event_listener(leptos::ev::keydown, move |ev| {
            if ev.ctrl_key() || ev.meta_key() || ev.alt_key() || ev.repeat() {
                return;
            }
            if feedback.get_untracked().is_some() {
                if ev.key() == "Enter" || ev.key() == " " {
                    ev.prevent_default();
                    dismiss();
                }
                return;
            }
            if let Some(p) = key_answer(&ev.key()) {
                ev.prevent_default();
                send(p);
            }
        });
        on_cleanup(move || handle.remove());
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = key_answer;

    let definition = Definition::parse(&guide.definition).unwrap_or(Definition::Loose);
    let answer_url = <JudgeAnswer as leptos::server_fn::ServerFn>::PATH;
    let instructions = guide.instructions.clone();
    let quality_rule = guide.quality_rule.clone();
    // The rule is said with the first pair, below it (the pair comes first on every screen), and
    // after that is one line with the definition's link.
    let first = (judged == 0).then(|| {
        view! {
            <div class="notice" role="note" data-testid="quality-rule">
                <p><strong>"Before you start: "</strong> {quality_rule.clone()}</p>
            </div>
        }
    });
    view! {
        {move || warning.get().map(|m| view! { <p class="notice warn" role="status" data-testid="gate-warning">{m}</p> })}
        <div class="judge-head">
            <h1>"Is sentence 2 a paraphrase of sentence 1?"</h1>
            <p class="progress" aria-live="polite">
                {match of {
                    Some(n) => view! {
                        "Pair " <strong data-testid="pair-number">{judged + 1}</strong> {format!(" of your {n}")}
                        <span class="sr-only" data-testid="judged">{judged}</span>
                    }.into_any(),
                    None => view! { "Judged: " <strong data-testid="judged">{judged}</strong> }.into_any(),
                }}
            </p>
        </div>
        <div class="pair" role="group" aria-label="The pair" tabindex="-1" node_ref=pair_ref>
            <blockquote aria-label="Sentence 1">{sentence1}</blockquote>
            <blockquote aria-label="Sentence 2">{sentence2}</blockquote>
        </div>
        // The key hints are for eyes; a screen reader hears the shortcut from aria-keyshortcuts.
        // A plain form: a press before the page's script runs (or without JavaScript) posts the
        // answer and the server sends the page back with the next pair; once the script runs,
        // it sends the answer itself and the form is not posted.
        <form class="answers" method="post" action=answer_url>
            <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
            <input type="hidden" name="assignment_id" value=assignment_id.to_string() />
            <button
                type="submit"
                name="is_paraphrase"
                value="true"
                class="yes"
                aria-keyshortcuts="1 ArrowLeft"
                disabled=done
                on:click=move |ev| {
                    ev.prevent_default();
                    send(true)
                }
            >
                "Paraphrase" <kbd aria-hidden="true">"1"</kbd>
            </button>
            <button
                type="submit"
                name="is_paraphrase"
                value="false"
                class="no"
                aria-keyshortcuts="2 ArrowRight"
                disabled=done
                on:click=move |ev| {
                    ev.prevent_default();
                    send(false)
                }
            >
                "Not paraphrase" <kbd aria-hidden="true">"2"</kbd>
            </button>
        </form>
        <p class="muted small keys-hint needs-js">"Keys: 1 or ← for Paraphrase, 2 or → for Not paraphrase."</p>
        {first}
        {move || {
            too_quick
                .get()
                .then(|| {
                    view! {
                        <p class="muted small" role="status" data-testid="too-quick">
                            "That press came as this pair appeared, so it was not counted: read the pair, then answer."
                        </p>
                    }
                })
        }}
        {move || error.get().map(|error| view! { <ErrorMessage error /> })}
        {move || {
            feedback
                .get()
                .map(|feedback| {
                    view! {
                        <div class="notice warn feedback" role="alertdialog" aria-label="Check question">
                            <FeedbackText feedback definition=definition.text().to_owned() />
                            // The key is a hint for keyboards; touch screens hide it (`kbd`).
                            <button type="button" data-testid="continue" node_ref=continue_ref on:click=move |_| dismiss()>
                                "Continue" <kbd aria-hidden="true">"Enter"</kbd>
                            </button>
                        </div>
                    }
                })
        }}
        <p>
            {(judged > 0 && guide.has_checks).then(|| view! {
                <span class="small muted" data-testid="quality-rule-line">"Some pairs are check questions; the rule is with the definition. "</span>
            })}
            <button
                type="button"
                class="link needs-js"
                aria-expanded=move || if show_guide.get() { "true" } else { "false" }
                aria-controls="judge-guide"
                on:click=move |_| show_guide.update(|s| *s = !*s)
            >
                {move || if show_guide.get() { "Hide the definition" } else { "Show the definition" }}
            </button>
        </p>
        <Show when=move || show_guide.get()>
            <Guide definition instructions=instructions.clone() quality_rule=quality_rule.clone() />
        </Show>
    }
}

/// What a missed check question's feedback says: the right answer, and the pair's explanation
/// (or, when none was written, the definition it was judged by).
#[component]
fn FeedbackText(feedback: Feedback, definition: String) -> impl IntoView {
    let right = if feedback.is_paraphrase {
        "Paraphrase"
    } else {
        "Not paraphrase"
    };
    view! {
        <p>
            <strong>"That was a check question, and the answer is: " {right} "."</strong>
        </p>
        {if feedback.explanation.is_empty() {
            view! { <p data-testid="explanation-fallback">"The definition: " {definition}</p> }.into_any()
        } else {
            view! { <p data-testid="explanation">{feedback.explanation}</p> }.into_any()
        }}
    }
}

#[component]
fn Guide(definition: Definition, instructions: String, quality_rule: String) -> impl IntoView {
    let strict = definition == Definition::Strict;
    view! {
        <div class="guide" id="judge-guide" data-testid="definition">
            <h2>{if strict { "Definition (strict)" } else { "Definition" }}</h2>
            <p>{definition.text()}</p>
            <h3>"Check questions"</h3>
            <p>{quality_rule}</p>
            {(!instructions.trim().is_empty()).then(|| view! { <p class="campaign-instructions">{instructions}</p> })}
            <h3>"Examples"</h3>
            <ul class="examples">
                {EXAMPLES
                    .iter()
                    .map(|e| {
                        let yes = if strict { e.strict } else { e.loose };
                        view! {
                            <li>
                                <p>"1: " {e.sentence1}</p>
                                <p>"2: " {e.sentence2}</p>
                                <p>
                                    <strong>{if yes { "Paraphrase" } else { "Not paraphrase" }}</strong>
                                    " — " {e.why}
                                </p>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::key_answer;

    #[test]
    fn keys_answer_as_labelled() {
        assert_eq!(key_answer("1"), Some(true));
        assert_eq!(key_answer("ArrowLeft"), Some(true));
        assert_eq!(key_answer("2"), Some(false));
        assert_eq!(key_answer("ArrowRight"), Some(false));
        assert_eq!(key_answer("3"), None);
    }
}
