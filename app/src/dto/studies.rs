//! Studies through crowd platforms: what a worker sees on opening a study link, and
//! the links and study information as the researcher manages them.
use serde::{Deserialize, Serialize};

use crate::domain::study::platform::Platform;
use crate::domain::study::Refusal;
use crate::domain::{BatchId, CampaignId, CampaignKind, StudyLinkId};

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
        /// They completed the study: `task_href` is the completion page.
        #[serde(default)]
        completed: bool,
    },
}

/// A recruitment link as the researcher sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyLinkView {
    pub study_link_id: StudyLinkId,
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
    /// The number of items that completes the study (none: the cap, the gate or the end).
    pub complete_after: Option<i32>,
    /// The amounts as the form shows them (`1.50`; empty when none).
    pub base_pay: String,
    pub judgment_pay: String,
    pub min_hourly: String,
    pub links: Vec<StudyLinkView>,
}

/// How a finished worker goes back to their platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReturnTo {
    /// Prolific's completion address with the study's code.
    Prolific { url: String },
    /// Mechanical Turk: a form posted to `submit_url` with the assignment id.
    Mturk {
        submit_url: String,
        assignment_id: String,
    },
    /// Mechanical Turk, in a HIT accepted after the study was completed with another
    /// assignment (`assignment_id`): the worker is asked to return this one.
    MturkAlreadySubmitted { assignment_id: String },
    /// The code on screen (a plain link; or Prolific when the researcher set no code).
    Code,
}

/// What the completion page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompletionView {
    /// The caller did not come to this study through a link: there is nothing to complete.
    NoLink,
    /// The study is not done yet; the message says what is left.
    NotYet { message: String, task_href: String },
    Done {
        title: String,
        platform: Platform,
        /// Why it is complete, in words.
        reason: String,
        items: i32,
        code: String,
        return_to: ReturnTo,
        /// What the worker earned, in words.
        earned: String,
        /// This request completed the study (the page goes back to the platform by itself);
        /// false for a later visit, which shows the code and the way back.
        first: bool,
    },
}

/// What a task page shows about the study around the items: progress against the number of
/// items asked for, the pay and the time, and (for a worker who came through a study link)
/// where to finish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StudyProgress {
    /// Items the worker has made (judgments, or sentences submitted).
    pub items: i64,
    /// The number of items the study asks for (none: no number).
    pub complete_after: Option<i32>,
    /// The pay per item, in words ("$0.015 a pair"), empty when none is set.
    pub pay_per_item: String,
    /// The bonus per judgment in thousandths of a dollar (0: none).
    pub judgment_pay_mills: i32,
    /// The estimated minutes.
    pub minutes: Option<i32>,
    /// The completion page, for a worker who came through a study link.
    pub done_href: Option<String>,
}

/// A study worker's line on the payments page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerPayView {
    pub platform: Platform,
    pub external_id: String,
    pub items: i64,
    pub minutes_worked: f64,
    /// Whether they completed the study.
    pub completed: bool,
    /// Why, when they did: all items done, stopped by the quality check, ...
    pub completion: Option<crate::domain::study::completion::Reason>,
    pub base_cents: i64,
    pub bonus_cents: i64,
    pub top_up_cents: i64,
    pub hourly_cents: Option<f64>,
    pub under_minimum: bool,
    /// In batches, paid or not.
    pub batched_cents: i64,
    /// In batches marked paid.
    pub paid_cents: i64,
}

/// A bonus batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchView {
    pub batch_id: BatchId,
    pub created_at: String,
    pub paid_at: Option<String>,
    pub top_up: bool,
    pub workers: i64,
    pub total_cents: i64,
}

/// The payments page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentsView {
    pub campaign_id: String,
    pub title: String,
    pub base_pay_cents: i32,
    pub judgment_pay_mills: i32,
    pub min_hourly_cents: Option<i32>,
    pub workers: Vec<WorkerPayView>,
    /// Median minutes and median hourly rate of the completed workers (Prolific judges a
    /// study's rate by its median time).
    pub median_minutes: Option<f64>,
    pub median_hourly_cents: Option<f64>,
    /// Owed and in no batch yet: bonuses only, and with top-ups.
    pub outstanding_cents: i64,
    pub outstanding_with_top_up_cents: i64,
    pub batches: Vec<BatchView>,
    /// A fresh id for the next batch (a repeated request with it makes one batch).
    pub next_batch_id: BatchId,
}

/// An open study as a visitor sees it on the home page: enough to decide to take part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenStudyCard {
    pub kind: CampaignKind,
    pub title: String,
    pub summary: String,
    pub minutes: Option<i32>,
    pub pay: String,
}
