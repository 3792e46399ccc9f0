//! Who is logged in, shared by the navigation and the pages.
use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::api::{current_user, Logout, UserView};
use crate::error::AppError;

/// The current user and the logout action. Login and register actions live in their pages
/// (inside `<Routes>`, where leptos hands a JavaScript-free form post's error back to them); a
/// successful one redirects, and the user is reloaded on every navigation.
#[derive(Clone, Copy)]
pub struct AuthContext {
    pub user: Resource<Result<Option<UserView>, AppError>>,
    pub logout: ServerAction<Logout>,
}

/// Creates the context. Must be called inside `<Router>`.
pub fn provide_auth_context() {
    let logout = ServerAction::<Logout>::new();
    let location = use_location();
    let user = Resource::new(
        move || (location.pathname.get(), logout.version().get()),
        |_| current_user(),
    );
    provide_context(AuthContext { user, logout });
}

pub fn use_auth() -> AuthContext {
    expect_context::<AuthContext>()
}
