//! The banner admins see while the Check does not run on the paper's models (the stand-ins or
//! the lite scorer pay workers by other models' judgments). Its text comes with the current
//! user ([`crate::api::UserView::scorer_notice`]).
use leptos::prelude::*;

/// `description`: the scorer in words, as annotators see it.
#[component]
pub fn ScorerBanner(description: String) -> impl IntoView {
    view! {
        <p class="banner warn" role="status" data-testid="scorer-banner">
            <strong>"Checks are not scored by the APT paper's models. "</strong>
            "They run on the " {description} ". "
            "For a real study install the paper's models: "
            <code>"paracrowd models install paper"</code>
            " (needs the Hugging Face hub), then restart."
        </p>
    }
}
