//! Dataset export (issue #8), the pure parts: train/dev/test splits that never leak a group
//! across parts ([`split`]) and the file formats researchers load at once ([`format`]).
pub mod format;
pub mod split;
