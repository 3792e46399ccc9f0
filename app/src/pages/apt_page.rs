//! The APT writing page (annotators): the instructions, the given sentence, a text box, Check
//! (Ctrl+Enter) with the verdict, BLEURT and reward, Submit (only for the exact checked text),
//! Skip, and the running total. The three buttons are a plain form too: pressed before the
//! page's script runs (or without JavaScript) they post it, and the server sends the page back
//! with the Check's result and its text (`apt_checked`), or with the next sentence.
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::api::apt::{
    apt_check, apt_checked, apt_next, apt_skip, apt_submit, AptCheck, AptSkip, AptSubmit, AptTask,
    CheckOutcome, PlainRefusal, SubmitOutcome, Verdict, MAX_ATTEMPT_CHARS,
};
use crate::api::studies::{load_study_progress, StudyProgress};
use crate::components::browser::{forget_query, load_draft, save_draft};
use crate::components::study_progress::{FinishLink, StudyTerms};
use crate::domain::apt::budget::payout;
use crate::domain::reward::reward_table;
use crate::domain::{AttemptId, CampaignId, SourceId};
use crate::error::{AppError, ErrorMessage, PageError};
use crate::pages::{route_id, with_route_id};

use crate::domain::money::usd as dollars;

/// What Submit will do, on its button: "Submit — earns $0.12" once the text is checked.
fn submit_label(reward_cents: Option<i64>) -> String {
    match reward_cents {
        Some(cents) => format!("Submit — earns {}", dollars(cents)),
        None => "Submit".to_owned(),
    }
}

/// What a Submit did, said on the next sentence.
fn submitted_message(o: &SubmitOutcome) -> String {
    let head = if o.was_already_submitted {
        "Already submitted"
    } else {
        "Submitted"
    };
    format!(
        "{head}: earned {}, total {}.",
        dollars(o.paid_cents),
        dollars(o.total_cents)
    )
}

/// Scrolls `el` into view, as little as needed, after the browser has drawn it.
fn bring_into_view(el: NodeRef<leptos::html::Div>) {
    #[cfg(feature = "hydrate")]
    request_animation_frame(move || {
        if let Some(el) = el.get_untracked() {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = el;
}

#[component]
pub fn AptPage() -> impl IntoView {
    let params = use_params_map();
    let campaign = move || route_id::<CampaignId>(params);
    let round = RwSignal::new(0u32);
    let task = Resource::new(
        move || (campaign(), round.get()),
        |(id, _)| with_route_id(id, apt_next),
    );
    // The study around the task (sentences asked for and done, where to finish), with each
    // sentence: a Submit changes the count.
    let study = Resource::new(
        move || (campaign(), round.get()),
        |(id, _)| with_route_id(id, load_study_progress),
    );
    // After a plain form's Check the server sends the browser back here, naming the Check.
    let query = use_query_map();
    let checked_id = move || {
        query
            .read()
            .get("checked")
            .and_then(|a| a.parse::<AttemptId>().ok())
    };
    let checked = Resource::new(
        move || (campaign(), checked_id()),
        |(campaign, attempt)| async move {
            match (campaign, attempt) {
                (Some(c), Some(a)) => apt_checked(c, a).await.ok().flatten(),
                _ => None,
            }
        },
    );
    // After a refused plain Check it sends the browser back with why, the sentence it was
    // for and the text.
    let refused = move || {
        let query = query.read();
        let why = query.get("refused").and_then(|r| PlainRefusal::parse(&r))?;
        Some(Refused {
            why,
            source_id: query.get("source").and_then(|s| s.parse().ok()),
            draft: query.get("draft").unwrap_or_default(),
        })
    };
    // What the last Submit did, said on the next sentence ("Submitted: earned $0.12, …").
    let notice: RwSignal<Option<String>> = RwSignal::new(None);
    let next = Callback::new(move |said: Option<String>| {
        notice.set(said);
        round.update(|r| *r += 1);
    });
    view! {
        <section class="card wide apt">
            {move || notice.get().map(|m| view! { <p class="notice ok" role="status" data-testid="submitted">{m}</p> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let study: StudyProgress = study.await.unwrap_or_default();
                    let finished = study.done_href.is_some()
                        && study.complete_after.is_some_and(|n| study.items >= i64::from(n));
                    // Once the sentences asked for are in, the task refuses more (409): the page
                    // offers the way to finish instead.
                    let task = task.await;
                    let initial = checked.await;
                    let Some(campaign_id) = campaign() else {
                        return view! { <PageError error=AppError::NotFound /> }.into_any();
                    };
                    match task {
                        _ if finished => {
                            view! {
                                <h1>"You have written this study's sentences"</h1>
                                <p>
                                    "You have submitted " <strong data-testid="submitted-total">{study.items}</strong>
                                    " sentences, all this study asks for. Thank you!"
                                </p>
                                <FinishLink study />
                            }
                                .into_any()
                        }
                        Ok(AptTask::Write { source_id, source, total_cents, cap_cents, instructions, bleurt_threshold }) => {
                            let number = study.done_href.as_ref().and(study.complete_after).map(|n| {
                                view! {
                                    <p class="progress" data-testid="sentence-number">
                                        {format!("Sentence {} of your {n}", study.items + 1)}
                                    </p>
                                }
                            });
                            view! {
                                <StudyTerms study=study.clone() item="sentence" />
                                {number}
                                <Writer
                                    campaign_id
                                    source_id
                                    source
                                    total_cents
                                    cap_cents
                                    instructions
                                    bleurt_threshold
                                    next
                                    initial=initial.filter(|_| round.get_untracked() == 0)
                                    refused=refused().filter(|_| round.get_untracked() == 0)
                                />
                            }
                                .into_any()
                        }
                        Ok(AptTask::Exhausted { total_cents }) => {
                            view! {
                                <h1>"No sentences left"</h1>
                                <p>
                                    "You have seen every sentence in this study. You earned "
                                    <strong>{dollars(total_cents)}</strong> "."
                                </p>
                                {study.done_href.is_some().then(|| view! { <FinishLink study=study.clone() /> })}
                            }
                                .into_any()
                        }
                        Ok(AptTask::Complete { total_cents, .. }) if study.done_href.is_some() => {
                            view! {
                                <h1>"Study complete — thank you!"</h1>
                                <p>
                                    "You earned " <strong>{dollars(total_cents)}</strong>
                                    ", the most this study pays."
                                </p>
                                <FinishLink study />
                            }
                                .into_any()
                        }
                        Ok(AptTask::Complete { total_cents, completion_code }) => {
                            view! {
                                <h1>"Study complete — thank you!"</h1>
                                <p>
                                    "You earned " <strong>{dollars(total_cents)}</strong>
                                    ", the most this study pays. Your completion code:"
                                </p>
                                <p class="code" aria-label="Completion code">
                                    {completion_code}
                                </p>
                            }
                                .into_any()
                        }
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

/// A plain form's Check the server refused, as the address names it.
#[derive(Debug, Clone)]
struct Refused {
    why: PlainRefusal,
    /// The sentence the text was written for.
    source_id: Option<SourceId>,
    draft: String,
}

#[component]
fn Writer(
    campaign_id: CampaignId,
    source_id: SourceId,
    source: String,
    total_cents: i64,
    cap_cents: i64,
    instructions: String,
    bleurt_threshold: f64,
    next: Callback<Option<String>>,
    /// A Check made by the plain form, shown again with its text.
    initial: Option<(String, CheckOutcome)>,
    /// A plain form's Check that was refused.
    refused: Option<Refused>,
) -> impl IntoView {
    let refusal = refused.as_ref().map(|r| r.why.error(&source, &r.draft));
    // Its text comes back only to the sentence it was written for.
    let refused_draft = refused
        .filter(|r| r.source_id == Some(source_id) && !r.draft.trim().is_empty())
        .map(|r| r.draft);
    let initial_text = match (&initial, &refused_draft) {
        (Some((t, _)), _) => t.clone(),
        (None, Some(draft)) => draft.clone(),
        (None, None) => String::new(),
    };
    let from_form = initial.is_some() || refused_draft.is_some();
    let text = RwSignal::new(initial_text.clone());
    let total = RwSignal::new(total_cents);
    // The last Check's text and outcome: Submit is offered only while the box holds that text.
    let checked: RwSignal<Option<(String, CheckOutcome)>> = RwSignal::new(initial);
    // Set once the page's script runs: only then is Check held back for an empty box (the
    // plain form must stay pressable; the server refuses an empty text itself).
    let live = RwSignal::new(false);
    Effect::new(move || live.set(true));
    let error: RwSignal<Option<AppError>> = RwSignal::new(refusal);
    // The text being written survives a reload or a closed tab: it is kept in localStorage
    // per campaign and sentence until it is submitted or the sentence skipped.
    let draft_key = StoredValue::new(format!("paracrowd.apt.draft.{campaign_id}.{source_id}"));
    Effect::new(move || {
        // A text just sent by the plain form is newer than any draft kept here: it is kept
        // instead, and the address loses the one-time query, so a reload reads the newest draft.
        if from_form {
            draft_key.with_value(|k| save_draft(k, &text.get_untracked()));
            forget_query();
            return;
        }
        if let Some(draft) = draft_key.with_value(|k| load_draft(k)) {
            text.set(draft);
        }
    });
    let (cid, sid) = (StoredValue::new(campaign_id), StoredValue::new(source_id));

    let check = Action::new(move |t: &String| {
        let t = t.clone();
        async move {
            (
                t.clone(),
                apt_check(cid.get_value(), sid.get_value(), t).await,
            )
        }
    });
    let submit = Action::new(move |attempt: &AttemptId| {
        let attempt = *attempt;
        async move { apt_submit(cid.get_value(), attempt).await }
    });
    let skip =
        Action::new(move |_: &()| async move { apt_skip(cid.get_value(), sid.get_value()).await });

    // On a phone the result lands below the fold: bring it into view once it is drawn.
    let result_box = NodeRef::<leptos::html::Div>::new();
    Effect::new(move || {
        if let Some((t, result)) = check.value().get() {
            match result {
                Ok(outcome) => {
                    checked.set(Some((t, outcome)));
                    error.set(None);
                }
                Err(e) => error.set(Some(e)),
            }
            bring_into_view(result_box);
        }
    });
    // A Submit that pays nothing asks first (once per text checked).
    let confirm_zero = RwSignal::new(false);
    Effect::new(move || match submit.value().get() {
        Some(Ok(outcome)) => {
            total.set(outcome.total_cents);
            draft_key.with_value(|k| save_draft(k, ""));
            next.run(Some(submitted_message(&outcome)));
        }
        Some(Err(e)) => error.set(Some(e)),
        None => {}
    });
    Effect::new(move || match skip.value().get() {
        Some(Ok(())) => {
            draft_key.with_value(|k| save_draft(k, ""));
            next.run(Some(
                "Skipped: that sentence will not come back.".to_owned(),
            ));
        }
        Some(Err(e)) => error.set(Some(e)),
        None => {}
    });

    let run_check = move || {
        let t = text.get_untracked().trim().to_owned();
        if !check.pending().get_untracked() {
            confirm_zero.set(false);
            check.dispatch(t);
        }
    };
    let current = move || {
        checked
            .get()
            .filter(|(t, _)| *t == text.get().trim())
            .map(|(_, o)| o)
    };
    let can_submit = move || current().is_some() && !submit.pending().get();
    // What a Submit pays: the reward, up to what is left under the worker's cap.
    let pays = move |reward_cents: i64| payout(total.get(), reward_cents, cap_cents).paid_cents;
    let chars = move || text.get().chars().count();
    let (check_url, submit_url, skip_url) = (
        <AptCheck as leptos::server_fn::ServerFn>::PATH,
        <AptSubmit as leptos::server_fn::ServerFn>::PATH,
        <AptSkip as leptos::server_fn::ServerFn>::PATH,
    );

    view! {
        <div class="apt-head">
            <h1>"Rewrite the sentence"</h1>
            <p class="total" aria-live="polite">
                "Earned: " <strong data-testid="total">{move || dollars(total.get())}</strong> " of "
                {dollars(cap_cents)}
            </p>
        </div>
        <details class="instructions" open=true>
            <summary>"Instructions"</summary>
            <p>
                "Write a sentence that means the same as the given sentence but is worded and built as differently as you can. "
                "Each sentence must follow from the other: yours from the given one AND the given one from yours. "
                "Swapping a word for a synonym will usually be too similar to earn anything."
            </p>
            <p>
                "Press Check (or Ctrl+Enter) as often as you like to see what your sentence would earn; Submit pays it and brings the next sentence."
            </p>
            <p>
                "What a sentence with the same meaning earns depends on how alike the two sentences look to the similarity model (BLEURT: 1 is nearly the same wording, below 0 very different). Most honest rewrites score 0.2 to 0.5 and earn a few cents; close to $1 takes wording and structure that share almost nothing. Above "
                {format!("{bleurt_threshold:.2}")} " a sentence earns nothing."
            </p>
            <div class="scroll-x" role="region" aria-label="Reward by similarity" tabindex="0">
                <table class="reward-table" aria-label="Reward by similarity">
                    <thead>
                        <tr>
                            <th scope="row">"Similarity (BLEURT)"</th>
                            {reward_table(bleurt_threshold)
                                .into_iter()
                                .map(|(b, _)| view! { <th scope="col">{format!("{b:.2}")}</th> })
                                .collect_view()}
                            <th scope="col">{format!("> {bleurt_threshold:.2}")}</th>
                        </tr>
                    </thead>
                    <tbody>
                        <tr>
                            <th scope="row">"Reward"</th>
                            {reward_table(bleurt_threshold)
                                .into_iter()
                                .map(|(_, cents)| view! { <td>{dollars(cents)}</td> })
                                .collect_view()}
                            <td>"$0.00"</td>
                        </tr>
                    </tbody>
                </table>
            </div>
            {(!instructions.trim().is_empty()).then(|| view! { <p class="campaign-instructions">{instructions.clone()}</p> })}
        </details>
        <blockquote class="source" aria-label="Given sentence">
            {source}
        </blockquote>
        <form class="writer" method="post" action=check_url>
            <input type="hidden" name="campaign_id" value=campaign_id.to_string() />
            <input type="hidden" name="source_id" value=source_id.to_string() />
            {move || current().map(|o| view! { <input type="hidden" name="attempt_id" value=o.attempt_id.to_string() /> })}
            <label for="attempt">"Your sentence"</label>
            <textarea
                id="attempt"
                name="text"
                rows="3"
                maxlength=MAX_ATTEMPT_CHARS.to_string()
                prop:value=move || text.get()
                on:input=move |ev| {
                    let value = event_target_value(&ev);
                    draft_key.with_value(|k| save_draft(k, &value));
                    text.set(value);
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        run_check();
                    }
                }
            >
                {initial_text}
            </textarea>
            <p class="muted small">{move || format!("{} / {MAX_ATTEMPT_CHARS} characters", chars())}</p>
            <div class="buttons">
                <button
                    type="submit"
                    on:click=move |ev| {
                        ev.prevent_default();
                        run_check();
                    }
                    disabled=move || check.pending().get() || (live.get() && text.get().trim().is_empty())
                >
                    {move || if check.pending().get() { "Checking…" } else { "Check" }}
                </button>
                <button
                    type="submit"
                    formaction=submit_url
                    class="pay"
                    disabled=move || !can_submit() || confirm_zero.get()
                    title="Check this exact text first"
                    on:click=move |ev| {
                        ev.prevent_default();
                        if let Some(o) = current() {
                            if pays(o.reward_cents) == 0 {
                                confirm_zero.set(true);
                            } else {
                                submit.dispatch(o.attempt_id);
                            }
                        }
                    }
                >
                    {move || submit_label(current().map(|o| pays(o.reward_cents)))}
                </button>
                <button
                    type="submit"
                    formaction=skip_url
                    class="secondary"
                    on:click=move |ev| {
                        ev.prevent_default();
                        skip.dispatch(());
                    }
                >
                    "Skip this sentence"
                </button>
            </div>
        </form>
        {move || {
            (confirm_zero.get() && can_submit())
                .then(|| {
                    view! {
                        <div class="notice warn" role="alertdialog" aria-label="Submit for nothing?">
                            <p>
                                <strong>"This sentence earns nothing ($0.00)."</strong>
                                " Submit it anyway and move on, or keep writing and Check again?"
                            </p>
                            <div class="buttons">
                                <button
                                    type="button"
                                    class="secondary"
                                    on:click=move |_| {
                                        if let Some(o) = current() {
                                            submit.dispatch(o.attempt_id);
                                        }
                                    }
                                >
                                    "Submit for $0.00"
                                </button>
                                <button type="button" on:click=move |_| confirm_zero.set(false)>
                                    "Keep writing"
                                </button>
                            </div>
                        </div>
                    }
                })
        }}
        {move || error.get().map(|error| view! { <ErrorMessage error /> })}
        {move || {
            current()
                .map(|o| {
                    let (class, message) = match o.verdict {
                        Verdict::Passes => ("notice ok", "Same meaning, different enough: this earns the reward below."),
                        Verdict::NotEquivalent => ("notice warn", "Not logically equivalent: the two sentences do not each follow from the other. This earns nothing."),
                        Verdict::TooSimilar => ("notice warn", "Too similar to the given sentence. Change the wording and structure more."),
                    };
                    view! {
                        <div class=class role="status" data-testid="check-result" node_ref=result_box>
                            <p>{message}</p>
                            <p>
                                "Reward: " <strong data-testid="reward">{dollars(o.reward_cents)}</strong>
                                " · BLEURT " {format!("{:.3}", o.bleurt)}
                                " · mutual implication: " {if o.is_mutual_implication { "yes" } else { "no" }}
                            </p>
                            <p
                                class="muted small"
                                data-testid="scorer"
                                title=format!("{} and {}", o.mi_model, o.bleurt_model)
                            >
                                "Scored by " {o.scorer.clone()} "."
                            </p>
                        </div>
                    }
                })
        }}
        {move || {
            (checked.get().is_some() && current().is_none())
                .then(|| view! { <p class="muted">"You changed the text since the last Check: Check again to see its reward."</p> })
        }}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submit_says_what_it_pays() {
        assert_eq!(submit_label(None), "Submit");
        assert_eq!(submit_label(Some(0)), "Submit — earns $0.00");
        assert_eq!(submit_label(Some(112)), "Submit — earns $1.12");
    }

    #[test]
    fn a_submit_is_confirmed_with_what_it_earned() {
        let o = SubmitOutcome {
            paid_cents: 12,
            total_cents: 340,
            is_complete: false,
            was_already_submitted: false,
        };
        assert_eq!(
            submitted_message(&o),
            "Submitted: earned $0.12, total $3.40."
        );
        let again = SubmitOutcome {
            was_already_submitted: true,
            paid_cents: 0,
            ..o
        };
        assert_eq!(
            submitted_message(&again),
            "Already submitted: earned $0.00, total $3.40."
        );
    }
}
