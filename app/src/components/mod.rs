//! Reusable views. They get their data from props and contexts, never from the database.
pub mod auth_context;
pub mod browser;
pub mod gate_standing;
pub mod nav;
pub mod post_form;
pub mod scorer_banner;
pub mod study_progress;
pub mod time_text;
