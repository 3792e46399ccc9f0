//! Use cases, between the server functions (`api/`) and the database (`db/`) and the domain
//! (`domain/`). Data flows one way: pages → api → service → db / domain.
//!
//! A service function is given what it needs (the pool, the caller's id, an engine) and never
//! reads the Leptos context or checks roles: `api/` checks the caller's role on the server and
//! parses the form; the CLI (`server/src/cli.rs`) and the download routes call services
//! directly with the same guarantees. Each module is one family of use cases.
pub mod account_groups;
pub mod accounts;
pub mod apt;
pub mod apt_report;
pub mod call_limits;
pub mod campaigns;
pub mod export;
pub mod gate_table;
pub mod imports;
pub mod judge_campaign_cache;
pub mod judge_campaigns;
pub mod judge_report;
pub mod judging;
pub mod mining;
pub mod mining_follow_up;
pub mod mining_jobs;
pub mod mturk;
pub mod payments;
pub mod prolific;
pub mod quality;
pub mod rate_limits;
pub mod session_cache;
pub mod studies;
pub mod study_completion;

/// A time as RFC 3339 (UTC), as the pages show and sort it.
pub fn rfc3339(t: time::OffsetDateTime) -> String {
    t.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// The campaign `id` if it is of `kind` (`judge` or `apt`): not found when there is none, and a
/// validation error on `campaign_id` saying `wrong_kind` when it is of the other kind.
pub async fn campaign_of_kind(
    pool: &sqlx::PgPool,
    id: crate::domain::CampaignId,
    kind: crate::domain::CampaignKind,
    wrong_kind: &str,
) -> Result<crate::db::campaigns::CampaignSettings, crate::error::AppError> {
    match crate::db::campaigns::find(pool, id).await? {
        Some(c) if c.kind == kind => Ok(c),
        Some(_) => Err(crate::error::AppError::validation(
            "campaign_id",
            wrong_kind,
        )),
        None => Err(crate::error::AppError::NotFound),
    }
}
