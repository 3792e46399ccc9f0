//! The Adversarial Paraphrasing Task (Nighojkar & Licato 2021, §3.1) as pure rules: reading
//! source sentences, choosing the next one, paying within the cap, the paper's Table 2 and
//! Figure 2 (the split by source sentence is `domain::export::split`). The database and pages
//! build on these.
pub mod attempt;
pub mod budget;
pub mod chart;
pub mod serving;
pub mod source_import;
pub mod stats;
