use leptos::prelude::*;

use crate::api::Register;
use crate::components::post_form::{value_of, PostForm};
use crate::domain::{Password, Username};
use crate::error::ErrorMessage;

/// Create an annotator account. Works as a plain HTML form without JavaScript.
#[component]
pub fn RegisterPage() -> impl IntoView {
    let register = ServerAction::<Register>::new();
    let username = NodeRef::<leptos::html::Input>::new();
    let password = NodeRef::<leptos::html::Input>::new();
    let confirmation = NodeRef::<leptos::html::Input>::new();
    let input = move || Register {
        username: value_of(username),
        password: value_of(password),
        password_confirmation: value_of(confirmation),
    };
    let error = move || register.value().get().and_then(Result::err);
    view! {
        <section class="card narrow">
            <h1>"Create an account"</h1>
            <p class="muted">
                "New accounts are annotators. An admin can give you another role."
            </p>
            <PostForm action=register input>
                <label>
                    "Username"
                    <input
                        type="text"
                        name="username"
                        node_ref=username
                        autocomplete="username"
                        required
                        minlength=Username::MIN_CHARS.to_string()
                        maxlength=Username::MAX_CHARS.to_string()
                        pattern="[A-Za-z0-9._\\-]+"
                        title="Letters, digits, '.', '_' and '-'"
                        autofocus
                    />
                </label>
                <label>
                    "Password"
                    <input
                        type="password"
                        name="password"
                        node_ref=password
                        autocomplete="new-password"
                        required
                        minlength=Password::MIN_CHARS.to_string()
                        maxlength=Password::MAX_CHARS.to_string()
                        aria-describedby="password-rules"
                    />
                </label>
                // The rules before a refusal, not after (the strength check is zxcvbn's).
                <p class="muted small" id="password-rules" data-testid="password-rules">
                    {format!(
                        "At least {} characters, and not one a guesser would try early: no common passwords, keyboard runs, repeats or your username.",
                        Password::MIN_CHARS
                    )}
                </p>
                <label>
                    "Repeat the password"
                    <input
                        type="password"
                        name="password_confirmation"
                        node_ref=confirmation
                        autocomplete="new-password"
                        required
                        maxlength=Password::MAX_CHARS.to_string()
                    />
                </label>
                {move || error().map(|error| view! { <ErrorMessage error /> })}
                <button type="submit" disabled=move || register.pending().get()>
                    "Create account"
                </button>
            </PostForm>
            <p>"Have an account? " <a href="/login">"Log in"</a></p>
        </section>
    }
}
