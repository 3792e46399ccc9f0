//! Writes the lite scorer's pair features for the APT paper's scored pairs, computed by the very
//! code the server scores with, for `scripts/models/train_lite_heads.py` to train the heads on.
//! A development tool (it reads `../shared/data/apt`), not part of the product.
//!
//! Usage: lite-features EMBEDDING_DIR AP_H_TRAIN_TSV AP_T5_TSV OUT_PREFIX [T5_ROWS]
//! Writes OUT_PREFIX.meta.tsv (set, sentence, candidate, bleurt, mi, dollar; one row per pair),
//! OUT_PREFIX.f64 (the features, row-major little-endian f64) and OUT_PREFIX.names.
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use server::ml::embedder::SentenceModel;
use server::ml::lite::features::{feature_names, pair_features};
use server::ml::MlConfig;

struct Row {
    set: &'static str,
    sentence: String,
    candidate: String,
    bleurt: String,
    mi: String,
    dollar: String,
}

/// Tab-separated, quoting off (as the files are written); `columns` picks sentence, candidate,
/// BLEURT, MI and dollar (None: no such column).
fn read(path: &str, set: &'static str, columns: [Option<usize>; 5]) -> anyhow::Result<Vec<Row>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let get = |c: Option<usize>| c.and_then(|c| f.get(c)).unwrap_or(&"").to_string();
        if f.len() < 4 {
            bail!("{path}: line {} has {} columns", i + 1, f.len());
        }
        rows.push(Row {
            set,
            sentence: get(columns[0]),
            candidate: get(columns[1]),
            bleurt: get(columns[2]),
            mi: get(columns[3]),
            dollar: get(columns[4]),
        });
    }
    Ok(rows)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [embedding, ap_h, ap_t5, out, rest @ ..] = args.as_slice() else {
        bail!("usage: lite-features EMBEDDING_DIR AP_H_TRAIN_TSV AP_T5_TSV OUT_PREFIX [T5_ROWS]");
    };
    // AP_H: dataset index sentence candidate BLEURT MI dollar; AP_T5: origin source paraphrase bleurt mi.
    let mut rows = read(ap_h, "ap_h", [Some(2), Some(3), Some(4), Some(5), Some(6)])?;
    let mut t5 = read(ap_t5, "ap_t5", [Some(1), Some(2), Some(3), Some(4), None])?;
    if let Some(n) = rest.first() {
        let n: usize = n.parse().context("T5_ROWS must be a number")?;
        t5.shuffle(&mut rand::rngs::StdRng::seed_from_u64(7));
        t5.truncate(n);
    }
    rows.extend(t5);

    let mut config = MlConfig::from_env()?;
    config.intra_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut model = SentenceModel::load(&PathBuf::from(embedding), &config)?;
    let mut cache: HashMap<String, Vec<f32>> = HashMap::new();
    let started = Instant::now();
    let out_f = std::fs::File::create(format!("{out}.f64"))?;
    let mut features_out = BufWriter::new(out_f);
    let mut meta = BufWriter::new(std::fs::File::create(format!("{out}.meta.tsv"))?);
    writeln!(meta, "set\tsentence\tcandidate\tbleurt\tmi\tdollar")?;
    let mut dim = 0;
    for (i, row) in rows.iter().enumerate() {
        for text in [&row.sentence, &row.candidate] {
            if !cache.contains_key(text) {
                // Alone, as the lite scorer embeds (the graph is int8 with dynamic quantisation).
                let e = model.embed(std::slice::from_ref(text))?.remove(0);
                cache.insert(text.clone(), e);
            }
        }
        let (u, v) = (&cache[&row.sentence], &cache[&row.candidate]);
        dim = u.len();
        for x in pair_features(&row.sentence, &row.candidate, u, v) {
            features_out.write_all(&x.to_le_bytes())?;
        }
        writeln!(
            meta,
            "{}\t{}\t{}\t{}\t{}\t{}",
            row.set, row.sentence, row.candidate, row.bleurt, row.mi, row.dollar
        )?;
        if i % 5000 == 0 {
            eprintln!(
                "{i} / {} pairs, {} texts embedded, {:.0} s",
                rows.len(),
                cache.len(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    features_out.flush()?;
    meta.flush()?;
    std::fs::write(format!("{out}.names"), feature_names(dim).join("\n") + "\n")?;
    eprintln!(
        "wrote {} pairs x {} features ({} texts embedded) in {:.0} s",
        rows.len(),
        feature_names(dim).len(),
        cache.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
