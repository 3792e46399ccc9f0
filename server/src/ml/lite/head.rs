//! The lite scorer's heads: small multilayer perceptrons over standardised pair features, read
//! from the JSON the training script writes (`scripts/models/train_lite_heads.py`). One head
//! gives P(mutual implication), the other a BLEURT estimate. Plain arithmetic in f64, so the
//! Rust forward pass equals scikit-learn's to rounding (`tests/ml/lite.rs`).
use serde::Deserialize;

/// What the last layer's output means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// A probability: the logistic function of the last layer.
    Sigmoid,
    /// A value as it is (a regression).
    Identity,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Activation {
    Relu,
    Identity,
}

/// One dense layer: `activation(weights · x + bias)`, `weights` as rows of outputs.
#[derive(Debug, Clone, Deserialize)]
pub struct Layer {
    pub weights: Vec<Vec<f64>>,
    pub bias: Vec<f64>,
    pub activation: Activation,
}

/// One head as the training script writes it.
#[derive(Debug, Clone, Deserialize)]
pub struct Head {
    /// Feature names, in the order the first layer expects them.
    pub inputs: Vec<String>,
    /// Standardisation: `(x - mean) / scale` per input.
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    pub layers: Vec<Layer>,
    pub output: Output,
    /// Where each input is in the full feature row (set by [`Head::bind`]).
    #[serde(skip)]
    columns: Vec<usize>,
}

impl Head {
    /// Finds each input by name among `features` (the full row's names); the message names an
    /// input this build does not compute.
    pub fn bind(&mut self, features: &[String]) -> Result<(), String> {
        self.columns = self
            .inputs
            .iter()
            .map(|name| {
                features.iter().position(|f| f == name).ok_or_else(|| {
                    format!("it reads a feature this build does not compute: {name}")
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    /// The head's output for a full feature row (the names [`Head::bind`] was given).
    pub fn predict_row(&self, row: &[f64]) -> f64 {
        let picked: Vec<f64> = self.columns.iter().map(|&c| row[c]).collect();
        self.predict(&picked)
    }

    /// Checks that the shapes fit together; the message says what does not.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.inputs.len();
        if self.mean.len() != n || self.scale.len() != n {
            return Err(format!(
                "{n} inputs but {} means and {} scales",
                self.mean.len(),
                self.scale.len()
            ));
        }
        if self.scale.iter().any(|s| !s.is_finite() || *s == 0.0) {
            return Err("a scale is zero or not finite".into());
        }
        let mut width = n;
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.weights.len() != layer.bias.len() {
                return Err(format!(
                    "layer {i} has {} weight rows and {} biases",
                    layer.weights.len(),
                    layer.bias.len()
                ));
            }
            if let Some(row) = layer.weights.iter().find(|r| r.len() != width) {
                return Err(format!(
                    "layer {i} takes {} values but gets {width}",
                    row.len()
                ));
            }
            width = layer.bias.len();
        }
        if self.layers.is_empty() || width != 1 {
            return Err(format!("the last layer gives {width} values, not 1"));
        }
        Ok(())
    }

    /// The head's output for one feature row (in `inputs` order).
    pub fn predict(&self, features: &[f64]) -> f64 {
        let mut x: Vec<f64> = features
            .iter()
            .zip(self.mean.iter().zip(&self.scale))
            .map(|(v, (m, s))| (v - m) / s)
            .collect();
        for layer in &self.layers {
            x = layer
                .weights
                .iter()
                .zip(&layer.bias)
                .map(|(row, b)| {
                    let z = row.iter().zip(&x).map(|(w, v)| w * v).sum::<f64>() + b;
                    match layer.activation {
                        Activation::Relu => z.max(0.0),
                        Activation::Identity => z,
                    }
                })
                .collect();
        }
        match self.output {
            Output::Sigmoid => 1.0 / (1.0 + (-x[0]).exp()),
            Output::Identity => x[0],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(output: Output) -> Head {
        Head {
            inputs: vec!["a".into(), "b".into()],
            mean: vec![1.0, 0.0],
            scale: vec![2.0, 1.0],
            layers: vec![
                Layer {
                    weights: vec![vec![1.0, -1.0], vec![0.5, 0.5]],
                    bias: vec![0.0, -10.0],
                    activation: Activation::Relu,
                },
                Layer {
                    weights: vec![vec![2.0, 3.0]],
                    bias: vec![0.25],
                    activation: Activation::Identity,
                },
            ],
            output,
            columns: Vec::new(),
        }
    }

    #[test]
    fn inputs_are_found_by_name_in_the_full_row() {
        let mut h = head(Output::Identity);
        h.bind(&["x".into(), "b".into(), "a".into()]).unwrap();
        assert!((h.predict_row(&[99.0, -1.0, 5.0]) - 6.25).abs() < 1e-12);
        let err = h.bind(&["a".into()]).unwrap_err();
        assert!(err.contains("does not compute: b"), "{err}");
    }

    #[test]
    fn forward_pass_by_hand() {
        // standardised (2, -1); hidden relu(3) = 3, relu(0.5 - 10) = 0; out 2*3 + 0.25.
        let h = head(Output::Identity);
        h.validate().unwrap();
        assert!((h.predict(&[5.0, -1.0]) - 6.25).abs() < 1e-12);
        let p = head(Output::Sigmoid).predict(&[5.0, -1.0]);
        assert!((p - 1.0 / (1.0 + (-6.25f64).exp())).abs() < 1e-12);
    }

    #[test]
    fn mismatched_shapes_are_named() {
        let mut h = head(Output::Identity);
        h.layers[1].weights[0].push(1.0);
        assert!(h
            .validate()
            .unwrap_err()
            .contains("layer 1 takes 3 values but gets 2"));
        let mut h = head(Output::Identity);
        h.mean.pop();
        assert!(h.validate().unwrap_err().contains("2 inputs but 1 means"));
    }
}
