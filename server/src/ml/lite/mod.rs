//! The lite scorer: always available, built only from what the package registries give. The
//! all-MiniLM-L6-v2 sentence embedding model (PyPI, the one the embedding miner uses) embeds both
//! sentences; two small heads committed in the repository (`server/models/lite-heads.json`,
//! trained by `scripts/models/train_lite_heads.py` on the APT paper's scored pairs) turn the
//! pair's features into P(mutual implication) and a BLEURT estimate.
//!
//! - [`text_metrics`]: chrF and BLEU as sacrebleu computes them.
//! - [`features`]: the symmetric pair features the heads read.
//! - [`head`]: the heads' forward pass.
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context};
use app::ml::{PairScores, ScorerKind, ScorerVersions};
use serde::Deserialize;

use super::config::MlConfig;
use super::embedder::SentenceModel;

pub mod features;
pub mod head;
pub mod text_metrics;

/// The heads the binary carries (the committed file, compiled in).
pub const BUILT_IN_HEADS: &str = include_str!("../../../models/lite-heads.json");

/// How well the heads imitated the paper's models on pairs held out from training.
#[derive(Debug, Clone, Deserialize)]
pub struct Validation {
    /// Held-out rows (human attempts of the APT study).
    pub rows: usize,
    /// Share of rows where the head's MI agrees with the paper's MI judge.
    pub mi_accuracy: f64,
    pub mi_mcc: f64,
    /// Pearson correlation with the paper's BLEURT.
    pub bleurt_pearson: f64,
    /// Share of rows where "paid or not" agrees with the paper's models'.
    pub paid_agreement: f64,
}

/// The heads file: both heads, the embedding they were trained on, and their validation.
#[derive(Debug, Clone, Deserialize)]
pub struct LiteHeads {
    /// A name for the trained pair of heads, e.g. `lite-2026-11-23`.
    pub name: String,
    /// Embedding dimensions the heads were trained on.
    pub embedding_dim: usize,
    pub mi: head::Head,
    pub bleurt: head::Head,
    pub validation: Validation,
}

impl LiteHeads {
    /// Parses and checks a heads file: both heads' shapes, and that they read exactly the
    /// features [`features::pair_features`] writes for `embedding_dim`.
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut heads: LiteHeads =
            serde_json::from_str(text).context("not a lite heads file (JSON)")?;
        let names = features::feature_names(heads.embedding_dim);
        let dim = heads.embedding_dim;
        for (name, h) in [("mi", &mut heads.mi), ("bleurt", &mut heads.bleurt)] {
            h.validate()
                .map_err(|e| anyhow::anyhow!("the {name} head is malformed: {e}"))?;
            h.bind(&names).map_err(|e| {
                anyhow::anyhow!("the {name} head does not fit {dim}-dimensional embeddings: {e}")
            })?;
        }
        Ok(heads)
    }

    /// P(mutual implication) and the BLEURT estimate for a full feature row.
    pub fn predict(&self, features: &[f64]) -> (f64, f64) {
        (
            self.mi.predict_row(features),
            self.bleurt.predict_row(features),
        )
    }

    /// The words an annotator, researcher and export see for this scorer.
    pub fn description(&self) -> String {
        format!(
            "lite stand-in, agrees with the paper's MI on {:.0}% of held-out pairs (BLEURT r {:.2})",
            self.validation.mi_accuracy * 100.0,
            self.validation.bleurt_pearson
        )
    }
}

/// Where the heads come from: the built-in ones, or a file (`PARACROWD_LITE_HEADS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeadsSource {
    BuiltIn,
    File(PathBuf),
}

/// How many recent texts' embeddings are kept (a worker Checks the same source many times).
const EMBEDDING_CACHE: usize = 4096;

/// The loaded lite scorer.
pub struct LiteScorer {
    embedder: SentenceModel,
    heads: LiteHeads,
    versions: Arc<ScorerVersions>,
    cache: HashMap<String, Arc<Vec<f32>>>,
    order: VecDeque<String>,
}

impl LiteScorer {
    /// Loads the embedding model from `embedding_dir` and the heads; errors name the path.
    pub fn load(
        embedding_dir: &Path,
        heads: &HeadsSource,
        config: &MlConfig,
    ) -> anyhow::Result<Self> {
        let (text, heads_label) = match heads {
            HeadsSource::BuiltIn => (BUILT_IN_HEADS.to_owned(), "built-in heads".to_owned()),
            HeadsSource::File(path) => (
                std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the lite heads {}", path.display()))?,
                path.display().to_string(),
            ),
        };
        let heads = LiteHeads::parse(&text).with_context(|| heads_label.clone())?;
        let mut embedder = SentenceModel::load(embedding_dir, config)?;
        let dim = embedder
            .embed(&["A probe sentence.".to_owned()])?
            .first()
            .map_or(0, Vec::len);
        if dim != heads.embedding_dim {
            bail!(
                "{heads_label} expect {}-dimensional embeddings but {} gives {dim}: use heads trained for this embedding model",
                heads.embedding_dim,
                embedding_dir.display()
            );
        }
        let tag = format!("{}+{}", heads.name, embedder.version());
        let versions = Arc::new(ScorerVersions {
            mi: format!("lite-mi:{tag}"),
            bleurt: format!("lite-bleurt:{tag}"),
            kind: ScorerKind::Lite,
            description: heads.description(),
            served_by: Default::default(),
        });
        Ok(Self {
            embedder,
            heads,
            versions,
            cache: HashMap::new(),
            order: VecDeque::new(),
        })
    }

    pub fn versions(&self) -> Arc<ScorerVersions> {
        self.versions.clone()
    }

    pub fn heads(&self) -> &LiteHeads {
        &self.heads
    }

    /// One text's embedding, computed alone: the embedding graph is int8 with dynamic
    /// quantisation, whose scale depends on everything in the batch, so a text embedded with
    /// others (or padded) would score differently from the same text alone.
    fn embedding(&mut self, text: &str) -> anyhow::Result<Arc<Vec<f32>>> {
        if let Some(e) = self.cache.get(text) {
            return Ok(e.clone());
        }
        let e = Arc::new(
            self.embedder
                .embed(&[text.to_owned()])?
                .pop()
                .context("the embedding model returned nothing")?,
        );
        if self.order.len() >= EMBEDDING_CACHE {
            if let Some(old) = self.order.pop_front() {
                self.cache.remove(&old);
            }
        }
        self.order.push_back(text.to_owned());
        self.cache.insert(text.to_owned(), e.clone());
        Ok(e)
    }

    /// The features of `(a, b)` as the heads read them.
    pub fn features(&mut self, a: &str, b: &str) -> anyhow::Result<Vec<f64>> {
        let (u, v) = (self.embedding(a)?, self.embedding(b)?);
        Ok(features::pair_features(a, b, &u, &v))
    }

    /// Scores every `(source, attempt)`. The features are symmetric, so both directions get the
    /// same numbers; `latency_ms` is left 0 for the caller.
    pub fn score_pairs(&mut self, pairs: &[(&str, &str)]) -> anyhow::Result<Vec<PairScores>> {
        pairs
            .iter()
            .map(|&(source, attempt)| {
                let f = self.features(source, attempt)?;
                let (p, bleurt) = self.heads.predict(&f);
                let (p, bleurt) = (p as f32, bleurt as f32);
                let probs = vec![1.0 - p, p];
                Ok(PairScores {
                    labels: vec!["not_mi".into(), "mi".into()],
                    forward_probs: probs.clone(),
                    backward_probs: probs,
                    is_mutual_implication: p > 0.5,
                    bleurt_forward: bleurt,
                    bleurt_backward: bleurt,
                    bleurt,
                    versions: self.versions.clone(),
                    latency_ms: 0.0,
                })
            })
            .collect()
    }
}
