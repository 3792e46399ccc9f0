use leptos::prelude::*;

use crate::api::{list_users, SetUserBlocked, SetUserRole, UserAdminView};
use crate::domain::{Role, UserStatus};
use crate::error::{ErrorMessage, PageError};

/// Admins: every account, with role change and block/unblock. Each row is keyed by its user
/// (and what the server says of them), so a row's controls stay with their user when the table
/// re-sorts after a Save (a select left showing the role just granted to
/// another user would promote the wrong account at its next Save).
#[component]
pub fn AdminUsersPage() -> impl IntoView {
    let set_blocked = ServerAction::<SetUserBlocked>::new();
    // Bumped by a row whose role was saved.
    let saved_roles = RwSignal::new(0u32);
    let saved: RwSignal<Option<String>> = RwSignal::new(None);
    let users = Resource::new(
        move || (saved_roles.get(), set_blocked.version().get()),
        |_| list_users(),
    );
    let block_error = move || set_blocked.value().get().and_then(Result::err);
    view! {
        <section class="card wide">
            <h1>"Users"</h1>
            {move || saved.get().map(|m| view! { <p class="notice ok" role="status" data-testid="saved">{m}</p> })}
            {move || block_error().map(|error| view! { <ErrorMessage error /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match users.await {
                        Ok(rows) => {
                            view! {
                                <div class="scroll-x" role="region" aria-label="Users" tabindex="0">
                                    <table aria-label="Users" class="users">
                                        <thead>
                                            <tr>
                                                <th scope="col">"Username"</th>
                                                <th scope="col">"Role"</th>
                                                <th scope="col">"Status"</th>
                                                <th scope="col">"Since"</th>
                                                <th scope="col">"Access"</th>
                                            </tr>
                                        </thead>
                                        <tbody>
                                            <For
                                                each=move || rows.clone()
                                                key=|u| (u.user_id, u.role, u.status)
                                                children=move |user| {
                                                    view! { <UserRow user set_blocked saved saved_roles /> }
                                                }
                                            />
                                        </tbody>
                                    </table>
                                </div>
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

#[component]
fn UserRow(
    user: UserAdminView,
    set_blocked: ServerAction<SetUserBlocked>,
    saved: RwSignal<Option<String>>,
    saved_roles: RwSignal<u32>,
) -> impl IntoView {
    // The row's own action: its result belongs to this user, whatever the table does meanwhile.
    let set_role = ServerAction::<SetUserRole>::new();
    let chosen = RwSignal::new(user.role);
    let is_blocked = user.status == UserStatus::Blocked;
    let since = user.created_at.get(..10).unwrap_or_default().to_owned();
    let label = format!("Role of {}", user.username);
    let you = user.is_you.then_some(" (you)");
    let (role_form_id, block_form_id) = (user.user_id.to_string(), user.user_id.to_string());
    let name = user.username;
    let who = StoredValue::new(name.clone());
    Effect::new(move || {
        if let Some(Ok(())) = set_role.value().get() {
            saved.set(Some(format!(
                "Saved: {} is now {}.",
                who.get_value(),
                chosen.get_untracked().as_str()
            )));
            saved_roles.update(|n| *n += 1);
        }
    });
    let role = user.role;
    view! {
        <tr data-username=name.clone()>
            <td>{name.clone()} {you}</td>
            <td>
                <ActionForm action=set_role attr:class="inline">
                    <input type="hidden" name="user_id" value=role_form_id />
                    <select
                        name="role"
                        aria-label=label
                        on:change=move |ev| {
                            if let Ok(r) = Role::parse(&event_target_value(&ev)) {
                                chosen.set(r);
                            }
                        }
                    >
                        {Role::ALL
                            .into_iter()
                            .map(|r| {
                                view! {
                                    <option value=r.as_str() selected=r == role prop:selected=r == role>
                                        {r.as_str()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                    <button type="submit" class="small">
                        "Save"
                    </button>
                </ActionForm>
                {move || set_role.value().get().and_then(Result::err).map(|error| view! { <ErrorMessage error /> })}
            </td>
            <td class=if is_blocked { "status blocked" } else { "status" }>
                {user.status.as_str()}
            </td>
            <td>{since}</td>
            <td>
                <ActionForm action=set_blocked attr:class="inline">
                    <input type="hidden" name="user_id" value=block_form_id />
                    <input type="hidden" name="blocked" value=(!is_blocked).to_string() />
                    <button
                        type="submit"
                        class="small"
                        disabled=user.is_you
                        title=if user.is_you { "You cannot block yourself" } else { "" }
                    >
                        {if is_blocked { "Unblock" } else { "Block" }}
                    </button>
                </ActionForm>
            </td>
        </tr>
    }
}
