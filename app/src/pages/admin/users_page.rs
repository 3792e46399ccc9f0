use leptos::prelude::*;

use crate::api::{list_users, SetUserBlocked, SetUserRole, UserAdminView};
use crate::domain::{Role, UserStatus};
use crate::error::ErrorMessage;

/// Admins: every account, with role change and block/unblock.
#[component]
pub fn AdminUsersPage() -> impl IntoView {
    let set_role = ServerAction::<SetUserRole>::new();
    let set_blocked = ServerAction::<SetUserBlocked>::new();
    let users = Resource::new(
        move || (set_role.version().get(), set_blocked.version().get()),
        |_| list_users(),
    );
    let action_error = move || {
        set_role
            .value()
            .get()
            .and_then(Result::err)
            .or_else(|| set_blocked.value().get().and_then(Result::err))
    };
    view! {
        <section class="card wide">
            <h1>"Users"</h1>
            {move || action_error().map(|error| view! { <ErrorMessage error /> })}
            <Transition fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match users.await {
                        Ok(rows) => {
                            view! {
                                <table class="users">
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
                                        {rows
                                            .into_iter()
                                            .map(|user| view! { <UserRow user set_role set_blocked /> })
                                            .collect_view()}
                                    </tbody>
                                </table>
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
fn UserRow(
    user: UserAdminView,
    set_role: ServerAction<SetUserRole>,
    set_blocked: ServerAction<SetUserBlocked>,
) -> impl IntoView {
    let is_blocked = user.status == UserStatus::Blocked;
    let since = user.created_at.get(..10).unwrap_or_default().to_owned();
    let label = format!("Role of {}", user.username);
    let you = user.is_you.then_some(" (you)");
    let (role_form_id, block_form_id) = (user.user_id.to_string(), user.user_id.to_string());
    let name = user.username;
    view! {
        <tr data-username=name.clone()>
            <td>{name.clone()} {you}</td>
            <td>
                <ActionForm action=set_role attr:class="inline">
                    <input type="hidden" name="user_id" value=role_form_id />
                    <select name="role" aria-label=label>
                        {Role::ALL
                            .into_iter()
                            .map(|r| {
                                view! {
                                    <option value=r.as_str() selected=r == user.role>
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
