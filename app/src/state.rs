//! What every request handler and server function can reach on the server.
use std::sync::Arc;

use axum::extract::FromRef;
use leptos::prelude::*;
use sqlx::PgPool;

use crate::client_addr::TrustedProxies;
use crate::domain::rate_limit::RateLimits;
use crate::domain::LoginPolicy;
use crate::draws::Draws;
use crate::error::AppError;
use crate::ml::{PairScorer, SentenceEmbedder};
use crate::service::judge_campaign_cache::JudgeCampaignCache;
use crate::service::session_cache::SessionCache;

/// Shared server state, given to axum routes as `State` and to server functions as context.
#[derive(FromRef, Clone)]
pub struct AppState {
    pub leptos_options: LeptosOptions,
    pub pool: PgPool,
    /// When a login that failed before must wait (its counts are in the database).
    pub login_policy: LoginPolicy,
    /// Registrations and new study-link accounts per address (counted in the database).
    pub rate_limits: RateLimits,
    /// Server-function calls per account (counted in the database in batches).
    pub calls: Arc<crate::service::call_limits::CallLimits>,
    /// Proxies whose `X-Forwarded-For` names the client (`PARACROWD_TRUSTED_PROXIES`).
    pub trusted_proxies: Arc<TrustedProxies>,
    /// The MI + BLEURT scoring engine (a deterministic fake in tests).
    pub scorer: Arc<dyn PairScorer>,
    /// Sentence embeddings for the embedding miner (loaded at first use).
    pub embedder: Arc<dyn SentenceEmbedder>,
    /// Random draws for serving judgments (seeded by `PARACROWD_RANDOM_SEED`).
    pub draws: Arc<Draws>,
    /// Judging campaigns' settings, checked against their version on every request.
    pub judge_campaigns: Arc<JudgeCampaignCache>,
    /// The judging calls' sessions, checked against the stored record on every call.
    pub sessions: Arc<SessionCache>,
    /// Connections kept back from the pool for an answer's one call (`db::quick`).
    pub quick: Arc<crate::db::quick::QuickConnections>,
    /// The origins that may show the study and task pages in a frame (MTurk's external
    /// question; `PARACROWD_FRAME_ANCESTORS`). Empty: no page is ever framed.
    pub frame_ancestors: Arc<Vec<String>>,
    /// The annotator bundles' stems (`crate::bundles`), those the site was built with.
    pub annotator_bundles: crate::bundles::AnnotatorBundles,
    /// Prolific's API, when the server has a token (`PARACROWD_PROLIFIC_TOKEN`).
    pub prolific: Option<Arc<crate::prolific::Client>>,
    /// MTurk's API (credentials from the AWS chain, read on the first call).
    pub mturk: Arc<crate::mturk::Client>,
}

/// The state inside a server function or a server-rendered component. Call it before the first
/// `.await`: contexts are read from the reactive owner, which may be gone later.
pub fn app_state() -> Result<AppState, AppError> {
    use_context::<AppState>().ok_or_else(|| {
        // Happens when a server-rendered resource outlives its (re-rendered) owner; call this
        // before the first `.await` of a server function.
        tracing::warn!("AppState missing from the Leptos context");
        AppError::Internal
    })
}

/// The database pool inside a server function.
pub fn pool() -> Result<PgPool, AppError> {
    app_state().map(|s| s.pool)
}
