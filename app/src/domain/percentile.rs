//! The one percentile every page, report and benchmark takes: linear interpolation between the
//! closest ranks (numpy's default, `numpy.percentile(..., method="linear")`), so the median of
//! an even count is the mean of the middle two.

/// The `q`-quantile (0..=1) of `sorted` (ascending); `None` when empty.
pub fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let at = q.clamp(0.0, 1.0) * last as f64;
    let below = at.floor() as usize;
    let above = at.ceil() as usize;
    Some(sorted[below] + (sorted[above] - sorted[below]) * (at - below as f64))
}

/// `values` sorted, NaN last.
pub fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

/// The median of `values` in any order; `None` when empty.
pub fn median(values: Vec<f64>) -> Option<f64> {
    percentile(&sorted(values), 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values numpy.percentile gives for the same inputs.
    #[test]
    fn percentiles_interpolate_between_ranks_as_numpy_does() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), Some(50.5));
        assert!((percentile(&v, 0.95).unwrap() - 95.05).abs() < 1e-9);
        assert!((percentile(&v, 0.99).unwrap() - 99.01).abs() < 1e-9);
        assert_eq!(percentile(&v, 1.0), Some(100.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&[7.0], 0.99), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
        assert!((percentile(&[1.0, 2.0, 3.0, 10.0], 0.9).unwrap() - 7.9).abs() < 1e-9);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(vec![5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(vec![]), None);
    }
}
