//! A campaign's progress and its workers' status history, for admins and researchers.
use crate::domain::{CampaignId, UserId, WorkerStatus};
use crate::error::AppError;
use sqlx::PgExecutor;

/// A campaign's progress for its workers and admins.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Ordinary pairs.
    pub pairs: i64,
    /// Hidden test pairs.
    pub test_pairs: i64,
    /// Ordinary pairs with their label: settled, or every slot taken (all their judgments, or
    /// some of them by workers since stopped).
    pub complete_pairs: i64,
    /// Ordinary pairs settled before their maximum (adaptive redundancy).
    pub settled_pairs: i64,
    /// The judgments those pairs did not need: their maximum less the judgments that hold their
    /// slots (trusted ones and those of workers since stopped, paid for all the same).
    pub judgments_saved: i64,
    /// Test pairs served as often as the campaign's exposure cap allows.
    pub tests_at_cap: i64,
    /// Test pairs promoted from settled ordinary pairs.
    pub promoted_test_pairs: i64,
    /// Trusted judgments of ordinary pairs.
    pub judgments: i64,
    /// Trusted "paraphrase" votes on ordinary pairs (with `judgments`, tells whether anything
    /// the statistics count has changed).
    pub paraphrase_votes: i64,
    /// Test pairs whose gold label is "paraphrase".
    pub gold_paraphrase: i64,
}

/// The campaign's progress (zeros for a judging campaign without pairs).
pub async fn progress(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Progress, AppError> {
    Ok(sqlx::query_as!(
        Progress,
        r#"select count(*) filter (where not p.is_test) as "pairs!",
                  count(*) filter (where p.is_test) as "test_pairs!",
                  count(*) filter (where not p.is_test
                                     and (p.n_judgments >= s.judgments_per_pair
                                          or p.settled_label is not null
                                          or (p.open_slots = 0
                                              and judge_pair_taken(p.pair_id)
                                                  >= s.judgments_per_pair)))
                      as "complete_pairs!",
                  count(*) filter (where not p.is_test and p.settled_label is not null)
                      as "settled_pairs!",
                  coalesce(sum(greatest(s.judgments_per_pair - p.n_judgments
                                        - coalesce(h.held, 0), 0))
                           filter (where not p.is_test and p.settled_label is not null), 0)::int8
                      as "judgments_saved!",
                  count(*) filter (where p.is_test and p.test_served >= s.test_exposure_cap)
                      as "tests_at_cap!",
                  count(*) filter (where p.is_test and p.gold_promoted) as "promoted_test_pairs!",
                  coalesce(sum(p.n_judgments) filter (where not p.is_test), 0)::int8 as "judgments!",
                  coalesce(sum(p.n_paraphrase) filter (where not p.is_test), 0)::int8
                      as "paraphrase_votes!",
                  count(*) filter (where p.is_test and p.gold_label) as "gold_paraphrase!"
           from judge_settings s left join judge_pair p using (campaign_id)
                left join (
                    -- The slots still held by judgments of workers since stopped: paid for,
                    -- so not saved.
                    select j.pair_id, count(*) as held from judge_judgment j
                    where j.campaign_id = $1 and not j.trusted and not j.republished
                      and not j.is_test
                    group by j.pair_id) h on h.pair_id = p.pair_id
           where s.campaign_id = $1"#,
        campaign_id as CampaignId
    )
    .fetch_one(db)
    .await?)
}

/// How many test pairs have had their answer shown: missed at least once (a miss shows the
/// right answer and its explanation).
pub async fn gold_revealed(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(distinct pair_id) as "n!" from judge_judgment
           where campaign_id = $1 and is_test and not is_correct"#,
        campaign_id as CampaignId
    )
    .fetch_one(db)
    .await?)
}

/// Status changes of every worker, newest first (for the dashboard's history).
#[derive(Debug, Clone)]
pub struct EventRow {
    /// The worker.
    pub app_user_id: UserId,
    /// The status they were given.
    pub status: WorkerStatus,
    /// Why, in words.
    pub reason: String,
    /// Their judgments at the time.
    pub judgments: i32,
    /// Their test accuracy at the time.
    pub test_accuracy: Option<f64>,
    /// Their kappa against the others at the time.
    pub kappa: Option<f64>,
    /// Changed by an admin (otherwise by the gate).
    pub by_admin: bool,
    /// When.
    pub created_at: time::OffsetDateTime,
}

/// The latest 500 status changes in the campaign.
pub async fn list_events(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<Vec<EventRow>, AppError> {
    Ok(sqlx::query_as!(
        EventRow,
        r#"select app_user_id as "app_user_id: _", status as "status: WorkerStatus", reason, judgments, test_accuracy,
                  kappa, changed_by is not null as "by_admin!", created_at
           from judge_worker_event where campaign_id = $1
           order by created_at desc, event_id desc limit 500"#,
        campaign_id as CampaignId
    )
    .fetch_all(db)
    .await?)
}
