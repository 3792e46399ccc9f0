//! Accounts: usernames, passwords, roles and statuses, parsed at the edge.
use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a username or password was refused. Messages are shown to the user as they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountError {
    /// The username is too short or too long.
    #[error("Choose a username of {min} to {max} characters.")]
    UsernameLength {
        /// Fewest characters allowed.
        min: usize,
        /// Most characters allowed.
        max: usize,
    },
    /// The username has a character other than letters, digits, `.`, `_` and `-`.
    #[error("A username may contain only letters, digits, '.', '_' and '-'.")]
    UsernameCharacters,
    /// The password is too short.
    #[error("Choose a password of at least {min} characters.")]
    PasswordTooShort {
        /// Fewest characters allowed.
        min: usize,
    },
    /// The password is too long.
    #[error("A password may be at most {max} characters long.")]
    PasswordTooLong {
        /// Most characters allowed.
        max: usize,
    },
    /// The password is one a guesser would try early (a common password, a keyboard run, a
    /// repeat, the username).
    #[error("This password is too easy to guess{reason}. {advice}")]
    PasswordTooGuessable {
        /// Why, starting with ": " (empty when the estimator gives no reason).
        reason: String,
        /// What to do instead.
        advice: String,
    },
    /// The password and its confirmation differ.
    #[error("The two passwords differ.")]
    PasswordMismatch,
    /// A role name that is not one of ours.
    #[error("Unknown role '{0}'.")]
    UnknownRole(String),
}

/// A login name: 3-32 ASCII letters, digits, `.`, `_` or `-`, compared by its canonical form
/// ([`Username::canonical`]; the database enforces uniqueness on it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Username(String);

impl Username {
    /// Shortest username, in characters.
    pub const MIN_CHARS: usize = 3;
    /// Longest username, in characters.
    pub const MAX_CHARS: usize = 32;

    /// Trims surrounding whitespace, applies Unicode NFKC (so a full-width `ｖｉｃｋｉ` is `vicki`)
    /// and checks length and characters.
    pub fn parse(raw: &str) -> Result<Self, AccountError> {
        use unicode_normalization::UnicodeNormalization;
        let name: String = raw.trim().nfkc().collect();
        let name = name.trim();
        let len = name.chars().count();
        if !(Self::MIN_CHARS..=Self::MAX_CHARS).contains(&len) {
            return Err(AccountError::UsernameLength {
                min: Self::MIN_CHARS,
                max: Self::MAX_CHARS,
            });
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        {
            return Err(AccountError::UsernameCharacters);
        }
        Ok(Self(name.to_owned()))
    }

    /// The username as typed (trimmed, NFKC), case kept.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form usernames are compared, looked up and throttled by: NFKC, then case folding.
    /// A username is ASCII, where case folding is lower-casing, so this equals PostgreSQL's
    /// `lower(username)` (the unique index).
    pub fn canonical(&self) -> String {
        self.0.to_ascii_lowercase()
    }

    /// The canonical form of whatever was typed into a login form: [`Username::canonical`] for
    /// a possible username; for anything else, its NFKC case-folded text (which no account has:
    /// `vİcki` folds to `vi̇cki`, not to `vicki`). Failed logins are counted under this key.
    pub fn login_key(raw: &str) -> (String, Option<Username>) {
        match Self::parse(raw) {
            Ok(name) => (name.canonical(), Some(name)),
            Err(_) => {
                use unicode_normalization::UnicodeNormalization;
                let folded: String = raw.trim().nfkc().collect::<String>().to_lowercase();
                (folded.nfkc().collect(), None)
            }
        }
    }
}

impl fmt::Display for Username {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A new password: 8 to 256 characters (the upper bound keeps argon2's input and the request
/// small; it is not a strength rule). Never serialised and never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// Shortest password, in characters.
    pub const MIN_CHARS: usize = 8;
    /// Longest password, in characters.
    pub const MAX_CHARS: usize = 256;

    /// Checks a new password and its confirmation.
    pub fn parse_new(raw: &str, confirmation: &str) -> Result<Self, AccountError> {
        let len = raw.chars().count();
        if len < Self::MIN_CHARS {
            return Err(AccountError::PasswordTooShort {
                min: Self::MIN_CHARS,
            });
        }
        if len > Self::MAX_CHARS {
            return Err(AccountError::PasswordTooLong {
                max: Self::MAX_CHARS,
            });
        }
        if raw != confirmation {
            return Err(AccountError::PasswordMismatch);
        }
        Ok(Self(raw.to_owned()))
    }

    /// The password's text, for hashing; never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

#[cfg(feature = "ssr")]
impl Password {
    /// Fewest guesses a password must take by zxcvbn's estimate: 10^6, its score 2 ("somewhat
    /// guessable: protection from unthrottled online attacks"). Refuses the common passwords
    /// (`12345678`, `password`), repeats (eight spaces), keyboard runs and the user's own name.
    pub const MIN_SCORE: u8 = 2;
    /// Only this many leading characters are estimated (zxcvbn's cost grows with length; a
    /// password whose first 100 characters are strong is strong).
    const ESTIMATED_CHARS: usize = 100;

    /// Refuses a password a guesser would try early; `user_inputs` are words from the account
    /// (its username) that a guesser would also try.
    pub fn check_not_guessable(&self, user_inputs: &[&str]) -> Result<(), AccountError> {
        let head: String = self.0.chars().take(Self::ESTIMATED_CHARS).collect();
        let mut inputs = user_inputs.to_vec();
        inputs.push("paracrowd");
        let estimate = zxcvbn::zxcvbn(&head, &inputs);
        if estimate.score() as u8 >= Self::MIN_SCORE {
            return Ok(());
        }
        let feedback = estimate.feedback();
        let reason = feedback
            .and_then(|f| f.warning())
            .map(|w| format!(": {}", w.to_string().trim_end_matches('.').to_lowercase()))
            .unwrap_or_default();
        let advice = feedback
            .and_then(|f| f.suggestions().first())
            .map(|s| s.to_string())
            .unwrap_or_else(|| "Add another word or two; uncommon words are better.".to_owned());
        Err(AccountError::PasswordTooGuessable { reason, advice })
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// What a user may do. Annotators work on campaigns; researchers also read study statistics;
/// admins also manage users, campaigns, corpora and exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(sqlx::Type))]
#[cfg_attr(feature = "ssr", sqlx(type_name = "text", rename_all = "lowercase"))]
pub enum Role {
    /// Works on the campaigns open to them.
    Annotator,
    /// Also reads study statistics and dashboards.
    Researcher,
    /// Also manages users, campaigns, corpora and exports.
    Admin,
}

impl Role {
    /// Every role, least to most privileged.
    pub const ALL: [Role; 3] = [Role::Annotator, Role::Researcher, Role::Admin];

    /// The name stored in the database and sent in forms.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Annotator => "annotator",
            Role::Researcher => "researcher",
            Role::Admin => "admin",
        }
    }

    /// The role named `raw` (surrounding blanks ignored).
    pub fn parse(raw: &str) -> Result<Self, AccountError> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == raw.trim())
            .ok_or_else(|| AccountError::UnknownRole(raw.to_owned()))
    }

    /// Researchers' pages (statistics, dashboards) are open to researchers and admins.
    pub fn can_read_studies(self) -> bool {
        matches!(self, Role::Researcher | Role::Admin)
    }

    /// Whether the user may manage users, campaigns, corpora and exports.
    pub fn is_admin(self) -> bool {
        self == Role::Admin
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether an account may log in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(sqlx::Type))]
#[cfg_attr(feature = "ssr", sqlx(type_name = "text", rename_all = "lowercase"))]
pub enum UserStatus {
    /// May log in.
    Active,
    /// Blocked by an admin; may not log in.
    Blocked,
}

impl UserStatus {
    /// The name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            UserStatus::Active => "active",
            UserStatus::Blocked => "blocked",
        }
    }

    /// Statuses come from the database's check constraint; anything else is treated as blocked.
    pub fn from_db(raw: &str) -> Self {
        if raw == "active" {
            UserStatus::Active
        } else {
            UserStatus::Blocked
        }
    }
}

/// A worker's stable pseudonym in reports and exports: `W` and the first 8 hex digits of the
/// account id (researchers can tell workers apart without learning who they are).
pub fn pseudonym(id: &super::UserId) -> String {
    format!("W{}", &id.0.simple().to_string()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_username_is_trimmed_and_kept_as_typed() {
        assert_eq!(
            Username::parse("  Ada_L.ove-1 ").unwrap().as_str(),
            "Ada_L.ove-1"
        );
    }

    #[test]
    fn usernames_outside_the_length_bounds_are_refused() {
        assert!(matches!(
            Username::parse("ab"),
            Err(AccountError::UsernameLength { .. })
        ));
        assert!(Username::parse("abc").is_ok());
        assert!(Username::parse(&"a".repeat(32)).is_ok());
        assert!(Username::parse(&"a".repeat(33)).is_err());
        assert!(Username::parse("   ").is_err());
    }

    #[test]
    fn usernames_with_spaces_markup_or_non_ascii_are_refused() {
        for bad in [
            "a b c",
            "<script>",
            "name'--",
            "ünïcode",
            "emoji😀x",
            "a\0bc",
        ] {
            assert_eq!(
                Username::parse(bad),
                Err(AccountError::UsernameCharacters),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn usernames_are_compared_by_their_nfkc_case_folded_form() {
        // Full-width letters are the same name; case does not matter.
        let wide = Username::parse("ｖｉｃｋｉ").unwrap();
        assert_eq!(wide.as_str(), "vicki");
        assert_eq!(Username::parse("VicKi").unwrap().canonical(), "vicki");
        assert_eq!(Username::login_key(" VICKI ").0, "vicki");
        assert_eq!(Username::login_key("ｖｉｃｋｉ").0, "vicki");
        // A dotted capital I folds to i + combining dot, which is no username: it cannot log in
        // as vicki, and it is counted under its own key.
        let (key, name) = Username::login_key("vİcki");
        assert_eq!(name, None);
        assert_ne!(key, "vicki");
        assert_eq!(key, "vi\u{307}cki");
        // Another script's look-alike letters are not ASCII either.
        assert_eq!(Username::login_key("vіcki").1, None); // Cyrillic і
    }

    #[test]
    fn passwords_are_bounded_and_must_match_their_confirmation() {
        assert_eq!(
            Password::parse_new("short", "short"),
            Err(AccountError::PasswordTooShort { min: 8 })
        );
        let long = "x".repeat(257);
        assert_eq!(
            Password::parse_new(&long, &long),
            Err(AccountError::PasswordTooLong { max: 256 })
        );
        assert_eq!(
            Password::parse_new("long enough", "long enougH"),
            Err(AccountError::PasswordMismatch)
        );
        assert_eq!(
            Password::parse_new("long enough", "long enough")
                .unwrap()
                .expose(),
            "long enough"
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn common_repeated_and_own_name_passwords_are_refused_with_advice() {
        let check = |p: &str, name: &str| {
            Password::parse_new(p, p)
                .unwrap()
                .check_not_guessable(&[name])
        };
        for weak in [
            "12345678",
            "password",
            "        ",
            "qwertyuiop",
            "P@ssword1",
            "iloveyou123",
            "paracrowd2026",
        ] {
            let err = check(weak, "someone").unwrap_err();
            assert!(
                matches!(err, AccountError::PasswordTooGuessable { .. }),
                "{weak:?}: {err:?}"
            );
            let message = err.to_string();
            assert!(
                message.starts_with("This password is too easy to guess"),
                "{message}"
            );
            assert!(
                message.len() > "This password is too easy to guess. ".len(),
                "{message}"
            );
        }
        // The account's own name is one of the first guesses.
        assert!(check("maria.lopez1", "maria.lopez").is_err());
        assert!(check("maria.lopez1", "someone-else").is_ok());
        for strong in [
            "correct horse battery",
            "a long enough password",
            "tr0ub4dor&3",
        ] {
            assert_eq!(check(strong, "someone"), Ok(()), "{strong:?}");
        }
        // Only the first 100 characters are estimated: a long weak run is still refused.
        assert!(check(&"a".repeat(256), "someone").is_err());
    }

    #[test]
    fn a_password_never_appears_in_debug_output() {
        let p = Password::parse_new("hunter2hunter2", "hunter2hunter2").unwrap();
        assert!(!format!("{p:?}").contains("hunter2"));
    }

    #[test]
    fn roles_round_trip_through_their_names() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()).unwrap(), role);
        }
        assert!(Role::parse("root").is_err());
        assert!(Role::Admin.can_read_studies() && Role::Researcher.can_read_studies());
        assert!(!Role::Annotator.can_read_studies());
    }

    #[test]
    fn an_unknown_status_counts_as_blocked() {
        assert_eq!(UserStatus::from_db("active"), UserStatus::Active);
        assert_eq!(UserStatus::from_db("blocked"), UserStatus::Blocked);
        assert_eq!(UserStatus::from_db("weird"), UserStatus::Blocked);
    }
}
