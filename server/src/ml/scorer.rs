//! The MI judge and BLEURT together. One call scores a batch of (source, attempt) pairs with one
//! forward pass per model over both directions of every pair. Synchronous: the engine's worker
//! thread and the `score` command own a `Scorer`.
use std::sync::Arc;

use anyhow::{bail, Context};
use app::domain::mutual_implication::{softmax, MiJudge};
use app::ml::{PairScores, ScorerVersions};

use super::config::MlConfig;
use super::model::PairModel;
use super::runtime::ActiveProvider;

pub struct Scorer {
    mi: PairModel,
    bleurt: PairModel,
    judge: MiJudge,
    versions: Arc<ScorerVersions>,
}

impl Scorer {
    /// Loads both models; fails with the path of whatever is missing.
    pub fn load(config: &MlConfig) -> anyhow::Result<Self> {
        let mi = PairModel::load(&config.mi_model_dir, config)
            .with_context(|| format!("MI model {}", config.mi_model_dir.display()))?;
        let bleurt = PairModel::load(&config.bleurt_model_dir, config)
            .with_context(|| format!("BLEURT model {}", config.bleurt_model_dir.display()))?;
        Self::new(mi, bleurt)
    }

    /// Pairs two loaded models, checking that each is the right kind.
    pub fn new(mi: PairModel, bleurt: PairModel) -> anyhow::Result<Self> {
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
        });
        tracing::info!(mi = %versions.mi, bleurt = %versions.bleurt, judge = ?judge, "scoring models loaded");
        Ok(Self {
            mi,
            bleurt,
            judge,
            versions,
        })
    }

    pub fn versions(&self) -> Arc<ScorerVersions> {
        self.versions.clone()
    }

    pub fn judge(&self) -> &MiJudge {
        &self.judge
    }

    pub fn providers(&self) -> (ActiveProvider, ActiveProvider) {
        (self.mi.provider(), self.bleurt.provider())
    }

    /// Scores every `(source, attempt)`; `latency_ms` is left 0 for the caller to fill.
    pub fn score_pairs(&mut self, pairs: &[(&str, &str)]) -> anyhow::Result<Vec<PairScores>> {
        let both: Vec<(&str, &str)> = pairs.iter().flat_map(|&(s, a)| [(s, a), (a, s)]).collect();
        let mi_rows = self.mi.logits(&both)?;
        let bleurt_rows = self.bleurt.logits(&both)?;
        let labels = self.mi.labels().to_vec();
        if mi_rows.iter().any(|r| r.len() != labels.len()) {
            bail!(
                "{} returned a row whose width differs from id2label",
                self.versions.mi
            );
        }
        Ok(pairs
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let forward_probs = softmax(&mi_rows[2 * i]);
                let backward_probs = softmax(&mi_rows[2 * i + 1]);
                let (bleurt_forward, bleurt_backward) =
                    (bleurt_rows[2 * i][0], bleurt_rows[2 * i + 1][0]);
                PairScores {
                    is_mutual_implication: self.judge.decide(&forward_probs, &backward_probs),
                    labels: labels.clone(),
                    forward_probs,
                    backward_probs,
                    bleurt_forward,
                    bleurt_backward,
                    bleurt: ((f64::from(bleurt_forward) + f64::from(bleurt_backward)) / 2.0) as f32,
                    versions: self.versions.clone(),
                    latency_ms: 0.0,
                }
            })
            .collect())
    }
}
