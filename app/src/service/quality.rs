//! The quality of a judging campaign's work beyond the gate: stopping or reinstating a worker by
//! hand and republishing low-agreement work (ParaSCI §5), for admins; excluding a worker after
//! review, for researchers; and the indexing of trusted judgments that republishing shares with
//! the researcher's statistics.
use crate::domain::{CampaignId, PairId, UserId, WorkerStatus};
use std::collections::HashMap;

use sqlx::PgPool;

use crate::db::judge::{self as db, JudgmentRow};
use crate::domain::judge::gate::GateNumbers;
use crate::domain::judge::harvest::HarvestCheck;
use crate::domain::judge::report::{worker_kappas, Judgment};
use crate::dto::judge_admin::RepublishSummary;
use crate::dto::judge_report::ExcludeSummary;
use crate::error::AppError;
use crate::service::gate_table;

/// Trusted judgments as the statistics take them: pairs numbered in order of first appearance,
/// workers by their position in `workers`. Judgments of workers not in `workers` are left out
/// (their pairs keep their numbers). Returns the judgments and the number of pairs.
pub fn index_judgments(rows: &[JudgmentRow], workers: &[UserId]) -> (Vec<Judgment>, usize) {
    let worker_index: HashMap<UserId, usize> =
        workers.iter().enumerate().map(|(i, w)| (*w, i)).collect();
    let mut pair_index: HashMap<PairId, usize> = HashMap::new();
    let judgments = rows
        .iter()
        .filter_map(|r| {
            let next = pair_index.len();
            let pair = *pair_index.entry(r.pair_id).or_insert(next);
            Some(Judgment {
                pair,
                worker: *worker_index.get(&r.app_user_id)?,
                is_paraphrase: r.is_paraphrase,
                seconds: r.seconds,
            })
        })
        .collect();
    (judgments, pair_index.len())
}

/// Sets aside the judgments of workers whose kappa against the majority of the others is below
/// `min_kappa`, puts their pairs back in the queue and stops them, in one transaction; one
/// republish at a time per campaign. `min_kappa` is -1 to 1.
pub async fn republish(
    pool: &PgPool,
    campaign_id: CampaignId,
    min_kappa: f64,
    by: UserId,
) -> Result<RepublishSummary, AppError> {
    super::judge_campaigns::settings(pool, campaign_id).await?;
    if !min_kappa.is_finite() || !(-1.0..=1.0).contains(&min_kappa) {
        return Err(AppError::validation(
            "min_kappa",
            "The kappa threshold is -1 to 1.",
        ));
    }
    let mut tx = pool.begin().await?;
    db::lock_settings(&mut tx, campaign_id).await?;
    let rows = db::trusted_judgments(&mut *tx, campaign_id).await?;
    let workers = db::list_workers(&mut *tx, campaign_id).await?;
    let ids: Vec<UserId> = workers.iter().map(|w| w.app_user_id).collect();
    let (judgments, pairs) = index_judgments(&rows, &ids);
    let kappas = worker_kappas(&judgments, pairs, workers.len());
    let low: Vec<usize> = kappas
        .iter()
        .enumerate()
        .filter(|(_, k)| k.is_some_and(|k| k < min_kappa))
        .map(|(i, _)| i)
        .collect();
    let low_ids: Vec<UserId> = low.iter().map(|&i| workers[i].app_user_id).collect();
    let flips = db::republish(&mut tx, campaign_id, &low_ids).await?;
    gate_table::after_flips(&mut tx, campaign_id, &flips).await?;
    // Workers are chosen by their kappa over trusted judgments, so none was stopped before: the
    // flips are everything set aside.
    let judgments_moved = flips.len() as i64;
    let pairs_moved = flips
        .iter()
        .map(|f| f.pair_id)
        .collect::<std::collections::HashSet<_>>()
        .len() as i64;
    for &i in &low {
        let w = &workers[i];
        let kappa = kappas[i];
        let numbers = GateNumbers {
            judgments: w.judgments as u32,
            tests_answered: w.tests_answered as u32,
            test_accuracy: w.test_accuracy(),
            tests_correct: w.tests_correct.max(0) as u32,
            kappa,
            kappa_items: 0,
            agreements: 0,
            evidence: 0,
            by_majority: [0; 4],
            by_lead: [0; 4],
        };
        let reason = format!(
            "Republished: kappa against the majority {:.2} is below {min_kappa:.2}; their pairs went back to the queue.",
            kappa.unwrap_or(f64::NAN)
        );
        let flips = db::set_worker_status(
            &mut tx,
            campaign_id,
            w.app_user_id,
            WorkerStatus::Stopped,
            &reason,
            &numbers,
            Some(by),
        )
        .await?;
        gate_table::after_flips(&mut tx, campaign_id, &flips).await?;
    }
    tx.commit().await?;
    Ok(RepublishSummary {
        workers: low.iter().map(|&i| workers[i].username.clone()).collect(),
        judgments: judgments_moved,
        pairs: pairs_moved,
    })
}

/// Stops a worker or reinstates one (`reinstate`), with the gate's numbers at that moment; a
/// reinstated worker's judgments are trusted again and the gate no longer applies to them.
pub async fn set_worker_status(
    pool: &PgPool,
    campaign_id: CampaignId,
    user: UserId,
    reinstate: bool,
    by: UserId,
) -> Result<(), AppError> {
    super::judge_campaigns::settings(pool, campaign_id).await?;
    let mut tx = pool.begin().await?;
    if !db::lock_existing_worker(&mut tx, campaign_id, user).await? {
        return Err(AppError::NotFound);
    }
    let numbers = db::fold_gate_counts(&mut tx, campaign_id, user)
        .await?
        .numbers();
    let (status, reason) = if reinstate {
        (WorkerStatus::Active, "Reinstated by an admin.")
    } else {
        (WorkerStatus::Stopped, "Stopped by an admin.")
    };
    let flips = db::set_worker_status(
        &mut tx,
        campaign_id,
        user,
        status,
        reason,
        &numbers,
        Some(by),
    )
    .await?;
    gate_table::after_flips(&mut tx, campaign_id, &flips).await?;
    tx.commit().await?;
    Ok(())
}

/// After `flips` set aside the trusted judgments of an excluded worker, sets aside the ones that
/// had already stopped counting (a worker the gate or an admin stopped before): their slots come
/// back too, and their pairs are settled again (`db::resettle`). Returns the judgments and the
/// pairs set aside in all.
async fn set_aside_stopped(
    tx: &mut sqlx::PgConnection,
    campaign_id: CampaignId,
    workers: &[UserId],
    flips: &[db::TrustFlip],
) -> Result<(i64, i64), AppError> {
    let stopped = db::set_aside_stopped(&mut *tx, campaign_id, workers).await?;
    if stopped.is_empty() {
        let pairs: std::collections::HashSet<PairId> = flips.iter().map(|f| f.pair_id).collect();
        return Ok((flips.len() as i64, pairs.len() as i64));
    }
    let reopened: Vec<PairId> = stopped
        .iter()
        .copied()
        .collect::<std::collections::HashSet<_>>()
        .into_iter()
        .collect();
    db::resettle(&mut *tx, &reopened).await?;
    let pairs: std::collections::HashSet<PairId> = flips
        .iter()
        .map(|f| f.pair_id)
        .chain(stopped.iter().copied())
        .collect();
    Ok(((flips.len() + stopped.len()) as i64, pairs.len() as i64))
}

/// Excludes a flagged worker after a researcher's review (the dashboard flags one whose test
/// pairs are answered far better than their ordinary pairs, `domain::judge::harvest`, and shows
/// groups of accounts that answer alike or share a network and browser): in one
/// transaction, their judgments of ordinary pairs are set aside (untrusted, as republishing does)
/// and those pairs go back in the queue, and the worker is stopped with the reason and the
/// numbers. `worker` is the pseudonym the dashboard shows. Refused for a worker neither the flag
/// nor a group of accounts (`service::account_groups`, as they stand now) names, and for one an
/// admin reinstated (an admin's decision stands; an admin can stop them).
/// Doing it again changes nothing.
///
/// Locks as the answer does, the worker's row before the pairs (`judge_answer`), so an answer of
/// theirs made meanwhile is either set aside with the rest or refused as stopped.
pub async fn exclude_worker(
    pool: &PgPool,
    campaign_id: CampaignId,
    worker: &str,
    by: UserId,
) -> Result<ExcludeSummary, AppError> {
    super::judge_campaigns::settings(pool, campaign_id).await?;
    let mut tx = pool.begin().await?;
    db::lock_settings(&mut tx, campaign_id).await?;
    let workers = db::list_workers(&mut *tx, campaign_id).await?;
    let mut named = workers
        .iter()
        .filter(|w| crate::domain::account::pseudonym(&w.app_user_id) == worker.trim());
    let user = match (named.next(), named.next()) {
        (Some(w), None) => w.app_user_id,
        (None, _) => return Err(AppError::NotFound),
        (Some(_), Some(_)) => {
            return Err(AppError::Conflict(
                "Two workers of this campaign share this pseudonym: an admin can stop either by name on the campaign's page.".into(),
            ))
        }
    };
    let Some((status, overridden)) = db::lock_standing(&mut tx, campaign_id, user).await? else {
        return Err(AppError::NotFound);
    };
    let counts = db::fold_gate_counts(&mut tx, campaign_id, user).await?;
    let check = HarvestCheck::of(&counts);
    // Not flagged on their own: a member of a group of accounts, as the groups stand now.
    let group = if check.flagged() {
        None
    } else {
        let ids: Vec<UserId> = workers.iter().map(|w| w.app_user_id).collect();
        super::account_groups::current(&mut tx, campaign_id, &ids)
            .await?
            .into_iter()
            .find(|g| g.members.contains(&user))
    };
    if !check.flagged() && group.is_none() {
        return Err(AppError::Conflict(
            "This worker is not flagged: their test pairs are not answered far better than their ordinary pairs, and they are in no group of accounts that answer alike or share a network and browser. An admin can stop a worker for other reasons on the campaign's page.".into(),
        ));
    }
    if overridden {
        return Err(AppError::Conflict(
            "An admin reinstated this worker after the gate stopped them; only an admin can stop them again.".into(),
        ));
    }
    let flips = db::republish(&mut tx, campaign_id, &[user]).await?;
    gate_table::after_flips(&mut tx, campaign_id, &flips).await?;
    let (judgments, pairs) = set_aside_stopped(&mut tx, campaign_id, &[user], &flips).await?;
    // Stopped before (by the gate or an admin) and excluded now: the status stays, and the
    // history says why their judgments were set aside. Nothing set aside: nothing to record.
    if status == WorkerStatus::Active || judgments > 0 {
        // The worker reads this reason too: it names no other account.
        let reason = match &group {
            Some(g) => group_reason(g, user),
            None => harvest_reason(&check),
        };
        let flips = db::set_worker_status(
            &mut tx,
            campaign_id,
            user,
            WorkerStatus::Stopped,
            &reason,
            &counts.numbers(),
            Some(by),
        )
        .await?;
        gate_table::after_flips(&mut tx, campaign_id, &flips).await?;
    }
    tx.commit().await?;
    Ok(ExcludeSummary { judgments, pairs })
}

/// Why a worker flagged on their own was excluded.
fn harvest_reason(check: &HarvestCheck) -> String {
    format!(
        "Excluded after a researcher's review: {} of {} check answers right against {} of {} ordinary pairs agreeing with the others' majority{}; their judgments were set aside and their pairs went back to the queue.",
        check.tests.0,
        check.tests.1,
        check.agreement.0,
        check.agreement.1,
        check
            .p_value
            .map(|p| format!(" (Fisher's exact test, p = {p:.4})"))
            .unwrap_or_default()
    ) + &if check.by_ratio() {
        format!(
            " The answers are {} times likelier from someone who has the test answers than from an honest worker.",
            crate::domain::judge::harvest::factor_text(check.likelihood_ratio)
        )
    } else {
        String::new()
    }
}

/// Why a member of a group was excluded, naming no other account (the worker reads it): for
/// answers alike, the strongest evidence against another member.
fn group_reason(g: &super::account_groups::Group, user: UserId) -> String {
    use crate::dto::judge_report::GroupKind;
    let why = match g.kind {
        GroupKind::AnswersAlike => match g.strongest_with(user) {
            Some(edge) => format!(
                "this account and another answered alike: {}",
                crate::domain::judge::alike::evidence_text(
                    edge.errors_in_common,
                    edge.differences,
                    edge.expected_share,
                    edge.p_value
                )
            ),
            None => "this account and another answered alike".to_owned(),
        },
        GroupKind::SameNetworkAndBrowser => {
            "the study link was opened from the same network and browser as another account's"
                .to_owned()
        }
    };
    format!(
        "Excluded after a researcher's review: {why}. Their judgments were set aside and their pairs went back to the queue."
    )
}
