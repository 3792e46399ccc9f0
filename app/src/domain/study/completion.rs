//! When a study worker is done: after the study's number of items, at the writing
//! task's cap, when the quality gate stops them, when the researcher closes the study, or when no
//! item is left for them. A worker the gate stopped, or whose study was closed under them,
//! completes too: crowd platforms require that they can be paid for their time.

use std::fmt;

/// Why a worker's part of a study is complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Reason {
    /// They made the study's number of items.
    Items,
    /// They earned the writing task's cap.
    Cap,
    /// The quality gate stopped them.
    Stopped,
    /// The researcher closed the study before they were done.
    Closed,
    /// No item is left that they have not seen.
    NothingLeft,
}

impl Reason {
    /// The value stored in `study_completion.reason`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Items => "items",
            Reason::Cap => "cap",
            Reason::Stopped => "stopped",
            Reason::Closed => "closed",
            Reason::NothingLeft => "nothing_left",
        }
    }

    /// Reads a stored value.
    pub fn parse(s: &str) -> Option<Reason> {
        [
            Reason::Items,
            Reason::Cap,
            Reason::Stopped,
            Reason::Closed,
            Reason::NothingLeft,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }

    /// What the worker reads.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::Items => "You have done every item this study asks for.",
            Reason::Cap => "You have earned the most this study pays.",
            Reason::Stopped => "The quality check ended your part of this study. Your work so far counts, and you are paid for your time as the study information says; the researcher decides on any bonus.",
            Reason::Closed => "The researcher closed this study before you were done. Your work so far counts, and you are paid for it as the study information says.",
            Reason::NothingLeft => "There are no more items for you in this study.",
        }
    }

    /// What the researcher reads on the payments page and in the generic bonus file: whom to
    /// approve is theirs to decide, and a worker the quality check stopped is not a finisher.
    pub fn for_researchers(self) -> &'static str {
        match self {
            Reason::Items => "all items done",
            Reason::Cap => "earned the cap",
            Reason::Stopped => "stopped by the quality check",
            Reason::Closed => "study closed",
            Reason::NothingLeft => "no items left",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a worker stands in a study, as the completion rule reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Standing {
    /// Items made: judgments, or submitted sentences.
    pub items: i64,
    /// The study's number of items (none: no such rule).
    pub complete_after: Option<i32>,
    /// The writing task's cap is reached.
    pub cap_reached: bool,
    /// The quality gate stopped them.
    pub stopped: bool,
    /// The study is closed (completes only a worker who made at least one item).
    pub closed: bool,
    /// No item is left that they have not seen (completes only a worker who made at least one).
    pub nothing_left: bool,
}

/// Whether the worker is done, and why (the first that applies, in the order the worker would
/// read them: the items asked for, the cap, the gate, the study closed, the end of the items).
pub fn completion(s: Standing) -> Option<Reason> {
    if s.complete_after.is_some_and(|n| s.items >= i64::from(n)) {
        Some(Reason::Items)
    } else if s.cap_reached {
        Some(Reason::Cap)
    } else if s.stopped {
        Some(Reason::Stopped)
    } else if s.closed && s.items > 0 {
        // Closed under them: they cannot reach the number asked for, so they finish here.
        Some(Reason::Closed)
    } else if s.nothing_left && s.items > 0 {
        // A worker who did nothing does not complete (and get the study's code) because the
        // items ran out before they came.
        Some(Reason::NothingLeft)
    } else {
        None
    }
}

/// What is left before the worker may finish, in words (for a worker who is not done).
pub fn remaining(s: Standing) -> String {
    if s.closed {
        return "This study was closed before you made any items, so there is nothing to complete."
            .to_owned();
    }
    match s.complete_after {
        Some(n) => {
            let left = i64::from(n) - s.items;
            format!(
                "You have done {} of the {n} items this study asks for; {left} to go.",
                s.items
            )
        }
        None => "This study ends when you have earned its cap or no items are left for you; keep going until the task page says so.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_items_asked_for_complete_a_study() {
        let s = Standing {
            items: 49,
            complete_after: Some(50),
            ..Standing::default()
        };
        assert_eq!(completion(s), None);
        assert!(remaining(s).contains("49 of the 50") && remaining(s).contains("1 to go"));
        assert_eq!(completion(Standing { items: 50, ..s }), Some(Reason::Items));
        assert_eq!(completion(Standing { items: 51, ..s }), Some(Reason::Items));
    }

    #[test]
    fn a_stopped_worker_completes_so_they_can_be_paid() {
        let s = Standing {
            items: 30,
            complete_after: Some(50),
            stopped: true,
            ..Standing::default()
        };
        assert_eq!(completion(s), Some(Reason::Stopped));
        assert!(Reason::Stopped.describe().contains("paid"));
    }

    #[test]
    fn the_cap_and_the_end_of_the_items_complete_without_a_number() {
        let none = Standing::default();
        assert_eq!(completion(none), None);
        assert_eq!(
            completion(Standing {
                cap_reached: true,
                ..none
            }),
            Some(Reason::Cap)
        );
        assert_eq!(
            completion(Standing {
                items: 1,
                nothing_left: true,
                ..none
            }),
            Some(Reason::NothingLeft)
        );
        // Nothing done: the end of the items does not complete them.
        assert_eq!(
            completion(Standing {
                nothing_left: true,
                ..none
            }),
            None
        );
        // The items asked for come first when several apply.
        assert_eq!(
            completion(Standing {
                items: 5,
                complete_after: Some(5),
                cap_reached: true,
                stopped: true,
                closed: true,
                nothing_left: true,
            }),
            Some(Reason::Items)
        );
    }

    #[test]
    fn a_study_closed_under_a_worker_completes_them_if_they_did_something() {
        let s = Standing {
            items: 12,
            complete_after: Some(50),
            closed: true,
            ..Standing::default()
        };
        assert_eq!(completion(s), Some(Reason::Closed));
        assert!(Reason::Closed.describe().contains("paid"));
        // The gate's verdict reads first; nothing done is nothing to complete.
        assert_eq!(
            completion(Standing { stopped: true, ..s }),
            Some(Reason::Stopped)
        );
        assert_eq!(completion(Standing { items: 0, ..s }), None);
        assert!(remaining(Standing { items: 0, ..s }).contains("closed"));
    }

    #[test]
    fn reasons_read_back_as_stored() {
        for r in [
            Reason::Items,
            Reason::Cap,
            Reason::Stopped,
            Reason::Closed,
            Reason::NothingLeft,
        ] {
            assert_eq!(Reason::parse(r.as_str()), Some(r));
            assert!(r.describe().ends_with('.'));
        }
        assert_eq!(Reason::parse("paid"), None);
    }
}
