//! Plain axum routes beside the Leptos pages and server functions.
pub mod export;
pub mod health;
pub mod metrics;
pub mod payments;
