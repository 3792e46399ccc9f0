//! Admin-only pages. The pages show what the server functions return; the server functions
//! check the role.
pub mod campaign_page;
pub mod campaigns_page;
pub mod mining_page;
pub mod users_page;
