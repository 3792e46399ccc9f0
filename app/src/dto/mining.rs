//! Mining as the admin's page shows it: corpora, runs, candidates, and the start and selection
//! forms.
use serde::{Deserialize, Serialize};

use crate::domain::mining::stats::PairStats;
use crate::domain::{CorpusId, RunId, RunStatus};
use crate::error::AppError;

/// An imported corpus as listed for admins (`db::mining` reads it straight from `corpus`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusView {
    pub corpus_id: CorpusId,
    /// The name the admin gave it.
    pub name: String,
    /// Its shape: `documents`, `grouped` or `sentences`.
    pub shape: String,
    /// The uploaded file's name.
    pub filename: String,
    /// Distinct clusters in the corpus.
    pub clusters: i32,
    /// Documents in the corpus.
    pub documents: i32,
    /// Sentences, over all documents.
    pub sentences: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunView {
    pub run_id: RunId,
    pub corpus_id: CorpusId,
    pub corpus_name: String,
    pub method: crate::domain::MethodKind,
    /// The parameters the run was started with, as `name = value` lines.
    pub params: Vec<(String, String)>,
    pub status: RunStatus,
    pub done: i64,
    pub total: i64,
    /// Pairs examined per second so far, and the seconds left at that rate (while running).
    pub rate: Option<f64>,
    pub seconds_left: Option<f64>,
    pub candidates: i32,
    pub stats: Option<PairStats>,
    pub error: Option<String>,
    pub mining_seconds: Option<f64>,
    /// The pass is over and its candidates are being measured, before they are saved.
    #[serde(default)]
    pub measuring: bool,
    /// While a finished pass writes its candidates: (written, to write).
    pub saving: Option<(i64, i64)>,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// Group selection: the follow-up decisions taken so far (in the run's detail only).
    pub follow_ups: Vec<FollowUpView>,
}

/// A group's follow-up (MultiPIT §2.3): paraphrases in its judged first batch, pairs earned,
/// pairs deployed (fewer when the campaign already had some). Read straight from
/// `mining_follow_up`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FollowUpView {
    /// The group (cluster) decided on.
    pub group: String,
    pub paraphrases: i32,
    pub pairs: i32,
    pub deployed: i32,
}

impl RunView {
    pub fn is_active(&self) -> bool {
        self.status.is_live()
    }
}

/// A mined candidate pair with its texts (`db::mining` reads it straight from
/// `mining_candidate` and the corpus's sentences; deploying uses the same rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateView {
    /// The candidate's database id.
    pub candidate_id: i64,
    /// The sentence that comes first in the corpus.
    pub sentence1: String,
    /// The other sentence.
    pub sentence2: String,
    /// The cluster both sentences belong to (the pair's group when deployed).
    pub cluster: String,
    /// Word-level Levenshtein distance between the two.
    pub edit_distance: i32,
    /// Distinct words of 4+ characters the two share.
    pub shared_long_words: i32,
    /// Shorter over longer length in words.
    pub length_ratio: f64,
    /// Cosine similarity (embedding runs), the seed's rank (group runs), else 0.
    pub score: f64,
    /// 0 ordinary; group selection's first batch (1) or follow-up reserve (2, never listed).
    pub batch: i16,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MiningState {
    pub corpora: Vec<CorpusView>,
    pub runs: Vec<RunView>,
    /// Judging campaigns to deploy to: (id, title).
    pub campaigns: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeploySummary {
    pub added: u64,
    pub already_in_campaign: u64,
    /// Set (to the number it would add) when nothing was added because a deploy this large
    /// must be confirmed: send it back as `confirm_count`.
    #[serde(default)]
    pub needs_confirmation: Option<u64>,
}

/// The start form's fields: a method and its parameters (left out = the paper's values).
#[derive(Debug, Clone, Default)]
pub struct MethodForm {
    pub method: String,
    pub max_edit_distance: Option<u32>,
    pub min_length_ratio: Option<f64>,
    pub first_sentences: Option<u32>,
    pub min_shared_long_words: Option<u32>,
    pub long_word_chars: Option<u32>,
    pub min_word_ratio: Option<f64>,
    pub seeds: Option<u32>,
    pub per_seed: Option<u32>,
    pub pool: Option<u32>,
    pub follow_seeds: Option<u32>,
    pub follow_pool: Option<u32>,
    pub block: Option<u32>,
    /// Follow-up steps as `min-max:pairs, ...`.
    pub steps: Option<String>,
    pub random_seed: Option<u64>,
    pub min_cosine: Option<f64>,
    pub max_length_rate: Option<f64>,
    /// Embeddings: also pair sentences of the same document.
    pub same_document: bool,
}

impl MethodForm {
    /// The method with its parameters, checked; the error names the field.
    pub fn method(&self) -> Result<crate::domain::mining::Method, AppError> {
        use crate::domain::mining::{
            embedding::EmbeddingParams, f2::F2Params, group_select::GroupParams, l12::L12Params,
            Method,
        };
        let (l12, f2) = (L12Params::default(), F2Params::default());
        let (group, emb) = (GroupParams::default(), EmbeddingParams::default());
        use crate::domain::MethodKind as K;
        let kind = K::parse(&self.method).ok_or_else(|| {
            AppError::validation(
                "method",
                "The method is `l12`, `f2`, `group` or `embedding`.",
            )
        })?;
        let method = match kind {
            K::L12 => Method::L12(L12Params {
                max_edit_distance: self.max_edit_distance.unwrap_or(l12.max_edit_distance),
                min_length_ratio: self.min_length_ratio.unwrap_or(l12.min_length_ratio),
            }),
            K::F2 => Method::F2(F2Params {
                first_sentences: self.first_sentences.unwrap_or(f2.first_sentences),
                min_shared_long_words: self
                    .min_shared_long_words
                    .unwrap_or(f2.min_shared_long_words),
                long_word_chars: self.long_word_chars.unwrap_or(f2.long_word_chars),
                min_word_ratio: self.min_word_ratio.unwrap_or(f2.min_word_ratio),
            }),
            K::Group => Method::Group(GroupParams {
                seeds: self.seeds.unwrap_or(group.seeds),
                per_seed: self.per_seed.unwrap_or(group.per_seed),
                pool: self.pool.unwrap_or(group.pool),
                follow_seeds: self.follow_seeds.unwrap_or(group.follow_seeds),
                follow_pool: self.follow_pool.unwrap_or(group.follow_pool),
                block: self.block.unwrap_or(group.block),
                steps: match self.steps.as_deref().map(str::trim) {
                    None | Some("") => group.steps.clone(),
                    Some(text) => GroupParams::parse_steps(text)
                        .map_err(|m| AppError::validation("steps", m))?,
                },
                random_seed: self.random_seed.unwrap_or(group.random_seed),
            }),
            K::Embedding => Method::Embedding(EmbeddingParams {
                min_cosine: self.min_cosine.unwrap_or(emb.min_cosine),
                max_length_rate: self.max_length_rate.unwrap_or(emb.max_length_rate),
                different_documents: !self.same_document,
            }),
        };
        method.check()?;
        Ok(method)
    }
}

/// Which candidates of a run: edit distance and score (cosine, rank) within ranges, at most
/// `limit`, the first in corpus order or, with `sample`, a fixed pseudo-random sample.
#[derive(Debug, Clone, Copy, Default)]
pub struct SelectionForm {
    pub min_edit_distance: Option<i32>,
    pub max_edit_distance: Option<i32>,
    pub min_score: Option<f64>,
    pub max_score: Option<f64>,
    pub limit: Option<i64>,
    pub sample: bool,
}
