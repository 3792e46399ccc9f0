//! Sentence embeddings for mining on the inference server (`embed`), at Triton priority
//! [`MINING_PRIORITY`] and in chunks of [`CHUNK`] texts, so a Check never waits behind a whole
//! corpus. Tokenising and pooling stay here, as in process: the server returns the token vectors
//! and we mean-pool them under the attention mask and L2-normalise. With the fallback on, a chunk
//! the server does not answer is embedded in process (the same graph, so the same vectors).
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use app::ml::SentenceEmbedder;
use ndarray::{ArrayViewD, IxDyn};
use tokenizers::Tokenizer;

use super::client::InferenceClient;
use super::contract::{self, Expected};
use super::{EMBED_MODEL, MINING_PRIORITY};
use crate::ml::embedder::{encode, load_tokenizer, mean_pool_normalised, Encoded};
use crate::ml::model::{dir_name, short_sha256};

/// Texts per call.
pub const CHUNK: usize = 64;

/// A chunk's deadline: mining is not interactive, but a hung server must not hang the run.
const DEADLINE: Duration = Duration::from_secs(60);

/// After a failed chunk, the fallback embeds the rest for this long before the server is tried
/// again.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// The hidden width the local `config.json` gives (`hidden_size`), if it says.
fn local_width(dir: &std::path::Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("config.json")).ok()?;
    let config: serde_json::Value = serde_json::from_str(&text).ok()?;
    config["hidden_size"].as_u64().map(|n| n as usize)
}

pub struct RemoteEmbedder {
    client: InferenceClient,
    dir: PathBuf,
    runtime: tokio::runtime::Handle,
    fallback: Option<Arc<dyn SentenceEmbedder>>,
    /// Kept once the server has answered; a failure is tried again at the next call.
    ready: Mutex<Option<Arc<Ready>>>,
    /// After a failure, with a fallback, chunks go to it until then (a hung server would
    /// otherwise cost every chunk its deadline).
    down_until: Mutex<Option<Instant>>,
}

/// Loaded at first use: the tokenizer, the version and the inputs the server's model reads.
struct Ready {
    tokenizer: Tokenizer,
    version: String,
    inputs: Vec<String>,
}

impl RemoteEmbedder {
    /// `dir` holds the model's `tokenizer.json` and `model.onnx` (for its version); `runtime`
    /// runs the calls, which come from mining's blocking threads.
    pub fn new(
        url: &str,
        dir: PathBuf,
        runtime: tokio::runtime::Handle,
        fallback: Option<Arc<dyn SentenceEmbedder>>,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            client: InferenceClient::new(url)?,
            dir,
            runtime,
            fallback,
            ready: Mutex::new(None),
            down_until: Mutex::new(None),
        })
    }

    /// Whether the server serves [`EMBED_MODEL`] as our tokenizer and model expect (blocking: at
    /// start-up, from a blocking thread). A failure is tried again at the next use.
    pub fn check(&self) -> Result<(), String> {
        self.ready().map(|_| ())
    }

    fn ready(&self) -> Result<Arc<Ready>, String> {
        let mut slot = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ready) = slot.as_ref() {
            return Ok(ready.clone());
        }
        let graph = self.dir.join("model.onnx");
        let tokenizer = load_tokenizer(&self.dir.join("tokenizer.json")).map_err(|e| {
            format!("the sentence embedding model is not installed here ({e:#}); scripts/setup.sh installs it")
        })?;
        let version = format!(
            "{}@{}",
            dir_name(&self.dir),
            short_sha256(&graph).map_err(|e| format!("{e:#}"))?
        );
        let meta = self
            .runtime
            .block_on(self.client.metadata(EMBED_MODEL, Duration::from_secs(5)))
            .map_err(|e| format!("{EMBED_MODEL:?} at {}: {e}", self.client.url()))?;
        let inputs: Vec<String> = ["input_ids", "attention_mask", "token_type_ids"]
            .into_iter()
            .filter(|n| meta.inputs.iter().any(|t| t.name == *n))
            .map(str::to_owned)
            .collect();
        contract::check(
            &meta,
            &Expected {
                model: EMBED_MODEL.into(),
                inputs: inputs.clone(),
                output: "last_hidden_state".into(),
                output_dims: vec![None, local_width(&self.dir)],
            },
        )?;
        let ready = Arc::new(Ready {
            tokenizer,
            version,
            inputs,
        });
        *slot = Some(ready.clone());
        Ok(ready)
    }

    fn embed_chunk(&self, ready: &Ready, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let Encoded {
            batch,
            ids,
            mask,
            type_ids,
            ..
        } = encode(&ready.tokenizer, texts).map_err(|e| format!("{e:#}"))?;
        let inputs: Vec<(String, ndarray::Array2<i64>)> = ready
            .inputs
            .iter()
            .map(|n| {
                let a = match n.as_str() {
                    "input_ids" => ids.clone(),
                    "attention_mask" => mask.clone(),
                    _ => type_ids.clone(),
                };
                (n.clone(), a)
            })
            .collect();
        let out = self
            .runtime
            .block_on(self.client.infer(
                EMBED_MODEL,
                &inputs,
                "last_hidden_state",
                MINING_PRIORITY,
                DEADLINE,
            ))
            .map_err(|e| e.to_string())?;
        if out.shape.len() != 3 || out.shape[0] != batch || out.shape[1] != mask.ncols() {
            return Err(format!(
                "the inference server's embed answered shape {:?} for {batch} texts of {} tokens",
                out.shape,
                mask.ncols()
            ));
        }
        let hidden =
            ArrayViewD::from_shape(IxDyn(&out.shape), &out.values).map_err(|e| e.to_string())?;
        Ok((0..batch)
            .map(|row| mean_pool_normalised(&hidden, &mask, row, out.shape[2]))
            .collect())
    }
}

impl SentenceEmbedder for RemoteEmbedder {
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, String> {
        let mut vectors = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(CHUNK) {
            let resting = self
                .down_until
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some_and(|until| Instant::now() < until);
            if let (true, Some(local)) = (resting, &self.fallback) {
                vectors.extend(local.embed(chunk)?);
                continue;
            }
            let there = self
                .ready()
                .and_then(|ready| self.embed_chunk(&ready, chunk));
            match (there, &self.fallback) {
                (Ok(v), _) => vectors.extend(v),
                (Err(e), Some(local)) => {
                    tracing::warn!(error = %e, "the inference server did not embed a chunk; embedding in process for the next {RETRY_AFTER:?}");
                    *self.down_until.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(Instant::now() + RETRY_AFTER);
                    vectors.extend(local.embed(chunk)?);
                }
                (Err(e), None) => {
                    return Err(format!(
                        "the inference server could not embed the sentences: {e}"
                    ))
                }
            }
        }
        Ok(vectors)
    }

    fn version(&self) -> Result<String, String> {
        match (self.ready(), &self.fallback) {
            (Ok(ready), _) => Ok(ready.version.clone()),
            (Err(_), Some(local)) => local.version(),
            (Err(e), None) => Err(e),
        }
    }
}
