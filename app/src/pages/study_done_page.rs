//! `/study/:id/done`: where a study worker finishes. When the study's rule is met
//! the completion is recorded once and the page sends the worker back to their platform:
//! Prolific's completion address with the study's code, Mechanical Turk's `externalSubmit`
//! form with the assignment id, or the code on screen for a plain link. A reload or a second
//! tab shows the same code. A worker not done yet is told what is left.
use crate::domain::CampaignId;
use crate::pages::{route_id, with_route_id};
use leptos::prelude::*;
use leptos_router::hooks::use_params_map;

use crate::api::studies::{complete_study, CompletionView, ReturnTo};
use crate::error::PageError;

#[component]
pub fn StudyDonePage() -> impl IntoView {
    let params = use_params_map();
    let done = Resource::new(
        move || route_id::<CampaignId>(params),
        |id| with_route_id(id, complete_study),
    );
    view! {
        <section class="card wide study">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match done.await {
                        Ok(CompletionView::NoLink) => {
                            view! {
                                <h1>"Nothing to complete here"</h1>
                                <p data-testid="no-link">
                                    "This page is for workers who came to the study through a study link. "
                                    <a href="/">"Your campaigns"</a>
                                </p>
                            }
                                .into_any()
                        }
                        Ok(CompletionView::NotYet { message, task_href }) => {
                            view! {
                                <h1>"Not finished yet"</h1>
                                <p data-testid="not-yet">{message}</p>
                                <p><a class="button" href=task_href>"Back to the task"</a></p>
                            }
                                .into_any()
                        }
                        Ok(CompletionView::Done { title, platform, reason, items: _, code, return_to, earned, first }) => {
                            view! {
                                <h1>"Thank you — you have completed this study"</h1>
                                <p class="muted">{title}</p>
                                <p role="status" data-testid="done-reason">{reason}</p>
                                <p data-testid="earned">{earned}</p>
                                <Return platform=platform.display_name() code return_to automatic=first />
                            }
                                .into_any()
                        }
                        Err(error) => view! { <PageError error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The way back to the platform: a redirect (Prolific), a posted form (MTurk) or the code.
/// When `automatic` (the visit that completed the study) the page goes back by itself, with
/// JavaScript; the link or button is there without it, if the browser stopped it, and on a
/// later visit (a worker who came back for their code).
#[component]
fn Return(
    platform: &'static str,
    code: String,
    return_to: ReturnTo,
    automatic: bool,
) -> impl IntoView {
    let code_view = {
        let code = code.clone();
        view! {
            <p>"Your completion code:"</p>
            <p class="code" aria-label="Completion code" data-testid="completion-code">{code}</p>
        }
    };
    match return_to {
        ReturnTo::Prolific { url } => {
            if automatic {
                go_to(url.clone());
            }
            view! {
                {code_view}
                <p>
                    <a class="button" href=url rel="external" data-testid="return">
                        {format!("Return to {platform}")}
                    </a>
                </p>
                {automatic.then(|| view! { <p class="muted small">"Taking you back to Prolific…"</p> })}
            }
            .into_any()
        }
        ReturnTo::Mturk {
            submit_url,
            assignment_id,
        } => {
            let form = NodeRef::<leptos::html::Form>::new();
            if automatic {
                submit_when_ready(form);
            }
            view! {
                {code_view}
                <form method="post" action=submit_url node_ref=form data-testid="mturk-submit">
                    <input type="hidden" name="assignmentId" value=assignment_id />
                    <input type="hidden" name="completion_code" value=code />
                    <button type="submit">"Submit the HIT"</button>
                </form>
                {automatic.then(|| view! { <p class="muted small">"Submitting your HIT to Mechanical Turk…"</p> })}
            }
            .into_any()
        }
        ReturnTo::MturkAlreadySubmitted { assignment_id } => view! {
            {code_view}
            <p class="notice warn" role="status" data-testid="already-submitted">
                {format!("You completed this study earlier, with the HIT assignment {assignment_id}, and it was submitted then. Please return this HIT on Mechanical Turk: the study is paid once.")}
            </p>
        }
        .into_any(),
        ReturnTo::Code => view! {
            {code_view}
            <p>{format!("Copy this code into {platform} (or give it to the researcher) to show that you finished.")}</p>
        }
        .into_any(),
    }
}

/// Sends the browser to `url` once the page is running.
fn go_to(url: String) {
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        if let Some(w) = web_sys::window() {
            let _ = w.location().set_href(&url);
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = url;
}

/// Submits `form` once the page is running. The element exists before it is in the document
/// (a form outside the document is not submitted): the submit waits for the next turn.
fn submit_when_ready(form: NodeRef<leptos::html::Form>) {
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        if let Some(f) = form.get() {
            set_timeout(
                move || {
                    let _ = f.submit();
                },
                std::time::Duration::ZERO,
            );
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = form;
}
