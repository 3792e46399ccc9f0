//! The agreement statistics against the reference libraries researchers cite, on fixed data:
//! `tests/fixtures/agreement_reference.json`, written by
//! `scripts/reference/make_agreement_reference.py` (scikit-learn, statsmodels, krippendorff,
//! irrCAC, crowd-kit; versions pinned in `requirements-agreement.txt`). Equal to 1e-9, except
//! GLAD's posteriors and abilities, whose M-step line search is not SciPy's
//! (`domain::glad`): its labels are equal, its posteriors within [`GLAD_TOL`].
use app::domain::agreement::{
    cohen_kappa, fleiss_kappa, gwet_ac1, krippendorff_alpha_nominal, majority,
};
use app::domain::dawid_skene::{dawid_skene, Answer};
use app::domain::glad::glad;
use app::domain::mace::mace;
use serde_json::Value;

#[path = "../common/shared.rs"]
mod shared;

const TOL: f64 = 1e-9;
/// GLAD's posteriors and abilities: the same optimum, reached by another line search.
const GLAD_TOL: f64 = 1e-2;

fn reference() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/agreement_reference.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn table(v: &Value) -> Vec<Vec<u32>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect()
        })
        .collect()
}

fn close(name: &str, got: Option<f64>, want: &Value) {
    match (got, want.as_f64()) {
        (Some(g), Some(w)) => assert!((g - w).abs() < TOL, "{name}: {g} vs reference {w}"),
        (None, None) => {}
        (g, _) => panic!("{name}: {g:?} vs reference {want}"),
    }
}

fn check_table_stats(name: &str, case: &Value) {
    let t = table(&case["table"]);
    let full: Vec<Vec<u32>> = match case["fleiss_items"].as_u64() {
        Some(_) => {
            let n = t.iter().map(|r| r.iter().sum::<u32>()).max().unwrap();
            t.iter()
                .filter(|r| r.iter().sum::<u32>() == n)
                .cloned()
                .collect()
        }
        None => Vec::new(),
    };
    if !case["fleiss"].is_null() {
        assert_eq!(full.len() as u64, case["fleiss_items"].as_u64().unwrap());
        close(
            &format!("{name} fleiss"),
            fleiss_kappa(&full),
            &case["fleiss"],
        );
    }
    close(
        &format!("{name} alpha"),
        krippendorff_alpha_nominal(&t),
        &case["alpha"],
    );
    close(
        &format!("{name} ac1"),
        gwet_ac1(&t, t[0].len()),
        &case["ac1"],
    );
}

#[test]
fn cohen_kappa_equals_scikit_learn() {
    let r = reference();
    let c = &r["cases"]["sklearn_cohen"];
    let bits = |v: &Value| -> Vec<bool> { v.as_array().unwrap().iter().map(|x| x == 1).collect() };
    let pairs: Vec<(bool, bool)> = bits(&c["a"]).into_iter().zip(bits(&c["b"])).collect();
    close("sklearn example", cohen_kappa(&pairs), &c["kappa"]);
}

#[test]
fn published_examples_fleiss_1971_and_krippendorff_2011() {
    let r = reference();
    check_table_stats("fleiss_1971", &r["cases"]["fleiss_1971"]);
    check_table_stats("krippendorff_2011", &r["cases"]["krippendorff_2011"]);
    // The published values themselves.
    assert!(
        (fleiss_kappa(&table(&r["cases"]["fleiss_1971"]["table"])).unwrap() - 0.20993).abs() < 1e-5
    );
    let alpha =
        krippendorff_alpha_nominal(&table(&r["cases"]["krippendorff_2011"]["table"])).unwrap();
    assert!((alpha - 0.743).abs() < 1e-3);
}

/// Answers of a synthetic case and, per item, the judgments by worker.
fn answers(case: &Value) -> Vec<Answer> {
    case["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| Answer {
            item: a[0].as_u64().unwrap() as usize,
            worker: a[1].as_u64().unwrap() as usize,
            label: a[2].as_u64().unwrap() as usize,
        })
        .collect()
}

fn check_synthetic(name: &str, case: &Value) {
    check_table_stats(name, case);
    let all = answers(case);
    let items = case["items"].as_u64().unwrap() as usize;
    let workers = case["workers"].as_u64().unwrap() as usize;
    let mut by_worker = vec![std::collections::BTreeMap::new(); workers];
    let mut by_item = vec![Vec::new(); items];
    for a in &all {
        by_worker[a.worker].insert(a.item, a.label == 1);
        by_item[a.item].push((a.worker, a.label == 1));
    }
    for p in case["pairwise_kappa"].as_array().unwrap() {
        let (a, b) = (
            p["a"].as_u64().unwrap() as usize,
            p["b"].as_u64().unwrap() as usize,
        );
        let pairs: Vec<(bool, bool)> = by_worker[a]
            .iter()
            .filter_map(|(i, la)| by_worker[b].get(i).map(|lb| (*la, *lb)))
            .collect();
        close(
            &format!("{name} kappa {a}-{b}"),
            cohen_kappa(&pairs),
            &p["kappa"],
        );
    }
    for w in case["kappa_vs_majority"].as_array().unwrap() {
        let id = w["worker"].as_u64().unwrap() as usize;
        let pairs: Vec<(bool, bool)> = by_worker[id]
            .iter()
            .filter_map(|(i, mine)| {
                let others = by_item[*i]
                    .iter()
                    .filter(|(u, _)| *u != id)
                    .map(|(_, l)| *l);
                majority(others).map(|m| (*mine, m))
            })
            .collect();
        assert_eq!(
            pairs.len() as u64,
            w["n"].as_u64().unwrap(),
            "{name} worker {id}"
        );
        let got = if pairs.is_empty() {
            None
        } else {
            cohen_kappa(&pairs)
        };
        close(
            &format!("{name} kappa of {id} vs majority"),
            got,
            &w["kappa"],
        );
    }
    let ds = dawid_skene(&all, items, workers, 2, 100, 1e-5);
    let want = &case["ds"];
    assert_eq!(
        ds.iterations as u64,
        want["iterations"].as_u64().unwrap(),
        "{name} EM iterations"
    );
    for (i, p) in ds.posteriors.iter().enumerate() {
        for c in 0..2 {
            close(
                &format!("{name} posterior {i}/{c}"),
                Some(p[c]),
                &want["posteriors"][i][c],
            );
        }
    }
    for c in 0..2 {
        close(
            &format!("{name} prior {c}"),
            Some(ds.priors[c]),
            &want["priors"][c],
        );
    }
    for (w, rows) in want["confusion"].as_object().unwrap() {
        let w: usize = w.parse().unwrap();
        for obs in 0..2 {
            let got = ds.confusion[w][obs].clone();
            match rows.get(obs.to_string()) {
                Some(row) => {
                    let got = got.unwrap_or_else(|| panic!("{name}: worker {w} row {obs} missing"));
                    for t in 0..2 {
                        close(
                            &format!("{name} confusion {w}/{obs}/{t}"),
                            Some(got[t]),
                            &row[t],
                        );
                    }
                }
                None => assert!(got.is_none(), "{name}: worker {w} never answered {obs}"),
            }
        }
    }
    let labels: Vec<u64> = want["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(
        ds.labels().iter().map(|&l| l as u64).collect::<Vec<_>>(),
        labels
    );
    check_mace(name, case, &all, items, workers);
    check_glad(name, case, &all, items, workers);
}

fn labels_of(want: &Value) -> Vec<Option<usize>> {
    want["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| Some(x.as_u64().unwrap() as usize))
        .collect()
}

fn check_mace(name: &str, case: &Value, all: &[Answer], items: usize, workers: usize) {
    let m = mace(all, items, workers, 2);
    let want = &case["mace"];
    for (i, p) in m.posteriors.iter().enumerate() {
        for c in 0..2 {
            close(
                &format!("{name} MACE posterior {i}/{c}"),
                Some(p[c]),
                &want["posteriors"][i][c],
            );
        }
    }
    for (w, c) in m.competence.iter().enumerate() {
        close(
            &format!("{name} MACE competence {w}"),
            Some(*c),
            &want["competence"][w],
        );
    }
    assert_eq!(m.labels(), labels_of(want), "{name} MACE labels");
}

fn check_glad(name: &str, case: &Value, all: &[Answer], items: usize, workers: usize) {
    let g = glad(all, items, workers, 2);
    let want = &case["glad"];
    let mut worst: f64 = 0.0;
    for (i, p) in g.posteriors.iter().enumerate() {
        for c in 0..2 {
            let w = want["posteriors"][i][c].as_f64().unwrap();
            worst = worst.max((p[c] - w).abs());
        }
    }
    assert!(
        worst < GLAD_TOL,
        "{name} GLAD posteriors differ by up to {worst}"
    );
    for (w, a) in g.abilities.iter().enumerate() {
        let r = want["abilities"][w].as_f64().unwrap();
        assert!(
            (a - r).abs() < GLAD_TOL * r.abs().max(1.0),
            "{name} GLAD ability {w}: {a} vs reference {r}"
        );
    }
    assert_eq!(g.labels(), labels_of(want), "{name} GLAD labels");
}

#[test]
fn a_synthetic_campaign_with_six_judgments_per_pair_matches_every_library() {
    check_synthetic("synthetic_full", &reference()["cases"]["synthetic_full"]);
}

#[test]
fn a_ragged_campaign_with_two_to_seven_judgments_matches_every_library() {
    check_synthetic(
        "synthetic_ragged",
        &reference()["cases"]["synthetic_ragged"],
    );
}

/// Fleiss' kappa over the Twitter URL test set's 6-vote counts (read from `../shared/data`; the
/// counts' distribution is the published 4665, 1860, 988, 786, 583, 602, 636).
#[test]
fn the_twitter_url_votes_match_the_references() {
    let r = reference();
    let want = &r["cases"]["twitter_url_test_votes"];
    let Some(text) = shared::data(
        "twitter_url/test_votes.tsv",
        "stats::the_twitter_url_votes_match_the_references",
    ) else {
        return;
    };
    let mut t = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (pos, raters): (u32, u32) = (cols[2].parse().unwrap(), cols[3].parse().unwrap());
        t.push(vec![raters - pos, pos]);
    }
    assert_eq!(t.len() as u64, want["pairs"].as_u64().unwrap());
    let dist: Vec<u64> = (0..=6)
        .map(|k| t.iter().filter(|r| r[1] == k).count() as u64)
        .collect();
    assert_eq!(dist, [4665, 1860, 988, 786, 583, 602, 636]);
    close("twitter fleiss", fleiss_kappa(&t), &want["fleiss"]);
    close(
        "twitter alpha",
        krippendorff_alpha_nominal(&t),
        &want["alpha"],
    );
    close("twitter ac1", gwet_ac1(&t, 2), &want["ac1"]);
}
