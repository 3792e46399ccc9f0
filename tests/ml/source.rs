//! The model resolver: its order (explicit paths, the paper's models in the cache, the
//! development stand-ins, the lite scorer) and every kind of bad source, each skipped with a
//! one-line message naming the path while the next source scores. Real models through ort: the
//! "paper's models" and the "stand-ins" here are the tests' Check models (`support::pair_models`)
//! laid out as an installation with its manifest and as the stand-ins' folder (the resolver
//! trusts the layout and the manifest, not the weights).
use std::path::{Path, PathBuf};

use app::ml::ScorerKind;
use server::ml::config::MlConfig;
use server::ml::lite::HeadsSource;
use server::ml::paper::manifest::{ExportCheck, Int8Check, Manifest, FORMAT, MANIFEST};
use server::ml::paper::Variant;
use server::ml::source::{ModelSources, Preference, Resolution, STANDIN_BLEURT, STANDIN_MI};
use server::ml::Scorer;

use crate::lite::heads_for_dim;
use crate::support::{self, PairModels};

/// A temporary cache with the Check models linked in as the stand-ins and, optionally, as an
/// installation of the paper's models.
struct Place {
    dir: tempfile::TempDir,
    models: PairModels,
    embedding: PathBuf,
}

impl Place {
    fn new(what: &str) -> Option<Self> {
        let embedding = support::embedding_dir(what)?;
        let models = support::pair_models(what)?;
        let place = Self {
            dir: tempfile::tempdir().unwrap(),
            models,
            embedding,
        };
        link_dir(&place.models.mi, &place.standins().join(STANDIN_MI));
        link_dir(&place.models.bleurt, &place.standins().join(STANDIN_BLEURT));
        Some(place)
    }

    fn standins(&self) -> PathBuf {
        self.dir.path().join("standins")
    }

    fn paper(&self) -> PathBuf {
        self.dir.path().join("models/paper")
    }

    /// Lays the stand-in graphs out as an installation of the paper's models, with a manifest
    /// whose int8 check says `usable`.
    fn install_paper(&self, usable: bool) {
        for variant in [Variant::Fp32, Variant::Int8] {
            let (mi, bleurt) = variant.dirs(&self.paper());
            link_dir(&self.models.mi, &mi);
            link_dir(&self.models.bleurt, &bleurt);
        }
        self.write_manifest(usable);
    }

    fn write_manifest(&self, usable: bool) {
        let root = self.paper();
        let manifest = Manifest {
            format: FORMAT,
            created_at: "2026-11-23T00:00:00Z".into(),
            sources: Vec::new(),
            download_bytes: 0,
            download_seconds: 0.0,
            export_seconds: 0.0,
            tools: Default::default(),
            export_check: ExportCheck {
                pairs: 24,
                max_nli_logit_difference: 0.0,
                max_bleurt_difference: 0.0,
            },
            int8_check: Int8Check {
                pairs: 24,
                mi_agreement: if usable { 1.0 } else { 0.5 },
                max_bleurt_difference: 0.01,
                max_mi_probability_difference: 0.01,
                paid_agreement: 1.0,
                usable,
                rule: "test".into(),
            },
            files: Manifest::hash_files(&root).unwrap(),
        };
        std::fs::write(
            root.join(MANIFEST),
            serde_json::to_string(&manifest).unwrap(),
        )
        .unwrap();
    }

    fn sources(&self) -> ModelSources {
        let mut s = ModelSources::defaults(self.dir.path());
        s.standin_dir = Some(self.standins());
        s.embedding_dir = self.embedding.clone();
        s
    }

    fn resolve(&self, sources: ModelSources) -> anyhow::Result<(Scorer, Resolution)> {
        let mut cfg: MlConfig = support::ml_config();
        cfg.models = sources;
        Scorer::resolve(&cfg)
    }

    /// Resolves and returns the kind chosen and the skipped lines.
    fn choose(&self, sources: ModelSources) -> (ScorerKind, Vec<String>) {
        let (scorer, resolution) = self.resolve(sources).expect("some source loads");
        for line in &resolution.skipped {
            assert!(!line.contains('\n'), "one line per skipped source: {line}");
        }
        (scorer.versions().kind, resolution.skipped)
    }
}

/// A directory whose files are symbolic links to `src`'s (so a test can replace one file).
fn link_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap().flatten() {
        std::os::unix::fs::symlink(entry.path(), dst.join(entry.file_name())).unwrap();
    }
}

/// Replaces one linked file with `bytes`.
fn replace(file: &Path, bytes: &[u8]) {
    std::fs::remove_file(file).unwrap();
    std::fs::write(file, bytes).unwrap();
}

fn mentions(lines: &[String], needle: &str) -> bool {
    lines.iter().any(|l| l.contains(needle))
}

#[test]
fn auto_walks_paper_int8_then_fp32_then_standins_then_lite() {
    let Some(place) =
        Place::new("ml::source::auto_walks_paper_int8_then_fp32_then_standins_then_lite")
    else {
        return;
    };
    place.install_paper(true);
    let (kind, skipped) = place.choose(place.sources());
    assert_eq!(kind, ScorerKind::PaperInt8, "{skipped:?}");
    assert!(skipped.is_empty(), "{skipped:?}");

    // An int8 copy its check found wanting is not used; nor when fp32 is asked for.
    place.write_manifest(false);
    assert_eq!(place.choose(place.sources()).0, ScorerKind::Paper);
    place.write_manifest(true);
    let mut fp32 = place.sources();
    fp32.paper_variant = Some(Variant::Fp32);
    assert_eq!(place.choose(fp32).0, ScorerKind::Paper);

    // Without the paper's models: the stand-ins, saying why.
    std::fs::remove_dir_all(place.paper()).unwrap();
    let (kind, skipped) = place.choose(place.sources());
    assert_eq!(kind, ScorerKind::StandIn);
    assert!(
        mentions(&skipped, "not installed")
            && mentions(&skipped, &place.paper().display().to_string()),
        "{skipped:?}"
    );
    assert!(
        mentions(&skipped, "paracrowd models install paper"),
        "{skipped:?}"
    );

    // Without the stand-ins too (a user's clone): the lite scorer.
    std::fs::remove_dir_all(place.standins()).unwrap();
    let (kind, skipped) = place.choose(place.sources());
    assert_eq!(kind, ScorerKind::Lite);
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(
        mentions(&skipped, "no development stand-ins"),
        "{skipped:?}"
    );
}

#[test]
fn a_preference_uses_only_that_source() {
    let Some(place) = Place::new("ml::source::a_preference_uses_only_that_source") else {
        return;
    };
    place.install_paper(true);
    let mut lite = place.sources();
    lite.preference = Preference::Lite;
    assert_eq!(place.choose(lite).0, ScorerKind::Lite);
    let mut standin = place.sources();
    standin.preference = Preference::StandIn;
    assert_eq!(place.choose(standin).0, ScorerKind::StandIn);

    // Asked for and absent: start-up stops rather than score with something else.
    std::fs::remove_dir_all(place.paper()).unwrap();
    let mut paper = place.sources();
    paper.preference = Preference::Paper;
    let err = format!("{:#}", place.resolve(paper).err().expect("must stop"));
    assert!(err.contains("not installed"), "{err}");
}

#[test]
fn explicit_paths_are_used_as_given_and_stop_start_up_when_broken() {
    let Some(place) =
        Place::new("ml::source::explicit_paths_are_used_as_given_and_stop_start_up_when_broken")
    else {
        return;
    };
    place.install_paper(true);
    let explicit = |mi: PathBuf, bleurt: PathBuf| {
        let mut s = place.sources();
        s.explicit = Some((mi, bleurt));
        s
    };
    // The stand-ins and an installation of the paper's models are recognised as such.
    let s = explicit(
        place.standins().join(STANDIN_MI),
        place.standins().join(STANDIN_BLEURT),
    );
    assert_eq!(place.choose(s).0, ScorerKind::StandIn);
    let (mi, bleurt) = Variant::Fp32.dirs(&place.paper());
    assert_eq!(place.choose(explicit(mi, bleurt)).0, ScorerKind::Paper);

    // Named but missing: no falling back to another source.
    let missing = place.dir.path().join("no-such-model");
    let err = format!(
        "{:#}",
        place
            .resolve(explicit(place.standins().join(STANDIN_MI), missing.clone()))
            .err()
            .expect("must stop")
    );
    assert!(err.contains(&missing.display().to_string()), "{err}");
    assert!(err.contains("PARACROWD_MI_MODEL"), "{err}");
}

#[test]
fn a_damaged_installation_of_the_papers_models_falls_back_naming_the_file() {
    let Some(place) = Place::new(
        "ml::source::a_damaged_installation_of_the_papers_models_falls_back_naming_the_file",
    ) else {
        return;
    };
    place.install_paper(true);
    // The int8 copy lost a file: the full models score.
    let (int8_mi, _) = Variant::Int8.dirs(&place.paper());
    let lost = int8_mi.join("tokenizer.json");
    std::fs::remove_file(&lost).unwrap();
    let (kind, skipped) = place.choose(place.sources());
    assert_eq!(kind, ScorerKind::Paper, "{skipped:?}");
    assert!(
        mentions(&skipped, &format!("{} is missing", lost.display())),
        "{skipped:?}"
    );
    assert!(
        mentions(&skipped, "run `paracrowd models install paper` again"),
        "{skipped:?}"
    );

    // The full models' graph changed after the install (size as recorded, bytes not): the
    // graph does not load, the stand-ins score.
    let (fp32_mi, _) = Variant::Fp32.dirs(&place.paper());
    let graph = fp32_mi.join("model.onnx");
    let size = std::fs::metadata(&graph).unwrap().len() as usize;
    replace(&graph, &vec![7u8; size]);
    let (kind, skipped) = place.choose(place.sources());
    assert_eq!(kind, ScorerKind::StandIn, "{skipped:?}");
    assert!(
        mentions(&skipped, &graph.display().to_string()),
        "{skipped:?}"
    );
}

#[test]
fn damaged_standins_fall_back_to_the_lite_scorer_naming_the_path() {
    let Some(place) =
        Place::new("ml::source::damaged_standins_fall_back_to_the_lite_scorer_naming_the_path")
    else {
        return;
    };
    let mi = place.standins().join(STANDIN_MI);
    let check = |what: &str, needle: &str| {
        let (kind, skipped) = place.choose(place.sources());
        assert_eq!(kind, ScorerKind::Lite, "{what}: {skipped:?}");
        assert!(
            mentions(&skipped, needle),
            "{what}: {needle:?} in {skipped:?}"
        );
    };

    // A corrupt graph.
    let graph = mi.join("model.onnx");
    replace(&graph, b"this is not an ONNX file");
    check("corrupt graph", &graph.display().to_string());
    std::fs::remove_file(&graph).unwrap();
    std::os::unix::fs::symlink(place.models.mi.join("model.onnx"), &graph).unwrap();

    // A tokenizer of another model: RoBERTa's byte-level BPE for the stand-ins' BERT graph, or
    // BERT's WordPiece (the tiny BLEURT's) for the tiny RoBERTa judge.
    let tokenizer = mi.join("tokenizer.json");
    let foreign = if place.models.standins {
        place
            .models
            .mi
            .parent()
            .unwrap()
            .join("fixtures/roberta-bpe-random-tiny/tokenizer.json")
    } else {
        place.models.bleurt.join("tokenizer.json")
    };
    replace(&tokenizer, &std::fs::read(foreign).unwrap());
    check("foreign tokenizer", "does not match the model");
    check("foreign tokenizer", &tokenizer.display().to_string());
    std::fs::remove_file(&tokenizer).unwrap();
    std::os::unix::fs::symlink(place.models.mi.join("tokenizer.json"), &tokenizer).unwrap();

    // A missing config.json.
    let config = mi.join("config.json");
    std::fs::remove_file(&config).unwrap();
    check("missing config", &config.display().to_string());
}

#[test]
fn heads_for_another_embedding_size_fall_back_to_the_built_in_heads() {
    let Some(place) =
        Place::new("ml::source::heads_for_another_embedding_size_fall_back_to_the_built_in_heads")
    else {
        return;
    };
    std::fs::remove_dir_all(place.standins()).unwrap();
    let heads = place.dir.path().join("heads-768.json");
    std::fs::write(&heads, heads_for_dim(768)).unwrap();
    let mut s = place.sources();
    s.lite_heads = HeadsSource::File(heads.clone());
    let (scorer, resolution) = place.resolve(s).unwrap();
    assert_eq!(scorer.versions().kind, ScorerKind::Lite);
    assert!(
        resolution.chosen.contains("built-in heads"),
        "{}",
        resolution.chosen
    );
    assert!(
        mentions(&resolution.skipped, &heads.display().to_string()),
        "{:?}",
        resolution.skipped
    );
}

#[test]
fn with_no_source_at_all_start_up_says_what_to_install() {
    let Some(place) = Place::new("ml::source::with_no_source_at_all_start_up_says_what_to_install")
    else {
        return;
    };
    std::fs::remove_dir_all(place.standins()).unwrap();
    let mut s = place.sources();
    s.embedding_dir = place.dir.path().join("no-embedding-model");
    let err = format!("{:#}", place.resolve(s).err().expect("nothing can score"));
    assert!(err.contains("no scorer could be loaded"), "{err}");
    assert!(err.contains("no-embedding-model"), "{err}");
    assert!(err.contains("scripts/setup.sh"), "{err}");
}
