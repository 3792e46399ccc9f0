//! Corpora, mining runs and their candidates.
use sqlx::{FromRow, PgConnection, PgExecutor};
use uuid::Uuid;

use crate::domain::mining::corpus::{CorpusShape, Document};
use crate::domain::mining::stats::PairStats;
use crate::domain::mining::{Candidate, Cluster, Sentence};
use crate::error::AppError;

/// Counts of an imported corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusCounts {
    pub clusters: i32,
    pub documents: i32,
    pub sentences: i32,
}

/// Writes a corpus with its documents and sentences (in one transaction, by the caller).
pub async fn insert_corpus(
    conn: &mut PgConnection,
    name: &str,
    shape: CorpusShape,
    filename: &str,
    docs: &[Document],
    created_by: Option<Uuid>,
) -> Result<(Uuid, CorpusCounts), AppError> {
    let clusters: std::collections::HashSet<&str> =
        docs.iter().map(|d| d.cluster.as_str()).collect();
    let counts = CorpusCounts {
        clusters: clusters.len() as i32,
        documents: docs.len() as i32,
        sentences: docs.iter().map(|d| d.sentences.len() as i32).sum(),
    };
    let corpus_id: Uuid = sqlx::query_scalar(
        r#"insert into corpus (name, shape, filename, clusters, documents, sentences, created_by)
           values ($1, $2, $3, $4, $5, $6, $7) returning corpus_id"#,
    )
    .bind(name)
    .bind(shape.as_str())
    .bind(filename)
    .bind(counts.clusters)
    .bind(counts.documents)
    .bind(counts.sentences)
    .bind(created_by)
    .fetch_one(&mut *conn)
    .await?;
    // Document ids are taken first, so each sentence knows its document's id.
    let ids: Vec<i64> = sqlx::query_scalar(
        "select nextval('corpus_document_document_id_seq') from generate_series(1, $1)",
    )
    .bind(docs.len() as i64)
    .fetch_all(&mut *conn)
    .await?;
    for (chunk_ids, chunk) in ids.chunks(5000).zip(docs.chunks(5000)) {
        let cluster: Vec<&str> = chunk.iter().map(|d| d.cluster.as_str()).collect();
        let ext: Vec<&str> = chunk.iter().map(|d| d.external_id.as_str()).collect();
        let time: Vec<Option<&str>> = chunk.iter().map(|d| d.time.as_deref()).collect();
        let source: Vec<Option<&str>> = chunk.iter().map(|d| d.source.as_deref()).collect();
        sqlx::query(
            r#"insert into corpus_document (document_id, corpus_id, cluster, external_id, time, source)
               select id, $2, c, e, t, s
               from unnest($1::int8[], $3::text[], $4::text[], $5::text[], $6::text[]) as u(id, c, e, t, s)"#,
        )
        .bind(chunk_ids)
        .bind(corpus_id)
        .bind(&cluster)
        .bind(&ext)
        .bind(&time)
        .bind(&source)
        .execute(&mut *conn)
        .await?;
    }
    let rows: Vec<(i64, &str, i32, &str)> = ids
        .iter()
        .zip(docs)
        .flat_map(|(id, d)| {
            d.sentences
                .iter()
                .enumerate()
                .map(move |(p, s)| (*id, d.cluster.as_str(), p as i32, s.as_str()))
        })
        .collect();
    for chunk in rows.chunks(10_000) {
        let doc: Vec<i64> = chunk.iter().map(|r| r.0).collect();
        let cluster: Vec<&str> = chunk.iter().map(|r| r.1).collect();
        let position: Vec<i32> = chunk.iter().map(|r| r.2).collect();
        let text: Vec<&str> = chunk.iter().map(|r| r.3).collect();
        sqlx::query(
            r#"insert into corpus_sentence (corpus_id, document_id, cluster, position, text)
               select $1, d, c, p, t
               from unnest($2::int8[], $3::text[], $4::int4[], $5::text[]) with ordinality as u(d, c, p, t, n)
               order by n"#,
        )
        .bind(corpus_id)
        .bind(&doc)
        .bind(&cluster)
        .bind(&position)
        .bind(&text)
        .execute(&mut *conn)
        .await?;
    }
    Ok((corpus_id, counts))
}

#[derive(Debug, Clone, FromRow)]
pub struct CorpusRow {
    pub corpus_id: Uuid,
    pub name: String,
    pub shape: String,
    pub filename: String,
    pub clusters: i32,
    pub documents: i32,
    pub sentences: i32,
    pub created_at: time::OffsetDateTime,
}

pub async fn list_corpora(db: impl PgExecutor<'_>) -> Result<Vec<CorpusRow>, AppError> {
    Ok(sqlx::query_as(
        r#"select corpus_id, name, shape, filename, clusters, documents, sentences, created_at
           from corpus order by created_at desc"#,
    )
    .fetch_all(db)
    .await?)
}

pub async fn find_corpus(db: impl PgExecutor<'_>, id: Uuid) -> Result<Option<CorpusRow>, AppError> {
    Ok(sqlx::query_as(
        r#"select corpus_id, name, shape, filename, clusters, documents, sentences, created_at
           from corpus where corpus_id = $1"#,
    )
    .bind(id)
    .fetch_optional(db)
    .await?)
}

/// The corpus's sentences by cluster, in corpus order (documents as imported, then position).
pub async fn load_clusters(
    db: impl PgExecutor<'_>,
    corpus_id: Uuid,
) -> Result<Vec<Cluster>, AppError> {
    let rows: Vec<(i64, i64, String, i32, String)> = sqlx::query_as(
        r#"select sentence_id, document_id, cluster, position, text from corpus_sentence
           where corpus_id = $1 order by cluster, sentence_id"#,
    )
    .bind(corpus_id)
    .fetch_all(db)
    .await?;
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut last: Option<String> = None;
    for (id, document, cluster, position, text) in rows {
        if last.as_deref() != Some(cluster.as_str()) {
            clusters.push(Cluster::default());
            last = Some(cluster);
        }
        clusters
            .last_mut()
            .expect("pushed")
            .sentences
            .push(Sentence {
                id,
                document,
                position: position as u32,
                text,
            });
    }
    Ok(clusters)
}

#[derive(Debug, Clone, FromRow)]
pub struct RunRow {
    pub run_id: Uuid,
    pub corpus_id: Uuid,
    pub corpus_name: String,
    pub method: String,
    pub params: serde_json::Value,
    pub status: String,
    pub done: i64,
    pub total: i64,
    pub candidates: i32,
    pub stats: Option<serde_json::Value>,
    pub error: Option<String>,
    pub created_at: time::OffsetDateTime,
    pub started_at: Option<time::OffsetDateTime>,
    pub finished_at: Option<time::OffsetDateTime>,
    pub mining_seconds: Option<f64>,
}

const RUN_COLUMNS: &str = r#"r.run_id, r.corpus_id, c.name as corpus_name, r.method, r.params,
    r.status, r.done, r.total, r.candidates, r.stats, r.error, r.created_at, r.started_at,
    r.finished_at, r.mining_seconds"#;

pub async fn create_run(
    db: impl PgExecutor<'_>,
    corpus_id: Uuid,
    method: &str,
    params: &serde_json::Value,
    created_by: Uuid,
) -> Result<Uuid, AppError> {
    Ok(sqlx::query_scalar(
        r#"insert into mining_run (corpus_id, method, params, created_by) values ($1, $2, $3, $4)
           returning run_id"#,
    )
    .bind(corpus_id)
    .bind(method)
    .bind(params)
    .bind(created_by)
    .fetch_one(db)
    .await?)
}

pub async fn list_runs(db: impl PgExecutor<'_>) -> Result<Vec<RunRow>, AppError> {
    Ok(sqlx::query_as(&format!(
        "select {RUN_COLUMNS} from mining_run r join corpus c using (corpus_id) order by r.created_at desc limit 200"
    ))
    .fetch_all(db)
    .await?)
}

pub async fn find_run(db: impl PgExecutor<'_>, run_id: Uuid) -> Result<Option<RunRow>, AppError> {
    Ok(sqlx::query_as(&format!(
        "select {RUN_COLUMNS} from mining_run r join corpus c using (corpus_id) where r.run_id = $1"
    ))
    .bind(run_id)
    .fetch_optional(db)
    .await?)
}

/// Moves a queued run to running. False when it is not queued (cancelled meanwhile).
pub async fn set_running(db: impl PgExecutor<'_>, run_id: Uuid) -> Result<bool, AppError> {
    Ok(sqlx::query(
        "update mining_run set status = 'running', started_at = now() where run_id = $1 and status = 'queued'",
    )
    .bind(run_id)
    .execute(db)
    .await?
    .rows_affected()
        == 1)
}

pub async fn set_progress(
    db: impl PgExecutor<'_>,
    run_id: Uuid,
    done: u64,
    total: u64,
) -> Result<(), AppError> {
    sqlx::query(
        "update mining_run set done = $2, total = $3 where run_id = $1 and status = 'running'",
    )
    .bind(run_id)
    .bind(done as i64)
    .bind(total as i64)
    .execute(db)
    .await?;
    Ok(())
}

/// Ends a run that is not finished: cancelled, failed or interrupted.
pub async fn end_run(
    db: impl PgExecutor<'_>,
    run_id: Uuid,
    status: &str,
    error: Option<&str>,
) -> Result<(), AppError> {
    sqlx::query(
        r#"update mining_run set status = $2, error = $3, finished_at = now()
           where run_id = $1 and status in ('queued', 'running')"#,
    )
    .bind(run_id)
    .bind(status)
    .bind(error)
    .execute(db)
    .await?;
    Ok(())
}

/// Writes the candidates and marks the run finished, in one transaction (by the caller).
pub async fn finish_run(
    conn: &mut PgConnection,
    run_id: Uuid,
    candidates: &[Candidate],
    stats: &PairStats,
    done: u64,
    mining_seconds: f64,
) -> Result<(), AppError> {
    for chunk in candidates.chunks(10_000) {
        let a: Vec<i64> = chunk.iter().map(|c| c.a).collect();
        let b: Vec<i64> = chunk.iter().map(|c| c.b).collect();
        let d: Vec<i32> = chunk.iter().map(|c| c.edit_distance as i32).collect();
        let w: Vec<i32> = chunk.iter().map(|c| c.shared_long_words as i32).collect();
        let r: Vec<f64> = chunk.iter().map(|c| c.length_ratio).collect();
        let score: Vec<f64> = chunk.iter().map(|c| c.score).collect();
        let batch: Vec<i16> = chunk.iter().map(|c| c.batch as i16).collect();
        sqlx::query(
            r#"insert into mining_candidate (run_id, sentence_a, sentence_b, edit_distance,
                   shared_long_words, length_ratio, score, batch)
               select $1, a, b, d, w, r, s, k
               from unnest($2::int8[], $3::int8[], $4::int4[], $5::int4[], $6::float8[],
                           $7::float8[], $8::int2[]) with ordinality as u(a, b, d, w, r, s, k, n)
               order by n"#,
        )
        .bind(run_id)
        .bind(&a)
        .bind(&b)
        .bind(&d)
        .bind(&w)
        .bind(&r)
        .bind(&score)
        .bind(&batch)
        .execute(&mut *conn)
        .await?;
    }
    sqlx::query(
        r#"update mining_run set status = 'finished', done = $2, total = $2, candidates = $3,
               stats = $4, mining_seconds = $5, finished_at = now()
           where run_id = $1"#,
    )
    .bind(run_id)
    .bind(done as i64)
    .bind(candidates.len() as i32)
    .bind(serde_json::to_value(stats).unwrap_or_default())
    .bind(mining_seconds)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// At start-up: runs a previous process left queued or running were interrupted.
pub async fn mark_interrupted(db: impl PgExecutor<'_>) -> Result<u64, AppError> {
    Ok(sqlx::query(
        r#"update mining_run set status = 'interrupted', finished_at = now(),
               error = 'The server stopped while this run was in progress.'
           where status in ('queued', 'running')"#,
    )
    .execute(db)
    .await?
    .rows_affected())
}

/// Puts an interrupted, cancelled or failed run back in the queue, without its candidates.
pub async fn requeue(conn: &mut PgConnection, run_id: Uuid) -> Result<bool, AppError> {
    let moved = sqlx::query(
        r#"update mining_run set status = 'queued', done = 0, total = 0, candidates = 0, stats = null,
               error = null, started_at = null, finished_at = null, mining_seconds = null
           where run_id = $1 and status in ('interrupted', 'cancelled', 'failed')"#,
    )
    .bind(run_id)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if moved == 1 {
        sqlx::query("delete from mining_candidate where run_id = $1")
            .bind(run_id)
            .execute(&mut *conn)
            .await?;
    }
    Ok(moved == 1)
}

/// A candidate with its texts.
#[derive(Debug, Clone, FromRow)]
pub struct CandidateRow {
    pub candidate_id: i64,
    pub sentence1: String,
    pub sentence2: String,
    pub cluster: String,
    pub edit_distance: i32,
    pub shared_long_words: i32,
    pub length_ratio: f64,
    pub score: f64,
    pub batch: i16,
}

/// Which candidates: edit distance and score within [min, max], and at most `limit` of them,
/// either the first in corpus order or a fixed pseudo-random sample.
#[derive(Debug, Clone, Copy)]
pub struct Selection {
    pub min_edit_distance: i32,
    pub max_edit_distance: i32,
    pub min_score: f64,
    pub max_score: f64,
    pub limit: i64,
    pub sample: bool,
}

pub async fn select_candidates(
    db: impl PgExecutor<'_>,
    run_id: Uuid,
    s: Selection,
) -> Result<Vec<CandidateRow>, AppError> {
    Ok(sqlx::query_as(
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
    )
    .bind(run_id)
    .bind(s.min_edit_distance)
    .bind(s.max_edit_distance)
    .bind(s.limit)
    .bind(s.sample)
    .bind(s.min_score)
    .bind(s.max_score)
    .fetch_all(db)
    .await?)
}

/// Adds the selected candidates to a judging campaign as ordinary pairs; a pair the campaign
/// already has, in either order, is skipped. Returns (added, skipped).
pub async fn deploy(
    conn: &mut PgConnection,
    run_id: Uuid,
    campaign_id: Uuid,
    s: Selection,
    judgments_per_pair: u32,
) -> Result<(u64, u64), AppError> {
    let chosen = select_candidates(&mut *conn, run_id, s).await?;
    let added = insert_pairs(conn, run_id, campaign_id, &chosen, judgments_per_pair).await?;
    Ok((added, chosen.len() as u64 - added))
}

/// Inserts candidates as judging pairs (group = cluster), skipping pairs the campaign has.
async fn insert_pairs(
    conn: &mut PgConnection,
    run_id: Uuid,
    campaign_id: Uuid,
    chosen: &[CandidateRow],
    judgments_per_pair: u32,
) -> Result<u64, AppError> {
    let s1: Vec<&str> = chosen.iter().map(|c| c.sentence1.as_str()).collect();
    let s2: Vec<&str> = chosen.iter().map(|c| c.sentence2.as_str()).collect();
    let group: Vec<&str> = chosen.iter().map(|c| c.cluster.as_str()).collect();
    let ids: Vec<i64> = chosen.iter().map(|c| c.candidate_id).collect();
    Ok(sqlx::query(
        r#"insert into judge_pair (campaign_id, sentence1, sentence2, group_key, external_id,
               is_test, open_slots, mining_run_id, mining_candidate_id)
           select $1, s1, s2, g, 'candidate:' || c, false, $6, $7, c
           from unnest($2::text[], $3::text[], $4::text[], $5::int8[]) with ordinality as u(s1, s2, g, c, n)
           where not exists (select 1 from judge_pair p where p.campaign_id = $1
                             and p.sentence1 = u.s2 and p.sentence2 = u.s1)
           order by n
           on conflict on constraint judge_pair_campaign_sentences_key do nothing"#,
    )
    .bind(campaign_id)
    .bind(&s1)
    .bind(&s2)
    .bind(&group)
    .bind(&ids)
    .bind(judgments_per_pair as i32)
    .bind(run_id)
    .execute(&mut *conn)
    .await?
    .rows_affected())
}

/// The group-selection first batch a judging pair belongs to: (run, group, run parameters).
pub async fn first_batch_of_pair(
    db: impl PgExecutor<'_>,
    pair_id: Uuid,
) -> Result<Option<(Uuid, String, serde_json::Value)>, AppError> {
    Ok(sqlx::query_as(
        r#"select m.run_id, p.group_key, r.params
           from judge_pair p
           join mining_candidate m on m.candidate_id = p.mining_candidate_id
           join mining_run r on r.run_id = m.run_id
           where p.pair_id = $1 and m.batch = 1 and r.method = 'group' and p.group_key is not null"#,
    )
    .bind(pair_id)
    .fetch_optional(db)
    .await?)
}

/// (trusted judgments, "paraphrase" votes) of each first-batch pair of a group in a campaign.
pub async fn first_batch_votes(
    db: impl PgExecutor<'_>,
    campaign_id: Uuid,
    run_id: Uuid,
    group: &str,
) -> Result<Vec<(i32, i32)>, AppError> {
    Ok(sqlx::query_as(
        r#"select p.n_judgments, p.n_paraphrase
           from judge_pair p
           join mining_candidate m on m.candidate_id = p.mining_candidate_id
           where p.campaign_id = $1 and m.run_id = $2 and m.batch = 1 and p.group_key = $3"#,
    )
    .bind(campaign_id)
    .bind(run_id)
    .bind(group)
    .fetch_all(db)
    .await?)
}

/// Takes a group's follow-up decision once: inserts the first `pairs` of its follow-up reserve
/// (in the miner's order) and records it. False when the decision was already taken.
#[allow(clippy::too_many_arguments)]
pub async fn deploy_follow_up(
    conn: &mut PgConnection,
    campaign_id: Uuid,
    run_id: Uuid,
    group: &str,
    paraphrases: u32,
    pairs: u32,
    judgments_per_pair: u32,
) -> Result<Option<u64>, AppError> {
    let claimed = sqlx::query(
        r#"insert into mining_follow_up (campaign_id, run_id, group_key, paraphrases, pairs, deployed)
           values ($1, $2, $3, $4, $5, 0) on conflict do nothing"#,
    )
    .bind(campaign_id)
    .bind(run_id)
    .bind(group)
    .bind(paraphrases as i32)
    .bind(pairs as i32)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if claimed == 0 {
        return Ok(None);
    }
    let chosen: Vec<CandidateRow> = sqlx::query_as(
        r#"select m.candidate_id, a.text as sentence1, b.text as sentence2, a.cluster,
                  m.edit_distance, m.shared_long_words, m.length_ratio, m.score, m.batch
           from mining_candidate m
           join corpus_sentence a on a.sentence_id = m.sentence_a
           join corpus_sentence b on b.sentence_id = m.sentence_b
           where m.run_id = $1 and m.batch = 2 and a.cluster = $2
           order by m.candidate_id
           limit $3"#,
    )
    .bind(run_id)
    .bind(group)
    .bind(pairs as i64)
    .fetch_all(&mut *conn)
    .await?;
    let added = insert_pairs(conn, run_id, campaign_id, &chosen, judgments_per_pair).await?;
    sqlx::query(
        "update mining_follow_up set deployed = $4 where campaign_id = $1 and run_id = $2 and group_key = $3",
    )
    .bind(campaign_id)
    .bind(run_id)
    .bind(group)
    .bind(added as i32)
    .execute(&mut *conn)
    .await?;
    Ok(Some(added))
}

/// A follow-up decision as recorded.
#[derive(Debug, Clone, FromRow)]
pub struct FollowUpRow {
    pub group_key: String,
    pub paraphrases: i32,
    pub pairs: i32,
    pub deployed: i32,
}

/// The follow-up decisions taken for a run's groups (all campaigns), by group.
pub async fn follow_ups(
    db: impl PgExecutor<'_>,
    run_id: Uuid,
) -> Result<Vec<FollowUpRow>, AppError> {
    Ok(sqlx::query_as(
        r#"select group_key, paraphrases, pairs, deployed from mining_follow_up
           where run_id = $1 order by group_key, campaign_id"#,
    )
    .bind(run_id)
    .fetch_all(db)
    .await?)
}

/// Pairs of a judging campaign that came from a mining run.
pub async fn deployed_count(db: impl PgExecutor<'_>, campaign_id: Uuid) -> Result<i64, AppError> {
    Ok(sqlx::query_scalar(
        "select count(*) from judge_pair where campaign_id = $1 and mining_run_id is not null",
    )
    .bind(campaign_id)
    .fetch_one(db)
    .await?)
}
