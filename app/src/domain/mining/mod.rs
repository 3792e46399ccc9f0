//! Mining candidate sentence pairs from raw text, as the papers did offline with scripts:
//! corpora split into sentences ([`corpus`], [`segment`]), the MSRP miners [`l12`] (edit distance
//! within a cluster) and [`f2`] (first sentences across the articles of a cluster), and the
//! numbers of a run ([`stats`]). Pure code: the job runner and the database live elsewhere.
use crate::domain::invalid::Invalid;
pub mod corpus;
pub mod deploy_guard;
pub mod edit_distance;
pub mod embedding;
pub mod f2;
pub mod group_select;
pub mod l12;
pub mod progress;
pub mod segment;
pub mod stats;
pub mod words;

#[cfg(test)]
mod wikiref_tests;

/// A sentence of a corpus as the miners see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// The caller's id (the database's), carried into the candidates.
    pub id: i64,
    /// The document within the cluster (index or id): F2 pairs across documents only.
    pub document: i64,
    /// 0-based position in its document.
    pub position: u32,
    /// The sentence.
    pub text: String,
}

/// The sentences of one cluster (a topic, a story, a URL's tweets).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cluster {
    /// The cluster's sentences, in corpus order.
    pub sentences: Vec<Sentence>,
}

/// A candidate pair: two sentence ids (`a` before `b` in corpus order) and their numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The id of the sentence that comes first in the corpus.
    pub a: i64,
    /// The id of the other sentence.
    pub b: i64,
    /// Word-level Levenshtein distance of the lower-cased word sequences.
    pub edit_distance: u32,
    /// Distinct words of 4+ characters the two share.
    pub shared_long_words: u32,
    /// Shorter over longer length in words.
    pub length_ratio: f64,
    /// The miner's own score: cosine similarity (embeddings), the seed's rank (group
    /// selection, 0 = best); 0 for L12 and F2.
    pub score: f64,
    /// 0 for an ordinary candidate; group selection's first batch (1) or follow-up reserve (2).
    pub batch: u8,
}

/// How many worker threads a miner uses: the machine's cores.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Embeds texts: one L2-normalised vector per text, in order (the server's sentence model).
pub type Embed<'a> = &'a (dyn Fn(&[String]) -> Result<Vec<Vec<f32>>, String> + Sync);

/// Why a run stopped without candidates.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MineError {
    /// An admin cancelled the run, or it found too many candidates.
    #[error("the run was cancelled")]
    Cancelled,
    /// The miner failed, with a message for the admin.
    #[error("{0}")]
    Failed(String),
}

impl From<progress::Cancelled> for MineError {
    fn from(_: progress::Cancelled) -> Self {
        MineError::Cancelled
    }
}

/// A miner and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// MSRP's L12: word edit distance within a cluster.
    L12(l12::L12Params),
    /// MSRP's F2: first sentences across the articles of a cluster.
    F2(f2::F2Params),
    /// MultiPIT's ranked selection within groups of short texts.
    Group(group_select::GroupParams),
    /// ParaSCI's sentence-embedding similarity.
    Embedding(embedding::EmbeddingParams),
}

impl Method {
    /// Which miner this is, as stored with a run.
    pub fn kind(&self) -> crate::domain::MethodKind {
        use crate::domain::MethodKind as K;
        match self {
            Method::L12(_) => K::L12,
            Method::F2(_) => K::F2,
            Method::Group(_) => K::Group,
            Method::Embedding(_) => K::Embedding,
        }
    }
    /// The parameters as JSON, as stored with a run.
    pub fn params_json(&self) -> serde_json::Value {
        match self {
            Method::L12(p) => serde_json::to_value(p),
            Method::F2(p) => serde_json::to_value(p),
            Method::Group(p) => serde_json::to_value(p),
            Method::Embedding(p) => serde_json::to_value(p),
        }
        .unwrap_or_default()
    }
    /// The method stored as `method` with `params`; `None` if they are unreadable.
    pub fn from_row(
        method: crate::domain::MethodKind,
        params: &serde_json::Value,
    ) -> Option<Method> {
        use crate::domain::MethodKind as K;
        let p = params.clone();
        match method {
            K::L12 => serde_json::from_value(p).ok().map(Method::L12),
            K::F2 => serde_json::from_value(p).ok().map(Method::F2),
            K::Group => serde_json::from_value(p).ok().map(Method::Group),
            K::Embedding => serde_json::from_value(p).ok().map(Method::Embedding),
        }
    }
    /// Whether the run needs the sentence embedding model.
    pub fn needs_embeddings(&self) -> bool {
        matches!(self, Method::Embedding(_))
    }
    /// Mines `clusters`; `embed` is needed by the embedding miner only.
    pub fn mine(
        &self,
        clusters: &[Cluster],
        embed: Option<Embed<'_>>,
        progress: &progress::Progress,
    ) -> Result<Vec<Candidate>, MineError> {
        match self {
            Method::L12(p) => Ok(l12::mine(clusters, p, progress)?),
            Method::F2(p) => Ok(f2::mine(clusters, p, progress)?),
            Method::Group(p) => Ok(group_select::mine(clusters, p, progress)?),
            Method::Embedding(p) => {
                let embed = embed.ok_or_else(|| {
                    MineError::Failed("The sentence embedding model is not installed.".into())
                })?;
                embedding::mine(clusters, p, embed, progress).map_err(|e| match e {
                    embedding::EmbedError::Cancelled => MineError::Cancelled,
                    embedding::EmbedError::Model(m) => {
                        MineError::Failed(format!("The embedding model failed: {m}"))
                    }
                })
            }
        }
    }

    /// Checks the parameters; the error names the field.
    pub fn check(&self) -> Result<(), Invalid> {
        match self {
            Method::L12(p) => p.check(),
            Method::F2(p) => p.check(),
            Method::Group(p) => p.check(),
            Method::Embedding(p) => p.check(),
        }
    }
}
