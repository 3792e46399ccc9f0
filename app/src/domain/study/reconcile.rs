//! A platform's submissions beside paracrowd's completions: the table a researcher decides
//! approvals from. Pure: the platform client reads the submissions, the database the workers.
//!
//! A worker is matched by their id on the platform (Prolific's participant id), ignoring case
//! as study links do. Only a submission that is awaiting review *and* whose worker's completion
//! paracrowd recorded may be approved from here; every other case is shown with what it means.
use std::collections::HashMap;

/// A submission's status on Prolific (`RESERVED`, `ACTIVE`, `AWAITING REVIEW`, ...).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SubmissionStatus {
    /// A place is held; the participant has not started.
    Reserved,
    /// Started, not finished.
    Active,
    /// Finished on the platform (a code entered), not yet approved or rejected.
    AwaitingReview,
    /// Approved (and paid the base reward).
    Approved,
    /// Rejected.
    Rejected,
    /// Given back by the participant, who is not paid.
    Returned,
    /// Ran out of time.
    TimedOut,
    /// Screened out (paid a fixed amount).
    ScreenedOut,
    /// Partly approved.
    PartiallyApproved,
    /// A status this version does not know, as the platform wrote it.
    Other(String),
}

impl SubmissionStatus {
    /// Reads the platform's spelling (`AWAITING REVIEW`, `AWAITING_REVIEW`, `TIMED-OUT`, any case).
    pub fn parse(raw: &str) -> SubmissionStatus {
        let norm: String = raw
            .trim()
            .chars()
            .map(|c| match c {
                ' ' | '-' => '_',
                c => c.to_ascii_uppercase(),
            })
            .collect();
        match norm.as_str() {
            "RESERVED" => SubmissionStatus::Reserved,
            "ACTIVE" => SubmissionStatus::Active,
            "AWAITING_REVIEW" => SubmissionStatus::AwaitingReview,
            "APPROVED" => SubmissionStatus::Approved,
            "REJECTED" => SubmissionStatus::Rejected,
            "RETURNED" => SubmissionStatus::Returned,
            "TIMED_OUT" => SubmissionStatus::TimedOut,
            "SCREENED_OUT" => SubmissionStatus::ScreenedOut,
            "PARTIALLY_APPROVED" => SubmissionStatus::PartiallyApproved,
            _ => SubmissionStatus::Other(raw.trim().chars().take(40).collect()),
        }
    }

    /// The status as the platform's pages write it.
    pub fn label(&self) -> &str {
        match self {
            SubmissionStatus::Reserved => "reserved",
            SubmissionStatus::Active => "active",
            SubmissionStatus::AwaitingReview => "awaiting review",
            SubmissionStatus::Approved => "approved",
            SubmissionStatus::Rejected => "rejected",
            SubmissionStatus::Returned => "returned",
            SubmissionStatus::TimedOut => "timed out",
            SubmissionStatus::ScreenedOut => "screened out",
            SubmissionStatus::PartiallyApproved => "partially approved",
            SubmissionStatus::Other(s) => s,
        }
    }
}

/// One submission as the platform lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The submission's id (Prolific's `SESSION_ID`).
    pub id: String,
    /// The participant's id.
    pub participant: String,
    /// Where it stands.
    pub status: SubmissionStatus,
}

/// One worker who arrived through the platform's study link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worker {
    /// Their id on the platform.
    pub participant: String,
    /// Whether paracrowd recorded their completion (and gave them the code).
    pub completed: bool,
    /// The submission their completion went back with, where the platform says (MTurk's
    /// assignment): only that one is approvable. `None`: any of theirs (Prolific).
    pub completed_with: Option<String>,
}

/// What a row of the table means, in the order the table lists them: what needs the
/// researcher first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Standing {
    /// Awaiting review there, but the worker never completed here: they entered a code without
    /// doing the work (or with someone else's). Not approved from here.
    NotCompletedHere,
    /// Awaiting review there, and no worker with this id ever arrived here.
    UnknownHere,
    /// One of several submissions of the same participant awaiting review: one completion
    /// here approves at most one of them, so none is approved from here.
    Repeated,
    /// Awaiting review there, but the worker's completion here went back with another
    /// submission (another HIT's assignment): not approved from here.
    OtherAssignment,
    /// Completed here, awaiting review there: approvable.
    Approvable,
    /// Completed here, but the submission there is still open (not yet submitted).
    NotSubmittedThere,
    /// Arrived here, and the platform lists no submission of theirs (another study?).
    NoSubmission,
    /// Still working: active or reserved there, not complete here.
    Working,
    /// Returned or timed out there: the platform pays them nothing.
    ReturnedOrTimedOut,
    /// Already approved there.
    Approved,
    /// Rejected there.
    Rejected,
    /// Any other status (screened out, partly approved, unknown).
    Other,
}

impl Standing {
    /// What it means, for the table.
    pub fn explain(self) -> &'static str {
        match self {
            Standing::NotCompletedHere => {
                "Submitted there but never completed here: a code entered without the work. Not approved from here."
            }
            Standing::UnknownHere => {
                "Submitted there by a participant who never opened this study's link here."
            }
            Standing::Repeated => {
                "One of several submissions of this participant awaiting review: one completion here cannot approve them all. Not approved from here."
            }
            Standing::OtherAssignment => {
                "Submitted there, but this worker's completion here went back with another assignment (another HIT?). Not approved from here."
            }
            Standing::Approvable => "Completed here and awaiting review there: can be approved.",
            Standing::NotSubmittedThere => {
                "Completed here; the submission there is still open (the participant has not entered the code yet)."
            }
            Standing::NoSubmission => {
                "Arrived here; the platform lists no submission for them in this study."
            }
            Standing::Working => "Still working.",
            Standing::ReturnedOrTimedOut => {
                "Returned or timed out there: the platform pays no reward. A bonus owed here is still shown on this page."
            }
            Standing::Approved => "Approved there.",
            Standing::Rejected => "Rejected there.",
            Standing::Other => "Another status there; see the platform.",
        }
    }

    /// Whether the researcher should look at it before approving the rest.
    pub fn needs_attention(self) -> bool {
        matches!(
            self,
            Standing::NotCompletedHere
                | Standing::UnknownHere
                | Standing::Repeated
                | Standing::OtherAssignment
        )
    }
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The participant's id (as the platform wrote it, or as the link did).
    pub participant: String,
    /// The submission, when the platform lists one.
    pub submission: Option<Submission>,
    /// Whether this worker arrived here, and whether they completed.
    pub here: Option<bool>,
    /// What it means.
    pub standing: Standing,
}

/// The standing of a submission (or of none) with what paracrowd knows of its worker
/// (`None`: never arrived; `Some(completed)`).
pub fn standing(status: Option<&SubmissionStatus>, here: Option<bool>) -> Standing {
    use SubmissionStatus as S;
    match (status, here) {
        (None, _) => Standing::NoSubmission,
        (Some(S::AwaitingReview), Some(true)) => Standing::Approvable,
        (Some(S::AwaitingReview), Some(false)) => Standing::NotCompletedHere,
        (Some(S::AwaitingReview), None) => Standing::UnknownHere,
        (Some(S::Active | S::Reserved), Some(true)) => Standing::NotSubmittedThere,
        (Some(S::Active | S::Reserved), _) => Standing::Working,
        (Some(S::Returned | S::TimedOut), _) => Standing::ReturnedOrTimedOut,
        (Some(S::Approved), _) => Standing::Approved,
        (Some(S::Rejected), _) => Standing::Rejected,
        (Some(S::ScreenedOut | S::PartiallyApproved | S::Other(_)), _) => Standing::Other,
    }
}

/// The table: every submission, and every worker without one, sorted by standing and id.
/// Where a participant has several submissions (the platform allows one per study, so only in
/// odd cases), each is a row.
pub fn reconcile(workers: &[Worker], submissions: &[Submission]) -> Vec<Row> {
    let key = |id: &str| id.to_ascii_lowercase();
    // Two accounts whose ids differ only in case are one participant: completed if either did.
    let mut here: HashMap<String, bool> = HashMap::new();
    // The submissions completions went back with, where the platform names them.
    let mut completed_with: HashMap<String, Vec<&str>> = HashMap::new();
    for w in workers {
        *here.entry(key(&w.participant)).or_default() |= w.completed;
        if let (true, Some(id)) = (w.completed, w.completed_with.as_deref()) {
            completed_with
                .entry(key(&w.participant))
                .or_default()
                .push(id);
        }
    }
    // Participants with more than one submission awaiting review.
    let mut awaiting: HashMap<String, usize> = HashMap::new();
    for s in submissions {
        if s.status == SubmissionStatus::AwaitingReview {
            *awaiting.entry(key(&s.participant)).or_default() += 1;
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut rows: Vec<Row> = submissions
        .iter()
        .map(|s| {
            let k = key(&s.participant);
            let mine = here.get(&k).copied();
            let repeated = s.status == SubmissionStatus::AwaitingReview
                && awaiting.get(&k).copied().unwrap_or(0) > 1;
            let named = completed_with.get(&k);
            seen.insert(k);
            Row {
                participant: s.participant.clone(),
                standing: match named {
                    // The completion names its submission: that one alone is approvable.
                    Some(ids) if s.status == SubmissionStatus::AwaitingReview => {
                        if ids.contains(&s.id.as_str()) {
                            Standing::Approvable
                        } else {
                            Standing::OtherAssignment
                        }
                    }
                    _ if repeated => Standing::Repeated,
                    _ => standing(Some(&s.status), mine),
                },
                submission: Some(s.clone()),
                here: mine,
            }
        })
        .collect();
    rows.extend(
        workers
            .iter()
            .filter(|w| !seen.contains(&key(&w.participant)))
            .map(|w| Row {
                participant: w.participant.clone(),
                submission: None,
                here: Some(w.completed),
                standing: Standing::NoSubmission,
            }),
    );
    rows.sort_by_key(|r| (r.standing, key(&r.participant)));
    rows
}

/// Prolific's rejection categories, with what the researcher reads.
pub const REJECTION_CATEGORIES: [(&str, &str); 11] = [
    (
        "NO_CODE",
        "No completion code (a code entered without the work)",
    ),
    ("BAD_CODE", "Wrong completion code"),
    ("NO_DATA", "No data"),
    ("FAILED_INSTRUCTIONS", "Did not follow the instructions"),
    ("FAILED_CHECK", "Failed the check questions"),
    ("LOW_EFFORT", "Low effort"),
    ("MALINGERING", "Malingering"),
    ("TOO_QUICKLY", "Too quick"),
    ("TOO_SLOWLY", "Too slow"),
    ("UNSUPP_DEVICE", "Unsupported device"),
    ("OTHER", "Other"),
];

/// The shortest rejection message Prolific accepts.
pub const MIN_REJECTION_MESSAGE: usize = 100;
/// The longest kept here.
pub const MAX_REJECTION_MESSAGE: usize = 2000;

/// Checks a rejection before it is sent: a known category and a message the participant can
/// read, as long as Prolific asks for. Returns the trimmed message.
pub fn rejection(category: &str, message: &str) -> Result<String, crate::domain::Invalid> {
    if !REJECTION_CATEGORIES.iter().any(|(c, _)| *c == category) {
        return Err(crate::domain::Invalid::new(
            "category",
            "Choose one of Prolific's rejection categories.",
        ));
    }
    let m = message.trim();
    let n = m.chars().count();
    if n < MIN_REJECTION_MESSAGE {
        return Err(crate::domain::Invalid::new(
            "message",
            format!(
                "Prolific asks for a message of at least {MIN_REJECTION_MESSAGE} characters telling the participant why (this one has {n})."
            ),
        ));
    }
    if n > MAX_REJECTION_MESSAGE {
        return Err(crate::domain::Invalid::new(
            "message",
            format!("The message is longer than {MAX_REJECTION_MESSAGE} characters."),
        ));
    }
    Ok(m.to_owned())
}

/// The shortest message a rejection on MTurk is sent with: a worker whose work is rejected loses
/// approval rate, and deserves a reason they can act on (MTurk itself asks for none).
pub const MIN_MTURK_FEEDBACK: usize = 30;
/// The longest MTurk takes (`RequesterFeedback`).
pub const MAX_MTURK_FEEDBACK: usize = 1024;

/// Checks the feedback an MTurk rejection is sent with. Returns it trimmed.
pub fn mturk_feedback(message: &str) -> Result<String, crate::domain::Invalid> {
    let m = message.trim();
    let n = m.chars().count();
    if n < MIN_MTURK_FEEDBACK {
        return Err(crate::domain::Invalid::new(
            "message",
            format!(
                "Tell the worker why, in at least {MIN_MTURK_FEEDBACK} characters (this message has {n}): a rejection lowers their approval rate."
            ),
        ));
    }
    if n > MAX_MTURK_FEEDBACK {
        return Err(crate::domain::Invalid::new(
            "message",
            format!("MTurk takes at most {MAX_MTURK_FEEDBACK} characters (this message has {n})."),
        ));
    }
    Ok(m.to_owned())
}

/// The submissions the table says may be approved.
pub fn approvable(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter(|r| r.standing == Standing::Approvable)
        .filter_map(|r| r.submission.as_ref().map(|s| s.id.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(id: &str, who: &str, status: &str) -> Submission {
        Submission {
            id: id.into(),
            participant: who.into(),
            status: SubmissionStatus::parse(status),
        }
    }

    fn worker(who: &str, completed: bool) -> Worker {
        Worker {
            completed_with: None,
            participant: who.into(),
            completed,
        }
    }

    #[test]
    fn a_rejection_needs_a_known_category_and_a_message_as_long_as_prolific_asks() {
        let long = "x".repeat(MIN_REJECTION_MESSAGE);
        assert_eq!(rejection("NO_CODE", &format!("  {long}\n")).unwrap(), long);
        assert_eq!(rejection("MADE_UP", &long).unwrap_err().field, "category");
        let short = "y".repeat(MIN_REJECTION_MESSAGE - 1);
        let e = rejection("NO_CODE", &short).unwrap_err();
        assert_eq!(e.field, "message");
        assert!(e.message.contains("99"), "{}", e.message);
        // Characters, not bytes: 100 accented letters are enough.
        assert!(rejection("OTHER", &"é".repeat(MIN_REJECTION_MESSAGE)).is_ok());
        assert!(rejection("OTHER", &"z".repeat(MAX_REJECTION_MESSAGE + 1)).is_err());
    }

    #[test]
    fn statuses_are_read_in_any_of_the_platforms_spellings() {
        for raw in ["AWAITING REVIEW", "awaiting_review", " Awaiting-Review "] {
            assert_eq!(
                SubmissionStatus::parse(raw),
                SubmissionStatus::AwaitingReview
            );
        }
        assert_eq!(
            SubmissionStatus::parse("TIMED-OUT"),
            SubmissionStatus::TimedOut
        );
        assert_eq!(
            SubmissionStatus::parse("SCREENED OUT"),
            SubmissionStatus::ScreenedOut
        );
        assert_eq!(
            SubmissionStatus::parse("UNHEARD-OF"),
            SubmissionStatus::Other("UNHEARD-OF".into())
        );
        assert_eq!(SubmissionStatus::parse("UNHEARD-OF").label(), "UNHEARD-OF");
    }

    #[test]
    fn only_a_completion_here_awaiting_review_there_is_approvable() {
        let workers = [
            worker("done", true),
            worker("codeonly", false),
            worker("stillhere", false),
            worker("notyet", true),
            worker("gone", true),
            worker("nosub", true),
        ];
        let subs = [
            sub("s1", "DONE", "AWAITING REVIEW"),
            sub("s2", "codeonly", "AWAITING REVIEW"),
            sub("s3", "stranger", "AWAITING REVIEW"),
            sub("s4", "stillhere", "ACTIVE"),
            sub("s5", "notyet", "ACTIVE"),
            sub("s6", "gone", "RETURNED"),
            sub("s7", "late", "TIMED-OUT"),
            sub("s8", "paid", "APPROVED"),
            sub("s9", "bad", "REJECTED"),
            sub("s10", "odd", "SCREENED OUT"),
        ];
        let rows = reconcile(&workers, &subs);
        let by = |who: &str| {
            rows.iter()
                .find(|r| r.participant == who)
                .unwrap_or_else(|| panic!("{who}"))
                .standing
        };
        // Matched ignoring case, as study links match ids.
        assert_eq!(by("DONE"), Standing::Approvable);
        assert_eq!(by("codeonly"), Standing::NotCompletedHere);
        assert_eq!(by("stranger"), Standing::UnknownHere);
        assert_eq!(by("stillhere"), Standing::Working);
        assert_eq!(by("notyet"), Standing::NotSubmittedThere);
        assert_eq!(by("gone"), Standing::ReturnedOrTimedOut);
        assert_eq!(by("late"), Standing::ReturnedOrTimedOut);
        assert_eq!(by("paid"), Standing::Approved);
        assert_eq!(by("bad"), Standing::Rejected);
        assert_eq!(by("odd"), Standing::Other);
        assert_eq!(by("nosub"), Standing::NoSubmission);
        assert_eq!(rows.len(), 11);
        assert_eq!(approvable(&rows), vec!["s1".to_string()]);
        // What needs the researcher comes first.
        assert!(rows[0].standing.needs_attention() && rows[1].standing.needs_attention());
        assert!(rows.windows(2).all(|w| w[0].standing <= w[1].standing));
    }

    #[test]
    fn one_completion_approves_one_submission_and_ids_differing_in_case_are_one_worker() {
        let workers = [
            worker("twice", true),
            worker("CASE", false),
            worker("case", true),
        ];
        let subs = [
            sub("a", "twice", "AWAITING REVIEW"),
            sub("b", "TWICE", "AWAITING REVIEW"),
            sub("c", "Case", "AWAITING REVIEW"),
        ];
        let rows = reconcile(&workers, &subs);
        let of = |id: &str| {
            rows.iter()
                .find(|r| r.submission.as_ref().is_some_and(|s| s.id == id))
                .unwrap()
                .standing
        };
        assert_eq!(of("a"), Standing::Repeated);
        assert_eq!(of("b"), Standing::Repeated);
        assert_eq!(of("c"), Standing::Approvable);
        assert_eq!(approvable(&rows), vec!["c".to_string()]);
        assert!(Standing::Repeated.needs_attention());
    }

    #[test]
    fn no_worker_who_did_not_complete_here_is_ever_approvable() {
        // Every status against every state here: approvable exactly when completed here and
        // awaiting review there.
        let statuses = [
            "RESERVED",
            "ACTIVE",
            "AWAITING REVIEW",
            "APPROVED",
            "REJECTED",
            "RETURNED",
            "TIMED-OUT",
            "SCREENED OUT",
            "PARTIALLY APPROVED",
            "NEW-ONE",
        ];
        for raw in statuses {
            let s = SubmissionStatus::parse(raw);
            for here in [None, Some(false), Some(true)] {
                let approvable = standing(Some(&s), here) == Standing::Approvable;
                assert_eq!(
                    approvable,
                    s == SubmissionStatus::AwaitingReview && here == Some(true),
                    "{raw} {here:?}"
                );
            }
        }
    }

    #[test]
    fn mturk_feedback_is_long_enough_to_act_on_and_short_enough_for_mturk() {
        assert!(mturk_feedback("   too short   ").is_err());
        let ok = "x".repeat(MIN_MTURK_FEEDBACK);
        assert_eq!(mturk_feedback(&format!("  {ok}\n")).unwrap(), ok);
        assert!(mturk_feedback(&"é".repeat(MAX_MTURK_FEEDBACK)).is_ok());
        assert!(mturk_feedback(&"é".repeat(MAX_MTURK_FEEDBACK + 1)).is_err());
    }

    #[test]
    fn where_a_completion_names_its_assignment_only_that_one_is_approvable() {
        let mut w = worker("A1", true);
        w.completed_with = Some("asg-2".into());
        let sub = |id: &str| Submission {
            id: id.into(),
            participant: "A1".into(),
            status: SubmissionStatus::AwaitingReview,
        };
        // Two HITs' assignments awaiting review: the completion's is approvable, not both.
        let rows = reconcile(&[w.clone()], &[sub("asg-1"), sub("asg-2")]);
        let of = |id: &str| {
            rows.iter()
                .find(|r| r.submission.as_ref().is_some_and(|s| s.id == id))
                .unwrap()
                .standing
        };
        assert_eq!(of("asg-2"), Standing::Approvable);
        assert_eq!(of("asg-1"), Standing::OtherAssignment);
        assert_eq!(approvable(&rows), vec!["asg-2".to_owned()]);
        assert!(Standing::OtherAssignment.needs_attention());
        // Another assignment alone (its own was approved already, say) is not approvable.
        let rows = reconcile(&[w], &[sub("asg-1")]);
        assert_eq!(rows[0].standing, Standing::OtherAssignment);
        assert!(approvable(&rows).is_empty());
    }
}
