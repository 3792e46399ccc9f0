//! Database access by table (server only). Functions take any executor, so the caller chooses a
//! pool or a transaction.
pub mod apt;
pub mod campaigns;
pub mod export;
pub mod judge;
pub mod login_failures;
pub mod mining;
pub mod mturk;
pub mod payments;
pub mod platform_calls;
pub mod prolific;
pub mod quick;
pub mod rate_counts;
pub mod sessions;
pub mod studies;
pub mod study_completion;
pub mod users;
