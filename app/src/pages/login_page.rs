use leptos::prelude::*;

use crate::api::Login;
use crate::components::post_form::{value_of, PostForm};
use crate::error::ErrorMessage;

/// Log in with username and password. Works as a plain HTML form without JavaScript.
#[component]
pub fn LoginPage() -> impl IntoView {
    let login = ServerAction::<Login>::new();
    let username = NodeRef::<leptos::html::Input>::new();
    let password = NodeRef::<leptos::html::Input>::new();
    let input = move || Login {
        username: value_of(username),
        password: value_of(password),
    };
    let error = move || login.value().get().and_then(Result::err);
    view! {
        <section class="card narrow">
            <h1>"Log in"</h1>
            <PostForm action=login input>
                <label>
                    "Username"
                    <input
                        type="text"
                        name="username"
                        node_ref=username
                        autocomplete="username"
                        required
                        maxlength="32"
                        autofocus
                    />
                </label>
                <label>
                    "Password"
                    <input
                        type="password"
                        name="password"
                        node_ref=password
                        autocomplete="current-password"
                        required
                        maxlength="256"
                    />
                </label>
                {move || error().map(|error| view! { <ErrorMessage error /> })}
                <button type="submit" disabled=move || login.pending().get()>
                    "Log in"
                </button>
            </PostForm>
            <p>"New here? " <a href="/register">"Create an account"</a></p>
        </section>
    }
}
