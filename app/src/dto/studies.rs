//! Studies through crowd platforms (issue #23): what a worker sees on opening a study link, and
//! the links and study information as the researcher manages them.
use serde::{Deserialize, Serialize};

use crate::domain::study::platform::Platform;
use crate::domain::study::Refusal;
use crate::domain::{CampaignId, CampaignKind};

/// The study information a worker reads before the first item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyView {
    pub campaign_id: CampaignId,
    pub kind: CampaignKind,
    pub title: String,
    /// What the task is, as the researcher wrote it (empty: the task's own description is used).
    pub summary: String,
    /// Estimated minutes, if the researcher gave them.
    pub minutes: Option<i32>,
    /// Pay per item or the bonus rules, as the researcher wrote them.
    pub pay: String,
    /// The quality rule in plain words (check questions and the bar, or the APT cap).
    pub quality_rule: String,
    /// The consent text to agree to; empty when the study asks for none.
    pub consent_text: String,
    /// The information's version (0: none written yet).
    pub version: i32,
    pub platform: Platform,
}

/// Where the worker stands with the consent text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConsentState {
    /// The study asks for no consent.
    NotAsked,
    /// Not decided on this version yet.
    Needed,
    Agreed,
    Declined,
}

/// What opening a study link shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum StudyEntry {
    /// Nobody is signed in; the page says why and what to do.
    Refused {
        reason: Refusal,
        /// The particular problem (which parameter), when there is one.
        detail: Option<String>,
    },
    /// MTurk's preview of the HIT: the information, read-only.
    Preview { study: StudyView },
    /// The worker is signed in.
    Worker {
        study: StudyView,
        consent: ConsentState,
        /// The task page (`/judge/ID` or `/apt/ID`).
        task_href: String,
        /// A worker who came back (a reload, another device) rather than a new one.
        returning: bool,
    },
}

/// A recruitment link as the researcher sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyLinkView {
    pub study_link_id: String,
    pub platform: Platform,
    pub label: String,
    /// The URL to paste into the platform, with its placeholders (`/s/SLUG?...`), absolute when
    /// the server knows its address.
    pub url: String,
    pub max_workers: Option<i32>,
    /// Workers who arrived through it.
    pub workers: i32,
    /// RFC 3339, UTC.
    pub expires_at: Option<String>,
    pub expired: bool,
    pub paused: bool,
}

/// A campaign's study set-up: its latest information and its links.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudySetup {
    pub version: i32,
    pub summary: String,
    pub minutes: Option<i32>,
    pub pay: String,
    pub consent_text: String,
    pub completion_code: String,
    pub links: Vec<StudyLinkView>,
}
