//! What the task pages say about the study around the items: the pay
//! per item and the time, and the way to finish for a worker who came through a study link.
use leptos::prelude::*;

use crate::dto::studies::StudyProgress;

/// "$0.015 a pair · about 20 minutes", where the study sets them; nothing otherwise.
#[component]
pub fn StudyTerms(study: StudyProgress, item: &'static str) -> impl IntoView {
    let mut parts = Vec::new();
    if !study.pay_per_item.is_empty() {
        parts.push(study.pay_per_item.clone());
    }
    // The number asked for ends a study worker's part; an in-house annotator has no such end.
    if let (Some(n), Some(_)) = (study.complete_after, &study.done_href) {
        parts.push(format!("{n} {item}s in all"));
    }
    if let Some(m) = study.minutes {
        parts.push(format!("about {m} minutes"));
    }
    (!parts.is_empty()).then(|| {
        view! { <p class="muted small study-terms" data-testid="study-terms">{parts.join(" · ")}</p> }
    })
}

/// For a worker who came through a study link: the button to the completion page (their code
/// and the way back to their platform). For anyone else: back to their campaigns.
#[component]
pub fn FinishLink(study: StudyProgress) -> impl IntoView {
    match study.done_href {
        Some(href) => view! {
            <p>
                <a class="button" href=href data-testid="finish">"Finish and get your completion code"</a>
            </p>
        }
        .into_any(),
        None => view! { <p><a href="/">"Back to your campaigns"</a></p> }.into_any(),
    }
}
