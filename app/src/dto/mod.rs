//! The shapes that cross the wire: what the server functions send and the pages show. Plain
//! serde structs with no behaviour beyond small accessors, compiled for the server and the
//! browser alike, so `service/` can build them without depending on `api/` (which re-exports
//! them next to the server functions that send them).
pub mod accounts;
pub mod apt;
pub mod apt_report;
pub mod campaigns;
pub mod judge;
pub mod judge_admin;
pub mod judge_report;
pub mod mining;
pub mod platforms;
pub mod studies;
