//! Dataset export, the pure parts: what an export asks for ([`spec`]), train/dev/test
//! splits that never leak a group across parts ([`split`]), Dawid-Skene labels ([`labels`]),
//! the file formats researchers load at once ([`format`]) and a dataset's statistics as the
//! papers report them ([`stats`]).
pub mod format;
pub mod labels;
pub mod spec;
pub mod split;
pub mod stats;
