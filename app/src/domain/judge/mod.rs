//! The MultiPIT judging task (Dou et al. 2022, §2.4-2.5) as pure rules: reading sentence pairs,
//! where the hidden test pair goes in each block, the accuracy-and-kappa gate that keeps or stops
//! a worker, and a pair's label from its votes. The database and pages build on these.
pub mod alike;
pub mod confidence;
pub mod gate;
pub mod gate_table;
pub mod harvest;
pub mod labels;
pub mod pair_import;
pub mod replay;
pub mod report;
pub mod rule_text;
pub mod schedule;
pub mod settings;
pub mod settle;
pub mod simulated_study;
pub mod simulation;
pub mod test_pool;
