//! The paper's models in the model cache: the layout `paracrowd models install paper` writes and
//! its `manifest.json` (source revisions, the SHA-256 of every file, the int8 copy's check).
//!
//! ```text
//! ~/.cache/paracrowd/models/paper/
//!   manifest.json
//!   nli-roberta-large/        model.onnx, tokenizer.json, config.json   (fp32)
//!   bleurt-base-128/          model.onnx, tokenizer.json, config.json   (fp32)
//!   nli-roberta-large-int8/   the same, the graph dynamically quantised to int8
//!   bleurt-base-128-int8/
//! ```
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use crate::ml::model::sha256_file;

pub const MANIFEST: &str = "manifest.json";
pub const NLI_DIR: &str = "nli-roberta-large";
pub const BLEURT_DIR: &str = "bleurt-base-128";
pub const INT8_SUFFIX: &str = "-int8";
/// The manifest format this build reads and writes.
pub const FORMAT: u32 = 1;

/// The full models or their int8 copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    Fp32,
    Int8,
}

impl Variant {
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Fp32 => "fp32",
            Variant::Int8 => "int8",
        }
    }

    /// The MI judge's and BLEURT's directories under the paper root.
    pub fn dirs(self, root: &Path) -> (PathBuf, PathBuf) {
        let suffix = if self == Variant::Int8 {
            INT8_SUFFIX
        } else {
            ""
        };
        (
            root.join(format!("{NLI_DIR}{suffix}")),
            root.join(format!("{BLEURT_DIR}{suffix}")),
        )
    }
}

/// Where one of the two models came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceModel {
    /// `nli` or `bleurt`.
    pub role: String,
    /// A Hugging Face hub repository (`ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli`),
    /// or `local:DIR` for a model directory on disk (the tests).
    pub repo: String,
    /// The hub commit the files came from (or the SHA-256 of a local directory's weights).
    pub revision: String,
    /// Bytes downloaded for it (0 when it came from disk or the download cache).
    pub download_bytes: u64,
}

/// A file of the installation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub bytes: u64,
    pub sha256: String,
}

/// How the int8 copy compared with the full models on the built-in pairs, and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Int8Check {
    pub pairs: usize,
    /// Share of pairs where the int8 copy's MI decision equals the full models'.
    pub mi_agreement: f64,
    /// Largest |BLEURT int8 - BLEURT fp32| (the mean of both directions, as paid).
    pub max_bleurt_difference: f64,
    /// Largest difference of any MI probability.
    pub max_mi_probability_difference: f64,
    /// Share of pairs where "paid or not" agrees.
    pub paid_agreement: f64,
    pub usable: bool,
    /// The rule `usable` follows, in words.
    pub rule: String,
}

/// The export's own check: the ONNX graphs run in Rust against PyTorch on the built-in pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportCheck {
    pub pairs: usize,
    pub max_nli_logit_difference: f64,
    pub max_bleurt_difference: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub created_at: String,
    pub sources: Vec<SourceModel>,
    pub download_bytes: u64,
    pub download_seconds: f64,
    pub export_seconds: f64,
    /// Versions of the tools that exported the models (torch, transformers, onnxruntime, ...).
    pub tools: BTreeMap<String, String>,
    pub export_check: ExportCheck,
    pub int8_check: Int8Check,
    /// Every file under the root but the manifest, by relative path.
    pub files: BTreeMap<String, FileEntry>,
}

/// `x` to 6 significant digits. serde_json reads a float back to within one unit in the last
/// place, not always exactly (17-digit values such as 1.8477439880371096e-6 came back as
/// ...094e-6), so the manifest keeps its measurements short: read back, it equals what was
/// written, and it is easier to read.
pub fn measure(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.5e}").parse().unwrap_or(x)
}

impl Manifest {
    /// The same manifest with every measurement (times, differences, shares) to 6 significant
    /// digits ([`measure`]).
    pub fn with_measures_rounded(mut self) -> Self {
        for x in [
            &mut self.download_seconds,
            &mut self.export_seconds,
            &mut self.export_check.max_nli_logit_difference,
            &mut self.export_check.max_bleurt_difference,
            &mut self.int8_check.mi_agreement,
            &mut self.int8_check.max_bleurt_difference,
            &mut self.int8_check.max_mi_probability_difference,
            &mut self.int8_check.paid_agreement,
        ] {
            *x = measure(*x);
        }
        self
    }

    /// Reads `root/manifest.json`; `Ok(None)` when there is none (nothing installed).
    pub fn read(root: &Path) -> anyhow::Result<Option<Self>> {
        let path = root.join(MANIFEST);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        let m: Manifest = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not a paracrowd model manifest; run `paracrowd models install paper` again",
                path.display()
            )
        })?;
        if m.format != FORMAT {
            bail!(
                "{} has format {}, this build reads {FORMAT}; run `paracrowd models install paper` again",
                path.display(),
                m.format
            );
        }
        Ok(Some(m))
    }

    /// Checks that the variant's files are all there with their recorded sizes, and that the
    /// small ones (tokenizer, config) have their recorded SHA-256. The graphs' hashes are
    /// compared after loading ([`Manifest::check_graph`]), which reads them anyway.
    pub fn check_files(&self, root: &Path, variant: Variant) -> anyhow::Result<()> {
        let (nli, bleurt) = variant.dirs(root);
        for dir in [nli, bleurt] {
            let name = dir.file_name().unwrap_or_default().to_string_lossy();
            let listed: Vec<(&String, &FileEntry)> = self
                .files
                .iter()
                .filter(|(p, _)| p.starts_with(&format!("{name}/")))
                .collect();
            if listed.is_empty() {
                bail!(
                    "{} lists no files for {}; run `paracrowd models install paper` again",
                    root.join(MANIFEST).display(),
                    dir.display()
                );
            }
            for (rel, entry) in listed {
                let path = root.join(rel);
                let meta = std::fs::metadata(&path).map_err(|_| {
                    anyhow::anyhow!(
                        "{} is missing; run `paracrowd models install paper` again",
                        path.display()
                    )
                })?;
                if meta.len() != entry.bytes {
                    bail!(
                        "{} has {} bytes, the manifest says {}: the file is damaged; run `paracrowd models install paper` again",
                        path.display(),
                        meta.len(),
                        entry.bytes
                    );
                }
                if !rel.ends_with(".onnx") && sha256_file(&path)? != entry.sha256 {
                    bail!(
                        "{} does not have the SHA-256 the manifest records: the file is damaged; run `paracrowd models install paper` again",
                        path.display()
                    );
                }
            }
        }
        Ok(())
    }

    /// Compares a loaded graph's SHA-256 with the manifest's.
    pub fn check_graph(&self, root: &Path, dir: &Path, sha256: &str) -> anyhow::Result<()> {
        let rel = format!(
            "{}/model.onnx",
            dir.file_name().unwrap_or_default().to_string_lossy()
        );
        match self.files.get(&rel) {
            Some(e) if e.sha256 == sha256 => Ok(()),
            Some(_) => bail!(
                "{} does not have the SHA-256 the manifest records: the file is damaged; run `paracrowd models install paper` again",
                root.join(rel).display()
            ),
            None => bail!(
                "{} does not list {rel}; run `paracrowd models install paper` again",
                root.join(MANIFEST).display()
            ),
        }
    }

    /// Lists every file under `root` (but the manifest) with its size and SHA-256.
    pub fn hash_files(root: &Path) -> anyhow::Result<BTreeMap<String, FileEntry>> {
        let mut files = BTreeMap::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in
                std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?
            {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let rel = path
                    .strip_prefix(root)
                    .expect("BUG: a file under root")
                    .to_string_lossy()
                    .into_owned();
                if rel == MANIFEST {
                    continue;
                }
                files.insert(
                    rel,
                    FileEntry {
                        bytes: std::fs::metadata(&path)?.len(),
                        sha256: sha256_file(&path)?,
                    },
                );
            }
        }
        Ok(files)
    }

    /// The words for a scorer built from this installation.
    pub fn description(&self, variant: Variant) -> String {
        match variant {
            Variant::Fp32 => {
                "the APT paper's models (RoBERTa-large NLI and BLEURT-base-128)".to_owned()
            }
            Variant::Int8 => format!(
                "int8 copy of the paper's models (same MI decision as the full models on {:.0}% of {} check pairs, BLEURT within {:.3})",
                self.int8_check.mi_agreement * 100.0,
                self.int8_check.pairs,
                self.int8_check.max_bleurt_difference
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::measure;

    #[test]
    fn measurements_read_back_exactly_and_keep_six_digits() {
        // The value that came back one unit off before the manifest rounded its measurements.
        let mut values = vec![
            1.8477439880371096e-6,
            10.753931999206545,
            0.0698472261428833,
        ];
        // And a spread of magnitudes from 1e-9 to 1e4.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for i in 0..5_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            values.push(unit * 10f64.powi(i % 14 - 9));
        }
        for x in values {
            let m = measure(x);
            let back: f64 = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
            assert_eq!(back.to_bits(), m.to_bits(), "{x} -> {m} -> {back}");
            assert!((m - x).abs() <= 5e-6 * x.abs(), "{x} -> {m}");
        }
        assert_eq!(measure(0.0), 0.0);
        assert_eq!(measure(1.0), 1.0);
    }
}
