//! Plain axum routes (everything else is Leptos pages and server functions).
pub mod health;
