//! Campaigns as the lists and the import forms show them.
use serde::{Deserialize, Serialize};

use crate::domain::{CampaignId, CampaignKind, CampaignStatus};

/// A campaign as an annotator sees it in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignSummary {
    pub campaign_id: CampaignId,
    /// Writing (APT) or judging.
    pub kind: CampaignKind,
    pub title: String,
}

/// A campaign as admins see it in their list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminCampaign {
    pub campaign_id: CampaignId,
    pub kind: CampaignKind,
    pub title: String,
    pub status: CampaignStatus,
    pub instructions: String,
    pub budget_cap_cents: i32,
    /// Source sentences (APT) or pairs including test pairs (judging).
    pub items: i64,
    /// Attempts (APT) or judgments (judging).
    pub work: i64,
    /// RFC 3339, UTC.
    pub created_at: String,
}

/// The result of importing a file of source sentences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportSummary {
    pub imported: u64,
    pub duplicates_in_file: u64,
    pub already_in_campaign: u64,
}
