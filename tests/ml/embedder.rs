//! The sentence embedder (all-MiniLM-L6-v2, int8 ONNX) against the Python reference
//! (`tests/fixtures/embedding_reference.json`, `scripts/reference/make_embedding_reference.py`):
//! onnxruntime on the same graph, and a numpy forward pass of the original float32 weights.
use std::path::PathBuf;

use app::ml::SentenceEmbedder;
use server::ml::embedder::{LazyEmbedder, SentenceModel};

use crate::support;

/// The installed embedding model, or `None` (after saying why) when the tests cannot run here.
fn model_dir(what: &str) -> Option<PathBuf> {
    support::embedding_dir(what)
}

fn load(dir: &std::path::Path) -> SentenceModel {
    SentenceModel::load(dir, &support::ml_config()).expect("the embedding model loads")
}

fn cosine(a: &[f32], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| f64::from(*x) * y).sum()
}

fn reference() -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let path = format!(
        "{}/../tests/fixtures/embedding_reference.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let floats = |x: &serde_json::Value| -> Vec<f64> {
        x.as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_f64().unwrap())
            .collect()
    };
    v["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["text"].as_str().unwrap().to_owned(),
                floats(&s["onnx"]),
                floats(&s["fp32"]),
            )
        })
        .collect()
}

#[test]
fn embeddings_equal_the_python_reference_alone_and_in_a_padded_batch() {
    let Some(dir) = model_dir("ml::embedder::embeddings_equal_the_python_reference") else {
        return;
    };
    let mut model = load(&dir);
    let reference = reference();
    let texts: Vec<String> = reference.iter().map(|r| r.0.clone()).collect();
    let batched = model.embed(&texts).unwrap();
    for (i, (text, onnx, fp32)) in reference.iter().enumerate() {
        let alone = model.embed(std::slice::from_ref(text)).unwrap().remove(0);
        assert_eq!(alone.len(), 384);
        let norm: f64 = alone
            .iter()
            .map(|x| f64::from(*x).powi(2))
            .sum::<f64>()
            .sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "unit length, got {norm}");
        let max_diff = alone
            .iter()
            .zip(onnx)
            .map(|(a, e)| (f64::from(*a) - e).abs())
            .fold(0.0, f64::max);
        // Same graph, same tokens: equal up to the CPU's int8 kernels (AVX2 vs AVX-512 differ).
        assert!(
            max_diff < 5e-3,
            "sentence {i}: max difference {max_diff} from onnxruntime"
        );
        assert!(cosine(&alone, onnx) > 0.999, "sentence {i} vs onnxruntime");
        assert!(
            cosine(&batched[i], onnx) > 0.999,
            "sentence {i} padded in a batch"
        );
        // The int8 graph is all-MiniLM-L6-v2: close to the original float32 weights.
        assert!(
            cosine(&alone, fp32) > 0.995,
            "sentence {i} vs float32: {}",
            cosine(&alone, fp32)
        );
    }
}

/// Area under the ROC curve: the chance a random paraphrase outscores a random non-paraphrase.
fn auc(pos: &[f64], neg: &[f64]) -> f64 {
    let mut wins = 0.0;
    for p in pos {
        for n in neg {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (pos.len() * neg.len()) as f64
}

#[test]
fn msrp_paraphrases_are_closer_than_non_paraphrases() {
    let what = "ml::embedder::msrp_paraphrases_are_closer_than_non_paraphrases";
    let Some(dir) = model_dir(what) else { return };
    let Some(text) = crate::shared::data("msrp/msr_paraphrase_test.txt", what) else {
        return;
    };
    let rows: Vec<(bool, String, String)> = text
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() == 5).then(|| (f[0] == "1", f[3].to_owned(), f[4].to_owned()))
        })
        .take(400)
        .collect();
    let mut model = load(&dir);
    let (mut pos, mut neg) = (Vec::new(), Vec::new());
    for chunk in rows.chunks(32) {
        let a: Vec<String> = chunk.iter().map(|r| r.1.clone()).collect();
        let b: Vec<String> = chunk.iter().map(|r| r.2.clone()).collect();
        let (ea, eb) = (model.embed(&a).unwrap(), model.embed(&b).unwrap());
        for ((row, x), y) in chunk.iter().zip(&ea).zip(&eb) {
            let c: f64 = x.iter().zip(y).map(|(p, q)| f64::from(p * q)).sum();
            if row.0 {
                pos.push(c)
            } else {
                neg.push(c)
            }
        }
    }
    let auc = auc(&pos, &neg);
    eprintln!(
        "MSRP test, first {} pairs: AUC of cosine = {auc:.3}",
        rows.len()
    );
    assert!(auc > 0.70, "AUC {auc}");
}

#[test]
fn a_missing_model_is_reported_with_where_it_was_looked_for() {
    if support::ort_library("ml::embedder::a_missing_model_is_reported").is_none() {
        return;
    }
    let missing = tempfile::tempdir().unwrap();
    let lazy = LazyEmbedder::new(missing.path().to_owned(), support::ml_config());
    let e = lazy.embed(&["a".into()]).unwrap_err();
    assert!(
        e.contains("not installed") && e.contains(&missing.path().display().to_string()),
        "{e}"
    );
    assert_eq!(
        lazy.version().unwrap_err(),
        e,
        "the failure is remembered, not retried per call"
    );
}
