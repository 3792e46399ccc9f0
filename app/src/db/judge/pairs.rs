//! A campaign's sentence pairs: importing them, listing them for admins, marking test pairs.
use crate::domain::judge::pair_import::PairRow;
use crate::domain::{CampaignId, PairId};
use crate::dto::judge_admin::PairRecord;
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

/// Inserts pairs, skipping those already in the campaign; returns (inserted, skipped).
pub async fn insert_pairs(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    rows: &[PairRow],
    judgments_per_pair: u32,
) -> Result<(u64, u64), AppError> {
    let mut inserted = 0;
    for chunk in rows.chunks(2000) {
        let s1: Vec<&str> = chunk.iter().map(|r| r.sentence1.as_str()).collect();
        let s2: Vec<&str> = chunk.iter().map(|r| r.sentence2.as_str()).collect();
        let group: Vec<Option<&str>> = chunk.iter().map(|r| r.group_key.as_deref()).collect();
        let ext: Vec<Option<&str>> = chunk.iter().map(|r| r.external_id.as_deref()).collect();
        let label: Vec<Option<bool>> = chunk.iter().map(|r| r.label).collect();
        let expl: Vec<Option<&str>> = chunk.iter().map(|r| r.explanation.as_deref()).collect();
        let test: Vec<bool> = chunk.iter().map(|r| r.is_test).collect();
        let done = sqlx::query!(
            r#"insert into judge_pair (campaign_id, sentence1, sentence2, group_key, external_id,
                   gold_label, gold_explanation, is_test, open_slots)
               select $1, s1, s2, g, e, l, x, t, $9
               from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::text[],
                           $8::bool[]) as u(s1, s2, g, e, l, x, t)
               on conflict on constraint judge_pair_campaign_sentences_key do nothing"#,
            campaign_id as CampaignId,
            &s1 as &[&str],
            &s2 as &[&str],
            &group as &[Option<&str>],
            &ext as &[Option<&str>],
            &label as &[Option<bool>],
            &expl as &[Option<&str>],
            &test,
            judgments_per_pair as i32
        )
        .execute(&mut *conn)
        .await?;
        inserted += done.rows_affected();
    }
    Ok((inserted, rows.len() as u64 - inserted))
}

/// Settles `pairs` again after their trusted votes changed (`judge_settle_pair`): a pair whose
/// label no longer holds is served again, one that now has its label is not, and a mined
/// pair's group follow-up is made due when it has. The caller holds the pairs' row locks.
pub async fn resettle(conn: &mut PgConnection, pairs: &[PairId]) -> Result<(), AppError> {
    // Every pair settled in a statement of its own, read to the end: a SELECT in a WITH query
    // runs only as far as the query around it reads, which a plan may cut short.
    let labelled: Vec<PairId> = sqlx::query_scalar!(
        r#"select t.pair_id as "pair_id!: PairId"
           from unnest($1::uuid[]) as t(pair_id)
           where judge_settle_pair(t.pair_id)"#,
        pairs as &[PairId]
    )
    .fetch_all(&mut *conn)
    .await?;
    if labelled.is_empty() {
        return Ok(());
    }
    sqlx::query!(
        r#"insert into follow_up_outbox (campaign_id, pair_id)
           select p.campaign_id, p.pair_id from judge_pair p
           where p.pair_id = any($1) and p.mining_run_id is not null
           on conflict (campaign_id, pair_id) do update set due_at = now(), attempts = 0"#,
        &labelled as &[PairId]
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Promotes the campaign's ordinary pairs settled at `min_posterior` or above, unanimously, on
/// which every trusted vote came from a worker estimated at least `min_accuracy` accurate (not
/// a mined pair, nor one with a lease out), to test pairs:
/// their settled label becomes their gold label, marked as promoted, without an explanation.
/// Returns how many.
pub async fn promote_settled(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    min_posterior: f64,
    min_accuracy: f64,
) -> Result<u64, AppError> {
    let done = sqlx::query!(
        r#"update judge_pair p
           set is_test = true, gold_label = p.settled_label, gold_promoted = true,
               gold_explanation = null, settled_label = null
           where p.campaign_id = $1 and not p.is_test and p.settled_label is not null
             and greatest(p.posterior, 1 - p.posterior) >= $2
             -- Unanimous, not mined (its group's follow-up counts its label), no lease out.
             and p.n_paraphrase in (0, p.n_judgments)
             and p.mining_run_id is null
             and not exists (select 1 from judge_assignment a
                             where a.pair_id = p.pair_id and a.status = 'leased')
             and not exists (
                 select 1 from judge_judgment j
                 join judge_worker w on w.campaign_id = j.campaign_id
                                    and w.app_user_id = j.app_user_id
                 -- The changes others' answers made to the worker's table, not yet folded in.
                 cross join lateral (
                     select coalesce(sum(c.pp), 0)::int4 as pp, coalesce(sum(c.pn), 0)::int4 as pn,
                            coalesce(sum(c.np), 0)::int4 as np, coalesce(sum(c.nn), 0)::int4 as nn
                     from judge_gate_change c
                     where c.campaign_id = w.campaign_id and c.app_user_id = w.app_user_id) g
                 cross join lateral (
                     select judge_pooled_evidence(w.tests_correct, w.tests_answered,
                                w.kappa_pp + g.pp, w.kappa_pn + g.pn, w.kappa_np + g.np,
                                w.kappa_nn + g.nn) as e) pooled
                 where j.pair_id = p.pair_id and j.trusted and not j.is_test
                   -- No majority of others given: the worker's own pooled accuracy.
                   and judge_vote_accuracy(j.is_paraphrase, 0, 0, pooled.e[1], pooled.e[2])
                       < $3)"#,
        campaign_id as CampaignId,
        min_posterior,
        min_accuracy
    )
    .execute(&mut *conn)
    .await?;
    Ok(done.rows_affected())
}

/// Has PostgreSQL sample `judge_pair` again (ANALYZE), after pairs came in bulk.
///
/// Until it does, the planner knows nothing of the new rows, and the lease's scan for the first
/// free pair (`judge_choose_ordinary`) sorts every open pair of the campaign at every call instead
/// of reading its index in order: 17 ms an answer on a fresh campaign of 2,000 pairs, against 3
/// ms once sampled (auto_explain, `HISTORY=2000 scripts/bench-load.sh 0 6 0`). Autovacuum would
/// sample it too, but only a minute or more later, and not at all where it is off.
pub async fn sample_pairs_for_the_planner(db: impl PgExecutor<'_>) -> Result<(), AppError> {
    sqlx::query!("analyze judge_pair").execute(db).await?;
    Ok(())
}

/// Gives test pairs already in the campaign the explanation their row in `rows` carries (same
/// sentences, same gold label, an explanation that differs): explanations added in bulk by
/// uploading the test pairs again. Returns how many pairs changed.
pub async fn update_explanations(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    rows: &[PairRow],
) -> Result<u64, AppError> {
    let mut updated = 0;
    let explained: Vec<&PairRow> = rows
        .iter()
        .filter(|r| r.is_test && r.explanation.is_some())
        .collect();
    for chunk in explained.chunks(2000) {
        let s1: Vec<&str> = chunk.iter().map(|r| r.sentence1.as_str()).collect();
        let s2: Vec<&str> = chunk.iter().map(|r| r.sentence2.as_str()).collect();
        let label: Vec<Option<bool>> = chunk.iter().map(|r| r.label).collect();
        let expl: Vec<&str> = chunk
            .iter()
            .map(|r| r.explanation.as_deref().unwrap_or_default())
            .collect();
        let done = sqlx::query!(
            r#"update judge_pair p set gold_explanation = u.x
               from unnest($2::text[], $3::text[], $4::bool[], $5::text[]) as u(s1, s2, l, x)
               where p.campaign_id = $1 and p.sentence1 = u.s1 and p.sentence2 = u.s2
                 and p.is_test and p.gold_label is not distinct from u.l
                 and p.gold_explanation is distinct from u.x"#,
            campaign_id as CampaignId,
            &s1 as &[&str],
            &s2 as &[&str],
            &label as &[Option<bool>],
            &expl as &[&str],
        )
        .execute(&mut *conn)
        .await?;
        updated += done.rows_affected();
    }
    Ok(updated)
}

/// One page of the campaign's pairs (or only its test pairs), in import order.
pub async fn list_pairs(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    tests_only: bool,
    offset: i64,
    limit: i64,
) -> Result<Vec<PairRecord>, AppError> {
    Ok(sqlx::query_as!(
        PairRecord,
        r#"select pair_id as "pair_id: _", sentence1, sentence2, group_key, is_test, gold_label, gold_explanation,
                  n_judgments, n_paraphrase, settled_label, posterior, gold_promoted,
                  judge_pair_taken(pair_id) as "taken!"
           from judge_pair where campaign_id = $1 and (is_test or not $2)
           order by created_at, sentence1, sentence2 offset $3 limit $4"#,
        campaign_id as CampaignId,
        tests_only,
        offset,
        limit
    )
    .fetch_all(db)
    .await?)
}

/// Makes a pair a test pair with a gold label and explanation, or an ordinary pair again. Either
/// way it is not settled: a test pair has no settled label, and an ordinary pair again settles
/// at its next judgment.
pub async fn set_test_pair(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    pair_id: PairId,
    gold: Option<(bool, &str)>,
) -> Result<(), AppError> {
    let done = sqlx::query!(
        r#"update judge_pair set is_test = $3, gold_label = coalesce($4, gold_label),
               settled_label = null,
               gold_explanation = case when $3 then $5 else gold_explanation end
           where pair_id = $1 and campaign_id = $2"#,
        pair_id as PairId,
        campaign_id as CampaignId,
        gold.is_some(),
        gold.map(|g| g.0),
        gold.map(|g| g.1).filter(|e| !e.trim().is_empty())
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::NotFound);
    }
    Ok(())
}
