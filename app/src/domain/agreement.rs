//! Agreement between annotators on binary labels ("paraphrase" or not). Pure functions; an
//! undefined value is `None`, never NaN or 0.

/// Cohen's kappa between two raters over the same items (Cohen 1960):
/// `k = (p_o - p_e) / (1 - p_e)`, where `p_o` is the observed agreement and `p_e` the agreement
/// expected from each rater's own label rates, `p_e = p_a(1) p_b(1) + p_a(0) p_b(0)`.
///
/// `None` when there are no items or `p_e = 1` (both raters gave one and the same label to
/// everything: agreement is perfect but carries no information). As scikit-learn's
/// `cohen_kappa_score`, one constant rater against a varying one gives 0.
pub fn cohen_kappa(pairs: &[(bool, bool)]) -> Option<f64> {
    let mut table = [[0u64; 2]; 2];
    for &(a, b) in pairs {
        table[usize::from(a)][usize::from(b)] += 1;
    }
    cohen_kappa_2x2(table)
}

/// [`cohen_kappa`] from the 2×2 table of the two raters' labels: `table[a][b]` counts the items
/// rater one labelled `a` and rater two `b` (index 1 is `true`). The same arithmetic, so the
/// same value to the last bit; what a running count of the table (the quality gate's) needs.
pub fn cohen_kappa_2x2(table: [[u64; 2]; 2]) -> Option<f64> {
    let total = table[0][0] + table[0][1] + table[1][0] + table[1][1];
    if total == 0 {
        return None;
    }
    let n = total as f64;
    let agree = (table[0][0] + table[1][1]) as f64;
    let a1 = (table[1][0] + table[1][1]) as f64 / n;
    let b1 = (table[0][1] + table[1][1]) as f64 / n;
    let p_o = agree / n;
    let p_e = a1 * b1 + (1.0 - a1) * (1.0 - b1);
    if (1.0 - p_e).abs() < 1e-12 {
        return None;
    }
    Some((p_o - p_e) / (1.0 - p_e))
}

/// The large-sample standard error of [`cohen_kappa_2x2`] when kappa is not 0 (Fleiss, Cohen
/// & Everitt 1969), as statsmodels' `cohens_kappa(...).std_kappa` computes it. `None` where
/// kappa is undefined.
pub fn cohen_kappa_se_2x2(table: [[u64; 2]; 2]) -> Option<f64> {
    let kappa = cohen_kappa_2x2(table)?;
    let n = (table[0][0] + table[0][1] + table[1][0] + table[1][1]) as f64;
    let p = |i: usize, j: usize| table[i][j] as f64 / n;
    Some(fce_se([[p(0, 0), p(0, 1)], [p(1, 0), p(1, 1)]], kappa, n))
}

/// The standard error [`cohen_kappa_se_2x2`] gives on the table kappa would have if it were
/// `kappa0`, the margins as observed: the variance under the hypothesis kappa = `kappa0`, for
/// testing it (at `kappa0` = the table's own kappa, the same as [`cohen_kappa_se_2x2`]). `None`
/// where kappa is undefined, or no table with these margins has kappa `kappa0`.
pub fn cohen_kappa_se_at(table: [[u64; 2]; 2], kappa0: f64) -> Option<f64> {
    cohen_kappa_2x2(table)?;
    let n = (table[0][0] + table[0][1] + table[1][0] + table[1][1]) as f64;
    let row1 = (table[1][0] + table[1][1]) as f64 / n;
    let col1 = (table[0][1] + table[1][1]) as f64 / n;
    let p_e = row1 * col1 + (1.0 - row1) * (1.0 - col1);
    // Agreement at kappa0; the margins then fix every cell.
    let p_o = p_e + kappa0 * (1.0 - p_e);
    let p11 = (p_o - 1.0 + row1 + col1) / 2.0;
    let cells = [[p_o - p11, col1 - p11], [row1 - p11, p11]];
    if cells.iter().flatten().any(|&c| c < -1e-12) {
        return None;
    }
    let cells = cells.map(|r| r.map(|c| c.max(0.0)));
    Some(fce_se(cells, kappa0, n))
}

/// Fleiss, Cohen & Everitt's large-sample standard error of kappa on cell shares `p`
/// (`p[i][j]`: rater one `i`, rater two `j`) at `kappa`, over `n` items.
fn fce_se(p: [[f64; 2]; 2], kappa: f64, n: f64) -> f64 {
    let row = [p[0][0] + p[0][1], p[1][0] + p[1][1]];
    let col = [p[0][0] + p[1][0], p[0][1] + p[1][1]];
    let p_e = row[0] * col[0] + row[1] * col[1];
    let mut a = 0.0;
    let mut b = 0.0;
    for i in 0..2 {
        a += p[i][i] * (1.0 - (row[i] + col[i]) * (1.0 - kappa)).powi(2);
        // The one cell off the diagonal in row i.
        let j = 1 - i;
        b += p[i][j] * (col[i] + row[j]).powi(2);
    }
    let b = (1.0 - kappa).powi(2) * b;
    let c = (kappa - p_e * (1.0 - kappa)).powi(2);
    let var = (a + b - c) / (1.0 - p_e).powi(2) / n;
    var.max(0.0).sqrt()
}

/// The majority label of `votes` (true = paraphrase); `None` for no votes or a tie.
pub fn majority(votes: impl IntoIterator<Item = bool>) -> Option<bool> {
    let (mut yes, mut no) = (0usize, 0usize);
    for v in votes {
        if v {
            yes += 1;
        } else {
            no += 1;
        }
    }
    match yes.cmp(&no) {
        std::cmp::Ordering::Greater => Some(true),
        std::cmp::Ordering::Less => Some(false),
        std::cmp::Ordering::Equal => None,
    }
}

/// Fleiss' kappa (Fleiss 1971) over items that each have the same number of ratings `n >= 2`;
/// `table[i][c]` counts the ratings of item `i` in category `c`. As statsmodels'
/// `fleiss_kappa(table, method="fleiss")`:
/// `p_c = sum_i n_ic / (N n)`, `P_i = (sum_c n_ic^2 - n) / (n (n - 1))`,
/// `kappa = (mean P_i - sum_c p_c^2) / (1 - sum_c p_c^2)`.
///
/// `None` for no items, unequal or fewer than 2 ratings per item, or when every rating is the
/// same category (`sum p_c^2 = 1`).
pub fn fleiss_kappa(table: &[Vec<u32>]) -> Option<f64> {
    let n = table.first()?.iter().sum::<u32>();
    if n < 2 || table.iter().any(|row| row.iter().sum::<u32>() != n) {
        return None;
    }
    let (items, n) = (table.len() as f64, f64::from(n));
    let k = table.iter().map(Vec::len).max()?;
    let mut p_c = vec![0.0; k];
    let mut p_bar = 0.0;
    for row in table {
        let mut sq = 0.0;
        for (c, &x) in row.iter().enumerate() {
            let x = f64::from(x);
            p_c[c] += x;
            sq += x * x;
        }
        p_bar += (sq - n) / (n * (n - 1.0));
    }
    p_bar /= items;
    let p_e: f64 = p_c.iter().map(|t| (t / (items * n)).powi(2)).sum();
    if (1.0 - p_e).abs() < 1e-15 {
        return None;
    }
    Some((p_bar - p_e) / (1.0 - p_e))
}

/// Krippendorff's alpha for nominal data (Krippendorff 2011, "Computing Krippendorff's
/// alpha-reliability"), from each unit's counts per value; units may have any number of ratings
/// and those with fewer than 2 are not pairable and are left out. As the `krippendorff`
/// package's `alpha(value_counts=..., level_of_measurement="nominal")`:
/// coincidences `o_ck = sum_u n_uc (n_uk - [c = k]) / (m_u - 1)`, `n_c = sum_k o_ck`,
/// `alpha = 1 - (n - 1) sum_{c != k} o_ck / sum_{c != k} n_c n_k`.
///
/// `None` when fewer than 2 pairable values or no variation at all (expected disagreement 0).
pub fn krippendorff_alpha_nominal(value_counts: &[Vec<u32>]) -> Option<f64> {
    let k = value_counts.iter().map(Vec::len).max()?;
    let mut o = vec![vec![0.0f64; k]; k];
    for row in value_counts {
        let m: u32 = row.iter().sum();
        if m < 2 {
            continue;
        }
        let m = f64::from(m);
        for c in 0..row.len() {
            for d in 0..row.len() {
                let (x, y) = (f64::from(row[c]), f64::from(row[d]));
                o[c][d] += x * if c == d { y - 1.0 } else { y } / (m - 1.0);
            }
        }
    }
    let n_c: Vec<f64> = o.iter().map(|r| r.iter().sum()).collect();
    let n: f64 = n_c.iter().sum();
    if n < 2.0 {
        return None;
    }
    let (mut observed, mut expected) = (0.0, 0.0);
    for c in 0..k {
        for d in 0..k {
            if c != d {
                observed += o[c][d];
                expected += n_c[c] * n_c[d];
            }
        }
    }
    if expected <= 0.0 {
        return None;
    }
    Some(1.0 - (n - 1.0) * observed / expected)
}

/// Gwet's AC1 for any number of raters per item (Gwet 2008, "Computing inter-rater reliability
/// and its variance in the presence of high agreement"), as `irrCAC`'s `CAC.gwet()` with
/// identity weights: over items with `r_i >= 2` ratings,
/// `p_a = mean_i sum_c r_ic (r_ic - 1) / (r_i (r_i - 1))`; over all rated items,
/// `pi_c = mean_i r_ic / r_i`; `p_e = sum_c pi_c (1 - pi_c) / (q - 1)` with `q` categories;
/// `AC1 = (p_a - p_e) / (1 - p_e)`. Unlike kappa it stays high when one label dominates.
///
/// `None` for fewer than 2 categories or no item with 2 ratings.
pub fn gwet_ac1(table: &[Vec<u32>], categories: usize) -> Option<f64> {
    if categories < 2 {
        return None;
    }
    let (mut pa, mut n2) = (0.0, 0usize);
    let mut pi = vec![0.0; categories];
    let mut rated = 0usize;
    for row in table {
        let r: u32 = row.iter().sum();
        if r == 0 {
            continue;
        }
        rated += 1;
        let rf = f64::from(r);
        for (c, &x) in row.iter().enumerate().take(categories) {
            pi[c] += f64::from(x) / rf;
        }
        if r >= 2 {
            n2 += 1;
            let agree: f64 = row
                .iter()
                .map(|&x| f64::from(x) * (f64::from(x) - 1.0))
                .sum();
            pa += agree / (rf * (rf - 1.0));
        }
    }
    if n2 == 0 {
        return None;
    }
    pa /= n2 as f64;
    let pe: f64 = pi
        .iter()
        .map(|p| {
            let p = p / rated as f64;
            p * (1.0 - p)
        })
        .sum::<f64>()
        / (categories as f64 - 1.0);
    Some((pa - pe) / (1.0 - pe))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_error_at_a_hypothesis_keeps_the_margins() {
        let table = [[30, 12], [9, 49]];
        let k = cohen_kappa_2x2(table).unwrap();
        // At the table's own kappa: the table's own cells, the same error.
        let own = cohen_kappa_se_at(table, k).unwrap();
        assert!((own - cohen_kappa_se_2x2(table).unwrap()).abs() < 1e-12);
        // At another kappa: other cells, another error, and none where the margins cannot
        // give that kappa (one rater says "yes" to 95%, the other to 5%: not kappa 0.9).
        let at = cohen_kappa_se_at(table, 0.2).unwrap();
        assert!(at > 0.0 && (at - own).abs() > 1e-3, "{at} {own}");
        assert_eq!(cohen_kappa_se_at([[5, 90], [0, 5]], 0.9), None);
        assert_eq!(cohen_kappa_se_at([[0, 0], [0, 40]], 0.2), None);
    }

    #[test]
    fn kappas_standard_error_equals_statsmodels() {
        // statsmodels 0.15.0 `cohens_kappa(np.array(table))`: `.kappa`, `.std_kappa`.
        let cases = [
            (
                [[20, 5], [3, 12]],
                0.584_415_584_415_584_5,
                0.130_205_707_073_055_87,
            ),
            (
                [[40, 1], [2, 7]],
                0.787_535_410_764_872_3,
                0.117_518_248_809_015_14,
            ),
            (
                [[6, 5], [5, 6]],
                0.090_909_090_909_090_83,
                0.212_317_893_862_233_54,
            ),
        ];
        for (table, kappa, se) in cases {
            let got = cohen_kappa_2x2(table).unwrap();
            assert!((got - kappa).abs() < 1e-12, "{table:?}: {got}");
            let got = cohen_kappa_se_2x2(table).unwrap();
            assert!((got - se).abs() < 1e-12, "{table:?}: {got}");
        }
        assert_eq!(cohen_kappa_se_2x2([[0, 0], [0, 0]]), None);
    }

    fn rows(spec: &[(u8, u8, usize)]) -> Vec<(bool, bool)> {
        spec.iter()
            .flat_map(|&(a, b, n)| std::iter::repeat_n((a == 1, b == 1), n))
            .collect()
    }

    #[test]
    fn kappa_matches_a_hand_computed_table() {
        // 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7,
        // p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4.
        let k = cohen_kappa(&rows(&[(1, 1, 20), (1, 0, 5), (0, 1, 10), (0, 0, 15)])).unwrap();
        assert!((k - 0.4).abs() < 1e-12, "{k}");
    }

    #[test]
    fn perfect_opposite_and_chance_agreement() {
        assert_eq!(cohen_kappa(&rows(&[(1, 1, 3), (0, 0, 2)])), Some(1.0));
        assert_eq!(cohen_kappa(&rows(&[(1, 0, 3), (0, 1, 3)])), Some(-1.0));
        let k = cohen_kappa(&rows(&[(1, 1, 1), (1, 0, 1), (0, 1, 1), (0, 0, 1)])).unwrap();
        assert!(k.abs() < 1e-12);
    }

    #[test]
    fn constant_raters() {
        // One constant rater against a varying one: p_o = p_e, kappa 0 (as scikit-learn).
        assert_eq!(cohen_kappa(&rows(&[(1, 1, 3), (1, 0, 2)])), Some(0.0));
        // Both constant and equal: undefined.
        assert_eq!(cohen_kappa(&rows(&[(1, 1, 5)])), None);
        assert_eq!(cohen_kappa(&[]), None);
    }

    #[test]
    fn majority_and_ties() {
        assert_eq!(majority([true, true, false]), Some(true));
        assert_eq!(majority([false, true, false]), Some(false));
        assert_eq!(majority([true, false]), None);
        assert_eq!(majority([]), None);
    }

    /// The property tests' seeded draws (`domain::rng`).
    struct Rng(crate::domain::rng::SplitMix64);
    impl Rng {
        fn new(seed: u64) -> Self {
            Self(crate::domain::rng::SplitMix64::new(seed))
        }
        fn below(&mut self, n: u64) -> u64 {
            self.0.below(n)
        }
    }

    #[test]
    fn kappa_properties_hold_on_random_raters() {
        let mut rng = Rng::new(0x1234_5678_9abc_def1);
        for _ in 0..2000 {
            let n = 1 + rng.below(40) as usize;
            let bias = rng.below(100);
            let pairs: Vec<(bool, bool)> = (0..n)
                .map(|_| (rng.below(100) < bias, rng.below(100) < 50))
                .collect();
            let k = cohen_kappa(&pairs);
            // Symmetric.
            let swapped: Vec<(bool, bool)> = pairs.iter().map(|&(a, b)| (b, a)).collect();
            assert_eq!(
                k.map(|x| (x * 1e12).round()),
                cohen_kappa(&swapped).map(|x| (x * 1e12).round())
            );
            // Unchanged when the labels are renamed.
            let renamed: Vec<(bool, bool)> = pairs.iter().map(|&(a, b)| (!a, !b)).collect();
            match (k, cohen_kappa(&renamed)) {
                (Some(x), Some(y)) => assert!((x - y).abs() < 1e-12),
                (x, y) => assert_eq!(x, y),
            }
            // Within [-1, 1].
            if let Some(x) = k {
                assert!((-1.0 - 1e-12..=1.0 + 1e-12).contains(&x), "{x}");
            }
            // 1 for identical raters unless constant (then undefined).
            let same: Vec<(bool, bool)> = pairs.iter().map(|&(a, _)| (a, a)).collect();
            let constant = same.iter().all(|p| p.0 == same[0].0);
            assert_eq!(cohen_kappa(&same), if constant { None } else { Some(1.0) });
        }
    }

    #[test]
    fn multi_rater_statistics_ignore_label_names() {
        let mut rng = Rng::new(0xdead_beef_cafe_f00d);
        for _ in 0..500 {
            let items = 2 + rng.below(30) as usize;
            let table: Vec<Vec<u32>> = (0..items)
                .map(|_| {
                    let yes = rng.below(7) as u32;
                    vec![6 - yes, yes]
                })
                .collect();
            let renamed: Vec<Vec<u32>> = table.iter().map(|r| vec![r[1], r[0]]).collect();
            for (f, name) in [
                (fleiss_kappa as fn(&[Vec<u32>]) -> Option<f64>, "fleiss"),
                (krippendorff_alpha_nominal, "alpha"),
            ] {
                match (f(&table), f(&renamed)) {
                    (Some(x), Some(y)) => assert!((x - y).abs() < 1e-12, "{name}"),
                    (x, y) => assert_eq!(x, y, "{name}"),
                }
            }
            let (a, b) = (gwet_ac1(&table, 2), gwet_ac1(&renamed, 2));
            assert!((a.unwrap() - b.unwrap()).abs() < 1e-12);
            if let Some(k) = fleiss_kappa(&table) {
                assert!(k <= 1.0 + 1e-12);
            }
        }
        // Unanimous items in both categories: perfect agreement.
        let t = vec![vec![6, 0], vec![0, 6], vec![6, 0]];
        assert_eq!(fleiss_kappa(&t), Some(1.0));
        assert_eq!(krippendorff_alpha_nominal(&t), Some(1.0));
        // Everyone always says the same: undefined, never 0.
        let t = vec![vec![6, 0], vec![6, 0]];
        assert_eq!(fleiss_kappa(&t), None);
        assert_eq!(krippendorff_alpha_nominal(&t), None);
    }
}
