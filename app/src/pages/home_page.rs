use leptos::prelude::*;

use crate::api::studies::{list_open_studies, OpenStudyCard};
use crate::api::{list_my_campaigns, CampaignSummary};
use crate::components::auth_context::use_auth;
use crate::error::ErrorMessage;

/// Visitors see what paracrowd is; logged-in users see the campaigns they can work on.
#[component]
pub fn HomePage() -> impl IntoView {
    let auth = use_auth();
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match auth.user.await {
                    Ok(Some(user)) => {
                        let can_read = user.role.can_read_studies();
                        view! { <Campaigns username=user.username can_read /> }.into_any()
                    }
                    Ok(None) => view! { <Welcome /> }.into_any(),
                    Err(error) => view! { <ErrorMessage error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Welcome() -> impl IntoView {
    view! {
        <section class="card">
            <h1>"paracrowd"</h1>
            <p>
                "Paraphrase studies in the browser: write adversarial paraphrases, judge sentence pairs, and build datasets."
            </p>
            <p>
                <a class="button" href="/login">
                    "Log in"
                </a>
                " "
                <a class="button secondary" href="/register">
                    "Create an account"
                </a>
            </p>
        </section>
        <OpenStudies />
    }
}

/// What each open study involves, before anyone signs up.
#[component]
fn OpenStudies() -> impl IntoView {
    let studies = Resource::new(|| (), |_| list_open_studies());
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match studies.await {
                    Ok(list) if list.is_empty() => ().into_any(),
                    Ok(list) => view! {
                        <section class="card" aria-labelledby="open-studies">
                            <h2 id="open-studies">"Open studies"</h2>
                            <ul class="open-studies" data-testid="open-studies">
                                {list.into_iter().map(|s| view! { <StudyItem s /> }).collect_view()}
                            </ul>
                        </section>
                    }.into_any(),
                    Err(error) => view! { <ErrorMessage error /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn StudyItem(s: OpenStudyCard) -> impl IntoView {
    let kind = match s.kind {
        crate::domain::CampaignKind::Apt => "Writing",
        crate::domain::CampaignKind::Judge => "Judging",
    };
    let mut facts = Vec::new();
    if let Some(m) = s.minutes {
        facts.push(format!("about {m} minutes"));
    }
    if !s.pay.trim().is_empty() {
        facts.push(s.pay.clone());
    }
    view! {
        <li>
            <h3>{s.title.clone()} " " <span class="tag">{kind}</span></h3>
            <p>{s.summary.clone()}</p>
            {(!facts.is_empty()).then(|| view! { <p class="muted small">{facts.join(" · ")}</p> })}
        </li>
    }
}

#[component]
fn Campaigns(username: String, can_read: bool) -> impl IntoView {
    let campaigns = Resource::new(|| (), |_| list_my_campaigns());
    view! {
        <section class="card">
            <h1>"Welcome, " {username}</h1>
            <h2>"Your campaigns"</h2>
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match campaigns.await {
                        Ok(list) if list.is_empty() => {
                            view! {
                                <p class="empty">
                                    "No campaigns are open for you yet. They will appear here when a study starts."
                                </p>
                            }
                                .into_any()
                        }
                        Ok(list) => {
                            view! {
                                <ul class="campaigns">
                                    {list.into_iter().map(|c| view! { <CampaignItem c can_read /> }).collect_view()}
                                </ul>
                            }
                                .into_any()
                        }
                        Err(error) => view! { <ErrorMessage error /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn CampaignItem(c: CampaignSummary, can_read: bool) -> impl IntoView {
    let kind = if c.kind == crate::domain::CampaignKind::Apt {
        "Writing"
    } else {
        "Judging"
    };
    let href = format!("/{}/{}", c.kind, c.campaign_id);
    let report = can_read.then(|| {
        let href = format!("/research/{}/{}", c.kind, c.campaign_id);
        view! { " · " <a href=href>"report"</a> }
    });
    view! {
        <li>
            <span class="tag">{kind}</span>
            " "
            <a href=href>{c.title}</a>
            {report}
        </li>
    }
}
