//! Levenshtein distance (Levenshtein 1966) between word sequences, bounded: the miners only
//! need to know whether it is within a maximum, which lets them stop early.

/// The Levenshtein distance of `a` and `b` (insertions, deletions and substitutions of one word
/// each cost 1) when it is at most `max`, else `None`. Only the diagonal band of width
/// 2 * max + 1 of the dynamic-programming table is filled, and a row whose every cell exceeds
/// `max` ends the search.
pub fn bounded_levenshtein<T: PartialEq>(a: &[T], b: &[T], max: u32) -> Option<u32> {
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let k = max as usize;
    if b.len() - a.len() > k {
        return None;
    }
    if a.is_empty() {
        return Some(b.len() as u32);
    }
    let inf = max + 1;
    let width = b.len() + 1;
    let mut prev = vec![inf; width];
    let mut cur = vec![inf; width];
    for (j, cell) in prev.iter_mut().enumerate().take(k.min(b.len()) + 1) {
        *cell = j as u32;
    }
    for i in 1..=a.len() {
        let lo = i.saturating_sub(k).max(1);
        let hi = (i + k).min(b.len());
        cur[lo - 1] = if lo == 1 && i <= k { i as u32 } else { inf };
        let mut row_min = cur[lo - 1];
        for j in lo..=hi {
            let substitution = prev[j - 1] + u32::from(a[i - 1] != b[j - 1]);
            let deletion = prev[j] + 1;
            let insertion = cur[j - 1] + 1;
            let v = substitution.min(deletion).min(insertion).min(inf);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if hi < b.len() {
            cur[hi + 1] = inf;
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

/// The plain O(n m) Levenshtein distance, for tests and the slow reference miner.
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> u32 {
    let mut prev: Vec<u32> = (0..=b.len() as u32).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i as u32; b.len() + 1];
        for j in 1..=b.len() {
            cur[j] = (prev[j - 1] + u32::from(a[i - 1] != b[j - 1]))
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A lower bound of the distance without the table: each word of the longer sequence that the
/// shorter does not hold (as a multiset) costs at least one edit. `a` and `b` are sorted.
pub fn bag_lower_bound(a_sorted: &[u32], b_sorted: &[u32]) -> u32 {
    let (mut i, mut j, mut common) = (0, 0, 0u32);
    while i < a_sorted.len() && j < b_sorted.len() {
        match a_sorted[i].cmp(&b_sorted[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    a_sorted.len().max(b_sorted.len()) as u32 - common
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn known_distances() {
        assert_eq!(levenshtein(&w("a b c"), &w("a b c")), 0);
        assert_eq!(levenshtein(&w("a b c"), &w("a x c")), 1);
        assert_eq!(levenshtein(&w("a b c"), &w("b c")), 1);
        assert_eq!(levenshtein(&w(""), &w("a b")), 2);
        assert_eq!(
            levenshtein(&w("kitten sat on mat"), &w("sitting sat mat")),
            2
        );
        assert_eq!(
            bounded_levenshtein(&w("a b c d"), &w("d c b a"), 12),
            Some(4)
        );
        assert_eq!(bounded_levenshtein(&w("a b c d"), &w("d c b a"), 3), None);
        assert_eq!(bounded_levenshtein(&w("a"), &w("a b c d e"), 3), None);
        assert_eq!(bounded_levenshtein(&w(""), &w("a b"), 2), Some(2));
    }

    #[test]
    fn the_bounded_distance_equals_the_plain_one_within_the_bound() {
        // Every pair of sequences over a 3-word alphabet up to length 6, every bound to 7.
        let mut seqs: Vec<Vec<u8>> = vec![vec![]];
        for len in 1..=6 {
            let mut n = 0u32;
            while n < 3u32.pow(len) {
                let mut x = n;
                seqs.push(
                    (0..len)
                        .map(|_| {
                            let d = (x % 3) as u8;
                            x /= 3;
                            d
                        })
                        .collect(),
                );
                n += 7; // a spread sample of each length
            }
        }
        for a in &seqs {
            for b in &seqs {
                let d = levenshtein(a, b);
                for max in 0..=7 {
                    assert_eq!(
                        bounded_levenshtein(a, b, max),
                        (d <= max).then_some(d),
                        "{a:?} {b:?} {max}"
                    );
                }
                let (mut sa, mut sb): (Vec<u32>, Vec<u32>) = (
                    a.iter().map(|&x| x.into()).collect(),
                    b.iter().map(|&x| x.into()).collect(),
                );
                sa.sort();
                sb.sort();
                assert!(bag_lower_bound(&sa, &sb) <= d);
            }
        }
    }
}
