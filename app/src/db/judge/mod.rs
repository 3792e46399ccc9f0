//! Judging tables: settings, pairs, leased assignments, judgments, worker standing and events.
//!
//! Slot accounting: `judge_pair.open_slots` starts at the campaign's judgments per pair; a lease
//! takes a slot, an expired lease gives it back (and a lease given back unused, `unlease`,
//! returns it), a judgment keeps it. `open_slots >= 0` is a
//! check constraint, so no interleaving of requests can give a pair more judgments than it has
//! slots: the database decides.
mod answer;
mod dashboard;
mod gate;
mod judgment;
mod lease;
mod pairs;
mod report;
mod settings;
mod worker;

pub use answer::{answer, stored_answer, AnswerCall, Answered, AnsweredPair};
pub use dashboard::*;
pub use gate::*;
pub use judgment::*;
pub use lease::*;
pub use pairs::*;
pub use report::*;
pub use settings::*;
pub use worker::*;
