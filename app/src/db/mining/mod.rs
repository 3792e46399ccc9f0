//! Corpora, mining runs and their candidates.
mod candidate;
mod corpus;
mod run;

pub use candidate::*;
pub use corpus::*;
pub use run::*;
