//! The quality gate's running counts (`domain::judge::gate_table`): the judgments on pairs whose
//! votes changed, the changes written for other workers, and the fold that reads a worker's
//! counts.
use crate::domain::judge::gate_table::{GateCounts, KappaTable};
use crate::domain::{CampaignId, PairId, UserId};
use crate::error::AppError;
use sqlx::PgConnection;

/// An ordinary judgment on a pair whose votes just changed.
#[derive(Debug, Clone)]
pub struct PairJudgment {
    /// The pair.
    pub pair_id: PairId,
    /// The worker.
    pub app_user_id: UserId,
    /// Their answer.
    pub is_paraphrase: bool,
    /// Trusted now.
    pub trusted: bool,
}

/// Every ordinary judgment on `pairs`. The caller holds the pairs' row locks (it has just
/// changed their votes), so every judgment that counts in those votes is visible here.
pub async fn judgments_on_pairs(
    conn: &mut PgConnection,
    pairs: &[PairId],
) -> Result<Vec<PairJudgment>, AppError> {
    Ok(sqlx::query_as!(
        PairJudgment,
        r#"select pair_id as "pair_id: _", app_user_id as "app_user_id: _", is_paraphrase, trusted
           from judge_judgment where pair_id = any($1) and not is_test"#,
        pairs as &[PairId]
    )
    .fetch_all(&mut *conn)
    .await?)
}

/// Changes to other workers' tables as the statements bind them: one array per column.
pub(super) struct ChangeColumns {
    pub users: Vec<UserId>,
    pub pp: Vec<i32>,
    pub pn: Vec<i32>,
    pub np: Vec<i32>,
    pub nn: Vec<i32>,
    pub lead2_agreed: Vec<i32>,
    pub lead2_disagreed: Vec<i32>,
    pub lead3_agreed: Vec<i32>,
    pub lead3_disagreed: Vec<i32>,
}

impl ChangeColumns {
    pub(super) fn new(changes: &[(UserId, KappaTable)]) -> Self {
        let cell = |f: fn(&KappaTable) -> i64| -> Vec<i32> {
            changes.iter().map(|c| f(&c.1) as i32).collect()
        };
        Self {
            users: changes.iter().map(|c| c.0).collect(),
            pp: cell(|t| t.pp),
            pn: cell(|t| t.pn),
            np: cell(|t| t.np),
            nn: cell(|t| t.nn),
            lead2_agreed: cell(|t| t.lead2_agreed),
            lead2_disagreed: cell(|t| t.lead2_disagreed),
            lead3_agreed: cell(|t| t.lead3_agreed),
            lead3_disagreed: cell(|t| t.lead3_disagreed),
        }
    }
}

/// A worker's counts as their row stores them; `table` in the order of [`KappaTable::cells`].
pub(super) fn stored_counts(
    judgments: i32,
    tests_answered: i32,
    tests_correct: i32,
    table: [i32; 8],
) -> GateCounts {
    GateCounts {
        judgments: judgments.max(0) as u32,
        tests_answered: tests_answered.max(0) as u32,
        tests_correct: tests_correct.max(0) as u32,
        table: KappaTable::from_cells(table.map(i64::from)),
    }
}

/// The eight table cells a lease or answer statement returned, when it returned them all (a
/// statement that found no worker row returns none).
pub(super) fn all_cells(cells: [Option<i32>; 8]) -> Option<[i32; 8]> {
    cells
        .iter()
        .all(Option::is_some)
        .then(|| cells.map(Option::unwrap_or_default))
}

/// Writes changes to other workers' tables, to be folded in when their gate next reads them.
/// Their rows are not locked: two answers on different pairs never wait for each other here.
pub async fn record_table_changes(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    changes: &[(UserId, KappaTable)],
) -> Result<(), AppError> {
    if changes.is_empty() {
        return Ok(());
    }
    let c = ChangeColumns::new(changes);
    sqlx::query!(
        r#"insert into judge_gate_change (campaign_id, app_user_id, pp, pn, np, nn, lead2_agreed,
                                         lead2_disagreed, lead3_agreed, lead3_disagreed)
           select $1, * from unnest($2::uuid[], $3::int4[], $4::int4[], $5::int4[], $6::int4[],
                                    $7::int4[], $8::int4[], $9::int4[], $10::int4[])"#,
        campaign_id as CampaignId,
        &c.users as &[UserId],
        &c.pp,
        &c.pn,
        &c.np,
        &c.nn,
        &c.lead2_agreed,
        &c.lead2_disagreed,
        &c.lead3_agreed,
        &c.lead3_disagreed
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The worker's gate counts with the changes others recorded for them folded in
/// (`judge_fold_worker`, the fold every lease makes too). The caller holds the worker's row.
pub async fn fold_gate_counts(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    user: UserId,
) -> Result<GateCounts, AppError> {
    let row = sqlx::query!(
        r#"select judgments as "judgments!", tests_answered as "tests_answered!",
                  tests_correct as "tests_correct!", kappa_pp as "kappa_pp!",
                  kappa_pn as "kappa_pn!", kappa_np as "kappa_np!", kappa_nn as "kappa_nn!",
                  lead2_agreed as "lead2_agreed!", lead2_disagreed as "lead2_disagreed!",
                  lead3_agreed as "lead3_agreed!", lead3_disagreed as "lead3_disagreed!"
           from judge_fold_worker($1, $2, null, false, 0, null, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}',
                                  '{}')
           where judgments is not null"#,
        campaign_id as CampaignId,
        user as UserId
    )
    .fetch_optional(&mut *conn)
    .await?
    .ok_or(AppError::NotFound)?;
    Ok(stored_counts(
        row.judgments,
        row.tests_answered,
        row.tests_correct,
        [
            row.kappa_pp,
            row.kappa_pn,
            row.kappa_np,
            row.kappa_nn,
            row.lead2_agreed,
            row.lead2_disagreed,
            row.lead3_agreed,
            row.lead3_disagreed,
        ],
    ))
}

/// A judgment whose trust a status change or a republish flipped, with its pair's votes after.
#[derive(Debug, Clone)]
pub struct TrustFlip {
    /// The pair.
    pub pair_id: PairId,
    /// The worker whose judgment flipped.
    pub app_user_id: UserId,
    /// Trusted after the flip.
    pub trusted: bool,
    /// The pair's trusted judgments after.
    pub n_judgments: i32,
    /// ... of which "paraphrase".
    pub n_paraphrase: i32,
    /// How many trusted judgments the pair gained (negative: lost) ...
    pub moved: i32,
    /// ... of which "paraphrase".
    pub moved_paraphrase: i32,
}
