//! What the inference server says a model takes and gives, checked against what our tokenizer
//! produces and our labels expect: the same input names, INT64 `[batch, seq]` inputs, and an FP32
//! output with one value per label. A mismatch (another model under the same name, a server
//! configured for other inputs) stops start-up instead of scoring with the wrong model.
use super::proto::model_metadata_response::TensorMetadata;
use super::proto::ModelMetadataResponse;

/// What one model must look like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub model: String,
    /// The inputs our encoder fills, by name.
    pub inputs: Vec<String>,
    pub output: String,
    /// The output's dimensions after the batch: `[labels]` for a pair model (`None` = any
    /// width), `[seq, dim]` for hidden states.
    pub output_dims: Vec<Option<usize>>,
}

/// `Ok` when `meta` serves `expected`; otherwise every difference, in words.
pub fn check(meta: &ModelMetadataResponse, expected: &Expected) -> Result<(), String> {
    let mut problems = Vec::new();
    let model = &expected.model;
    for name in &expected.inputs {
        match meta.inputs.iter().find(|t| &t.name == name) {
            None => problems.push(format!(
                "it has no input {name:?}, which our tokenizer fills"
            )),
            Some(t) => {
                if t.datatype != "INT64" {
                    problems.push(format!("its input {name:?} is {}, not INT64", t.datatype));
                }
                if !fits(t, &[None, None]) {
                    problems.push(format!(
                        "its input {name:?} has shape {:?}, not [batch, seq] (-1, -1)",
                        t.shape
                    ));
                }
            }
        }
    }
    for t in &meta.inputs {
        if !expected.inputs.contains(&t.name) {
            problems.push(format!(
                "it reads an input {:?} that our tokenizer does not produce (we send {:?})",
                t.name, expected.inputs
            ));
        }
    }
    match meta.outputs.iter().find(|t| t.name == expected.output) {
        None => problems.push(format!(
            "it has no output {:?} (it has {:?})",
            expected.output,
            meta.outputs.iter().map(|t| &t.name).collect::<Vec<_>>()
        )),
        Some(t) => {
            if t.datatype != "FP32" {
                problems.push(format!(
                    "its output {:?} is {}, not FP32",
                    t.name, t.datatype
                ));
            }
            let mut dims = vec![None];
            dims.extend(expected.output_dims.iter().copied());
            if !fits(t, &dims) {
                problems.push(format!(
                    "its output {:?} has shape {:?}, expected {}",
                    t.name,
                    t.shape,
                    describe(&dims)
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the inference server's model {model:?} does not match ours: {}",
            problems.join("; ")
        ))
    }
}

/// Whether a tensor's shape has `dims` (`None`: any size, -1 included). The batch dimension
/// is written `-1` by servers that batch.
fn fits(t: &TensorMetadata, dims: &[Option<usize>]) -> bool {
    t.shape.len() == dims.len()
        && t.shape.iter().zip(dims).all(|(&got, want)| match want {
            None => got == -1 || got > 0,
            Some(n) => got == -1 || usize::try_from(got) == Ok(*n),
        })
}

fn describe(dims: &[Option<usize>]) -> String {
    let parts: Vec<String> = dims
        .iter()
        .map(|d| d.map_or("-1".to_owned(), |n| n.to_string()))
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(name: &str, datatype: &str, shape: &[i64]) -> TensorMetadata {
        TensorMetadata {
            name: name.into(),
            datatype: datatype.into(),
            shape: shape.to_vec(),
        }
    }

    fn bert_mi() -> ModelMetadataResponse {
        ModelMetadataResponse {
            name: "mi".into(),
            versions: vec!["1".into()],
            platform: "onnxruntime_onnx".into(),
            inputs: ["input_ids", "attention_mask", "token_type_ids"]
                .iter()
                .map(|n| tensor(n, "INT64", &[-1, -1]))
                .collect(),
            outputs: vec![tensor("logits", "FP32", &[-1, 2])],
        }
    }

    fn expected(inputs: &[&str], labels: usize) -> Expected {
        Expected {
            model: "mi".into(),
            inputs: inputs.iter().map(|s| (*s).to_owned()).collect(),
            output: "logits".into(),
            output_dims: vec![Some(labels)],
        }
    }

    #[test]
    fn the_same_model_passes() {
        let want = expected(&["input_ids", "attention_mask", "token_type_ids"], 2);
        assert_eq!(check(&bert_mi(), &want), Ok(()));
    }

    #[test]
    fn a_different_label_count_is_refused() {
        let want = expected(&["input_ids", "attention_mask", "token_type_ids"], 3);
        let err = check(&bert_mi(), &want).unwrap_err();
        assert!(
            err.contains("\"logits\" has shape [-1, 2], expected [-1, 3]"),
            "{err}"
        );
    }

    #[test]
    fn a_roberta_tokenizer_against_a_bert_graph_is_refused() {
        // Our encoder fills no token types; the server's graph reads them.
        let want = expected(&["input_ids", "attention_mask"], 2);
        let err = check(&bert_mi(), &want).unwrap_err();
        assert!(
            err.contains("\"token_type_ids\" that our tokenizer does not produce"),
            "{err}"
        );
    }

    #[test]
    fn wrong_types_and_missing_tensors_are_each_named() {
        let mut meta = bert_mi();
        meta.inputs[0].datatype = "INT32".into();
        meta.inputs[1].shape = vec![-1];
        meta.outputs[0].name = "scores".into();
        let want = expected(&["input_ids", "attention_mask", "token_type_ids"], 2);
        let err = check(&meta, &want).unwrap_err();
        assert!(err.contains("\"input_ids\" is INT32"), "{err}");
        assert!(err.contains("\"attention_mask\" has shape [-1]"), "{err}");
        assert!(err.contains("no output \"logits\""), "{err}");
    }

    #[test]
    fn hidden_states_need_three_dimensions_of_the_right_width() {
        let meta = ModelMetadataResponse {
            inputs: ["input_ids", "attention_mask"]
                .iter()
                .map(|n| tensor(n, "INT64", &[-1, -1]))
                .collect(),
            outputs: vec![tensor("last_hidden_state", "FP32", &[-1, -1, 384])],
            ..Default::default()
        };
        let mut want = Expected {
            model: "embed".into(),
            inputs: vec!["input_ids".into(), "attention_mask".into()],
            output: "last_hidden_state".into(),
            output_dims: vec![None, Some(384)],
        };
        assert_eq!(check(&meta, &want), Ok(()));
        want.output_dims = vec![None, Some(768)];
        assert!(check(&meta, &want).is_err());
    }
}
