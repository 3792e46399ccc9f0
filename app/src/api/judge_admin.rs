//! Running a judging campaign (admins): create it with its settings, import pairs, mark test
//! pairs, watch progress and workers, reverse a gate decision.
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::judge::labels::VoteLabel;
use crate::error::AppError;

/// The result of importing a file of pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairImportSummary {
    pub imported: u64,
    pub duplicates_in_file: u64,
    pub already_in_campaign: u64,
    pub tests_in_file: u64,
}

/// A pair with its gold fields, for admins only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdminPair {
    pub pair_id: String,
    pub sentence1: String,
    pub sentence2: String,
    pub group_key: Option<String>,
    pub is_test: bool,
    pub gold_label: Option<bool>,
    pub gold_explanation: Option<String>,
    pub n_judgments: i32,
    pub n_paraphrase: i32,
    /// The label by vote threshold once the pair has all its judgments, else `None`.
    pub label: Option<VoteLabel>,
}

/// A worker's standing, for admins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeWorkerView {
    pub user_id: String,
    pub username: String,
    pub status: String,
    pub gate_overridden: bool,
    pub judgments: i64,
    pub tests_answered: i64,
    pub test_accuracy: Option<f64>,
    pub last_reason: Option<String>,
}

/// A judging campaign at a glance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeCampaignOverview {
    pub definition: String,
    pub judgments_per_pair: u32,
    pub test_every: u32,
    pub min_test_accuracy: f64,
    pub min_kappa: f64,
    pub gate_min_judgments: u32,
    /// `paper` or `evidence`.
    pub gate_rule: String,
    pub paraphrase_min_votes: u32,
    pub non_paraphrase_max_votes: u32,
    pub lease_seconds: u32,
    pub pairs: i64,
    pub test_pairs: i64,
    pub complete_pairs: i64,
    pub judgments: i64,
    /// Set when either gold label is under 30% of the test pairs.
    pub gold_warning: Option<String>,
    /// Pairs whose republished judgments still wait for replacements.
    pub pending_republished: i64,
    pub workers: Vec<JudgeWorkerView>,
}

/// Creates a judging campaign (draft) with its settings. Admins only. The vote thresholds
/// default to a strict majority (MultiPIT: >= 4 of 6 paraphrase, <= 2 not).
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
) -> Result<String, AppError> {
    super::with_status(
        ssr::create(
            title,
            instructions,
            (definition, gate_rule),
            [judgments_per_pair, test_every, gate_min_judgments],
            (min_test_accuracy, min_kappa),
            (
                paraphrase_min_votes,
                non_paraphrase_max_votes,
                lease_seconds,
            ),
        )
        .await,
    )
}

/// Imports sentence pairs from a file's text (CSV, TSV, JSONL). With `labels_are_tests`,
/// labeled rows become hidden test pairs. All or nothing. Admins only.
#[server(endpoint = "admin/import_pairs")]
pub async fn import_pairs(
    campaign_id: String,
    filename: String,
    content: String,
    labels_are_tests: bool,
) -> Result<PairImportSummary, AppError> {
    super::with_status(ssr::import(campaign_id, filename, content, labels_are_tests).await)
}

#[server(endpoint = "admin/judge_overview")]
pub async fn judge_overview(campaign_id: String) -> Result<JudgeCampaignOverview, AppError> {
    super::with_status(ssr::overview(campaign_id).await)
}

/// Pairs of a campaign with their gold fields, 100 per page; `tests_only` lists test pairs.
#[server(endpoint = "admin/list_pairs")]
pub async fn list_pairs(
    campaign_id: String,
    tests_only: bool,
    page: u32,
) -> Result<Vec<AdminPair>, AppError> {
    super::with_status(ssr::list_pairs(campaign_id, tests_only, page).await)
}

/// Makes a pair a test pair (`gold` = "paraphrase" or "not_paraphrase", with an explanation)
/// or, with `gold` = "none", an ordinary pair again.
#[server(endpoint = "admin/set_test_pair")]
pub async fn set_test_pair(
    campaign_id: String,
    pair_id: String,
    gold: String,
    #[server(default)] explanation: String,
) -> Result<(), AppError> {
    super::with_status(ssr::set_test_pair(campaign_id, pair_id, gold, explanation).await)
}

/// Stops or reinstates a worker (`status` = "stopped" or "active"). A reinstated worker's
/// judgments are trusted again and the gate no longer applies to them.
#[server(endpoint = "admin/set_judge_worker_status")]
pub async fn set_judge_worker_status(
    campaign_id: String,
    user_id: String,
    status: String,
) -> Result<(), AppError> {
    super::with_status(ssr::set_worker_status(campaign_id, user_id, status).await)
}

/// What a republish did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepublishSummary {
    /// Usernames of the workers whose judgments were set aside (they are also stopped).
    pub workers: Vec<String>,
    pub judgments: i64,
    pub pairs: i64,
}

/// Republishing (ParaSCI §5): the judgments of workers whose kappa against the majority of the
/// others is below `min_kappa` (0.4 by default) become untrusted, their pairs go back in the
/// queue for trusted workers, and those workers are stopped (an admin can reinstate them; the
/// republished judgments stay set aside).
#[server(endpoint = "admin/republish")]
pub async fn republish(campaign_id: String, min_kappa: f64) -> Result<RepublishSummary, AppError> {
    super::with_status(ssr::republish(campaign_id, min_kappa).await)
}

#[cfg(feature = "ssr")]
mod ssr {
    use uuid::Uuid;

    use super::*;
    use crate::api::parse_id;
    use crate::db::{campaigns, judge as db};
    use crate::domain::judge::gate::{GateNumbers, GateRule};
    use crate::domain::judge::labels::{default_thresholds, Thresholds};
    use crate::domain::judge::pair_import::unbalanced_gold;
    use crate::domain::judge::settings::{Definition, JudgeSettings};
    use crate::domain::Role;
    use crate::session::require_role;
    use crate::state::pool;

    async fn admin() -> Result<(sqlx::PgPool, Uuid), AppError> {
        let pool = pool()?;
        let me = require_role(&[Role::Admin]).await?;
        Ok((pool, me.app_user_id))
    }

    async fn judge_campaign(
        pool: &sqlx::PgPool,
        raw: &str,
    ) -> Result<(Uuid, JudgeSettings), AppError> {
        let id = parse_id(raw, "campaign_id")?;
        crate::service::campaign_of_kind(
            pool,
            id,
            "judge",
            "Sentence pairs belong to judging campaigns.",
        )
        .await?;
        let settings = db::settings(pool, id).await?.ok_or(AppError::NotFound)?;
        Ok((id, settings))
    }

    pub async fn create(
        title: String,
        instructions: String,
        (definition, gate_rule): (String, Option<String>),
        [judgments_per_pair, test_every, gate_min_judgments]: [u32; 3],
        (min_test_accuracy, min_kappa): (f64, f64),
        (para_min, not_max, lease): (Option<u32>, Option<u32>, Option<u32>),
    ) -> Result<String, AppError> {
        let (pool, me) = admin().await?;
        let title = crate::api::campaigns::check_title(&title)?;
        crate::api::campaigns::check_instructions(&instructions)?;
        let definition = Definition::parse(&definition).ok_or_else(|| {
            AppError::validation("definition", "The definition is `loose` or `strict`.")
        })?;
        let gate_rule = match gate_rule.as_deref().map(str::trim) {
            None | Some("") => GateRule::Evidence,
            Some(r) => GateRule::parse(r).ok_or_else(|| {
                AppError::validation("gate_rule", "The gate rule is `paper` or `evidence`.")
            })?,
        };
        let defaults = default_thresholds(judgments_per_pair);
        let settings = JudgeSettings {
            definition,
            judgments_per_pair,
            test_every,
            min_test_accuracy,
            min_kappa,
            gate_min_judgments,
            gate_rule,
            thresholds: Thresholds {
                paraphrase_min: para_min.unwrap_or(defaults.paraphrase_min),
                not_max: not_max.unwrap_or(defaults.not_max),
            },
            lease_seconds: lease.unwrap_or(JudgeSettings::default().lease_seconds),
        };
        settings
            .check()
            .map_err(|(field, message)| AppError::validation(field, message))?;
        let mut tx = pool.begin().await?;
        let id = campaigns::insert(&mut *tx, "judge", title, &instructions, 2000, 0.5, me).await?;
        db::insert_settings(&mut *tx, id, &settings).await?;
        tx.commit().await?;
        Ok(id.to_string())
    }

    pub async fn import(
        campaign_id: String,
        filename: String,
        content: String,
        labels_are_tests: bool,
    ) -> Result<PairImportSummary, AppError> {
        let (pool, _) = admin().await?;
        let (id, settings) = judge_campaign(&pool, &campaign_id).await?;
        crate::service::imports::judge_pairs(
            &pool,
            id,
            &settings,
            &filename,
            &content,
            labels_are_tests,
        )
        .await
    }

    pub async fn overview(campaign_id: String) -> Result<JudgeCampaignOverview, AppError> {
        let (pool, _) = admin().await?;
        let (id, s) = judge_campaign(&pool, &campaign_id).await?;
        let p = db::progress(&pool, id).await?;
        let workers = db::list_workers(&pool, id).await?;
        let gold_warning = unbalanced_gold(p.gold_paraphrase as usize, p.test_pairs as usize)
            .map(|share| {
                format!(
                    "The test pairs are unbalanced: {:.0}% are paraphrases. With either label under 30%, a worker who always gives the majority answer passes the tests; add test pairs of the other label.",
                    share * 100.0
                )
            });
        Ok(JudgeCampaignOverview {
            definition: s.definition.as_str().to_owned(),
            judgments_per_pair: s.judgments_per_pair,
            test_every: s.test_every,
            min_test_accuracy: s.min_test_accuracy,
            min_kappa: s.min_kappa,
            gate_min_judgments: s.gate_min_judgments,
            gate_rule: s.gate_rule.as_str().to_owned(),
            paraphrase_min_votes: s.thresholds.paraphrase_min,
            non_paraphrase_max_votes: s.thresholds.not_max,
            lease_seconds: s.lease_seconds,
            pairs: p.pairs,
            test_pairs: p.test_pairs,
            complete_pairs: p.complete_pairs,
            judgments: p.judgments,
            gold_warning,
            pending_republished: db::pending_republished(&pool, id).await?,
            workers: workers
                .into_iter()
                .map(|w| JudgeWorkerView {
                    user_id: w.app_user_id.to_string(),
                    username: w.username,
                    status: w.status,
                    gate_overridden: w.gate_overridden,
                    judgments: w.judgments,
                    tests_answered: w.tests_answered,
                    test_accuracy: (w.tests_answered > 0)
                        .then(|| w.tests_correct as f64 / w.tests_answered as f64),
                    last_reason: w.last_reason,
                })
                .collect(),
        })
    }

    pub async fn list_pairs(
        campaign_id: String,
        tests_only: bool,
        page: u32,
    ) -> Result<Vec<AdminPair>, AppError> {
        let (pool, _) = admin().await?;
        let (id, settings) = judge_campaign(&pool, &campaign_id).await?;
        let rows = db::list_pairs(&pool, id, tests_only, i64::from(page) * 100, 100).await?;
        Ok(rows
            .into_iter()
            .map(|r| AdminPair {
                pair_id: r.pair_id.to_string(),
                sentence1: r.sentence1,
                sentence2: r.sentence2,
                group_key: r.group_key,
                is_test: r.is_test,
                gold_label: r.gold_label,
                gold_explanation: r.gold_explanation,
                n_judgments: r.n_judgments,
                n_paraphrase: r.n_paraphrase,
                label: (!r.is_test && r.n_judgments as u32 >= settings.judgments_per_pair).then(
                    || {
                        crate::domain::judge::labels::vote_label(
                            r.n_paraphrase as u32,
                            settings.thresholds,
                        )
                    },
                ),
            })
            .collect())
    }

    pub async fn set_test_pair(
        campaign_id: String,
        pair_id: String,
        gold: String,
        explanation: String,
    ) -> Result<(), AppError> {
        let (pool, _) = admin().await?;
        let (id, _) = judge_campaign(&pool, &campaign_id).await?;
        let pair_id = parse_id(&pair_id, "pair_id")?;
        if explanation.chars().count() > 2000 {
            return Err(AppError::validation(
                "explanation",
                "An explanation is limited to 2,000 characters.",
            ));
        }
        let gold = match gold.as_str() {
            "paraphrase" => Some((true, explanation.trim())),
            "not_paraphrase" => Some((false, explanation.trim())),
            "none" => None,
            _ => {
                return Err(AppError::validation(
                    "gold",
                    "Gold is `paraphrase`, `not_paraphrase` or `none`.",
                ))
            }
        };
        db::set_test_pair(&pool, id, pair_id, gold).await
    }

    pub async fn set_worker_status(
        campaign_id: String,
        user_id: String,
        status: String,
    ) -> Result<(), AppError> {
        let (pool, me) = admin().await?;
        let (id, _) = judge_campaign(&pool, &campaign_id).await?;
        let user = parse_id(&user_id, "user_id")?;
        if status != "active" && status != "stopped" {
            return Err(AppError::validation(
                "status",
                "A worker's status is `active` or `stopped`.",
            ));
        }
        let mut tx = pool.begin().await?;
        if !db::lock_existing_worker(&mut tx, id, user).await? {
            return Err(AppError::NotFound);
        }
        let judgments = db::count_judgments(&mut *tx, id, user).await? as u32;
        let (tests, comparisons) = db::gate_evidence(&mut tx, id, user).await?;
        let numbers: GateNumbers =
            crate::domain::judge::gate::numbers(judgments, &tests, &comparisons);
        let reason = if status == "active" {
            "Reinstated by an admin."
        } else {
            "Stopped by an admin."
        };
        db::set_worker_status(&mut tx, id, user, &status, reason, &numbers, Some(me)).await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn republish(
        campaign_id: String,
        min_kappa: f64,
    ) -> Result<RepublishSummary, AppError> {
        let (pool, me) = admin().await?;
        let (id, _) = judge_campaign(&pool, &campaign_id).await?;
        if !min_kappa.is_finite() || !(-1.0..=1.0).contains(&min_kappa) {
            return Err(AppError::validation(
                "min_kappa",
                "The kappa threshold is -1 to 1.",
            ));
        }
        crate::service::judging::republish(&pool, id, min_kappa, me).await
    }
}
