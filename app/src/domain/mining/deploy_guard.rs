//! Deploying mined candidates to a judging campaign is not undone lightly (workers start on the
//! pairs at once), so a large deploy is confirmed first with the number it will add ("All"
//! of 229,352 candidates once went in with one click). The confirmation carries the
//! count the admin was shown: a selection that has changed since asks again.

/// Deploying more than this many candidates at once needs a confirmation.
pub const CONFIRM_ABOVE: usize = 1_000;

/// Whether deploying `selected` candidates must first be confirmed; `confirmed` is the count the
/// admin confirmed, if any.
pub fn needs_confirmation(selected: usize, confirmed: Option<u64>) -> bool {
    selected > CONFIRM_ABOVE && confirmed != Some(selected as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_deploy_is_confirmed_with_its_own_count() {
        assert!(needs_confirmation(229_352, None));
        assert!(!needs_confirmation(229_352, Some(229_352)));
        assert!(
            needs_confirmation(229_352, Some(1_225)),
            "a count confirmed for another selection"
        );
        assert!(!needs_confirmation(CONFIRM_ABOVE, None));
        assert!(needs_confirmation(CONFIRM_ABOVE + 1, None));
    }
}
