//! The one error a domain check returns: which field breaks a rule, and what to tell the
//! person who filled it in. The server answers it as a validation error on that field.
use std::fmt;

/// A value that breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The form field (or parameter) at fault.
    pub field: &'static str,
    /// What is wrong, in words for the person who typed it.
    pub message: String,
}

impl Invalid {
    /// `field` breaks a rule, explained by `message`.
    pub fn new(field: &'static str, message: impl Into<String>) -> Self {
        Invalid {
            field,
            message: message.into(),
        }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for Invalid {}
