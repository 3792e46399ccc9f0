//! Plain axum routes (everything else is Leptos pages and server functions).
pub mod export;
pub mod export_judge;
pub mod health;
