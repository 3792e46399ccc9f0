//! The kinds and states kept in the database's text columns (each column has a check constraint
//! with exactly these names). Rows, DTOs, services and pages use the enums, so a misspelt status
//! is a compile error rather than a comparison that is silently false.
//!
//! On the server each enum is an `sqlx::Type` stored as `text` (the `snake_case` name), so the
//! `query!` macros decode columns into them with an override such as `status as "status: RunStatus"`.
use std::fmt;

use serde::{Deserialize, Serialize};

/// Declares a text-backed enum: serde and sqlx names in `snake_case`, `as_str`, `parse`,
/// `Display` and `ALL`.
macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[cfg_attr(feature = "ssr", derive(sqlx::Type))]
        #[cfg_attr(feature = "ssr", sqlx(type_name = "text", rename_all = "snake_case"))]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The name stored in the database and sent in forms.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The value named `raw` (surrounding blanks ignored), if any.
            pub fn parse(raw: &str) -> Option<Self> {
                let raw = raw.trim();
                Self::ALL.iter().copied().find(|v| v.as_str() == raw)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

text_enum! {
    /// The two studies: APT writing and MultiPIT judging.
    CampaignKind {
        /// Adversarial paraphrasing: workers write paraphrases and Check them.
        Apt => "apt",
        /// MultiPIT 1-vs-1 judging of sentence pairs.
        Judge => "judge",
    }
}

text_enum! {
    /// A campaign's life: drafted by an admin, open to workers, closed.
    CampaignStatus {
        /// Being set up; workers do not see it.
        Draft => "draft",
        /// Listed on the workers' home page.
        Open => "open",
        /// Finished; workers no longer see it.
        Closed => "closed",
    }
}

text_enum! {
    /// A worker's standing in a judging campaign (set by the quality gate or an admin).
    WorkerStatus {
        /// May judge.
        Active => "active",
        /// Stopped by the gate or an admin; their judgments are kept for the researcher.
        Stopped => "stopped",
    }
}

text_enum! {
    /// One pair served to one worker in a judging campaign.
    AssignmentStatus {
        /// Served and not yet answered; holds a judgment slot until the lease expires.
        Leased => "leased",
        /// Answered.
        Judged => "judged",
        /// The lease ran out before an answer; the slot went back to the queue.
        Expired => "expired",
    }
}

text_enum! {
    /// A mining run's life: queued → running → finished | cancelled | failed, or interrupted
    /// when its server stopped.
    RunStatus {
        /// Waiting for a server to start it.
        Queued => "queued",
        /// Being mined.
        Running => "running",
        /// Done; its candidates can be deployed.
        Finished => "finished",
        /// Cancelled by an admin.
        Cancelled => "cancelled",
        /// Its server stopped while it was queued or running.
        Interrupted => "interrupted",
        /// The miner returned an error.
        Failed => "failed",
    }
}

text_enum! {
    /// The miners (`domain::mining::Method`, which carries their parameters).
    MethodKind {
        /// MSRP's L12: word edit distance within a cluster.
        L12 => "l12",
        /// MSRP's F2: first sentences across the articles of a cluster.
        F2 => "f2",
        /// MultiPIT's ranked selection within groups of short texts.
        Group => "group",
        /// ParaSCI's sentence-embedding similarity.
        Embedding => "embedding",
    }
}

impl RunStatus {
    /// Queued or running: a miner may still be working on it.
    pub fn is_live(self) -> bool {
        matches!(self, RunStatus::Queued | RunStatus::Running)
    }

    /// Ended without finishing, so it can be started again.
    pub fn can_restart(self) -> bool {
        matches!(
            self,
            RunStatus::Interrupted | RunStatus::Cancelled | RunStatus::Failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_parse_and_serde() {
        for s in RunStatus::ALL {
            assert_eq!(RunStatus::parse(s.as_str()), Some(*s));
            let json = serde_json::to_string(s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
        }
        assert_eq!(CampaignStatus::parse(" open "), Some(CampaignStatus::Open));
        assert_eq!(CampaignKind::parse("APT"), None);
        assert_eq!(WorkerStatus::parse("blocked"), None);
    }

    #[test]
    fn live_and_restartable_runs_are_disjoint() {
        for s in RunStatus::ALL {
            assert!(!(s.is_live() && s.can_restart()), "{s}");
        }
        assert!(!RunStatus::Finished.is_live() && !RunStatus::Finished.can_restart());
    }
}
