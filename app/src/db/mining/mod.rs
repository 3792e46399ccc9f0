//! Corpora, mining runs and their candidates.
mod candidate;
mod corpus;
mod outbox;
mod run;

pub use candidate::*;
pub use corpus::*;
pub use outbox::*;
pub use run::*;
