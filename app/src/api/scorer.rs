//! Which scorer the Check runs on: for the admins' banner. Researchers and admins only.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScorerInfo {
    /// `paper`, `paper_int8`, `standin`, `lite` or `custom`.
    pub kind: String,
    /// In words, as annotators see it.
    pub description: String,
    /// The paper's models (or their int8 copy): no banner needed.
    pub is_papers: bool,
    pub mi_model: String,
    pub bleurt_model: String,
}

#[server(endpoint = "research/scorer_status")]
pub async fn scorer_status() -> Result<ScorerInfo, AppError> {
    super::with_status(ssr::scorer_status().await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::ScorerInfo;
    use crate::domain::Role;
    use crate::error::AppError;

    pub async fn scorer_status() -> Result<ScorerInfo, AppError> {
        let state = crate::state::app_state()?;
        crate::session::require_role(&[Role::Researcher, Role::Admin]).await?;
        let v = state.scorer.versions();
        Ok(ScorerInfo {
            kind: v.kind.as_str().to_owned(),
            description: v.description.clone(),
            is_papers: v.kind.is_papers(),
            mi_model: v.mi.clone(),
            bleurt_model: v.bleurt.clone(),
        })
    }
}
