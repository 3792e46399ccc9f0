//! The rules that exist in SQL as well as in the domain, each a small named function in its own
//! file of `migrations/functions/`, compared with its Rust twin on thousands of generated
//! inputs, in one query each.
use app::domain::judge::gate_table::{table_changes, GateCounts, Judged, KappaTable, Votes};
use app::domain::judge::schedule::{self, ServingWindows};
use app::domain::judge::settle::{self, Redundancy, Settling, Vote};
use app::domain::rng::SplitMix64;
use sqlx::PgPool;

const N: usize = 20_000;

#[sqlx::test(migrations = "../migrations")]
async fn the_serving_windows_are_the_domains(pool: PgPool) {
    let mut rng = SplitMix64::new(1);
    let (mut pools, mut per_test, mut maxes) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..N {
        // Small pools and bounds often (the edges), and some large ones.
        let pool_size = if i % 2 == 0 {
            rng.below(12)
        } else {
            rng.below(100_000)
        };
        pools.push(pool_size as i64);
        per_test.push(rng.below(100) as i32);
        maxes.push(1 + rng.below(if i % 3 == 0 { 5 } else { 300 }) as i32);
    }
    let rows: Vec<(i32, i32)> = sqlx::query_as(
        r#"select judge_test_window(n, m), judge_ordinary_window(n, k, m)
           from unnest($1::int8[], $2::int4[], $3::int4[]) with ordinality as t(n, k, m, i)
           order by i"#,
    )
    .bind(&pools)
    .bind(&per_test)
    .bind(&maxes)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), N);
    for (i, (test, ordinary)) in rows.into_iter().enumerate() {
        let w = ServingWindows {
            test: maxes[i] as u32,
            ordinary_per_test_pair: per_test[i] as u32,
        };
        let pool_size = pools[i] as u32;
        let case = (pools[i], per_test[i], maxes[i]);
        assert_eq!(
            test as u32,
            w.test_window(pool_size),
            "test window of {case:?}"
        );
        assert_eq!(
            ordinary as u32,
            w.ordinary(pool_size),
            "ordinary window of {case:?}"
        );
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn the_blocks_and_test_slots_are_the_domains(pool: PgPool) {
    let mut rng = SplitMix64::new(2);
    let (mut served, mut every, mut position) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..N {
        served.push(rng.below(2_000) as i32);
        // 0 (no test pairs) and the settings' range, 2..=100.
        every.push(if rng.below(10) == 0 {
            0
        } else {
            2 + rng.below(99) as i32
        });
        position.push(rng.below(120) as i32);
    }
    let rows: Vec<(bool, bool)> = sqlx::query_as(
        r#"select judge_starts_block(s, e), judge_is_test_slot(s, e, p)
           from unnest($1::int4[], $2::int4[], $3::int4[]) with ordinality as t(s, e, p, i)
           order by i"#,
    )
    .bind(&served)
    .bind(&every)
    .bind(&position)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), N);
    let (mut starts, mut slots) = (0, 0);
    for (i, (starts_block, is_test_slot)) in rows.into_iter().enumerate() {
        let (s, e, p) = (served[i] as u32, every[i] as u32, position[i] as u32);
        assert_eq!(
            starts_block,
            schedule::starts_block(s, e),
            "starts_block({s}, {e})"
        );
        assert_eq!(
            is_test_slot,
            schedule::is_test_slot(s, e, p),
            "is_test_slot({s}, {e}, {p})"
        );
        starts += usize::from(starts_block);
        slots += usize::from(is_test_slot);
    }
    // Both answers were seen many times.
    assert!(starts > 100 && slots > 100, "{starts} {slots}");
}

#[sqlx::test(migrations = "../migrations")]
async fn a_judgments_cell_change_is_the_domains(pool: PgPool) {
    let mut rng = SplitMix64::new(3);
    let mut cols: (Vec<bool>, Vec<Option<bool>>, Vec<bool>) = Default::default();
    let mut votes: [Vec<i32>; 4] = Default::default();
    let mut expected = Vec::new();
    for _ in 0..N {
        let label = rng.below(2) == 1;
        let trusted_before = match rng.below(3) {
            0 => None,
            1 => Some(false),
            _ => Some(true),
        };
        let trusted_after = rng.below(4) != 0;
        // Pair votes around the thresholds, where majorities flip and tie.
        let v: Vec<i64> = (0..4).map(|_| rng.below(6) as i64).collect();
        let before = Votes {
            paraphrase: v[0],
            not: v[1],
        };
        let after = Votes {
            paraphrase: v[2],
            not: v[3],
        };
        let judged = [Judged {
            worker: 0u8,
            label,
            trusted_before,
            trusted_after,
        }];
        let change = table_changes(before, after, &judged)
            .remove(&0)
            .unwrap_or_default();
        expected.push(change);
        cols.0.push(label);
        cols.1.push(trusted_before);
        cols.2.push(trusted_after);
        for (c, x) in votes.iter_mut().zip(&v) {
            c.push(*x as i32);
        }
    }
    let rows: Vec<(Vec<i32>,)> = sqlx::query_as(
        r#"select judge_cell_change(l, tb, ta, b1, b0, a1, a0)
           from unnest($1::bool[], $2::bool[], $3::bool[], $4::int4[], $5::int4[], $6::int4[],
                       $7::int4[]) with ordinality as t(l, tb, ta, b1, b0, a1, a0, i)
           order by i"#,
    )
    .bind(&cols.0)
    .bind(&cols.1)
    .bind(&cols.2)
    .bind(&votes[0])
    .bind(&votes[1])
    .bind(&votes[2])
    .bind(&votes[3])
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), N);
    let mut changed = 0;
    for (i, (cells,)) in rows.into_iter().enumerate() {
        let cells: [i32; 8] = cells.try_into().expect("eight cells");
        let got = KappaTable::from_cells(cells.map(i64::from));
        assert_eq!(
            got,
            expected[i],
            "label {}, trusted {:?} -> {}, votes {:?}",
            cols.0[i],
            cols.1[i],
            cols.2[i],
            votes.iter().map(|c| c[i]).collect::<Vec<_>>()
        );
        changed += usize::from(!got.is_zero());
    }
    assert!(changed > N / 4, "{changed}");
    // The wide leads' cells are exercised too, both ways.
    for lead in [
        |t: &KappaTable| t.lead2_agreed,
        |t: &KappaTable| t.lead3_disagreed,
    ] {
        assert!(expected.iter().filter(|t| lead(t) > 0).count() > N / 50);
        assert!(expected.iter().filter(|t| lead(t) < 0).count() > N / 50);
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn a_votes_accuracy_is_the_domains(pool: PgPool) {
    let mut rng = SplitMix64::new(4);
    let mut cols: (Vec<bool>, [Vec<i32>; 4]) = Default::default();
    for i in 0..N {
        cols.0.push(rng.below(2) == 1);
        // Small pairs and evidence often (the edges, counts out of step included), some large.
        let big = i % 5 == 0;
        cols.1[0].push(rng.below(5) as i32);
        cols.1[1].push(rng.below(5) as i32);
        let observed = rng.below(if big { 5_000 } else { 6 }) as i32;
        cols.1[3].push(observed);
        cols.1[2].push(rng.below(observed as u64 + 2) as i32);
    }
    let rows: Vec<(f64,)> = sqlx::query_as(
        r#"select judge_vote_accuracy(l, y, n, a, o)
           from unnest($1::bool[], $2::int4[], $3::int4[], $4::int4[], $5::int4[])
                with ordinality as t(l, y, n, a, o, i)
           order by i"#,
    )
    .bind(&cols.0)
    .bind(&cols.1[0])
    .bind(&cols.1[1])
    .bind(&cols.1[2])
    .bind(&cols.1[3])
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), N);
    for (i, (got,)) in rows.into_iter().enumerate() {
        let c: Vec<u32> = cols.1.iter().map(|c| c[i] as u32).collect();
        let want = settle::vote_accuracy(cols.0[i], c[0], c[1], c[2], c[3]);
        assert_eq!(got, want, "label {}, counts {c:?}", cols.0[i]);
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn a_workers_pooled_evidence_is_the_gates(pool: PgPool) {
    let mut rng = SplitMix64::new(6);
    let mut cols: [Vec<i32>; 6] = Default::default();
    for i in 0..N {
        // Small counts often (zeros included), some as large as a long study's.
        let top = if i % 5 == 0 { 100_000 } else { 4 };
        let answered = rng.below(top) as i32;
        cols[0].push(rng.below(answered as u64 + 1) as i32);
        cols[1].push(answered);
        for c in &mut cols[2..] {
            c.push(rng.below(top) as i32);
        }
    }
    let rows: Vec<(Vec<i32>,)> = sqlx::query_as(
        r#"select judge_pooled_evidence(tc, ta, pp, pn, np, nn)
           from unnest($1::int4[], $2::int4[], $3::int4[], $4::int4[], $5::int4[], $6::int4[])
                with ordinality as t(tc, ta, pp, pn, np, nn, i)
           order by i"#,
    )
    .bind(&cols[0])
    .bind(&cols[1])
    .bind(&cols[2])
    .bind(&cols[3])
    .bind(&cols[4])
    .bind(&cols[5])
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), N);
    for (i, (got,)) in rows.into_iter().enumerate() {
        let c: Vec<i32> = cols.iter().map(|c| c[i]).collect();
        let numbers = GateCounts {
            judgments: 0,
            tests_correct: c[0] as u32,
            tests_answered: c[1] as u32,
            table: KappaTable {
                pp: c[2].into(),
                pn: c[3].into(),
                np: c[4].into(),
                nn: c[5].into(),
                ..KappaTable::default()
            },
        }
        .numbers();
        let want = vec![numbers.agreements as i32, numbers.evidence as i32];
        assert_eq!(got, want, "counts {c:?}");
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn settling_a_pair_is_the_domains(pool: PgPool) {
    let mut rng = SplitMix64::new(5);
    let (mut mins, mut maxes, mut confidence, mut next) = (vec![], vec![], vec![], vec![]);
    let (mut offsets, mut counts, mut labels, mut accuracies) = (vec![], vec![], vec![], vec![]);
    let mut expected = Vec::new();
    for i in 0..N {
        let max = 1 + rng.below(10) as u32;
        let min = 1 + rng.below(u64::from(max)) as u32;
        let r = Redundancy {
            min,
            max,
            confidence: [0.95, 0.9, 0.99, 0.501 + 0.498 * rng.unit()][i % 4],
        };
        let n = rng.below(u64::from(max) + 2) as usize;
        // Equal accuracies half the time (ties and exact leads), any accuracy otherwise, some
        // outside [0.5, 0.99] (clamped).
        let same = 0.5 + 0.5 * rng.unit();
        let votes: Vec<Vote> = (0..n)
            .map(|_| Vote {
                paraphrase: rng.below(3) != 0,
                accuracy: if i % 2 == 0 { same } else { 1.2 * rng.unit() },
            })
            .collect();
        let next_accuracy = [settle::NEXT_ACCURACY, 0.8, rng.unit()][i % 3];
        expected.push((
            settle::settle(&r, 0.5, &votes, next_accuracy),
            settle::posterior(0.5, &votes),
        ));
        mins.push(min as i32);
        maxes.push(max as i32);
        confidence.push(r.confidence);
        next.push(next_accuracy);
        offsets.push(labels.len() as i32);
        counts.push(n as i32);
        labels.extend(votes.iter().map(|v| v.paraphrase));
        accuracies.extend(votes.iter().map(|v| v.accuracy));
    }
    let rows: Vec<(String, Option<bool>, Option<f64>, f64)> = sqlx::query_as(
        r#"select s.state, s.paraphrase, s.posterior, s.p_paraphrase
           from unnest($1::int4[], $2::int4[], $3::float8[], $4::float8[], $5::int4[],
                       $6::int4[]) with ordinality as t(mn, mx, c, nx, o, n, i)
           cross join lateral judge_settling(mn, mx, c, 0.5, ($7::bool[])[o + 1 : o + n],
                                             ($8::float8[])[o + 1 : o + n], nx) s
           order by t.i"#,
    )
    .bind(&mins)
    .bind(&maxes)
    .bind(&confidence)
    .bind(&next)
    .bind(&offsets)
    .bind(&counts)
    .bind(&labels)
    .bind(&accuracies)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), N);
    let mut seen = [0usize; 3];
    for (i, (state, paraphrase, posterior, p_paraphrase)) in rows.into_iter().enumerate() {
        let (want, want_p) = expected[i];
        let got = match state.as_str() {
            "open" => Settling::Open,
            "settled" => Settling::Settled {
                paraphrase: paraphrase.unwrap(),
                posterior: posterior.unwrap(),
            },
            "unresolved" => Settling::Unresolved {
                posterior: posterior.unwrap(),
            },
            other => panic!("state {other}"),
        };
        let case = (mins[i], maxes[i], confidence[i], next[i], counts[i]);
        // The same operations in the same order: equal to the bit, but for a case on a
        // boundary to within rounding, where either side of it is the same rule.
        assert!((p_paraphrase - want_p).abs() <= 1e-12, "{case:?}");
        let lead = want_p.max(1.0 - want_p);
        let w = |a: f64| {
            let a = a.clamp(settle::MIN_ACCURACY, settle::MAX_ACCURACY);
            (a / (1.0 - a)).ln()
        };
        let left = f64::from((maxes[i] - counts[i]).max(0));
        let l = (want_p / (1.0 - want_p)).ln();
        let on_boundary =
            (lead - confidence[i]).abs() < 1e-9 || (l.abs() - left * w(next[i])).abs() < 1e-9;
        let parts = |s: Settling| match s {
            Settling::Open => (0, None, 0.0),
            Settling::Settled {
                paraphrase,
                posterior,
            } => (1, Some(paraphrase), posterior),
            Settling::Unresolved { posterior } => (2, None, posterior),
        };
        let (g, w_) = (parts(got), parts(want));
        if !on_boundary {
            assert_eq!((g.0, g.1), (w_.0, w_.1), "{case:?}");
            assert!((g.2 - w_.2).abs() <= 1e-12, "{case:?}: {got:?} {want:?}");
        }
        seen[match want {
            Settling::Open => 0,
            Settling::Settled { .. } => 1,
            Settling::Unresolved { .. } => 2,
        }] += 1;
    }
    // Every outcome was met many times.
    assert!(seen.iter().all(|&n| n > N / 20), "{seen:?}");
}
