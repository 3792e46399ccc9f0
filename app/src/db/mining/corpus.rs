//! Corpora: importing one with its documents and sentences, listing them, loading clusters to mine.
use crate::domain::mining::corpus::{CorpusShape, Document};
use crate::domain::mining::{Cluster, Sentence};
use crate::domain::{CorpusId, UserId};
use crate::dto::mining::CorpusView;
use crate::error::AppError;
use sqlx::{PgConnection, PgExecutor};

/// Counts of an imported corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusCounts {
    /// Distinct clusters in the corpus.
    pub clusters: i32,
    /// Documents in the corpus.
    pub documents: i32,
    /// Sentences, over all documents.
    pub sentences: i32,
}

/// Writes a corpus with its documents and sentences (in one transaction, by the caller).
pub async fn insert_corpus(
    conn: &mut PgConnection,
    name: &str,
    shape: CorpusShape,
    filename: &str,
    docs: &[Document],
    created_by: Option<UserId>,
) -> Result<(CorpusId, CorpusCounts), AppError> {
    let clusters: std::collections::HashSet<&str> =
        docs.iter().map(|d| d.cluster.as_str()).collect();
    let counts = CorpusCounts {
        clusters: clusters.len() as i32,
        documents: docs.len() as i32,
        sentences: docs.iter().map(|d| d.sentences.len() as i32).sum(),
    };
    let corpus_id: CorpusId = sqlx::query_scalar!(
        r#"insert into corpus (name, shape, filename, clusters, documents, sentences, created_by)
           values ($1, $2, $3, $4, $5, $6, $7)
           returning corpus_id as "corpus_id: CorpusId""#,
        name,
        shape.as_str(),
        filename,
        counts.clusters,
        counts.documents,
        counts.sentences,
        created_by as Option<UserId>
    )
    .fetch_one(&mut *conn)
    .await?;
    // Document ids are taken first, so each sentence knows its document's id.
    let ids: Vec<i64> = sqlx::query_scalar!(
        r#"select nextval('corpus_document_document_id_seq') as "id!" from generate_series(1, $1)"#,
        docs.len() as i64
    )
    .fetch_all(&mut *conn)
    .await?;
    for (chunk_ids, chunk) in ids.chunks(5000).zip(docs.chunks(5000)) {
        let cluster: Vec<&str> = chunk.iter().map(|d| d.cluster.as_str()).collect();
        let ext: Vec<&str> = chunk.iter().map(|d| d.external_id.as_str()).collect();
        let time: Vec<Option<&str>> = chunk.iter().map(|d| d.time.as_deref()).collect();
        let source: Vec<Option<&str>> = chunk.iter().map(|d| d.source.as_deref()).collect();
        sqlx::query!(
            r#"insert into corpus_document (document_id, corpus_id, cluster, external_id, time, source)
               select id, $2, c, e, t, s
               from unnest($1::int8[], $3::text[], $4::text[], $5::text[], $6::text[]) as u(id, c, e, t, s)"#,
            chunk_ids,
            corpus_id as CorpusId,
            &cluster as &[&str],
            &ext as &[&str],
            &time as &[Option<&str>],
            &source as &[Option<&str>]
        )
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
        sqlx::query!(
            r#"insert into corpus_sentence (corpus_id, document_id, cluster, position, text)
               select $1, d, c, p, t
               from unnest($2::int8[], $3::text[], $4::int4[], $5::text[]) with ordinality as u(d, c, p, t, n)
               order by n"#,
            corpus_id as CorpusId,
            &doc,
            &cluster as &[&str],
            &position,
            &text as &[&str]
        )
        .execute(&mut *conn)
        .await?;
    }
    Ok((corpus_id, counts))
}

/// Every corpus, newest first.
pub async fn list_corpora(db: impl PgExecutor<'_>) -> Result<Vec<CorpusView>, AppError> {
    Ok(sqlx::query_as!(
        CorpusView,
        r#"select corpus_id as "corpus_id: _", name, shape, filename, clusters, documents, sentences
           from corpus order by created_at desc"#
    )
    .fetch_all(db)
    .await?)
}

/// The corpus with id `id`, if any.
pub async fn find_corpus(
    db: impl PgExecutor<'_>,
    id: CorpusId,
) -> Result<Option<CorpusView>, AppError> {
    Ok(sqlx::query_as!(
        CorpusView,
        r#"select corpus_id as "corpus_id: _", name, shape, filename, clusters, documents, sentences
           from corpus where corpus_id = $1"#,
        id as CorpusId
    )
    .fetch_optional(db)
    .await?)
}

/// The corpus's sentences by cluster, in corpus order (documents as imported, then position).
pub async fn load_clusters(
    db: impl PgExecutor<'_>,
    corpus_id: CorpusId,
) -> Result<Vec<Cluster>, AppError> {
    let rows = sqlx::query!(
        r#"select sentence_id, document_id, cluster, position, text from corpus_sentence
           where corpus_id = $1 order by cluster, sentence_id"#,
        corpus_id as CorpusId
    )
    .fetch_all(db)
    .await?;
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut last: Option<String> = None;
    for row in rows {
        if last.as_deref() != Some(row.cluster.as_str()) {
            clusters.push(Cluster::default());
            last = Some(row.cluster);
        }
        clusters
            .last_mut()
            .expect("pushed")
            .sentences
            .push(Sentence {
                id: row.sentence_id,
                document: row.document_id,
                position: row.position as u32,
                text: row.text,
            });
    }
    Ok(clusters)
}
