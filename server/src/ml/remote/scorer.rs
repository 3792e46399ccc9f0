//! The Check on an inference server. Each Check tokenises both directions here, sends the MI
//! and BLEURT tensors as two concurrent `ModelInfer` calls under one deadline, and builds the
//! scores exactly as the in-process engine does ([`crate::ml::scorer::compose`]). Sequences are
//! padded to a multiple of [`PAD_MULTIPLE`] tokens, so Triton's dynamic batcher (which batches
//! only requests of one shape) can put Checks of similar length into one forward pass.
//!
//! A call that fails, is malformed or passes its deadline answers "busy" (never a score that did
//! not come back), marks the server down, and starts a probe that checks readiness and the model
//! metadata every `probe_every` until the server is back; while it is down Checks answer at once.
//! The up/down and probing rules are in [`super::health`].
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use app::ml::{
    PairScorer, PairScores, RemoteLoad, ScoreError, ScoreFuture, ScorerLoad, ScorerVersions,
    ServedBy,
};
use tokio::sync::Semaphore;

use super::client::{CallError, InferenceClient};
use super::config::RemoteConfig;
use super::contract::{self, Expected};
use super::health::Health;
use super::{BLEURT_MODEL, CHECK_PRIORITY, MI_MODEL};
use crate::ml::scorer::{compose, PairEncoders};

/// Token lengths are rounded up to a multiple of this before they are sent.
pub const PAD_MULTIPLE: usize = 16;

/// Why the server gave no scores.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteFailure {
    /// This process already has `concurrency` Checks in flight.
    #[error("too many Checks in flight to the inference server")]
    Saturated,
    /// Down since an earlier failure; the probe has not seen it back yet.
    #[error("the inference server is down")]
    Down,
    #[error(transparent)]
    Call(#[from] CallError),
    /// It answered, but not with scores of the right shape.
    #[error("the inference server's answer is unusable: {0}")]
    Unusable(String),
    /// Our side failed (tokenisation): the server is not to blame.
    #[error("{0}")]
    Local(String),
}

/// The pair every check of the server scores, there and here.
pub const PROBE: (&str, &str) = (
    "The committee approved the budget on Tuesday.",
    "On Tuesday the budget was passed by the committee.",
);

/// Largest difference allowed between the server's and our probe scores before we conclude it
/// serves other models (the two run the same graphs; they differ by float rounding only).
pub const SAME_MODELS: f32 = 1e-4;

/// A check of the server may wait this long at least: a model's first call on a fresh server
/// (a GPU warming up) is slower than a Check's deadline.
const CHECK_DEADLINE: Duration = Duration::from_secs(30);

/// The largest difference between two scorings of one pair (probabilities and BLEURT).
pub fn worst_difference(a: &PairScores, b: &PairScores) -> f32 {
    if a.forward_probs.len() != b.forward_probs.len() {
        return f32::INFINITY;
    }
    a.forward_probs
        .iter()
        .zip(&b.forward_probs)
        .chain(a.backward_probs.iter().zip(&b.backward_probs))
        .map(|(x, y)| (x - y).abs())
        .chain([
            (a.bleurt_forward - b.bleurt_forward).abs(),
            (a.bleurt_backward - b.bleurt_backward).abs(),
        ])
        .fold(0f32, |worst, d| {
            if d.is_nan() {
                f32::INFINITY
            } else {
                worst.max(d)
            }
        })
}

/// Why the server cannot take Checks now.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerProblem {
    /// Not reachable or not ready: it may come up later.
    #[error("{0}")]
    Down(String),
    /// It answers, with models of another shape: a configuration error, never scored with.
    #[error("{0}")]
    Mismatch(String),
}

/// A handle to the remote scorer; cheap to clone.
#[derive(Clone)]
pub struct RemoteScorer {
    inner: Arc<Inner>,
}

struct Inner {
    client: InferenceClient,
    config: RemoteConfig,
    encoders: PairEncoders,
    versions: Arc<ScorerVersions>,
    /// Our own scores of [`PROBE`]: the server must give the same before it takes Checks.
    reference: PairScores,
    slots: Arc<Semaphore>,
    health: Health,
    scored: AtomicU64,
    failures: AtomicU64,
    fallbacks: AtomicU64,
    busy: AtomicU64,
}

impl RemoteScorer {
    /// A scorer for `config.url` that runs the models `encoders` belong to, whose own scores of
    /// [`PROBE`] are `reference`. It starts down; [`RemoteScorer::connect`] brings it up.
    pub fn new(
        config: &RemoteConfig,
        encoders: PairEncoders,
        reference: PairScores,
    ) -> anyhow::Result<Self> {
        let client = InferenceClient::new(&config.url)?;
        let local = &encoders.versions;
        let versions = Arc::new(ScorerVersions {
            mi: local.mi.clone(),
            bleurt: local.bleurt.clone(),
            kind: local.kind,
            description: format!(
                "{} on the inference server at {}",
                local.description, config.url
            ),
            served_by: ServedBy::InferenceServer,
        });
        Ok(Self {
            inner: Arc::new(Inner {
                client,
                slots: Arc::new(Semaphore::new(config.concurrency)),
                config: config.clone(),
                encoders,
                versions,
                reference,
                health: Health::new(),
                scored: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                fallbacks: AtomicU64::new(0),
                busy: AtomicU64::new(0),
            }),
        })
    }

    /// Checks that the server is ready and serves models of our shape, and marks it up.
    pub async fn connect(&self) -> Result<(), ServerProblem> {
        check_server(&self.inner).await?;
        self.inner.health.mark_up();
        Ok(())
    }

    /// Marks the server down and probes it until it is back.
    pub fn start_probing(&self) {
        self.inner.health.mark_down();
        start_probe(&self.inner);
    }

    /// Makes sure a probe runs while the server is down (starting one again is harmless).
    pub fn keep_probing(&self) {
        if !self.is_up() {
            start_probe(&self.inner);
        }
    }

    pub fn is_up(&self) -> bool {
        self.inner.health.is_up()
    }

    pub fn url(&self) -> &str {
        self.inner.client.url()
    }

    /// Counts a Check the fallback scored instead.
    pub(crate) fn count_fallback(&self) {
        self.inner.fallbacks.fetch_add(1, Ordering::Relaxed);
    }

    pub fn remote_load(&self) -> RemoteLoad {
        RemoteLoad {
            up: self.is_up(),
            scored: self.inner.scored.load(Ordering::Relaxed),
            failures: self.inner.failures.load(Ordering::Relaxed),
            fallbacks: self.inner.fallbacks.load(Ordering::Relaxed),
        }
    }

    /// Scores one pair on the server.
    pub async fn score_remote(
        &self,
        source: &str,
        attempt: &str,
    ) -> Result<PairScores, RemoteFailure> {
        let inner = &self.inner;
        let _slot = inner
            .slots
            .clone()
            .try_acquire_owned()
            .map_err(|_| RemoteFailure::Saturated)?;
        if !self.is_up() {
            // The probe is normally running already; starting it again is harmless.
            start_probe(inner);
            return Err(RemoteFailure::Down);
        }
        let started = Instant::now();
        match score_pairs(inner, &[(source, attempt)], inner.config.deadline).await {
            Ok(mut scores) => {
                inner.scored.fetch_add(1, Ordering::Relaxed);
                let mut one = scores.pop().expect("BUG: one pair scored");
                one.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
                Ok(one)
            }
            Err(failure @ RemoteFailure::Local(_)) => Err(failure),
            Err(failure) => {
                inner.failures.fetch_add(1, Ordering::Relaxed);
                if inner.health.failed() {
                    tracing::warn!(server = %inner.config.url, error = %failure, "the inference server failed a Check; probing it until it is back");
                }
                start_probe(inner);
                Err(failure)
            }
        }
    }
}

/// Tokenises `pairs` in both directions and runs both models on the server.
async fn score_pairs(
    inner: &Inner,
    pairs: &[(&str, &str)],
    deadline: Duration,
) -> Result<Vec<PairScores>, RemoteFailure> {
    let both: Vec<(&str, &str)> = pairs.iter().flat_map(|&(s, a)| [(s, a), (a, s)]).collect();
    let encoders = &inner.encoders;
    let unusable = |e: anyhow::Error| RemoteFailure::Unusable(format!("{e:#}"));
    let local = |e: anyhow::Error| RemoteFailure::Local(format!("{e:#}"));
    let mi_inputs = encoders.mi.encode(&both, PAD_MULTIPLE).map_err(local)?;
    let bleurt_inputs = encoders.bleurt.encode(&both, PAD_MULTIPLE).map_err(local)?;
    let (mi, bleurt) = tokio::try_join!(
        inner
            .client
            .infer(MI_MODEL, &mi_inputs, "logits", CHECK_PRIORITY, deadline),
        inner.client.infer(
            BLEURT_MODEL,
            &bleurt_inputs,
            "logits",
            CHECK_PRIORITY,
            deadline
        ),
    )?;
    let rows = |o: &super::client::Output, width: usize, model: &str| {
        if o.shape != [both.len(), width] {
            return Err(RemoteFailure::Unusable(format!(
                "{model} answered shape {:?} for {} rows of {width}",
                o.shape,
                both.len()
            )));
        }
        if o.values.iter().any(|v| !v.is_finite()) {
            return Err(RemoteFailure::Unusable(format!(
                "{model} answered a value that is not a number"
            )));
        }
        Ok(o.values
            .chunks(width)
            .map(<[f32]>::to_vec)
            .collect::<Vec<_>>())
    };
    let labels = encoders.mi.labels();
    let mi_rows = rows(&mi, labels.len(), MI_MODEL)?;
    let bleurt_rows = rows(&bleurt, 1, BLEURT_MODEL)?;
    compose(
        &encoders.judge,
        labels,
        &inner.versions,
        &mi_rows,
        &bleurt_rows,
    )
    .map_err(unusable)
}

/// Ready, both models as our encoders expect them, and our scores of [`PROBE`].
async fn check_server(inner: &Inner) -> Result<(), ServerProblem> {
    let deadline = inner.config.deadline.max(CHECK_DEADLINE);
    let url = &inner.config.url;
    let down = |e: CallError| ServerProblem::Down(format!("{e} ({url})"));
    match inner.client.ready(&[MI_MODEL, BLEURT_MODEL], deadline).await {
        Ok(true) => {}
        Ok(false) => return Err(ServerProblem::Down(format!("the inference server at {url} is not ready (or does not serve {MI_MODEL:?} and {BLEURT_MODEL:?})"))),
        Err(e) => return Err(down(e)),
    }
    let encoders = &inner.encoders;
    for (model, encoder, width) in [
        (MI_MODEL, &encoders.mi, encoders.mi.labels().len()),
        (BLEURT_MODEL, &encoders.bleurt, 1),
    ] {
        let meta = inner.client.metadata(model, deadline).await.map_err(down)?;
        contract::check(
            &meta,
            &Expected {
                model: model.to_owned(),
                inputs: encoder.inputs().to_vec(),
                output: "logits".into(),
                output_dims: vec![Some(width)],
            },
        )
        .map_err(ServerProblem::Mismatch)?;
    }
    let there = match score_pairs(inner, &[PROBE], deadline).await {
        Ok(mut scores) => scores.remove(0),
        Err(RemoteFailure::Call(e)) => return Err(down(e)),
        Err(e) => return Err(ServerProblem::Mismatch(e.to_string())),
    };
    let worst = worst_difference(&there, &inner.reference);
    if worst > SAME_MODELS {
        return Err(ServerProblem::Mismatch(format!(
            "the inference server at {url} scores the probe pair differently from the models \
             here ({} and {}): it differs by {worst:.2e}, so it serves other models",
            inner.reference.versions.mi, inner.reference.versions.bleurt
        )));
    }
    Ok(())
}

/// One probe at a time per scorer; it stops when the server is back or the scorer is dropped.
fn start_probe(inner: &Arc<Inner>) {
    if !inner.health.claim_probe() {
        return;
    }
    let weak: Weak<Inner> = Arc::downgrade(inner);
    let every = inner.config.probe_every;
    tokio::spawn(async move {
        let mut last_error = String::new();
        loop {
            tokio::time::sleep(every).await;
            let Some(inner) = weak.upgrade() else { return };
            match check_server(&inner).await {
                Ok(()) => {
                    inner.health.probe_passed();
                    tracing::warn!(server = %inner.config.url, "the inference server is back; Checks are scored there again");
                    return;
                }
                Err(ServerProblem::Mismatch(e)) if e != last_error => {
                    tracing::error!(server = %inner.config.url, error = %e, "the inference server is back with other models; Checks are not scored there");
                    last_error = e;
                }
                Err(ServerProblem::Down(e)) if e != last_error => {
                    tracing::warn!(server = %inner.config.url, error = %e, "the inference server is still down");
                    last_error = e;
                }
                Err(_) => {}
            }
        }
    });
}

impl PairScorer for RemoteScorer {
    fn score(&self, source: String, attempt: String) -> ScoreFuture {
        let this = self.clone();
        Box::pin(async move {
            this.score_remote(&source, &attempt).await.map_err(|e| {
                this.inner.busy.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(error = %e, "Check answered busy");
                ScoreError::Busy
            })
        })
    }

    fn versions(&self) -> Arc<ScorerVersions> {
        self.inner.versions.clone()
    }

    fn admit(&self) -> Result<(), ScoreError> {
        if self.inner.slots.available_permits() == 0 || !self.is_up() {
            self.inner.busy.fetch_add(1, Ordering::Relaxed);
            return Err(ScoreError::Busy);
        }
        Ok(())
    }

    fn load(&self) -> Option<ScorerLoad> {
        let inner = &self.inner;
        Some(ScorerLoad {
            queue_depth: (inner.config.concurrency - inner.slots.available_permits()) as u64,
            batches: 0,
            pairs: inner.scored.load(Ordering::Relaxed),
            busy: inner.busy.load(Ordering::Relaxed),
            remote: Some(self.remote_load()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::ml::ScorerKind;

    fn scores(forward: [f32; 2], bleurt: f32) -> PairScores {
        PairScores {
            labels: vec!["not_mi".into(), "mi".into()],
            forward_probs: forward.to_vec(),
            backward_probs: forward.to_vec(),
            is_mutual_implication: true,
            bleurt_forward: bleurt,
            bleurt_backward: bleurt,
            bleurt,
            versions: Arc::new(ScorerVersions {
                mi: "mi@0".into(),
                bleurt: "bleurt@0".into(),
                kind: ScorerKind::Custom,
                description: String::new(),
                served_by: ServedBy::InProcess,
            }),
            latency_ms: 0.0,
        }
    }

    #[test]
    fn the_worst_difference_covers_probabilities_and_bleurt_and_nan() {
        let a = scores([0.3, 0.7], 0.1);
        assert_eq!(worst_difference(&a, &a), 0.0);
        assert!((worst_difference(&a, &scores([0.3, 0.7], 0.4)) - 0.3).abs() < 1e-6);
        assert!((worst_difference(&a, &scores([0.5, 0.5], 0.1)) - 0.2).abs() < 1e-6);
        assert_eq!(
            worst_difference(&a, &scores([f32::NAN, 0.7], 0.1)),
            f32::INFINITY
        );
        let mut three = a.clone();
        three.forward_probs.push(0.0);
        assert_eq!(worst_difference(&a, &three), f32::INFINITY);
    }
}
