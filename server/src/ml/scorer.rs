//! The Check's scorer: MI and BLEURT for a batch of (source, attempt) pairs. Either a pair of
//! sequence-pair models (the paper's, their int8 copy, the stand-ins, or models the operator
//! named) with one forward pass per model over both directions of every pair, or the lite scorer
//! (sentence embeddings and two small heads). Synchronous: the engine's worker thread and the
//! `score` command own a `Scorer`. [`super::source`] decides which one at start-up.
use std::sync::Arc;

use anyhow::{bail, Context};
use app::domain::mutual_implication::{softmax, MiJudge};
use app::ml::{PairScores, ScorerKind, ScorerVersions};

use super::config::MlConfig;
use super::lite::LiteScorer;
use super::model::{PairEncoder, PairModel};
use super::runtime::ActiveProvider;
use super::source::{self, Resolution};

pub struct Scorer {
    backend: Backend,
    versions: Arc<ScorerVersions>,
}

// One backend per process: the size difference between the variants costs nothing.
#[allow(clippy::large_enum_variant)]
enum Backend {
    Models {
        mi: PairModel,
        bleurt: PairModel,
        judge: MiJudge,
    },
    Lite(Box<LiteScorer>),
}

impl Scorer {
    /// The scorer the configuration's model sources give (see [`source::resolve`]); errors say
    /// what was tried and why it failed.
    pub fn load(config: &MlConfig) -> anyhow::Result<Self> {
        Ok(Self::resolve(config)?.0)
    }

    /// Like [`Scorer::load`], with the resolver's account of what it chose and skipped.
    pub fn resolve(config: &MlConfig) -> anyhow::Result<(Self, Resolution)> {
        source::resolve(config)
    }

    /// Pairs two loaded models, checking that each is the right kind.
    pub fn new(mi: PairModel, bleurt: PairModel) -> anyhow::Result<Self> {
        let description = format!("models {} and {}", mi.version(), bleurt.version());
        Self::from_models(mi, bleurt, ScorerKind::Custom, description)
    }

    /// Pairs two loaded models under a scorer kind and its description in words.
    pub fn from_models(
        mi: PairModel,
        bleurt: PairModel,
        kind: ScorerKind,
        description: String,
    ) -> anyhow::Result<Self> {
        let id2label = mi.labels().iter().cloned().enumerate().collect();
        let judge = MiJudge::from_id2label(&id2label)
            .with_context(|| format!("{} is not an MI judge", mi.dir().display()))?;
        if bleurt.labels().len() != 1 {
            bail!(
                "{} is not a BLEURT model: it has {} outputs, BLEURT has one score",
                bleurt.dir().display(),
                bleurt.labels().len()
            );
        }
        let versions = Arc::new(ScorerVersions {
            mi: mi.version().to_owned(),
            bleurt: bleurt.version().to_owned(),
            kind,
            description,
            served_by: Default::default(),
        });
        tracing::info!(mi = %versions.mi, bleurt = %versions.bleurt, judge = ?judge, "scoring models loaded");
        Ok(Self {
            backend: Backend::Models { mi, bleurt, judge },
            versions,
        })
    }

    /// The lite scorer as a Check's scorer.
    pub fn from_lite(lite: LiteScorer) -> Self {
        Self {
            versions: lite.versions(),
            backend: Backend::Lite(Box::new(lite)),
        }
    }

    pub fn versions(&self) -> Arc<ScorerVersions> {
        self.versions.clone()
    }

    /// The MI judge's rule (`None` for the lite scorer, whose head gives P(MI) directly).
    pub fn judge(&self) -> Option<&MiJudge> {
        match &self.backend {
            Backend::Models { judge, .. } => Some(judge),
            Backend::Lite(_) => None,
        }
    }

    /// The tokenizers, labels and rule of the two models, for a client that runs the same graphs
    /// on an inference server (`None` for the lite scorer, which runs only here).
    pub fn encoders(&self) -> Option<PairEncoders> {
        match &self.backend {
            Backend::Models { mi, bleurt, judge } => Some(PairEncoders {
                mi: mi.encoder().clone(),
                bleurt: bleurt.encoder().clone(),
                judge: judge.clone(),
                versions: self.versions.clone(),
            }),
            Backend::Lite(_) => None,
        }
    }

    /// What runs the MI and BLEURT models (the lite scorer's embedding model runs on the CPU).
    pub fn providers(&self) -> (ActiveProvider, ActiveProvider) {
        match &self.backend {
            Backend::Models { mi, bleurt, .. } => (mi.provider(), bleurt.provider()),
            Backend::Lite(_) => (ActiveProvider::Cpu, ActiveProvider::Cpu),
        }
    }

    /// Scores every `(source, attempt)`; `latency_ms` is left 0 for the caller to fill.
    pub fn score_pairs(&mut self, pairs: &[(&str, &str)]) -> anyhow::Result<Vec<PairScores>> {
        match &mut self.backend {
            Backend::Lite(lite) => lite.score_pairs(pairs),
            Backend::Models { mi, bleurt, judge } => {
                score_with_models(mi, bleurt, judge, &self.versions, pairs)
            }
        }
    }
}

fn score_with_models(
    mi: &mut PairModel,
    bleurt: &mut PairModel,
    judge: &MiJudge,
    versions: &Arc<ScorerVersions>,
    pairs: &[(&str, &str)],
) -> anyhow::Result<Vec<PairScores>> {
    let both: Vec<(&str, &str)> = pairs.iter().flat_map(|&(s, a)| [(s, a), (a, s)]).collect();
    let mi_rows = mi.logits(&both)?;
    let bleurt_rows = bleurt.logits(&both)?;
    compose(judge, mi.labels(), versions, &mi_rows, &bleurt_rows)
}

/// What a client of the same two models needs: their encoders, the MI rule and the versions.
#[derive(Clone)]
pub struct PairEncoders {
    pub mi: PairEncoder,
    pub bleurt: PairEncoder,
    pub judge: MiJudge,
    pub versions: Arc<ScorerVersions>,
}

/// The scores of each pair from the MI rows and BLEURT rows of both directions (rows `2i` and
/// `2i + 1` belong to pair `i`), whoever ran the models.
pub fn compose(
    judge: &MiJudge,
    labels: &[String],
    versions: &Arc<ScorerVersions>,
    mi_rows: &[Vec<f32>],
    bleurt_rows: &[Vec<f32>],
) -> anyhow::Result<Vec<PairScores>> {
    if mi_rows.iter().any(|r| r.len() != labels.len()) {
        bail!(
            "{} returned a row whose width differs from id2label",
            versions.mi
        );
    }
    if mi_rows.len() != bleurt_rows.len() || !mi_rows.len().is_multiple_of(2) {
        bail!(
            "{} rows of MI and {} of BLEURT do not make pairs",
            mi_rows.len(),
            bleurt_rows.len()
        );
    }
    if bleurt_rows.iter().any(|r| r.is_empty()) {
        bail!("{} returned an empty row", versions.bleurt);
    }
    Ok((0..mi_rows.len() / 2)
        .map(|i| {
            let forward_probs = softmax(&mi_rows[2 * i]);
            let backward_probs = softmax(&mi_rows[2 * i + 1]);
            let (bleurt_forward, bleurt_backward) =
                (bleurt_rows[2 * i][0], bleurt_rows[2 * i + 1][0]);
            PairScores {
                is_mutual_implication: judge.decide(&forward_probs, &backward_probs),
                labels: labels.to_vec(),
                forward_probs,
                backward_probs,
                bleurt_forward,
                bleurt_backward,
                bleurt: ((f64::from(bleurt_forward) + f64::from(bleurt_backward)) / 2.0) as f32,
                versions: versions.clone(),
                latency_ms: 0.0,
            }
        })
        .collect())
}
