//! A run's candidate pairs: selecting them, deploying them to a judging campaign, and the group
//! follow-ups (MultiPIT §2.3) that deploy more pairs after a first batch is judged.
use crate::domain::judge::labels::PairVotes;
use crate::domain::{CampaignId, PairId, RunId};
use crate::dto::mining::{CandidateView, FollowUpView};
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

/// Which candidates: edit distance and score within [min, max], and at most `limit` of them,
/// either the first in corpus order or a fixed pseudo-random sample.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    /// Smallest edit distance selected.
    pub min_edit_distance: i32,
    /// Largest edit distance selected.
    pub max_edit_distance: i32,
    /// Smallest score selected.
    pub min_score: f64,
    /// Largest score selected.
    pub max_score: f64,
    /// Most candidates selected.
    pub limit: i64,
    /// Take a fixed pseudo-random sample rather than the first in corpus order.
    pub sample: bool,
}

/// The run's candidates matching `s`, follow-up reserves left out.
pub async fn select_candidates(
    db: impl PgExecutor<'_>,
    run_id: RunId,
    s: Selection,
) -> Result<Vec<CandidateView>, AppError> {
    Ok(sqlx::query_as!(
        CandidateView,
        r#"select m.candidate_id, a.text as sentence1, b.text as sentence2, a.cluster,
                  m.edit_distance, m.shared_long_words, m.length_ratio, m.score, m.batch
           from mining_candidate m
           join corpus_sentence a on a.sentence_id = m.sentence_a
           join corpus_sentence b on b.sentence_id = m.sentence_b
           -- A group run's follow-up reserve is deployed by its judged first batch only.
           where m.run_id = $1 and m.edit_distance between $2 and $3 and m.batch < 2
             and m.score between $6 and $7
           order by case when $5 then md5(m.candidate_id::text) else '' end, m.candidate_id
           limit $4"#,
        run_id as RunId,
        s.min_edit_distance,
        s.max_edit_distance,
        s.limit,
        s.sample,
        s.min_score,
        s.max_score
    )
    .fetch_all(db)
    .await?)
}

/// Inserts candidates as judging pairs (group = cluster), skipping pairs the campaign has.
pub async fn insert_pairs(
    conn: &mut PgConnection,
    run_id: RunId,
    campaign_id: CampaignId,
    chosen: &[CandidateView],
    judgments_per_pair: u32,
) -> Result<u64, AppError> {
    let s1: Vec<&str> = chosen.iter().map(|c| c.sentence1.as_str()).collect();
    let s2: Vec<&str> = chosen.iter().map(|c| c.sentence2.as_str()).collect();
    let group: Vec<&str> = chosen.iter().map(|c| c.cluster.as_str()).collect();
    let ids: Vec<i64> = chosen.iter().map(|c| c.candidate_id).collect();
    Ok(sqlx::query!(
        r#"insert into judge_pair (campaign_id, sentence1, sentence2, group_key, external_id,
               is_test, open_slots, mining_run_id, mining_candidate_id)
           select $1, s1, s2, g, 'candidate:' || c, false, $6, $7, c
           from unnest($2::text[], $3::text[], $4::text[], $5::int8[]) with ordinality as u(s1, s2, g, c, n)
           where not exists (select 1 from judge_pair p where p.campaign_id = $1
                             and p.sentence1 = u.s2 and p.sentence2 = u.s1)
           order by n
           on conflict on constraint judge_pair_campaign_sentences_key do nothing"#,
        campaign_id as CampaignId,
        &s1 as &[&str],
        &s2 as &[&str],
        &group as &[&str],
        &ids,
        judgments_per_pair as i32,
        run_id as RunId
    )
    .execute(&mut *conn)
    .await?
    .rows_affected())
}

/// The group-selection first batch a judging pair belongs to: (run, group, run parameters).
pub async fn first_batch_of_pair(
    db: impl PgExecutor<'_>,
    pair_id: PairId,
) -> Result<Option<(RunId, String, serde_json::Value)>, AppError> {
    Ok(sqlx::query!(
        r#"select m.run_id as "run_id: RunId", p.group_key as "group_key!", r.params
           from judge_pair p
           join mining_candidate m on m.candidate_id = p.mining_candidate_id
           join mining_run r on r.run_id = m.run_id
           where p.pair_id = $1 and m.batch = 1 and r.method = 'group' and p.group_key is not null"#,
        pair_id as PairId
    )
    .fetch_optional(db)
    .await?
    .map(|r| (r.run_id, r.group_key, r.params)))
}

/// The trusted votes (with the settled label, posterior and slots taken) of each first-batch
/// pair of a group in a campaign.
pub async fn first_batch_votes(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
    run_id: RunId,
    group: &str,
) -> Result<Vec<PairVotes>, AppError> {
    Ok(sqlx::query!(
        r#"select p.n_judgments, p.n_paraphrase, p.settled_label, p.posterior,
                  judge_pair_taken(p.pair_id) as "taken!"
           from judge_pair p
           join mining_candidate m on m.candidate_id = p.mining_candidate_id
           where p.campaign_id = $1 and m.run_id = $2 and m.batch = 1 and p.group_key = $3"#,
        campaign_id as CampaignId,
        run_id as RunId,
        group
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| PairVotes {
        judgments: r.n_judgments.max(0) as u32,
        paraphrase: r.n_paraphrase.max(0) as u32,
        taken: r.taken.max(0) as u32,
        settled: r.settled_label,
        posterior: r.posterior,
    })
    .collect())
}

/// Takes a group's follow-up decision once: inserts the first `pairs` of its follow-up reserve
/// (in the miner's order) and records it. False when the decision was already taken.
#[allow(clippy::too_many_arguments)]
pub async fn deploy_follow_up(
    conn: &mut PgConnection,
    campaign_id: CampaignId,
    run_id: RunId,
    group: &str,
    paraphrases: u32,
    pairs: u32,
    judgments_per_pair: u32,
) -> Result<Option<u64>, AppError> {
    let claimed = sqlx::query!(
        r#"insert into mining_follow_up (campaign_id, run_id, group_key, paraphrases, pairs, deployed)
           values ($1, $2, $3, $4, $5, 0) on conflict do nothing"#,
        campaign_id as CampaignId,
        run_id as RunId,
        group,
        paraphrases as i32,
        pairs as i32
    )
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if claimed == 0 {
        return Ok(None);
    }
    let chosen: Vec<CandidateView> = sqlx::query_as!(
        CandidateView,
        r#"select m.candidate_id, a.text as sentence1, b.text as sentence2, a.cluster,
                  m.edit_distance, m.shared_long_words, m.length_ratio, m.score, m.batch
           from mining_candidate m
           join corpus_sentence a on a.sentence_id = m.sentence_a
           join corpus_sentence b on b.sentence_id = m.sentence_b
           where m.run_id = $1 and m.batch = 2 and a.cluster = $2
           order by m.candidate_id
           limit $3"#,
        run_id as RunId,
        group,
        pairs as i64
    )
    .fetch_all(&mut *conn)
    .await?;
    let added = insert_pairs(conn, run_id, campaign_id, &chosen, judgments_per_pair).await?;
    sqlx::query!(
        "update mining_follow_up set deployed = $4 where campaign_id = $1 and run_id = $2 and group_key = $3",
        campaign_id as CampaignId,
        run_id as RunId,
        group,
        added as i32
    )
    .execute(&mut *conn)
    .await?;
    Ok(Some(added))
}

/// The follow-up decisions taken for a run's groups (all campaigns), by group.
pub async fn follow_ups(
    db: impl PgExecutor<'_>,
    run_id: RunId,
) -> Result<Vec<FollowUpView>, AppError> {
    Ok(sqlx::query_as!(
        FollowUpView,
        r#"select group_key as "group", paraphrases, pairs, deployed from mining_follow_up
           where run_id = $1 order by group_key, campaign_id"#,
        run_id as RunId
    )
    .fetch_all(db)
    .await?)
}

/// Pairs of a judging campaign that came from a mining run.
pub async fn deployed_count(
    db: impl PgExecutor<'_>,
    campaign_id: CampaignId,
) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar!(
        r#"select count(*) as "n!" from judge_pair
           where campaign_id = $1 and mining_run_id is not null"#,
        campaign_id as CampaignId
    )
    .fetch_one(db)
    .await?)
}
