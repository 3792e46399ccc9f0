//! The development folder `../shared` (third-party corpora and the development stand-in models),
//! which only a development checkout has beside it, and what a test does when something it
//! needs is not on this machine. Included by path in every test crate, so each finds the folder
//! the same way and every skip reaches the test command's summary.
use std::path::PathBuf;

/// `PARACROWD_SHARED_DIR` when set (`scripts/lib.sh` sets it; CI points it at an empty folder to
/// run the tests as on a user's clone), else `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("PARACROWD_SHARED_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared")),
    }
}

/// Says that `what` did not run and why: on stderr, and as a line appended to the file named by
/// `PARACROWD_SKIP_LOG` (`scripts/test.sh` lists those lines in its summary).
pub fn skipped(what: &str, why: &str) {
    eprintln!("SKIPPED ({what}): {why}");
    if let Some(path) = std::env::var_os("PARACROWD_SKIP_LOG").filter(|p| !p.is_empty()) {
        use std::io::Write;
        if let Ok(mut log) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(log, "{what}: {why}");
        }
    }
}

/// Something `what` needs is missing (`why`): a failure when `PARACROWD_REQUIRE_{requirement}=1`
/// (the test command sets it only where that thing can exist), else a recorded skip.
pub fn missing(requirement: &str, what: &str, why: &str) {
    let var = format!("PARACROWD_REQUIRE_{requirement}");
    if std::env::var(&var).is_ok_and(|v| v == "1") {
        panic!("{what} must run here ({var}=1) but cannot: {why}");
    }
    skipped(what, why);
}

/// A file of `../shared/data` (third-party corpora, never copied into the repository), or
/// `None` after saying why `what` did not run (a failure with `PARACROWD_REQUIRE_DATA=1`, which
/// the test command sets where that folder is).
pub fn data(relative: &str, what: &str) -> Option<String> {
    let path = shared_dir().join("data").join(relative);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            missing(
                "DATA",
                what,
                &format!(
                    "needs {} ({e}), a corpus only a development checkout has beside it",
                    path.display()
                ),
            );
            None
        }
    }
}
