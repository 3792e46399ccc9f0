use leptos::prelude::*;

/// Any unknown path.
#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
        resp.set_status(http::StatusCode::NOT_FOUND);
    }
    view! {
        <section class="card">
            <h1>"Page not found"</h1>
            <p>
                "There is nothing at this address. " <a href="/">"Go to your campaigns"</a>
            </p>
        </section>
    }
}
