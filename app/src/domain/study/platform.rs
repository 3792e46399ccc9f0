//! Crowd platforms and what their study links carry: which parameters each platform
//! appends to a study URL, how they are checked, and where a finished worker is sent back to.
//!
//! - **Prolific** appends `PROLIFIC_PID`, `STUDY_ID` and `SESSION_ID`; a finished participant is
//!   sent to `https://app.prolific.com/submissions/complete?cc=CODE`.
//! - **Mechanical Turk** shows an external question in an iframe with `workerId`, `assignmentId`,
//!   `hitId` and `turkSubmitTo`; while a worker only previews the HIT, `assignmentId` is
//!   `ASSIGNMENT_ID_NOT_AVAILABLE` and there is no `workerId`. A finished worker's page posts a
//!   form with `assignmentId` to `turkSubmitTo/mturk/externalSubmit`.
//! - **Generic** links carry `pid`; a finished worker is shown a completion code.
//!
//! One external id is one account per platform. Ids are checked for length and characters, and
//! `turkSubmitTo` must be one of Amazon's two hosts, so a crafted link cannot make a worker's
//! browser post to anywhere else.
use std::fmt;

use crate::domain::Invalid;

/// Where a worker was recruited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(sqlx::Type))]
#[cfg_attr(feature = "ssr", sqlx(type_name = "text", rename_all = "lowercase"))]
pub enum Platform {
    /// Prolific (prolific.com).
    Prolific,
    /// Amazon Mechanical Turk, through an external question.
    Mturk,
    /// A plain link with `pid`, for recruiting anywhere else.
    Generic,
}

impl Platform {
    /// Every platform, in the order forms list them.
    pub const ALL: [Platform; 3] = [Platform::Prolific, Platform::Mturk, Platform::Generic];

    /// The name stored and sent (`prolific`, `mturk`, `generic`).
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Prolific => "prolific",
            Platform::Mturk => "mturk",
            Platform::Generic => "generic",
        }
    }

    /// How the platform is called on pages.
    pub fn display_name(self) -> &'static str {
        match self {
            Platform::Prolific => "Prolific",
            Platform::Mturk => "Mechanical Turk",
            Platform::Generic => "Plain link",
        }
    }

    /// The platform named `s`, if any.
    pub fn parse(s: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The parameter that carries the worker's id on this platform.
    pub fn id_param(self) -> &'static str {
        match self {
            Platform::Prolific => "PROLIFIC_PID",
            Platform::Mturk => "workerId",
            Platform::Generic => "pid",
        }
    }

    /// The query a platform appends to the study URL, as the researcher pastes it there
    /// (Prolific and MTurk fill the placeholders themselves).
    pub fn link_query(self) -> &'static str {
        match self {
            Platform::Prolific => {
                "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
            }
            // MTurk appends its own parameters to an external question's URL.
            Platform::Mturk => "",
            Platform::Generic => "pid=PARTICIPANT_ID",
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Longest external id, study or assignment id accepted (Prolific's are 24 characters, MTurk's
/// about 30).
pub const MAX_ID_LEN: usize = 64;

/// The `assignmentId` MTurk sends while a worker previews a HIT.
pub const MTURK_PREVIEW: &str = "ASSIGNMENT_ID_NOT_AVAILABLE";

/// The hosts `turkSubmitTo` may name: the live marketplace and its sandbox.
pub const MTURK_SUBMIT_HOSTS: [&str; 2] =
    ["https://www.mturk.com", "https://workersandbox.mturk.com"];

/// A platform's id of its worker (or study, session, assignment): 1 to 64 characters of
/// letters, digits, `_` and `-`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ExternalId(String);

impl ExternalId {
    /// Checks `raw` as the value of the parameter `field`.
    pub fn parse(field: &'static str, raw: &str) -> Result<ExternalId, Invalid> {
        if raw.is_empty() {
            return Err(Invalid::new(
                field,
                format!("The link has an empty {field}."),
            ));
        }
        if raw.len() > MAX_ID_LEN {
            return Err(Invalid::new(
                field,
                format!("The link's {field} is longer than {MAX_ID_LEN} characters."),
            ));
        }
        if !raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(Invalid::new(
                field,
                format!("The link's {field} may hold only letters, digits, '_' and '-'."),
            ));
        }
        Ok(ExternalId(raw.to_owned()))
    }

    /// The id as the platform wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ExternalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a platform told us about one arrival, beyond the worker's id.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ArrivalDetail {
    /// Prolific's study and session.
    Prolific {
        /// `STUDY_ID`.
        study_id: ExternalId,
        /// `SESSION_ID`.
        session_id: ExternalId,
    },
    /// MTurk's assignment, HIT and where to submit.
    Mturk {
        /// `assignmentId`.
        assignment_id: ExternalId,
        /// `hitId`.
        hit_id: ExternalId,
        /// One of [`MTURK_SUBMIT_HOSTS`].
        submit_to: String,
    },
    /// Nothing beyond the id.
    Generic,
}

/// A worker arriving through a study link.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Arrival {
    /// Where they came from.
    pub platform: Platform,
    /// Their id there.
    pub external_id: ExternalId,
    /// The platform's other ids for this arrival.
    pub detail: ArrivalDetail,
}

/// What opening a study link amounts to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A worker to sign in.
    Worker(Arrival),
    /// MTurk's preview of a HIT: the task is shown read-only, nobody is signed in.
    Preview,
}

/// Reads a study link's query for `platform`. Every parameter the platform always sends must be
/// there exactly once; parameters of other tools (a tracking tag) are ignored.
pub fn read_entry(platform: Platform, query: &[(String, String)]) -> Result<Entry, Invalid> {
    let one = |name: &'static str| -> Result<Option<&str>, Invalid> {
        let mut values = query
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        let first = values.next();
        if values.next().is_some() {
            return Err(Invalid::new(name, format!("The link has {name} twice.")));
        }
        Ok(first)
    };
    let required = |name: &'static str| -> Result<ExternalId, Invalid> {
        match one(name)? {
            Some(v) => ExternalId::parse(name, v),
            None => Err(Invalid::new(
                name,
                format!(
                    "The link is missing {name}. Open the study from {} again, or ask the researcher for the right link.",
                    platform.display_name()
                ),
            )),
        }
    };
    match platform {
        Platform::Prolific => Ok(Entry::Worker(Arrival {
            platform,
            external_id: required("PROLIFIC_PID")?,
            detail: ArrivalDetail::Prolific {
                study_id: required("STUDY_ID")?,
                session_id: required("SESSION_ID")?,
            },
        })),
        Platform::Mturk => {
            if one("assignmentId")? == Some(MTURK_PREVIEW) {
                return Ok(Entry::Preview);
            }
            let external_id = required("workerId")?;
            let assignment_id = required("assignmentId")?;
            let hit_id = required("hitId")?;
            let submit_to = match one("turkSubmitTo")? {
                Some(v) => mturk_submit_host(v)?,
                None => return Err(Invalid::new(
                    "turkSubmitTo",
                    "The link is missing turkSubmitTo. Open the HIT from Mechanical Turk again.",
                )),
            };
            Ok(Entry::Worker(Arrival {
                platform,
                external_id,
                detail: ArrivalDetail::Mturk {
                    assignment_id,
                    hit_id,
                    submit_to,
                },
            }))
        }
        Platform::Generic => Ok(Entry::Worker(Arrival {
            platform,
            external_id: required("pid")?,
            detail: ArrivalDetail::Generic,
        })),
    }
}

/// `turkSubmitTo` as one of Amazon's hosts (a trailing slash is allowed), else refused.
fn mturk_submit_host(raw: &str) -> Result<String, Invalid> {
    let trimmed = raw.trim_end_matches('/');
    MTURK_SUBMIT_HOSTS
        .into_iter()
        .find(|host| *host == trimmed)
        .map(str::to_owned)
        .ok_or_else(|| {
            Invalid::new(
                "turkSubmitTo",
                "The link's turkSubmitTo is not Mechanical Turk's address.",
            )
        })
}

/// A completion code as a researcher sets it on Prolific (or hands out by hand): 1 to 32
/// letters and digits.
pub fn check_completion_code(code: &str) -> Result<(), Invalid> {
    if code.is_empty() || code.len() > 32 || !code.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(Invalid::new(
            "completion_code",
            "A completion code is 1 to 32 letters and digits.",
        ));
    }
    Ok(())
}

/// Where Prolific wants a finished participant sent.
pub fn prolific_completion_url(code: &str) -> String {
    format!("https://app.prolific.com/submissions/complete?cc={code}")
}

/// Where a finished MTurk worker's page posts its form (with `assignmentId`).
pub fn mturk_submit_url(submit_to: &str) -> String {
    format!("{submit_to}/mturk/externalSubmit")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn prolific_needs_its_three_ids() {
        let entry = read_entry(
            Platform::Prolific,
            &q(&[
                ("PROLIFIC_PID", "5f3a9c0d1e2b4a0012345678"),
                ("STUDY_ID", "6123"),
                ("SESSION_ID", "abc-1"),
                ("utm_source", "ignored"),
            ]),
        )
        .unwrap();
        let Entry::Worker(arrival) = entry else {
            panic!("a worker")
        };
        assert_eq!(arrival.external_id.as_str(), "5f3a9c0d1e2b4a0012345678");
        assert!(matches!(arrival.detail, ArrivalDetail::Prolific { .. }));

        let missing = read_entry(Platform::Prolific, &q(&[("PROLIFIC_PID", "x")])).unwrap_err();
        assert_eq!(missing.field, "STUDY_ID");
        assert!(missing.message.contains("Prolific"), "{missing}");
        let twice = read_entry(
            Platform::Prolific,
            &q(&[("PROLIFIC_PID", "a"), ("PROLIFIC_PID", "b")]),
        )
        .unwrap_err();
        assert_eq!(twice.field, "PROLIFIC_PID");
    }

    #[test]
    fn ids_are_length_and_character_checked() {
        assert!(ExternalId::parse("pid", "A1_b-2").is_ok());
        assert!(ExternalId::parse("pid", &"a".repeat(64)).is_ok());
        for bad in [
            "",
            &"a".repeat(65),
            "a b",
            "a/b",
            "<script>",
            "é",
            "a%20b",
            "a\0",
        ] {
            assert!(ExternalId::parse("pid", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn an_mturk_preview_signs_nobody_in_and_submits_only_to_amazon() {
        assert_eq!(
            read_entry(
                Platform::Mturk,
                &q(&[("assignmentId", MTURK_PREVIEW), ("hitId", "H1")])
            )
            .unwrap(),
            Entry::Preview
        );
        let ok = q(&[
            ("workerId", "A2WORKER"),
            ("assignmentId", "3ASSIGN"),
            ("hitId", "3HIT"),
            ("turkSubmitTo", "https://workersandbox.mturk.com/"),
        ]);
        let Entry::Worker(a) = read_entry(Platform::Mturk, &ok).unwrap() else {
            panic!("a worker")
        };
        let ArrivalDetail::Mturk { submit_to, .. } = &a.detail else {
            panic!("mturk detail")
        };
        assert_eq!(
            mturk_submit_url(submit_to),
            "https://workersandbox.mturk.com/mturk/externalSubmit"
        );
        for evil in [
            "https://evil.example",
            "https://www.mturk.com.evil.example",
            "http://www.mturk.com",
            "javascript:alert(1)",
        ] {
            let mut bad = ok.clone();
            bad[3].1 = evil.into();
            assert_eq!(
                read_entry(Platform::Mturk, &bad).unwrap_err().field,
                "turkSubmitTo",
                "{evil}"
            );
        }
    }

    #[test]
    fn generic_links_carry_pid_and_codes_are_plain() {
        assert!(matches!(
            read_entry(Platform::Generic, &q(&[("pid", "p-17")])).unwrap(),
            Entry::Worker(Arrival {
                detail: ArrivalDetail::Generic,
                ..
            })
        ));
        assert_eq!(
            read_entry(Platform::Generic, &q(&[])).unwrap_err().field,
            "pid"
        );
        assert!(check_completion_code("C1A2B3").is_ok());
        assert!(check_completion_code("").is_err());
        assert!(check_completion_code("a&b=c").is_err());
        assert_eq!(
            prolific_completion_url("C1A2B3"),
            "https://app.prolific.com/submissions/complete?cc=C1A2B3"
        );
    }
}
