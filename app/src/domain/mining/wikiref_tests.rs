//! L12 and F2 over a real corpus, WikiRef220 (220 news articles in 16 topics, in
//! `../shared/data/mining/`), against obviously correct implementations: every pair, the plain
//! distance, each rule in turn. Skipped with a message when the data is absent (a user's clone),
//! unless PARACROWD_REQUIRE_DATA is set (the test script sets it when the data is there).
use std::collections::{BTreeMap, HashSet};

use super::corpus::{parse, Columns, CorpusShape};
use super::edit_distance::levenshtein;
use super::f2::{self, long_words, F2Params};
use super::l12::{self, length_ok, tests::slow_l12, L12Params};
use super::progress::Progress;
use super::words::words;
use super::{Cluster, Sentence};

#[path = "../../../../tests/common/shared.rs"]
mod shared;

fn wikiref() -> Option<Vec<Cluster>> {
    let text = shared::data(
        "mining/wikiref220.jsonl",
        "app::domain::mining::wikiref_tests (WikiRef220)",
    )?;
    let docs = parse(
        "wikiref220.jsonl",
        &text,
        CorpusShape::Documents,
        &Columns::default(),
        true,
    )
    .expect("WikiRef220 parses");
    assert_eq!(docs.len(), 220);
    let mut by_cluster: BTreeMap<String, Cluster> = BTreeMap::new();
    let mut id = 0;
    for (d, doc) in docs.iter().enumerate() {
        let cluster = by_cluster.entry(doc.cluster.clone()).or_default();
        for (p, s) in doc.sentences.iter().enumerate() {
            cluster.sentences.push(Sentence {
                id,
                document: d as i64,
                position: p as u32,
                text: s.clone(),
            });
            id += 1;
        }
    }
    assert_eq!(by_cluster.len(), 16);
    Some(by_cluster.into_values().collect())
}

fn slow_f2(clusters: &[Cluster], p: &F2Params) -> Vec<(i64, i64, u32)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for c in clusters {
        let leads: Vec<&Sentence> = c
            .sentences
            .iter()
            .filter(|s| s.position < p.first_sentences)
            .collect();
        for i in 0..leads.len() {
            for j in i + 1..leads.len() {
                let (x, y) = (leads[i], leads[j]);
                if x.document == y.document {
                    continue;
                }
                let (wx, wy) = (words(&x.text), words(&y.text));
                if wx.is_empty()
                    || wy.is_empty()
                    || wx == wy
                    || !length_ok(wx.len(), wy.len(), p.min_word_ratio)
                {
                    continue;
                }
                let shared = long_words(&x.text, p.long_word_chars)
                    .intersection(&long_words(&y.text, p.long_word_chars))
                    .count() as u32;
                if shared < p.min_shared_long_words {
                    continue;
                }
                let key = if wx <= wy {
                    (wx.clone(), wy.clone())
                } else {
                    (wy.clone(), wx.clone())
                };
                if seen.insert(key) {
                    let (a, b) = if x.id < y.id {
                        (x.id, y.id)
                    } else {
                        (y.id, x.id)
                    };
                    out.push((a, b, levenshtein(&wx, &wy)));
                }
            }
        }
    }
    out
}

#[test]
fn l12_on_wikiref220_equals_the_slow_miner() {
    let Some(clusters) = wikiref() else { return };
    let sentences: usize = clusters.iter().map(|c| c.sentences.len()).sum();
    assert!(sentences > 5_000, "{sentences} sentences");
    let params = L12Params::default();
    let progress = Progress::default();
    let fast: Vec<(i64, i64, u32)> = l12::mine(&clusters, &params, &progress)
        .unwrap()
        .iter()
        .map(|c| (c.a, c.b, c.edit_distance))
        .collect();
    let (done, total) = progress.get();
    assert_eq!(done, total);
    let slow = slow_l12(&clusters, &params);
    assert_eq!(fast.len(), slow.len());
    assert_eq!(fast, slow);
    eprintln!(
        "WikiRef220: {sentences} sentences, {total} pairs, {} L12 candidates",
        fast.len()
    );
    assert!(!fast.is_empty());
}

#[test]
fn f2_on_wikiref220_equals_the_slow_miner() {
    let Some(clusters) = wikiref() else { return };
    let params = F2Params::default();
    let mut fast: Vec<(i64, i64, u32)> = f2::mine(&clusters, &params, &Progress::default())
        .unwrap()
        .iter()
        .map(|c| (c.a, c.b, c.edit_distance))
        .collect();
    let mut slow = slow_f2(&clusters, &params);
    fast.sort();
    slow.sort();
    assert_eq!(fast, slow);
    eprintln!("WikiRef220: {} F2 candidates", fast.len());
    assert!(!fast.is_empty());
}
