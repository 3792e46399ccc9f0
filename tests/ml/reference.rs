//! The Rust path (tokenizers + ort) equals the Python reference, one pair at a time and batched.
use std::path::Path;

use serde_json::{json, Value};
use server::ml::model::PairModel;
use server::ml::source::ModelSources;
use server::ml::Scorer;

use crate::support::{assert_close, ml_config, pair_models, reference, standins, with_config};

const TOLERANCE: f64 = 1e-4;

/// Loads the model the reference names, writing a config for the fixtures that ship none.
fn load(models: &Path, name: &str, reference_dir: &str) -> (PairModel, Option<tempfile::TempDir>) {
    let cfg = ml_config();
    let src = models.join(reference_dir);
    let fixture_config = match name {
        "roberta-bpe-random-tiny" => Some(json!({
            "model_type": "roberta", "pad_token_id": 1, "max_position_embeddings": 514,
            "id2label": {"0": "entailment", "1": "neutral", "2": "contradiction"}
        })),
        "bleurt-sp-random-tiny" => Some(json!({"model_type": "bert", "id2label": {"0": "bleurt"}})),
        _ => None,
    };
    match fixture_config {
        Some(c) => {
            let dir = with_config(&src, c);
            (PairModel::load(dir.path(), &cfg).unwrap(), Some(dir))
        }
        None => (PairModel::load(&src, &cfg).unwrap(), None),
    }
}

fn rows(model: &Value) -> Vec<(String, String, Vec<f64>)> {
    model["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["first"].as_str().unwrap().to_owned(),
                r["second"].as_str().unwrap().to_owned(),
                r["logits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect(),
            )
        })
        .collect()
}

/// No AVX-512 and no AVX-VNNI (as `make_scoring_reference.py` decides).
fn avx2_only() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !std::arch::is_x86_feature_detected!("avx512bw")
            && !std::arch::is_x86_feature_detected!("avxvnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[test]
fn every_model_matches_its_python_counterpart_pair_by_pair_and_batched() {
    let Some(models) = standins(
        "ml::reference::every_model_matches_its_python_counterpart_pair_by_pair_and_batched",
    ) else {
        return;
    };
    let reference = reference();
    for (name, model_ref) in reference["models"].as_object().unwrap() {
        let (mut model, _keep) = load(&models, name, model_ref["dir"].as_str().unwrap());
        let expected_inputs: Vec<&str> = model_ref["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            model.uses_token_type_ids(),
            expected_inputs.contains(&"token_type_ids"),
            "{name}"
        );
        // Int8 graphs round differently on AVX2-only CPUs (onnxruntime's integer kernels); the
        // reference script records that machine class's rows separately (Python and Rust agree
        // on one machine).
        let rows = match reference["avx2_only"].get(name.as_str()) {
            Some(avx2) if avx2_only() => rows(avx2),
            _ => rows(model_ref),
        };

        // One pair at a time, as the reference ran.
        for (a, b, logits) in &rows {
            let got = model.logits(&[(a, b)]).unwrap();
            assert_close(
                &got[0],
                logits,
                TOLERANCE,
                &format!("{name} single ({a:.30} | {b:.30})"),
            );
        }
        // All at once (padded to the longest): the batch size changes nothing. For int8 graphs
        // (the SICK stand-in) that holds because they run one row at a time: dynamic
        // quantisation takes its scale from the whole input tensor, other rows and padding
        // included, so in one batch their logits would move by up to ~0.2.
        assert_eq!(
            model.runs_one_row_at_a_time(),
            name.contains("sick"),
            "{name}"
        );
        let batch_tol = TOLERANCE;
        let pairs: Vec<(&str, &str)> = rows
            .iter()
            .map(|(a, b, _)| (a.as_str(), b.as_str()))
            .collect();
        let batched = model.logits(&pairs).unwrap();
        for ((a, b, logits), got) in rows.iter().zip(&batched) {
            assert_close(
                got,
                logits,
                batch_tol,
                &format!("{name} batched ({a:.30} | {b:.30})"),
            );
        }
        // And in batches of 3.
        let mut threes = Vec::new();
        for chunk in pairs.chunks(3) {
            threes.extend(model.logits(chunk).unwrap());
        }
        assert_eq!(threes.len(), rows.len());
        for ((_, _, logits), got) in rows.iter().zip(&threes) {
            assert_close(got, logits, batch_tol, &format!("{name} batches of 3"));
        }
    }
}

/// The fixtures' own Python outputs (`py_pair.txt`: softmax probabilities; `py_raw.txt`: scores),
/// made with transformers when the fixtures were built.
#[test]
fn the_tiny_fixtures_match_their_shipped_python_outputs() {
    let Some(models) =
        standins("ml::reference::the_tiny_fixtures_match_their_shipped_python_outputs")
    else {
        return;
    };
    let (mut roberta, _a) = load(
        &models,
        "roberta-bpe-random-tiny",
        "fixtures/roberta-bpe-random-tiny",
    );
    let text = std::fs::read_to_string(models.join("fixtures/roberta-bpe-random-tiny/py_pair.txt"))
        .unwrap();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (probs, pair) = line.split_once('\t').unwrap();
        let (a, b) = pair.split_once(" => ").unwrap();
        let expected: Vec<f64> = probs
            .split(' ')
            .map(|kv| kv.split_once('=').unwrap().1.parse().unwrap())
            .collect();
        let got = app::domain::mutual_implication::softmax(&roberta.logits(&[(a, b)]).unwrap()[0]);
        assert_close(
            &got,
            &expected,
            TOLERANCE,
            &format!("roberta fixture {pair}"),
        );
        checked += 1;
    }
    assert!(checked >= 4);

    let (mut bleurt, _b) = load(
        &models,
        "bleurt-sp-random-tiny",
        "fixtures/bleurt-sp-random-tiny",
    );
    let text =
        std::fs::read_to_string(models.join("fixtures/bleurt-sp-random-tiny/py_raw.txt")).unwrap();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (score, pair) = line.split_once('\t').unwrap();
        let (a, b) = pair.split_once(" || ").unwrap();
        let expected: f64 = score.trim_start_matches("score=").parse().unwrap();
        let got = bleurt.logits(&[(a, b)]).unwrap();
        assert_close(
            &got[0],
            &[expected],
            TOLERANCE,
            &format!("bleurt fixture {pair}"),
        );
    }
}

#[test]
fn the_scorer_combines_both_directions_as_the_paper_does() {
    let Some(models) =
        standins("ml::reference::the_scorer_combines_both_directions_as_the_paper_does")
    else {
        return;
    };
    let reference = reference();
    let mut cfg = ml_config();
    cfg.models = ModelSources::explicit(
        models.join("mi-standin-minilm-apt"),
        models.join("bleurt-standin-minilm-apt"),
    );
    let mut scorer = Scorer::load(&cfg).unwrap();
    let mi_rows = rows(&reference["models"]["mi-standin-minilm-apt"]);
    let bleurt_rows = rows(&reference["models"]["bleurt-standin-minilm-apt"]);
    // Reference rows alternate (a, b), (b, a).
    for i in (0..mi_rows.len()).step_by(2) {
        let (a, b) = (&mi_rows[i].0, &mi_rows[i].1);
        let s = &scorer.score_pairs(&[(a, b)]).unwrap()[0];
        let fwd = app::domain::mutual_implication::softmax(
            &mi_rows[i].2.iter().map(|&x| x as f32).collect::<Vec<_>>(),
        );
        let bwd = app::domain::mutual_implication::softmax(
            &mi_rows[i + 1]
                .2
                .iter()
                .map(|&x| x as f32)
                .collect::<Vec<_>>(),
        );
        assert_close(
            &s.forward_probs,
            &fwd.iter().map(|&x| f64::from(x)).collect::<Vec<_>>(),
            TOLERANCE,
            "forward",
        );
        assert_close(
            &s.backward_probs,
            &bwd.iter().map(|&x| f64::from(x)).collect::<Vec<_>>(),
            TOLERANCE,
            "backward",
        );
        let p_mi = (f64::from(fwd[1]) + f64::from(bwd[1])) / 2.0;
        assert_eq!(
            s.is_mutual_implication,
            p_mi > 0.5,
            "binary MI: mean P(mi) of both orders > 0.5"
        );
        let (bf, bb) = (bleurt_rows[i].2[0], bleurt_rows[i + 1].2[0]);
        assert_close(
            &[s.bleurt_forward, s.bleurt_backward],
            &[bf, bb],
            TOLERANCE,
            "bleurt",
        );
        assert!(
            (f64::from(s.bleurt) - (bf + bb) / 2.0).abs() < TOLERANCE,
            "BLEURT is the mean of both orders"
        );
        assert_eq!(s.labels, ["not_mi", "mi"]);
        assert!(s.versions.mi.starts_with("mi-standin-minilm-apt@"));
        assert!(s.versions.bleurt.starts_with("bleurt-standin-minilm-apt@"));
    }
}

#[test]
fn the_label_order_comes_from_the_config() {
    let Some(models) = pair_models("ml::reference::the_label_order_comes_from_the_config") else {
        return;
    };
    // A 3-way NLI judge: the SICK stand-in beside the stand-ins, else the tiny RoBERTa NLI.
    let nli = if models.standins {
        models.mi.parent().unwrap().join("nli-standin-minilm-sick")
    } else {
        models.mi.clone()
    };
    let original: Value =
        serde_json::from_str(&std::fs::read_to_string(nli.join("config.json")).unwrap()).unwrap();
    // Same graph, labels named in reverse: whatever the graph's output 2 is now counts as entailment.
    let mut permuted = original.clone();
    permuted["id2label"] = json!({"0": "contradiction", "1": "neutral", "2": "entailment"});
    let permuted_dir = with_config(&nli, permuted);
    let mut cfg = ml_config();
    let bleurt = || PairModel::load(&models.bleurt, &ml_config()).unwrap();

    cfg.models = ModelSources::explicit(nli.clone(), models.bleurt.clone());
    let mut straight = Scorer::new(PairModel::load(&nli, &cfg).unwrap(), bleurt()).unwrap();
    let mut swapped = Scorer::new(
        PairModel::load(permuted_dir.path(), &cfg).unwrap(),
        bleurt(),
    )
    .unwrap();
    assert_eq!(
        straight.judge().unwrap(),
        &app::domain::mutual_implication::MiJudge::Nli {
            entailment: 0,
            labels: 3
        }
    );
    assert_eq!(
        swapped.judge().unwrap(),
        &app::domain::mutual_implication::MiJudge::Nli {
            entailment: 2,
            labels: 3
        }
    );

    let pairs = [
        ("A man is playing a guitar.", "A man is playing a guitar."),
        (
            "The weather is lovely today.",
            "It is raining heavily today.",
        ),
        (
            "A woman is slicing an onion.",
            "A woman is cutting an onion.",
        ),
    ];
    let a = straight.score_pairs(&pairs).unwrap();
    let b = swapped.score_pairs(&pairs).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.forward_probs, y.forward_probs, "same graph, same numbers");
        assert_eq!(y.labels, ["contradiction", "neutral", "entailment"]);
        let argmax = |p: &[f32]| app::domain::mutual_implication::argmax(p).unwrap();
        assert_eq!(
            x.is_mutual_implication,
            argmax(&x.forward_probs) == 0 && argmax(&x.backward_probs) == 0
        );
        assert_eq!(
            y.is_mutual_implication,
            argmax(&y.forward_probs) == 2 && argmax(&y.backward_probs) == 2
        );
    }
    // An identical pair is entailment both ways for the SICK model read the right way round
    // (the tiny model's weights are random: it says nothing in particular).
    if models.standins {
        assert!(a[0].is_mutual_implication);
        assert!(!b[0].is_mutual_implication);
    }
}

#[test]
fn a_missing_model_names_its_path() {
    let Some(models) = pair_models("ml::reference::a_missing_model_names_its_path") else {
        return;
    };
    let mut cfg = ml_config();
    let no_such = models.mi.parent().unwrap().join("no-such-model");
    cfg.models = ModelSources::explicit(models.mi.clone(), no_such);
    let err = format!("{:#}", Scorer::load(&cfg).err().expect("must fail"));
    assert!(err.contains("no-such-model"), "{err}");
    // A BLEURT directory that holds a classifier is refused, not silently misread.
    cfg.models = ModelSources::explicit(models.mi.clone(), models.mi.clone());
    let err = format!("{:#}", Scorer::load(&cfg).err().expect("must fail"));
    assert!(err.contains("not a BLEURT model"), "{err}");
}

#[test]
fn the_binary_refuses_to_start_without_the_onnx_runtime_library() {
    let Some(models) =
        pair_models("ml::reference::the_binary_refuses_to_start_without_the_onnx_runtime_library")
    else {
        return;
    };
    let input = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(input.path(), "a\tb\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paracrowd"))
        .args(["score", input.path().to_str().unwrap()])
        .env("ORT_DYLIB_PATH", "/nonexistent/libonnxruntime.so")
        .env("PARACROWD_MI_MODEL", &models.mi)
        .env("PARACROWD_BLEURT_MODEL", &models.bleurt)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/nonexistent/libonnxruntime.so"),
        "{stderr}"
    );
}

#[test]
fn the_score_command_writes_every_pair_with_versions_and_rewards() {
    let Some(models) =
        pair_models("ml::reference::the_score_command_writes_every_pair_with_versions_and_rewards")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pairs.tsv");
    std::fs::write(
        &input,
        "sentence1\tsentence2\nA man is playing a guitar.\tA person is playing an instrument.\nThe cat sat.\tThe cat sat. It was happy.\n",
    )
    .unwrap();
    let output = dir.path().join("scores.tsv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_paracrowd"))
        .args(["score", input.to_str().unwrap(), output.to_str().unwrap()])
        .env("PARACROWD_MI_MODEL", &models.mi)
        .env("PARACROWD_BLEURT_MODEL", &models.bleurt)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 3);
    // One probability column per label of the MI judge, in each direction.
    let labels: &[&str] = if models.standins {
        &["not_mi", "mi"]
    } else {
        &["entailment", "neutral", "contradiction"]
    };
    let mut header = vec!["source".to_owned(), "attempt".to_owned()];
    for direction in ["forward", "backward"] {
        header.extend(labels.iter().map(|l| format!("p_{direction}_{l}")));
    }
    header.extend(
        [
            "mi",
            "bleurt_forward",
            "bleurt_backward",
            "bleurt",
            "reward_cents",
            "mi_model",
            "bleurt_model",
            "scorer",
        ]
        .map(String::from),
    );
    assert_eq!(lines[0], header);
    let n = header.len();
    let (mi_version, bleurt_version) = models.version_prefixes();
    let scorer = if models.standins {
        "development stand-ins"
    } else {
        "the APT paper's models"
    };
    for row in &lines[1..] {
        assert_eq!(row.len(), n);
        assert!(
            row[n - 3].starts_with(&mi_version) && row[n - 2].starts_with(&bleurt_version),
            "{row:?}"
        );
        assert!(row[n - 1].starts_with(scorer), "{}", row[n - 1]);
    }
    // The second attempt contains its source: the study paid nothing for that.
    assert_eq!(lines[2][n - 4], "0");
}
