//! Mining benchmark (a README command, not a test): MSRP's L12 and F2 miners on WikiRef220 (a
//! real news corpus) and on a synthetic corpus of three 10,000-sentence clusters, with pairs
//! examined per second. Writes both corpora as sentences (JSON lines) so that
//! `scripts/bench/mine_reference.py` (rapidfuzz) mines the same sentences in the same run
//! (`scripts/bench-mining.sh`).
//!
//! Usage: bench-mining WIKIREF220.jsonl OUT_DIR
use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use app::domain::mining::corpus::{parse, Columns, CorpusShape};
use app::domain::mining::f2::F2Params;
use app::domain::mining::l12::L12Params;
use app::domain::mining::progress::Progress;
use app::domain::mining::{threads, Cluster, Method, Sentence};

// Seeded (`domain::rng`), so every run sees the same data.
use app::domain::rng::SplitMix64 as Rng;

/// Three clusters of 10,000 sentences, 15-35 words (MSRP's sentences average 18.6) from a Zipf-like vocabulary of 5,000 words;
/// one sentence in ten is a copy of an earlier one with 1-6 words changed (an L12 candidate).
fn synthetic() -> Vec<Cluster> {
    let mut rng = Rng::new(0x0ddb_a11c_afe0_1234);
    let mut id = 0;
    (0..3)
        .map(|c| {
            let mut texts: Vec<Vec<String>> = Vec::new();
            for _ in 0..10_000 {
                let words: Vec<String> = if !texts.is_empty() && rng.below(10) == 0 {
                    let mut w = texts[rng.below(texts.len() as u64) as usize].clone();
                    for _ in 0..1 + rng.below(6) {
                        let at = rng.below(w.len() as u64) as usize;
                        w[at] = format!("x{}", rng.below(5000));
                    }
                    w
                } else {
                    let len = 15 + rng.below(21) as usize;
                    (0..len)
                        .map(|_| {
                            // Zipf-like: small ids much more often.
                            let r = rng.below(1 << 20) as f64 / (1 << 20) as f64;
                            format!("w{}", (5000f64.powf(r) - 1.0) as u64)
                        })
                        .collect()
                };
                texts.push(words);
            }
            Cluster {
                sentences: texts
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| {
                        id += 1;
                        Sentence {
                            id,
                            document: (c * 100_000 + i) as i64,
                            position: 0,
                            text: w.join(" ") + ".",
                        }
                    })
                    .collect(),
            }
        })
        .collect()
}

fn wikiref(path: &str) -> anyhow::Result<Vec<Cluster>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    let docs = parse(
        path,
        &text,
        CorpusShape::Documents,
        &Columns::default(),
        true,
    )
    .map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
    let mut by_cluster: std::collections::BTreeMap<String, Cluster> = Default::default();
    let mut id = 0;
    for (d, doc) in docs.iter().enumerate() {
        let c = by_cluster.entry(doc.cluster.clone()).or_default();
        for (p, s) in doc.sentences.iter().enumerate() {
            id += 1;
            c.sentences.push(Sentence {
                id,
                document: d as i64,
                position: p as u32,
                text: s.clone(),
            });
        }
    }
    Ok(by_cluster.into_values().collect())
}

fn write_sentences(clusters: &[Cluster], path: &std::path::Path) -> anyhow::Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    for (c, cluster) in clusters.iter().enumerate() {
        for s in &cluster.sentences {
            let row = serde_json::json!({"cluster": c, "document": s.document, "position": s.position, "text": s.text});
            writeln!(f, "{row}")?;
        }
    }
    Ok(())
}

/// Best of `reps` runs: (seconds, pairs examined, candidates).
fn time(method: &Method, clusters: &[Cluster], reps: usize) -> (f64, u64, usize) {
    let mut best = (f64::INFINITY, 0, 0);
    for _ in 0..reps {
        let progress = Progress::default();
        let started = Instant::now();
        let found = method
            .mine(clusters, None, &progress)
            .expect("not cancelled");
        let took = started.elapsed().as_secs_f64();
        if took < best.0 {
            best = (took, progress.get().0, found.len());
        }
    }
    best
}

fn report(corpus: &str, name: &str, (seconds, pairs, found): (f64, u64, usize)) {
    println!(
        "  {corpus:<28} {name:<4} {pairs:>12} pairs examined  {seconds:>8.3} s  {:>14.0} pairs/s  {found:>7} candidates",
        pairs as f64 / seconds
    );
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(wikiref_path), Some(out)) = (args.get(1), args.get(2)) else {
        anyhow::bail!("usage: bench-mining WIKIREF220.jsonl OUT_DIR");
    };
    let out = std::path::Path::new(out);
    std::fs::create_dir_all(out)?;
    let wiki = wikiref(wikiref_path)?;
    let synth = synthetic();
    write_sentences(&wiki, &out.join("wikiref_sentences.jsonl"))?;
    write_sentences(&synth, &out.join("synthetic_sentences.jsonl"))?;
    let count = |c: &[Cluster]| c.iter().map(|c| c.sentences.len()).sum::<usize>();
    println!(
        "paracrowd (Rust), {} threads; WikiRef220: {} clusters, {} sentences; synthetic: 3 clusters x 10,000 sentences",
        threads(),
        wiki.len(),
        count(&wiki)
    );
    let l12 = Method::L12(L12Params::default());
    let f2 = Method::F2(F2Params::default());
    report("WikiRef220", "L12", time(&l12, &wiki, 3));
    report("WikiRef220", "F2", time(&f2, &wiki, 3));
    report("synthetic 3 x 10,000", "L12", time(&l12, &synth, 1));
    Ok(())
}
