//! The top bar: links by role, the user's name and a logout button.
use leptos::prelude::*;

use crate::api::{Logout, UserView};
use crate::components::auth_context::use_auth;
use crate::components::post_form::PostForm;
use crate::components::scorer_banner::ScorerBanner;
use crate::domain::Role;

#[component]
pub fn Nav() -> impl IntoView {
    let auth = use_auth();
    view! {
        <header class="topbar">
            <a class="brand" href="/">
                "paracrowd"
            </a>
            <nav aria-label="Main">
                <Transition fallback=|| ()>
                    {move || Suspend::new(async move {
                        match auth.user.await {
                            Ok(Some(user)) => view! { <UserLinks user /> }.into_any(),
                            _ => {
                                view! {
                                    <a href="/login">"Log in"</a>
                                    <a href="/register">"Register"</a>
                                }
                                    .into_any()
                            }
                        }
                    })}
                </Transition>
            </nav>
        </header>
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match auth.user.await {
                    Ok(Some(UserView { scorer_notice: Some(description), .. })) => {
                        Some(view! { <ScorerBanner description /> })
                    }
                    _ => None,
                }
            })}
        </Transition>
    }
}

#[component]
fn UserLinks(user: UserView) -> impl IntoView {
    let auth = use_auth();
    let admin = (user.role == Role::Admin).then(|| {
        view! {
            <a href="/admin/campaigns">"Manage campaigns"</a>
            <a href="/admin/mining">"Mining"</a>
            <a href="/admin/users">"Users"</a>
        }
    });
    view! {
        <a href="/">"Campaigns"</a>
        {admin}
        <span class="whoami" title="Logged in">
            {user.username}
            " · "
            {user.role.as_str()}
        </span>
        <PostForm action=auth.logout input=|| Logout {} class="inline">
            <button type="submit" class="link">
                "Log out"
            </button>
        </PostForm>
    }
}
