//! Which source sentence a worker gets next. The study drew each sentence at random, first
//! choosing MSRP or PPNMT with equal probability; with more origins we choose uniformly among
//! those that still have sentences this worker has not seen, so no origin is favoured and a
//! worker never gets the same source twice (the caller excludes seen sources).

/// The origin to draw from, given each origin's number of sentences still unseen by the worker
/// and a uniform random number `u` in [0, 1). `None` when the worker has seen everything.
/// Origins are considered in the order given (the caller sorts them for reproducibility).
pub fn choose_origin(unseen_by_origin: &[(String, i64)], u: f64) -> Option<&str> {
    let open: Vec<&str> = unseen_by_origin
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(o, _)| o.as_str())
        .collect();
    if open.is_empty() {
        return None;
    }
    let u = if u.is_finite() {
        u.clamp(0.0, 1.0 - f64::EPSILON)
    } else {
        0.0
    };
    Some(open[(u * open.len() as f64) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origins(list: &[(&str, i64)]) -> Vec<(String, i64)> {
        list.iter().map(|(o, n)| (o.to_string(), *n)).collect()
    }

    #[test]
    fn two_origins_are_chosen_half_and_half_whatever_their_sizes() {
        let o = origins(&[("msrp", 10_000), ("ppnmt", 10)]);
        assert_eq!(choose_origin(&o, 0.0), Some("msrp"));
        assert_eq!(choose_origin(&o, 0.49), Some("msrp"));
        assert_eq!(choose_origin(&o, 0.5), Some("ppnmt"));
        assert_eq!(choose_origin(&o, 0.999_999), Some("ppnmt"));
        let picks = (0..1000)
            .filter(|i| choose_origin(&o, *i as f64 / 1000.0) == Some("msrp"))
            .count();
        assert_eq!(picks, 500);
    }

    #[test]
    fn exhausted_origins_are_skipped_and_none_is_left_at_the_end() {
        let o = origins(&[("msrp", 0), ("ppnmt", 3), ("twitter", 0)]);
        assert_eq!(choose_origin(&o, 0.9), Some("ppnmt"));
        assert_eq!(choose_origin(&origins(&[("msrp", 0)]), 0.3), None);
        assert_eq!(choose_origin(&[], 0.3), None);
    }

    #[test]
    fn three_origins_get_a_third_each_and_bad_randoms_are_clamped() {
        let o = origins(&[("a", 5), ("b", 5), ("c", 5)]);
        assert_eq!(choose_origin(&o, 0.34), Some("b"));
        assert_eq!(choose_origin(&o, 1.0), Some("c"));
        assert_eq!(choose_origin(&o, f64::NAN), Some("a"));
        assert_eq!(choose_origin(&o, -3.0), Some("a"));
    }
}
