//! One route per file.
pub mod admin;
pub mod apt_page;
pub mod apt_report_page;
pub mod export_page;
pub mod home_page;
pub mod judge_page;
pub mod judge_report_page;
pub mod login_page;
pub mod not_found_page;
pub mod payments_page;
pub mod register_page;
pub mod study_done_page;
pub mod study_page;
