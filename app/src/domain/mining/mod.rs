//! Mining candidate sentence pairs from raw text, as the papers did offline with scripts:
//! corpora split into sentences ([`corpus`], [`segment`]), the MSRP miners [`l12`] (edit distance
//! within a cluster) and [`f2`] (first sentences across the articles of a cluster), and the
//! numbers of a run ([`stats`]). Pure code: the job runner and the database live elsewhere.
pub mod corpus;
pub mod edit_distance;
pub mod f2;
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
    pub text: String,
}

/// The sentences of one cluster (a topic, a story, a URL's tweets).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cluster {
    pub sentences: Vec<Sentence>,
}

/// A candidate pair: two sentence ids (`a` before `b` in corpus order) and their numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub a: i64,
    pub b: i64,
    /// Word-level Levenshtein distance of the lower-cased word sequences.
    pub edit_distance: u32,
    /// Distinct words of 4+ characters the two share.
    pub shared_long_words: u32,
    /// Shorter over longer length in words.
    pub length_ratio: f64,
}

/// How many worker threads a miner uses: the machine's cores.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A miner and its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    L12(l12::L12Params),
    F2(f2::F2Params),
}

impl Method {
    pub fn name(&self) -> &'static str {
        match self {
            Method::L12(_) => "l12",
            Method::F2(_) => "f2",
        }
    }
    pub fn params_json(&self) -> serde_json::Value {
        match self {
            Method::L12(p) => serde_json::to_value(p),
            Method::F2(p) => serde_json::to_value(p),
        }
        .unwrap_or_default()
    }
    pub fn from_row(method: &str, params: &serde_json::Value) -> Option<Method> {
        match method {
            "l12" => serde_json::from_value(params.clone()).ok().map(Method::L12),
            "f2" => serde_json::from_value(params.clone()).ok().map(Method::F2),
            _ => None,
        }
    }
    pub fn mine(
        &self,
        clusters: &[Cluster],
        progress: &progress::Progress,
    ) -> Result<Vec<Candidate>, progress::Cancelled> {
        match self {
            Method::L12(p) => l12::mine(clusters, p, progress),
            Method::F2(p) => f2::mine(clusters, p, progress),
        }
    }

    /// Checks the parameters; the error names the field.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        match self {
            Method::L12(p) => p.check(),
            Method::F2(p) => p.check(),
        }
    }
}
