//! Studies run through crowd platforms: the platforms' link parameters, and why a
//! study link may turn a worker away.
pub mod bonus_files;
pub mod completion;
pub mod pay;
pub mod platform;
pub mod reconcile;
pub mod visit;

use std::fmt;

/// Why opening a study link signs nobody in. Each has its own page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Refusal {
    /// No link has this address.
    UnknownLink,
    /// The platform's parameters are missing or malformed.
    BadParameters,
    /// The researcher paused the link.
    Paused,
    /// The link's deadline has passed.
    Expired,
    /// The link's places are taken.
    Full,
    /// The campaign is not open (a draft, or closed).
    NotOpen,
    /// The platform account was blocked by an admin.
    Blocked,
    /// The browser is logged in with a password account, which a study link does not replace.
    OtherAccount,
    /// The browser is signed in as another participant of a study link, whom a link with
    /// another platform id does not replace.
    OtherParticipant,
}

impl Refusal {
    /// The page's heading.
    pub fn heading(self) -> &'static str {
        match self {
            Refusal::UnknownLink => "This study link does not exist",
            Refusal::BadParameters => "This study link is incomplete",
            Refusal::Paused => "This study is paused",
            Refusal::Expired => "This study has ended",
            Refusal::Full => "This study is full",
            Refusal::NotOpen => "This study is not open",
            Refusal::Blocked => "You cannot take part in this study",
            Refusal::OtherAccount => "You are logged in with another account",
            Refusal::OtherParticipant => "This browser is signed in as another participant",
        }
    }

    /// What the worker can do, in words.
    pub fn advice(self) -> &'static str {
        match self {
            Refusal::UnknownLink => "Check that the whole address was copied, or ask the researcher for the right link.",
            Refusal::BadParameters => "Open the study again from the platform you came from; if that does not help, tell the researcher.",
            Refusal::Paused => "The researcher has paused recruiting. Please try again later, or return the study on your platform.",
            Refusal::Expired => "Its link is no longer accepting anyone. Please return the study on your platform.",
            Refusal::Full => "All places are taken. Please return the study on your platform; you have not been signed up.",
            Refusal::NotOpen => "The researcher has not opened it, or has closed it. Please return the study on your platform.",
            Refusal::Blocked => "Your account for this study was blocked by its organisers.",
            Refusal::OtherAccount => "Log out first, then open the study link again: a study link signs you in with an account of its own.",
            Refusal::OtherParticipant => "This link is for another participant id than the one this browser is working as. If it is yours, log out first, then open it again; the other participant's work is kept.",
        }
    }

    /// The HTTP status of the page that says so.
    pub fn status(self) -> u16 {
        match self {
            Refusal::UnknownLink => 404,
            Refusal::BadParameters => 400,
            Refusal::Expired => 410,
            Refusal::Blocked => 403,
            Refusal::Paused
            | Refusal::Full
            | Refusal::NotOpen
            | Refusal::OtherAccount
            | Refusal::OtherParticipant => 409,
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.heading())
    }
}

/// A study link's address part: 22 random URL-safe characters (from 16 random bytes).
pub fn check_slug(slug: &str) -> bool {
    (16..=64).contains(&slug.len())
        && slug
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The username of a platform worker's account: the platform and 12 hex digits of a random id
/// (their platform id is kept apart, in `platform_account`, not shown in the username).
pub fn platform_username(platform: platform::Platform, random_hex: &str) -> String {
    let prefix = match platform {
        platform::Platform::Prolific => "prolific",
        platform::Platform::Mturk => "mturk",
        platform::Platform::Generic => "link",
    };
    format!("{prefix}-{}", &random_hex[..12.min(random_hex.len())])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Username;

    #[test]
    fn platform_usernames_are_valid_usernames() {
        for p in platform::Platform::ALL {
            let name = platform_username(p, "0123456789abcdef0123");
            assert!(Username::parse(&name).is_ok(), "{name}");
            assert_eq!(name.len(), name.split('-').next().unwrap().len() + 13);
        }
    }

    #[test]
    fn slugs_are_url_safe_and_long_enough() {
        assert!(check_slug("abcdefghijklmnopqrstuv"));
        assert!(!check_slug("short"));
        assert!(!check_slug("abcdefghijklmnop/rstuv"));
    }

    #[test]
    fn every_refusal_says_what_to_do() {
        for r in [
            Refusal::UnknownLink,
            Refusal::BadParameters,
            Refusal::Paused,
            Refusal::Expired,
            Refusal::Full,
            Refusal::NotOpen,
            Refusal::Blocked,
            Refusal::OtherAccount,
            Refusal::OtherParticipant,
        ] {
            assert!(!r.heading().is_empty() && r.advice().ends_with('.'));
            assert!((400..500).contains(&r.status()));
        }
    }
}
