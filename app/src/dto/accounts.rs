//! Accounts as the browser sees them: no hash, no timestamps beyond what a page shows.
use serde::{Deserialize, Serialize};

use crate::domain::{Role, UserId, UserStatus};

/// What the browser learns about the logged-in user: no hash, no status, no timestamps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    pub username: String,
    pub role: Role,
    /// Admins only: which scorer the Check runs on, in words, while it is not the paper's
    /// models (the banner on their pages). Part of this answer, which every page already loads,
    /// so the banner needs no resource of its own (one created inside the navigation's
    /// `Suspend` broke hydration).
    pub scorer_notice: Option<String>,
}

/// A row of the admin's user table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAdminView {
    pub user_id: UserId,
    pub username: String,
    pub role: Role,
    pub status: UserStatus,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub is_you: bool,
}
