//! `PARACROWD_SCORER_FALLBACK=local`: the in-process engine scores Checks while the inference
//! server is down (or fails a call), and the server takes them back when its probe sees it
//! ready. Each attempt records which one scored it (`apt_attempt.served_by`); the switch is
//! logged and counted on `/metrics`.
use std::sync::Arc;

use app::ml::{PairScorer, ScoreError, ScoreFuture, ScorerLoad, ScorerVersions};

use super::scorer::{RemoteFailure, RemoteScorer};
use crate::ml::ScoringEngine;

#[derive(Clone)]
pub struct FallbackScorer {
    remote: RemoteScorer,
    local: ScoringEngine,
}

impl FallbackScorer {
    pub fn new(remote: RemoteScorer, local: ScoringEngine) -> Self {
        Self { remote, local }
    }
}

impl PairScorer for FallbackScorer {
    fn score(&self, source: String, attempt: String) -> ScoreFuture {
        let this = self.clone();
        Box::pin(async move {
            if this.remote.is_up() {
                match this.remote.score_remote(&source, &attempt).await {
                    Ok(scores) => return Ok(scores),
                    // Our own limit, not the server's health: as the engine's full queue does.
                    Err(RemoteFailure::Saturated) => return Err(ScoreError::Busy),
                    Err(e) => {
                        tracing::warn!(error = %e, "scoring this Check in process instead");
                    }
                }
            }
            this.remote.keep_probing();
            this.remote.count_fallback();
            this.local.score(source, attempt).await
        })
    }

    /// The inference server's versions: the models are the same (checked at start-up), and
    /// each score carries the versions of whoever computed it.
    fn versions(&self) -> Arc<ScorerVersions> {
        if self.remote.is_up() {
            self.remote.versions()
        } else {
            self.local.versions()
        }
    }

    fn admit(&self) -> Result<(), ScoreError> {
        if self.remote.is_up() {
            Ok(())
        } else {
            self.local.admit()
        }
    }

    fn load(&self) -> Option<ScorerLoad> {
        let mut load = self.local.load().unwrap_or_default();
        load.remote = Some(self.remote.remote_load());
        Some(load)
    }
}
