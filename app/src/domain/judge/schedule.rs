//! Where the hidden test pair goes: MultiPIT puts one pre-labeled test pair in every five pairs a
//! worker is given, at a random position, so a worker cannot tell which one it is.

/// Whether the pair served as number `served` (0-based, counted per worker) is the block's test
/// pair, given the block size `every` and the test's position in the current block.
/// `every = 0` means no test pairs.
pub fn is_test_slot(served: u32, every: u32, test_position: u32) -> bool {
    every > 0 && served % every == test_position % every
}

/// Whether `served` starts a new block (a new random test position must be drawn first).
pub fn starts_block(served: u32, every: u32) -> bool {
    every > 0 && served.is_multiple_of(every)
}

/// A test position for a new block from a uniform random number `r` in `[0, 1)`.
pub fn test_position(every: u32, r: f64) -> u32 {
    if every == 0 {
        return 0;
    }
    ((r.clamp(0.0, 1.0 - f64::EPSILON) * every as f64) as u32).min(every - 1)
}

/// At most this many test pairs are in the window a test lease draws from; it bounds the
/// ordinary window, and so the rows each lease reads.
pub const TEST_WINDOW_MAX: u32 = 100;

/// Which pairs a lease draws from, at random and afresh for each lease, among those the worker
/// has not seen. Ordinary pairs: the first [`ServingWindows::ordinary`] pairs with a free slot by
/// `sort_key` (the ones that most need judgments, so pairs still complete). Test pairs: the first
/// [`ServingWindows::test_window`] by (round, `sort_key`), where a test pair's round goes up after
/// every `judgments_per_pair` servings. Both windows are the same for every worker at a time; a
/// worker who has seen all of one gets the first unseen pair after it.
///
/// Why: two workers who work at the same time can compare their lists. A worker gets
/// `every − 1` ordinary pairs per test pair, and the crowd fills the ordinary window's pairs
/// (`judgments_per_pair` each) and moves it on as it goes. The test window is built the same
/// way, `every − 1` times smaller, its pairs "filled" after as many servings, so it moves on
/// through the pool at the same pace relative to its size; it is half the pool so that it has
/// room to move. Then a pair one worker saw is in the other's list, or at the same place in it,
/// as often for a test pair as for an ordinary one, whatever the crowd's size: comparing notes
/// tells them nothing. Served in one order for everyone (as before), every pair two workers
/// shared was an ordinary one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServingWindows {
    /// The test window's size bound.
    pub test: u32,
    /// Ordinary pairs in the window per test pair in the test window.
    pub ordinary_per_test_pair: u32,
}

impl ServingWindows {
    /// The windows for one test pair in every `every`.
    pub fn for_schedule(every: u32) -> Self {
        Self {
            test: TEST_WINDOW_MAX,
            ordinary_per_test_pair: every.saturating_sub(1),
        }
    }

    /// The test window's size for a pool of `test_pool`: half of it, at most `test`. The lease
    /// statements (`db::judge::lease_test_pair`, `lease_pair`) compute the same in SQL.
    pub fn test_window(self, test_pool: u32) -> u32 {
        (test_pool / 2).max(1).min(self.test)
    }

    /// The ordinary window's size for a campaign with `test_pool` test pairs: one pair when there
    /// are no test pairs to hide (the pair that most needs judgments).
    pub fn ordinary(self, test_pool: u32) -> u32 {
        if test_pool == 0 {
            return 1;
        }
        (self.ordinary_per_test_pair * self.test_window(test_pool)).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_test_in_every_block_at_its_drawn_position() {
        let every = 5;
        // Blocks drawn at positions 3, 0, 4.
        let positions = [3, 0, 4];
        let tests: Vec<u32> = (0..15)
            .filter(|&s| is_test_slot(s, every, positions[(s / every) as usize]))
            .collect();
        assert_eq!(tests, [3, 5, 14]);
        assert!(starts_block(0, 5) && starts_block(10, 5) && !starts_block(7, 5));
    }

    #[test]
    fn no_tests_when_disabled() {
        assert!(!is_test_slot(0, 0, 0));
        assert!(!starts_block(0, 0));
        assert_eq!(test_position(0, 0.7), 0);
    }

    #[test]
    fn positions_cover_the_block_uniformly() {
        assert_eq!(test_position(5, 0.0), 0);
        assert_eq!(test_position(5, 0.19999), 0);
        assert_eq!(test_position(5, 0.2), 1);
        assert_eq!(test_position(5, 0.99999999), 4);
        assert_eq!(test_position(5, 1.0), 4);
    }

    #[test]
    fn the_ordinary_window_holds_every_minus_one_pairs_per_test_pair() {
        let w = ServingWindows::for_schedule(5);
        assert_eq!((w.test_window(20), w.ordinary(20)), (10, 40));
        assert_eq!((w.test_window(1), w.ordinary(1)), (1, 4));
        assert_eq!(w.ordinary(3 * TEST_WINDOW_MAX), 4 * TEST_WINDOW_MAX);
        // Nothing to hide: the pair that most needs judgments.
        assert_eq!(w.ordinary(0), 1);
        assert_eq!(ServingWindows::for_schedule(0).ordinary(10), 1);
        assert_eq!(ServingWindows::for_schedule(1).ordinary(10), 1);
    }
}
