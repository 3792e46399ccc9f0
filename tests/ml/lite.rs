//! The lite scorer against its training script (`scripts/models/train_lite_heads.py`, which
//! wrote `tests/fixtures/lite_reference.json`): the heads' forward pass equals scikit-learn's
//! predictions, chrF and BLEU equal sacrebleu's; and the scorer itself, on the real embedding
//! model through ort.
use app::ml::ScorerKind;
use serde_json::Value;
use server::ml::lite::text_metrics::{bleu, chrf, tokenize_13a};
use server::ml::lite::{HeadsSource, LiteHeads, LiteScorer, BUILT_IN_HEADS};

use crate::support;

fn reference() -> Value {
    let path = format!(
        "{}/../tests/fixtures/lite_reference.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_heads_equal_scikit_learns_predictions_on_fixed_rows() {
    let heads = LiteHeads::parse(BUILT_IN_HEADS).expect("the built-in heads parse");
    let reference = reference();
    assert_eq!(
        reference["heads"], heads.name,
        "the fixture was written with other heads: run scripts/models/train-lite-heads.sh"
    );
    let rows = reference["rows"].as_array().unwrap();
    assert!(rows.len() >= 20, "{} rows", rows.len());
    let names = server::ml::lite::features::feature_names(heads.embedding_dim);
    let mut largest = 0f64;
    for row in rows {
        // The features the heads read, by name; any other one stays NaN (and would show).
        let mut features = vec![f64::NAN; names.len()];
        for (name, value) in row["features"].as_object().unwrap() {
            let at = names
                .iter()
                .position(|n| n == name)
                .expect("a known feature");
            features[at] = value.as_f64().unwrap();
        }
        let (p, bleurt) = heads.predict(&features);
        let (want_p, want_bleurt) = (
            row["mi_probability"].as_f64().unwrap(),
            row["bleurt"].as_f64().unwrap(),
        );
        largest = largest
            .max((p - want_p).abs())
            .max((bleurt - want_bleurt).abs());
        assert!(
            (p - want_p).abs() <= 1e-5,
            "P(MI) {p} vs scikit-learn {want_p}"
        );
        assert!(
            (bleurt - want_bleurt).abs() <= 1e-5,
            "BLEURT {bleurt} vs scikit-learn {want_bleurt}"
        );
    }
    println!(
        "{} rows: largest difference from scikit-learn {largest:.2e}",
        rows.len()
    );
}

#[test]
fn chrf_bleu_and_13a_tokens_equal_sacrebleu() {
    let reference = reference();
    let pairs = reference["metrics"].as_array().unwrap();
    assert!(pairs.len() >= 10);
    for p in pairs {
        let (a, b) = (p["a"].as_str().unwrap(), p["b"].as_str().unwrap());
        assert_eq!(
            tokenize_13a(a),
            p["tokens_a"].as_str().unwrap(),
            "13a of {a:?}"
        );
        for (got, key) in [
            (chrf(a, b), "chrf_ab"),
            (chrf(b, a), "chrf_ba"),
            (bleu(a, b), "bleu_ab"),
            (bleu(b, a), "bleu_ba"),
        ] {
            let want = p[key].as_f64().unwrap();
            assert!(
                (got - want).abs() <= 1e-9,
                "{key} of ({a:?}, {b:?}): {got} vs sacrebleu {want}"
            );
        }
    }
}

#[test]
fn the_validation_is_what_the_readme_reports() {
    let heads = LiteHeads::parse(BUILT_IN_HEADS).unwrap();
    let v = &heads.validation;
    assert!(v.rows >= 500, "held-out rows: {}", v.rows);
    // The description annotators and exports see carries the held-out agreement.
    let described = format!("{:.0}%", v.mi_accuracy * 100.0);
    assert!(
        heads.description().contains(&described),
        "{}",
        heads.description()
    );
    // The scorer's page of the docs (docs/models.md).
    let readme =
        std::fs::read_to_string(format!("{}/../docs/models.md", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    assert!(
        readme.contains(&format!("{:.1}%", v.mi_accuracy * 100.0))
            && readme.contains(&format!("{:.3}", v.bleurt_pearson)),
        "docs/models.md must state the lite scorer's numbers ({:.1}% MI agreement, BLEURT r {:.3})",
        v.mi_accuracy * 100.0,
        v.bleurt_pearson
    );
}

#[test]
fn the_lite_scorer_scores_both_orders_alike_and_batches_change_nothing() {
    let Some(embedding) =
        support::embedding_dir("ml::lite::the_lite_scorer_scores_both_orders_alike")
    else {
        return;
    };
    let cfg = support::ml_config();
    let mut lite = LiteScorer::load(&embedding, &HeadsSource::BuiltIn, &cfg).unwrap();
    let v = lite.versions();
    assert_eq!(v.kind, ScorerKind::Lite);
    assert!(
        v.description
            .starts_with("lite stand-in, agrees with the paper's MI on "),
        "{}",
        v.description
    );
    let pairs = [
        (
            "A man is playing a guitar on the stage.",
            "On the stage, a man plays the guitar.",
        ),
        (
            "The weather is lovely today.",
            "It is raining heavily today.",
        ),
        (
            "Prices have doubled since last year.",
            "Prices are twice what they were a year ago.",
        ),
    ];
    let together = lite.score_pairs(&pairs).unwrap();
    for (i, (a, b)) in pairs.iter().enumerate() {
        let alone = lite.score_pairs(&[(a, b)]).unwrap().remove(0);
        let reversed = lite.score_pairs(&[(b, a)]).unwrap().remove(0);
        assert_eq!(alone.forward_probs, together[i].forward_probs);
        assert_eq!(alone.bleurt, together[i].bleurt);
        assert!((alone.bleurt - reversed.bleurt).abs() < 1e-6);
        assert!((alone.forward_probs[1] - reversed.forward_probs[1]).abs() < 1e-6);
        let p = alone.forward_probs[1];
        assert!((0.0..=1.0).contains(&p) && alone.bleurt.is_finite());
        assert_eq!(alone.is_mutual_implication, p > 0.5);
    }
    // A pair with the same meaning scores as more similar than one that contradicts.
    assert!(together[0].bleurt > together[1].bleurt);
    assert!(together[0].forward_probs[1] > together[1].forward_probs[1]);
}

#[test]
fn heads_for_another_embedding_size_are_refused_naming_the_file() {
    let Some(embedding) =
        support::embedding_dir("ml::lite::heads_for_another_embedding_size_are_refused")
    else {
        return;
    };
    let cfg = support::ml_config();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heads-768.json");
    std::fs::write(&path, heads_for_dim(768)).unwrap();
    let err = LiteScorer::load(&embedding, &HeadsSource::File(path.clone()), &cfg)
        .err()
        .expect("heads for 768 dimensions must be refused");
    let msg = format!("{err:#}");
    assert!(msg.contains(&path.display().to_string()), "{msg}");
    assert!(msg.contains("768") && msg.contains("384"), "{msg}");
    assert!(!msg.contains('\n'), "one line: {msg}");

    // A file that is not a heads file at all.
    std::fs::write(&path, "{\"name\": 3}").unwrap();
    let msg = format!(
        "{:#}",
        LiteScorer::load(&embedding, &HeadsSource::File(path.clone()), &cfg)
            .err()
            .unwrap()
    );
    assert!(
        msg.contains(&path.display().to_string()) && msg.contains("not a lite heads file"),
        "{msg}"
    );
}

/// A well-formed heads file for `dim`-dimensional embeddings (a linear head on two features).
pub fn heads_for_dim(dim: usize) -> String {
    let head = |output: &str| {
        serde_json::json!({
            "inputs": ["cosine", format!("uv_{}", dim - 1)],
            "mean": [0.0, 0.0], "scale": [1.0, 1.0],
            "layers": [{"weights": [[1.0, 1.0]], "bias": [0.0], "activation": "identity"}],
            "output": output,
        })
    };
    serde_json::json!({
        "name": format!("test-{dim}"), "embedding_dim": dim,
        "mi": head("sigmoid"), "bleurt": head("identity"),
        "validation": {"rows": 1, "mi_accuracy": 0.5, "mi_mcc": 0.0, "bleurt_pearson": 0.0, "paid_agreement": 0.5},
    })
    .to_string()
}
