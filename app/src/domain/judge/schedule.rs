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
}
