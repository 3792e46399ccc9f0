//! Running a judging campaign (admins): create it with its settings, import pairs, mark test
//! pairs, watch progress and workers.
use sqlx::PgPool;

use crate::db::{campaigns, judge as db};
use crate::domain::agreement::cohen_kappa_se_2x2;
use crate::domain::judge::labels::{pair_label, PairVotes};
use crate::domain::judge::pair_import::unbalanced_gold;
use crate::domain::judge::settings::{GateRule, JudgeSettings};
use crate::domain::judge::test_pool::{self, looks_like_gold_harvesting, small_test_pool};
use crate::domain::judge::{confidence, rule_text};
use crate::domain::{CampaignId, CampaignKind, PairId, UserId};
use crate::dto::judge_admin::{
    AdminPair, GateStanding, JudgeCampaignOverview, JudgeWorkerView, PairImportSummary,
};
use crate::error::AppError;

/// The settings of judging campaign `id`: not found when there is none, a validation error when
/// it is an APT campaign.
pub async fn settings(pool: &PgPool, id: CampaignId) -> Result<JudgeSettings, AppError> {
    super::campaign_of_kind(
        pool,
        id,
        CampaignKind::Judge,
        "Sentence pairs belong to judging campaigns.",
    )
    .await?;
    db::settings(pool, id).await?.ok_or(AppError::NotFound)
}

/// Creates a draft judging campaign with `settings` (checked) and returns its id.
pub async fn create(
    pool: &PgPool,
    by: UserId,
    title: &str,
    instructions: &str,
    settings: &JudgeSettings,
) -> Result<CampaignId, AppError> {
    let title = super::campaigns::check_title(title)?;
    super::campaigns::check_instructions(instructions)?;
    settings.check()?;
    let mut tx = pool.begin().await?;
    let id = campaigns::insert(
        &mut *tx,
        CampaignKind::Judge,
        title,
        instructions,
        2000,
        0.5,
        by,
    )
    .await?;
    db::insert_settings(&mut *tx, id, settings).await?;
    tx.commit().await?;
    Ok(id)
}

/// Imports a file of pairs into judging campaign `id` (see [`super::imports::judge_pairs`]).
pub async fn import_pairs(
    pool: &PgPool,
    id: CampaignId,
    filename: &str,
    content: &str,
    labels_are_tests: bool,
) -> Result<PairImportSummary, AppError> {
    let settings = settings(pool, id).await?;
    super::imports::judge_pairs(pool, id, &settings, filename, content, labels_are_tests).await
}

/// The campaign's settings, progress and workers, with a warning when the gold is unbalanced.
pub async fn overview(pool: &PgPool, id: CampaignId) -> Result<JudgeCampaignOverview, AppError> {
    let s = settings(pool, id).await?;
    let p = db::progress(pool, id).await?;
    let workers = db::list_workers(pool, id).await?;
    let gold_warning = unbalanced_gold(p.gold_paraphrase as usize, p.test_pairs as usize)
        .map(|share| {
            format!(
                "The test pairs are unbalanced: {:.0}% are paraphrases. With either label under 30%, a worker who always gives the majority answer passes the tests; add test pairs of the other label.",
                share * 100.0
            )
        });
    let test_pool_warning =
        small_test_pool(p.test_pairs as u32, s.test_every, s.gate_min_judgments);
    Ok(JudgeCampaignOverview {
        definition: s.definition.as_str().to_owned(),
        judgments_per_pair: s.judgments_per_pair,
        min_judgments_per_pair: s.min_judgments_per_pair,
        settle_confidence: s.settle_confidence,
        test_every: s.test_every,
        min_test_accuracy: s.min_test_accuracy,
        min_kappa: s.min_kappa,
        gate_min_judgments: s.gate_min_judgments,
        gate_rule: s.gate_rule.as_str().to_owned(),
        gate_alpha: s.gate_alpha,
        gate_worse_by: s.gate_worse_by,
        paraphrase_min_votes: s.thresholds.paraphrase_min,
        non_paraphrase_max_votes: s.thresholds.not_max,
        lease_seconds: s.lease_seconds,
        min_display_ms: s.min_display_ms,
        pairs: p.pairs,
        test_pairs: p.test_pairs,
        complete_pairs: p.complete_pairs,
        settled_pairs: p.settled_pairs,
        judgments_saved: p.judgments_saved,
        judgment_pay_mills: crate::db::studies::latest_info(pool, id)
            .await?
            .map_or(0, |i| i.judgment_pay_mills),
        test_exposure_cap: s.test_exposure_cap,
        tests_at_cap: p.tests_at_cap,
        promoted_test_pairs: p.promoted_test_pairs,
        judgments: p.judgments,
        gold_warning,
        test_pool_warning,
        gold_revealed: db::gold_revealed(pool, id).await?,
        pending_republished: db::pending_republished(pool, id).await?,
        workers: workers
            .into_iter()
            .map(|w| JudgeWorkerView {
                gate: gate_standing(&s, &w),
                test_accuracy: w.test_accuracy(),
                user_id: w.app_user_id,
                username: w.username,
                status: w.status,
                gate_overridden: w.gate_overridden,
                judgments: w.judgments,
                tests_answered: w.tests_answered,
                tests_seen: w.tests_seen,
                tests_missed: w.tests_answered - w.tests_correct,
                harvesting_gold: looks_like_gold_harvesting(w.tests_answered, w.tests_correct),
                last_reason: w.last_reason,
            })
            .collect(),
    })
}

/// Where the gate stands on worker `w`, from their counts as they stand (changes others
/// recorded for them included).
pub fn gate_standing(s: &JudgeSettings, w: &db::WorkerSummary) -> GateStanding {
    let counts = w.counts();
    let n = counts.numbers();
    let a = confidence::assess(&s.sequential_test(), &n.evidence());
    let kappa_interval = n.kappa.and_then(|k| {
        let se = cohen_kappa_se_2x2(counts.table.counts())?;
        Some(((k - 1.96 * se).max(-1.0), (k + 1.96 * se).min(1.0)))
    });
    // The interval is the confidence rule's; other rules decide on other numbers.
    let drawn = s.gate_rule == GateRule::Confidence;
    let standing = rule_text::standing(s, &n);
    GateStanding {
        accuracy_estimate: a.estimate.filter(|_| drawn),
        accuracy_upper: a.upper.filter(|_| drawn),
        minimum: s.min_test_accuracy,
        kappa: n.kappa,
        kappa_interval,
        standing: if w.gate_overridden {
            format!("The gate is off for this worker: an admin reinstated them. ({standing})")
        } else {
            standing
        },
    }
}

/// Pairs with their gold fields, 100 per page (`page` from 0); `tests_only` lists test pairs.
pub async fn list_pairs(
    pool: &PgPool,
    id: CampaignId,
    tests_only: bool,
    page: u32,
) -> Result<Vec<AdminPair>, AppError> {
    let settings = settings(pool, id).await?;
    let rows = db::list_pairs(pool, id, tests_only, i64::from(page) * 100, 100).await?;
    Ok(rows
        .into_iter()
        .map(|pair| AdminPair {
            label: (!pair.is_test)
                .then(|| {
                    pair_label(
                        PairVotes {
                            judgments: pair.n_judgments.max(0) as u32,
                            paraphrase: pair.n_paraphrase.max(0) as u32,
                            taken: pair.taken.max(0) as u32,
                            settled: pair.settled_label,
                            posterior: pair.posterior,
                        },
                        settings.label_rule(),
                    )
                })
                .flatten(),
            pair,
        })
        .collect())
}

/// Promotes the settled pairs that qualify to test pairs ([`test_pool::PROMOTE_MIN_POSTERIOR`],
/// [`test_pool::PROMOTE_MIN_WORKER_ACCURACY`]); returns how many.
pub async fn promote_settled(pool: &PgPool, id: CampaignId) -> Result<u64, AppError> {
    settings(pool, id).await?;
    let mut tx = pool.begin().await?;
    let n = db::promote_settled(
        &mut tx,
        id,
        test_pool::PROMOTE_MIN_POSTERIOR,
        test_pool::PROMOTE_MIN_WORKER_ACCURACY,
    )
    .await?;
    tx.commit().await?;
    Ok(n)
}

/// Makes a pair a test pair with `gold` (true = paraphrase) and an explanation (at most 2,000
/// characters), or with `gold` = `None` an ordinary pair again.
pub async fn set_test_pair(
    pool: &PgPool,
    id: CampaignId,
    pair_id: PairId,
    gold: Option<bool>,
    explanation: &str,
) -> Result<(), AppError> {
    settings(pool, id).await?;
    if explanation.chars().count() > 2000 {
        return Err(AppError::validation(
            "explanation",
            "An explanation is limited to 2,000 characters.",
        ));
    }
    db::set_test_pair(pool, id, pair_id, gold.map(|g| (g, explanation.trim()))).await
}
