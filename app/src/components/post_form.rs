//! A server function's form, as plain HTML first.
use leptos::prelude::*;
use leptos::server_fn::{codec::PostUrl, Http, ServerFn};

/// A form that posts to `action`'s server function. Without the page's script (before it has
/// arrived, or with JavaScript off) the browser posts the form's fields and the server function
/// reads them and sends the browser on; once hydrated, a submit dispatches `input()` on `action`
/// in place, so the page's signals (pending, the answer, an error) follow it.
///
/// Like leptos's `ActionForm`, but the page builds the input itself (from its own values or
/// its inputs' `NodeRef`s) instead of decoding the form's fields, which keeps a form decoder
/// out of the bundle.
#[component]
pub fn PostForm<S, O, I>(
    /// The server function's action.
    action: ServerAction<S>,
    /// The input to dispatch, read when the form is submitted.
    input: I,
    /// The form's class.
    #[prop(optional)]
    class: Option<&'static str>,
    /// The fields and buttons, named as the server function's arguments.
    children: Children,
) -> impl IntoView
where
    // Read from a plain form's fields when the browser posts it (as `ActionForm` requires).
    S: ServerFn<Protocol = Http<PostUrl, O>> + Clone + Send + Sync + 'static,
    S::Output: Send + Sync + 'static,
    S::Error: Send + Sync + 'static,
    I: Fn() -> S + 'static,
{
    view! {
        <form
            method="post"
            action=S::PATH
            class=class
            on:submit=move |ev| {
                if ev.default_prevented() {
                    return;
                }
                ev.prevent_default();
                action.dispatch(input());
            }
        >
            {children()}
        </form>
    }
}

/// The value of a form's input, empty before the input is drawn.
pub fn value_of(input: NodeRef<leptos::html::Input>) -> String {
    input.get_untracked().map(|i| i.value()).unwrap_or_default()
}
