//! `/s/SLUG?…`: where a study link from Prolific, Mechanical Turk or a plain link lands
//!. Opening it signs the worker in with their platform account (no password) and
//! shows the study information: what the task is, how long it takes, what it pays and the
//! quality rule, then the consent text to agree to or decline, then a Start link to the task.
//! MTurk's preview shows the information read-only. A link that cannot be used says why.
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_params_map};

use crate::api::studies::{open_study, ConsentState, DecideConsent, StudyEntry, StudyView};
use crate::components::post_form::PostForm;
use crate::domain::study::platform::Platform;
use crate::error::ErrorMessage;

#[component]
pub fn StudyPage() -> impl IntoView {
    let params = use_params_map();
    let location = use_location();
    let entry = Resource::new(
        move || {
            (
                params.read().get("slug").unwrap_or_default(),
                location.search.get(),
            )
        },
        |(slug, query)| open_study(slug, query),
    );
    view! {
        <section class="card wide study">
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let slug = params.read_untracked().get("slug").unwrap_or_default();
                    match entry.await {
                        Ok(StudyEntry::Refused { reason, detail }) => {
                            view! {
                                <h1>{reason.heading()}</h1>
                                {detail.map(|d| view! { <p class="notice warn" role="alert" data-testid="refusal-detail">{d}</p> })}
                                <p data-testid="refusal">{reason.advice()}</p>
                            }
                                .into_any()
                        }
                        Ok(StudyEntry::Preview { study }) => {
                            view! {
                                <Information study=study.clone() />
                                <p class="notice" role="note" data-testid="preview">
                                    "This is a preview. Accept the HIT to start; you will not be asked for a password."
                                </p>
                            }
                                .into_any()
                        }
                        Ok(StudyEntry::Worker { study, task_href, completed: true, .. }) => {
                            view! {
                                <Information study=study.clone() />
                                <p class="notice" role="status" data-testid="already-completed">
                                    "You have completed this study. "
                                    <a href=task_href>"Your completion code and the way back to your platform"</a>
                                </p>
                            }
                                .into_any()
                        }
                        Ok(StudyEntry::Worker { study, consent, task_href, returning, .. }) => {
                            view! { <WorkerEntry slug study consent task_href returning /> }.into_any()
                        }
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The study information, as every visitor of the link reads it.
#[component]
fn Information(study: StudyView) -> impl IntoView {
    let kind = match study.kind {
        crate::domain::CampaignKind::Apt => "Writing",
        crate::domain::CampaignKind::Judge => "Judging",
    };
    let platform = (study.platform != Platform::Generic).then(|| {
        view! { " " <span class="tag">{format!("via {}", study.platform.display_name())}</span> }
    });
    view! {
        <h1>{study.title.clone()}</h1>
        <p><span class="tag">{kind}</span>{platform}</p>
        <dl class="study-info" data-testid="study-info">
            <dt>"What you will do"</dt>
            <dd>{study.summary.clone()}</dd>
            {study.minutes.map(|m| view! { <dt>"Time"</dt><dd data-testid="minutes">{format!("About {m} minutes")}</dd> })}
            {(!study.pay.trim().is_empty()).then(|| view! { <dt>"Pay"</dt><dd data-testid="pay">{study.pay.clone()}</dd> })}
            {(!study.quality_rule.is_empty()).then(|| view! { <dt>"Quality"</dt><dd data-testid="quality">{study.quality_rule.clone()}</dd> })}
        </dl>
    }
}

#[component]
fn WorkerEntry(
    slug: String,
    study: StudyView,
    consent: ConsentState,
    task_href: String,
    returning: bool,
) -> impl IntoView {
    let decide = ServerAction::<DecideConsent>::new();
    // Opening the link signed the worker in while the page was drawn (after the navigation had
    // asked who is logged in), and declining signs them out: ask again each time.
    #[cfg(feature = "hydrate")]
    {
        let auth = crate::components::auth_context::use_auth();
        Effect::new(move || {
            decide.version().get();
            auth.user.refetch();
        });
    }
    // The consent as the page now knows it: as the link opened, then as the worker decided.
    let state = move || match decide.value().get() {
        Some(Ok(decided)) => decided,
        _ => consent,
    };
    let start_label = if returning {
        "Continue where you left off"
    } else {
        "Start"
    };
    let consent_text = study.consent_text.clone();
    let version = study.version;
    let slug = StoredValue::new(slug);
    let choice = move |agree: bool, label: &'static str, class: &'static str| {
        view! {
            <PostForm
                action=decide
                input=move || DecideConsent {
                    slug: slug.get_value(),
                    version,
                    agree,
                }
                class="inline"
            >
                <input type="hidden" name="slug" value=slug.get_value() />
                <input type="hidden" name="version" value=version.to_string() />
                <input type="hidden" name="agree" value=agree.to_string() />
                <button type="submit" class=class>{label}</button>
            </PostForm>
        }
    };
    view! {
        <Information study=study.clone() />
        {move || {
            if matches!(decide.value().get(), Some(Ok(ConsentState::Declined))) {
                return view! {
                    <p class="notice" role="status" data-testid="declined">
                        "You declined to take part. Your decision is recorded and nothing else was kept; you have been signed out. You can close this page (on your platform, return the study)."
                    </p>
                }
                    .into_any();
            }
            match state() {
                ConsentState::Needed | ConsentState::Declined => {
                    let declined_before = state() == ConsentState::Declined;
                    view! {
                        <h2>"Consent"</h2>
                        {declined_before.then(|| view! {
                            <p class="notice warn" role="status">"You declined this study before. You can still agree below."</p>
                        })}
                        <div class="consent" role="region" aria-label="Consent text" tabindex="0" data-testid="consent-text">{consent_text.clone()}</div>
                        <div class="consent-choices">
                            {choice(true, "I agree", "")}
                            " "
                            {choice(false, "I do not agree", "secondary")}
                        </div>
                        {move || decide.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
                    }
                        .into_any()
                }
                ConsentState::NotAsked | ConsentState::Agreed => {
                    view! {
                        <p>
                            <a class="button" href=task_href.clone() data-testid="start">{start_label}</a>
                        </p>
                    }
                        .into_any()
                }
            }
        }}
    }
}
