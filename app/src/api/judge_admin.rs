//! Running a judging campaign (admins): create it with its settings, import pairs, mark test
//! pairs, watch progress and workers, reverse a gate decision, republish. The use cases are in
//! [`crate::service::judge_campaigns`] and [`crate::service::quality`].
use crate::domain::{CampaignId, PairId, UserId};
use crate::error::AppError;
use leptos::prelude::*;

pub use crate::dto::judge_admin::{
    AdminPair, JudgeCampaignOverview, JudgeWorkerView, PairImportSummary, RepublishSummary,
};

/// Creates a judging campaign (draft) with its settings. Admins only. The vote thresholds
/// default to a strict majority (MultiPIT: >= 4 of 6 paraphrase, <= 2 not); a pair gets at least
/// 3 judgments (or all, when it gets fewer) and settles at a posterior of 0.95 unless the form
/// says otherwise (`min_judgments_per_pair` equal to `judgments_per_pair`: fixed redundancy).
#[allow(clippy::too_many_arguments)]
#[server(endpoint = "admin/create_judge_campaign")]
pub async fn create_judge_campaign(
    title: String,
    instructions: String,
    definition: String,
    judgments_per_pair: u32,
    test_every: u32,
    min_test_accuracy: f64,
    min_kappa: f64,
    gate_min_judgments: u32,
    #[server(default)] paraphrase_min_votes: Option<u32>,
    #[server(default)] non_paraphrase_max_votes: Option<u32>,
    #[server(default)] lease_seconds: Option<u32>,
    #[server(default)] gate_rule: Option<String>,
    #[server(default)] min_display_ms: Option<u32>,
    #[server(default)] gate_alpha: Option<f64>,
    #[server(default)] min_judgments_per_pair: Option<u32>,
    #[server(default)] settle_confidence: Option<f64>,
    #[server(default)] test_exposure_cap: Option<String>,
    #[server(default)] gate_worse_by: Option<f64>,
) -> Result<String, AppError> {
    super::with_status(
        ssr::create(
            title,
            instructions,
            (definition, gate_rule, gate_alpha, gate_worse_by),
            (min_judgments_per_pair, settle_confidence, test_exposure_cap),
            [judgments_per_pair, test_every, gate_min_judgments],
            (min_test_accuracy, min_kappa),
            (
                paraphrase_min_votes,
                non_paraphrase_max_votes,
                lease_seconds,
                min_display_ms,
            ),
        )
        .await,
    )
}

/// Imports sentence pairs from a file's text (CSV, TSV, JSONL). With `labels_are_tests`,
/// labeled rows become hidden test pairs. All or nothing. Admins only.
#[server(endpoint = "admin/import_pairs")]
pub async fn import_pairs(
    campaign_id: CampaignId,
    filename: String,
    content: String,
    labels_are_tests: bool,
) -> Result<PairImportSummary, AppError> {
    super::with_status(ssr::import(campaign_id, filename, content, labels_are_tests).await)
}

#[server(endpoint = "admin/judge_overview")]
pub async fn judge_overview(campaign_id: CampaignId) -> Result<JudgeCampaignOverview, AppError> {
    super::with_status(ssr::overview(campaign_id).await)
}

/// Pairs of a campaign with their gold fields, 100 per page; `tests_only` lists test pairs.
#[server(endpoint = "admin/list_pairs")]
pub async fn list_pairs(
    campaign_id: CampaignId,
    tests_only: bool,
    page: u32,
) -> Result<Vec<AdminPair>, AppError> {
    super::with_status(ssr::list_pairs(campaign_id, tests_only, page).await)
}

/// Makes a pair a test pair (`gold` = "paraphrase" or "not_paraphrase", with an explanation)
/// or, with `gold` = "none", an ordinary pair again.
#[server(endpoint = "admin/set_test_pair")]
pub async fn set_test_pair(
    campaign_id: CampaignId,
    pair_id: PairId,
    gold: String,
    #[server(default)] explanation: String,
) -> Result<(), AppError> {
    super::with_status(ssr::set_test_pair(campaign_id, pair_id, gold, explanation).await)
}

/// Promotes the campaign's ordinary pairs whose label settled at a posterior of 0.99 or more,
/// every vote from a worker estimated at least 90% accurate, to test pairs (their gold is the
/// settled label, marked as promoted). Returns how many. Admins only.
#[server(endpoint = "admin/promote_settled_pairs")]
pub async fn promote_settled_pairs(campaign_id: CampaignId) -> Result<u64, AppError> {
    super::with_status(ssr::promote_settled(campaign_id).await)
}

/// Stops or reinstates a worker (`status` = "stopped" or "active"). A reinstated worker's
/// judgments are trusted again and the gate no longer applies to them.
#[server(endpoint = "admin/set_judge_worker_status")]
pub async fn set_judge_worker_status(
    campaign_id: CampaignId,
    user_id: UserId,
    status: String,
) -> Result<(), AppError> {
    super::with_status(ssr::set_worker_status(campaign_id, user_id, status).await)
}

/// Republishing (ParaSCI §5): the judgments of workers whose kappa against the majority of the
/// others is below `min_kappa` (0.4 by default) become untrusted, their pairs go back in the
/// queue for trusted workers, and those workers are stopped (an admin can reinstate them; the
/// republished judgments stay set aside).
#[server(endpoint = "admin/republish")]
pub async fn republish(
    campaign_id: CampaignId,
    min_kappa: f64,
) -> Result<RepublishSummary, AppError> {
    super::with_status(ssr::republish(campaign_id, min_kappa).await)
}

#[cfg(feature = "ssr")]
mod ssr {

    use super::*;
    use crate::api::admin;
    use crate::domain::judge::labels::{default_thresholds, Thresholds};
    use crate::domain::judge::settings::GateRule;
    use crate::domain::judge::settings::{
        Definition, JudgeSettings, DEFAULT_MIN_JUDGMENTS, DEFAULT_SETTLE_CONFIDENCE,
    };
    use crate::service::{judge_campaigns as service, quality};

    pub async fn create(
        title: String,
        instructions: String,
        (definition, gate_rule, gate_alpha, gate_worse_by): (
            String,
            Option<String>,
            Option<f64>,
            Option<f64>,
        ),
        (min_judgments, settle_confidence, exposure_cap): (
            Option<u32>,
            Option<f64>,
            Option<String>,
        ),
        [judgments_per_pair, test_every, gate_min_judgments]: [u32; 3],
        (min_test_accuracy, min_kappa): (f64, f64),
        (para_min, not_max, lease, min_display): (
            Option<u32>,
            Option<u32>,
            Option<u32>,
            Option<u32>,
        ),
    ) -> Result<String, AppError> {
        let (pool, me) = admin().await?;
        let definition = Definition::parse(&definition).ok_or_else(|| {
            AppError::validation("definition", "The definition is `loose` or `strict`.")
        })?;
        let gate_rule = match gate_rule.as_deref().map(str::trim) {
            None | Some("") => GateRule::Confidence,
            Some(r) => GateRule::parse(r).ok_or_else(|| {
                AppError::validation(
                    "gate_rule",
                    "The gate rule is `confidence`, `evidence` or `paper`.",
                )
            })?,
        };
        // An empty field: no cap.
        let test_exposure_cap = match exposure_cap.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(c) => Some(c.parse::<u32>().map_err(|_| {
                AppError::validation(
                    "test_exposure_cap",
                    "A test pair's exposure cap is a whole number of servings, or empty for none.",
                )
            })?),
        };
        let defaults = default_thresholds(judgments_per_pair);
        let settings = JudgeSettings {
            definition,
            judgments_per_pair,
            // Unless the form says otherwise: adaptive from 3, or fixed when a pair gets fewer.
            min_judgments_per_pair: min_judgments
                .unwrap_or(DEFAULT_MIN_JUDGMENTS.min(judgments_per_pair)),
            settle_confidence: settle_confidence.unwrap_or(DEFAULT_SETTLE_CONFIDENCE),
            test_exposure_cap,
            test_every,
            min_test_accuracy,
            min_kappa,
            gate_min_judgments,
            gate_rule,
            gate_alpha: gate_alpha.unwrap_or(JudgeSettings::default().gate_alpha),
            gate_worse_by: gate_worse_by.unwrap_or(JudgeSettings::default().gate_worse_by),
            thresholds: Thresholds {
                paraphrase_min: para_min.unwrap_or(defaults.paraphrase_min),
                not_max: not_max.unwrap_or(defaults.not_max),
            },
            lease_seconds: lease.unwrap_or(JudgeSettings::default().lease_seconds),
            min_display_ms: min_display.unwrap_or(JudgeSettings::default().min_display_ms),
        };
        let id = service::create(&pool, me, &title, &instructions, &settings).await?;
        Ok(id.to_string())
    }

    async fn admin_and_campaign(
        id: CampaignId,
    ) -> Result<(sqlx::PgPool, UserId, CampaignId), AppError> {
        let (pool, me) = admin().await?;
        Ok((pool, me, id))
    }

    pub async fn import(
        campaign_id: CampaignId,
        filename: String,
        content: String,
        labels_are_tests: bool,
    ) -> Result<PairImportSummary, AppError> {
        let (pool, _, id) = admin_and_campaign(campaign_id).await?;
        service::import_pairs(&pool, id, &filename, &content, labels_are_tests).await
    }

    pub async fn overview(campaign_id: CampaignId) -> Result<JudgeCampaignOverview, AppError> {
        let (pool, _, id) = admin_and_campaign(campaign_id).await?;
        service::overview(&pool, id).await
    }

    pub async fn list_pairs(
        campaign_id: CampaignId,
        tests_only: bool,
        page: u32,
    ) -> Result<Vec<AdminPair>, AppError> {
        let (pool, _, id) = admin_and_campaign(campaign_id).await?;
        service::list_pairs(&pool, id, tests_only, page).await
    }

    pub async fn set_test_pair(
        campaign_id: CampaignId,
        pair_id: PairId,
        gold: String,
        explanation: String,
    ) -> Result<(), AppError> {
        let (pool, _, id) = admin_and_campaign(campaign_id).await?;
        let gold = match gold.as_str() {
            "paraphrase" => Some(true),
            "not_paraphrase" => Some(false),
            "none" => None,
            _ => {
                return Err(AppError::validation(
                    "gold",
                    "Gold is `paraphrase`, `not_paraphrase` or `none`.",
                ))
            }
        };
        service::set_test_pair(&pool, id, pair_id, gold, &explanation).await
    }

    pub async fn promote_settled(campaign_id: CampaignId) -> Result<u64, AppError> {
        let (pool, _, id) = admin_and_campaign(campaign_id).await?;
        service::promote_settled(&pool, id).await
    }

    pub async fn set_worker_status(
        campaign_id: CampaignId,
        user_id: UserId,
        status: String,
    ) -> Result<(), AppError> {
        let (pool, me, id) = admin_and_campaign(campaign_id).await?;
        let user = user_id;
        let reinstate = match status.as_str() {
            "active" => true,
            "stopped" => false,
            _ => {
                return Err(AppError::validation(
                    "status",
                    "A worker's status is `active` or `stopped`.",
                ))
            }
        };
        quality::set_worker_status(&pool, id, user, reinstate, me).await
    }

    pub async fn republish(
        campaign_id: CampaignId,
        min_kappa: f64,
    ) -> Result<RepublishSummary, AppError> {
        let (pool, me, id) = admin_and_campaign(campaign_id).await?;
        quality::republish(&pool, id, min_kappa, me).await
    }
}
