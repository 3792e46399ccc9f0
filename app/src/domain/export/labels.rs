//! Labels by a model of the workers for an export: each pair's most probable label given every
//! worker's estimated quality, by Dawid-Skene (a confusion matrix per worker; EM as in
//! `domain::dawid_skene`, crowd-kit's defaults: 100 iterations, tolerance 1e-5), GLAD (an
//! ability per worker and a difficulty per pair, `domain::glad`) or MACE (a competence and a
//! guessing strategy per worker, `domain::mace`). A pair nobody judged, or one whose posterior
//! is exactly even (or not a number), has no label (unresolved, like a 3-3 vote).
use crate::domain::dawid_skene::{dawid_skene, Answer};
use crate::domain::glad::glad;
use crate::domain::mace::mace;

/// One judgment as indices: pair `0..pairs`, worker `0..workers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vote {
    /// The pair judged, as an index.
    pub pair: usize,
    /// The worker who judged, as an index.
    pub worker: usize,
    /// The worker said "paraphrase".
    pub is_paraphrase: bool,
}

/// A model that weighs each worker by their estimated quality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Dawid & Skene (1979): a confusion matrix per worker.
    DawidSkene,
    /// Whitehill et al. (2009): an ability per worker, a difficulty per pair.
    Glad,
    /// Hovy et al. (2013): a competence and a guessing strategy per worker.
    Mace,
}

/// Per pair, by `model`: 1 paraphrase, 0 not, `None` unresolved.
pub fn model_labels(model: Model, votes: &[Vote], pairs: usize, workers: usize) -> Vec<Option<u8>> {
    if votes.is_empty() {
        return vec![None; pairs];
    }
    let answers: Vec<Answer> = votes
        .iter()
        .map(|v| Answer {
            item: v.pair,
            worker: v.worker,
            label: usize::from(v.is_paraphrase),
        })
        .collect();
    let mut judged = vec![false; pairs];
    for v in votes {
        judged[v.pair] = true;
    }
    let posteriors = match model {
        Model::DawidSkene => dawid_skene(&answers, pairs, workers, 2, 100, 1e-5).posteriors,
        Model::Glad => glad(&answers, pairs, workers, 2).posteriors,
        Model::Mace => mace(&answers, pairs, workers, 2).posteriors,
    };
    posteriors
        .iter()
        .zip(judged)
        .map(|(p, judged)| {
            if !judged || !p.iter().all(|v| v.is_finite()) || (p[1] - p[0]).abs() < 1e-12 {
                None
            } else {
                Some(u8::from(p[1] > p[0]))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(pair: usize, worker: usize, is_paraphrase: bool) -> Vote {
        Vote {
            pair,
            worker,
            is_paraphrase,
        }
    }

    const MODELS: [Model; 3] = [Model::DawidSkene, Model::Glad, Model::Mace];

    #[test]
    fn unanimous_pairs_keep_their_label_and_unjudged_ones_have_none() {
        for model in MODELS {
            unanimous(model);
        }
    }

    fn unanimous(model: Model) {
        let mut votes = Vec::new();
        for w in 0..3 {
            votes.push(vote(0, w, true));
            votes.push(vote(1, w, false));
        }
        assert_eq!(
            model_labels(model, &votes, 3, 3),
            vec![Some(1), Some(0), None]
        );
        assert_eq!(model_labels(model, &[], 2, 0), vec![None, None]);
    }

    #[test]
    fn a_worker_who_always_says_paraphrase_is_outweighed() {
        for model in MODELS {
            always_paraphrase(model);
        }
    }

    fn always_paraphrase(model: Model) {
        // Workers 0-2 agree with the truth (pair i is a paraphrase when i is even), worker 3
        // always says paraphrase, worker 4 always says not; all five judge every pair but pair
        // 3, where only worker 0 (not) and the always-yes worker 3 answer. The vote there is
        // 1-1; each model learns that worker 3's "paraphrase" says nothing and follows worker 0.
        let mut votes = Vec::new();
        for p in 0..20 {
            if p == 3 {
                continue;
            }
            for w in 0..3 {
                votes.push(vote(p, w, p % 2 == 0));
            }
            votes.push(vote(p, 3, true));
            votes.push(vote(p, 4, false));
        }
        votes.push(vote(3, 0, false));
        votes.push(vote(3, 3, true));
        let labels = model_labels(model, &votes, 20, 5);
        for (p, l) in labels.iter().enumerate() {
            assert_eq!(*l, Some(u8::from(p % 2 == 0)), "{model:?}: pair {p}");
        }
    }
}
