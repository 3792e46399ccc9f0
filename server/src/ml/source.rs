//! Where the Check's models come from. One resolver, in this order:
//!
//! 1. Explicit paths (`PARACROWD_MI_MODEL` and `PARACROWD_BLEURT_MODEL`): used as given; if they
//!    do not load, start-up stops (the operator asked for exactly those).
//! 2. The paper's models in the model cache (`paracrowd models install paper`): the int8 copy on
//!    the CPU when its check found it usable, else the full models.
//! 3. The development stand-ins, only when `PARACROWD_MODELS_DIR` names their folder (the
//!    scripts set it when `../shared/models` is beside a development checkout; the binary
//!    itself never looks outside the repository and the model cache).
//! 4. The lite scorer, always available: the registry's sentence embedding model and the heads
//!    committed in the repository.
//!
//! A source that is not there is skipped with the reason; one that is there but does not load
//! (a missing file, a damaged graph, a tokenizer of another model, heads of another embedding
//! size) is skipped with a one-line message naming the path and what to do, and the next one is
//! tried. `PARACROWD_MODELS` narrows the choice: `lite`, `paper` or `standin` use only that
//! source and stop if it does not load; `auto` (the default) walks the order above.
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use app::ml::ScorerKind;

use super::config::{MlConfig, Provider};
use super::lite::{HeadsSource, LiteScorer};
use super::model::PairModel;
use super::paper::{Manifest, Variant};
use super::scorer::Scorer;

/// The stand-ins' directory names under the stand-in folder.
pub const STANDIN_MI: &str = "mi-standin-minilm-apt";
pub const STANDIN_BLEURT: &str = "bleurt-standin-minilm-apt";

/// Which sources the resolver may use (`PARACROWD_MODELS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preference {
    /// Walk the whole order.
    Auto,
    /// Only the lite scorer.
    Lite,
    /// Only the paper's models (installed in the cache).
    Paper,
    /// Only the development stand-ins.
    StandIn,
}

impl Preference {
    pub fn parse(s: &str) -> anyhow::Result<Self> {
        Ok(match s {
            "auto" => Self::Auto,
            "lite" => Self::Lite,
            "paper" => Self::Paper,
            "standin" | "stand-in" | "standins" => Self::StandIn,
            other => bail!("PARACROWD_MODELS must be auto, paper, standin or lite, not {other:?}"),
        })
    }
}

/// Where each source would be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSources {
    /// `PARACROWD_MI_MODEL` and `PARACROWD_BLEURT_MODEL` (both or neither).
    pub explicit: Option<(PathBuf, PathBuf)>,
    pub preference: Preference,
    /// The paper's models: `$PARACROWD_CACHE/models/paper` (`~/.cache/paracrowd/models/paper`).
    pub paper_root: PathBuf,
    /// `PARACROWD_PAPER_VARIANT`: force `int8` or `fp32` (default: int8 on the CPU when usable).
    pub paper_variant: Option<Variant>,
    /// The development stand-ins' folder: `PARACROWD_MODELS_DIR`, else none.
    pub standin_dir: Option<PathBuf>,
    /// The lite scorer's embedding model: `PARACROWD_EMBEDDING_MODEL`, else
    /// `$PARACROWD_CACHE/all-minilm-l6-v2`.
    pub embedding_dir: PathBuf,
    /// `PARACROWD_LITE_HEADS`: a heads file instead of the built-in heads.
    pub lite_heads: HeadsSource,
}

impl ModelSources {
    /// Exactly these two model directories (tests, tools).
    pub fn explicit(mi: impl Into<PathBuf>, bleurt: impl Into<PathBuf>) -> Self {
        let mut s = Self::defaults(&cache_dir());
        s.explicit = Some((mi.into(), bleurt.into()));
        s
    }

    /// Everywhere as by default under `cache`, nothing explicit.
    pub fn defaults(cache: &Path) -> Self {
        Self {
            explicit: None,
            preference: Preference::Auto,
            paper_root: cache.join("models/paper"),
            paper_variant: None,
            standin_dir: None,
            embedding_dir: cache.join("all-minilm-l6-v2"),
            lite_heads: HeadsSource::BuiltIn,
        }
    }
}

/// `PARACROWD_CACHE`, else `~/.cache/paracrowd`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("PARACROWD_CACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/paracrowd")))
        .unwrap_or_else(|| PathBuf::from(".cache/paracrowd"))
}

/// What the resolver chose and what it passed over, for the start-up log and `models status`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// E.g. "the lite scorer (built-in heads, embedding model ~/.cache/...)".
    pub chosen: String,
    /// Each source passed over, with why.
    pub skipped: Vec<String>,
}

impl Resolution {
    /// The lines logged at start-up.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![format!("scoring with {}", self.chosen)];
        lines.extend(self.skipped.iter().map(|s| format!("  skipped: {s}")));
        lines
    }
}

/// One source the resolver may try.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Candidate {
    Explicit {
        mi: PathBuf,
        bleurt: PathBuf,
    },
    Paper {
        root: PathBuf,
        variant: Variant,
    },
    StandIns {
        dir: PathBuf,
    },
    Lite {
        embedding: PathBuf,
        heads: HeadsSource,
    },
}

impl Candidate {
    fn label(&self) -> String {
        match self {
            Self::Explicit { mi, bleurt } => format!(
                "the models named by PARACROWD_MI_MODEL ({}) and PARACROWD_BLEURT_MODEL ({})",
                mi.display(),
                bleurt.display()
            ),
            Self::Paper { root, variant } => format!(
                "the paper's models, {} ({})",
                variant.as_str(),
                root.display()
            ),
            Self::StandIns { dir } => format!("the development stand-ins ({})", dir.display()),
            Self::Lite { embedding, heads } => format!(
                "the lite scorer ({}, embedding model {})",
                match heads {
                    HeadsSource::BuiltIn => "built-in heads".to_owned(),
                    HeadsSource::File(p) => format!("heads {}", p.display()),
                },
                embedding.display()
            ),
        }
    }

    fn load(&self, config: &MlConfig) -> anyhow::Result<Scorer> {
        match self {
            Self::Explicit { mi, bleurt } => {
                let (kind, description) = describe_explicit(mi, bleurt);
                load_pair(config, mi, bleurt, kind, description, None)
            }
            Self::Paper { root, variant } => {
                let manifest = Manifest::read(root)?.with_context(|| {
                    format!(
                        "no {} in {}",
                        super::paper::manifest::MANIFEST,
                        root.display()
                    )
                })?;
                manifest.check_files(root, *variant)?;
                let (mi, bleurt) = variant.dirs(root);
                let kind = match variant {
                    Variant::Fp32 => ScorerKind::Paper,
                    Variant::Int8 => ScorerKind::PaperInt8,
                };
                load_pair(
                    config,
                    &mi,
                    &bleurt,
                    kind,
                    manifest.description(*variant),
                    Some((&manifest, root)),
                )
            }
            Self::StandIns { dir } => load_pair(
                config,
                &dir.join(STANDIN_MI),
                &dir.join(STANDIN_BLEURT),
                ScorerKind::StandIn,
                STANDIN_DESCRIPTION.to_owned(),
                None,
            ),
            Self::Lite { embedding, heads } => {
                LiteScorer::load(embedding, heads, config).map(Scorer::from_lite)
            }
        }
    }
}

const STANDIN_DESCRIPTION: &str = "development stand-ins (MiniLM cross-encoders distilled from the paper's labels; for development and demos, not for paying workers)";

fn load_pair(
    config: &MlConfig,
    mi: &Path,
    bleurt: &Path,
    kind: ScorerKind,
    description: String,
    manifest: Option<(&Manifest, &Path)>,
) -> anyhow::Result<Scorer> {
    let mi_model =
        PairModel::load(mi, config).with_context(|| format!("MI model {}", mi.display()))?;
    let bleurt_model = PairModel::load(bleurt, config)
        .with_context(|| format!("BLEURT model {}", bleurt.display()))?;
    if let Some((m, root)) = manifest {
        m.check_graph(root, mi, mi_model.sha256())?;
        m.check_graph(root, bleurt, bleurt_model.sha256())?;
    }
    Scorer::from_models(mi_model, bleurt_model, kind, description)
}

/// What explicitly named models are: the paper's (a directory of an installation with its
/// manifest), the stand-ins (their directory names), or the operator's own.
fn describe_explicit(mi: &Path, bleurt: &Path) -> (ScorerKind, String) {
    let name = |p: &Path| {
        p.canonicalize()
            .unwrap_or_else(|_| p.to_path_buf())
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let (mi_name, bleurt_name) = (name(mi), name(bleurt));
    let parent = mi.parent().unwrap_or(Path::new("."));
    if let Ok(Some(manifest)) = Manifest::read(parent) {
        for variant in [Variant::Fp32, Variant::Int8] {
            let (m, b) = variant.dirs(parent);
            if name(&m) == mi_name && name(&b) == bleurt_name && bleurt.parent() == Some(parent) {
                let kind = match variant {
                    Variant::Fp32 => ScorerKind::Paper,
                    Variant::Int8 => ScorerKind::PaperInt8,
                };
                return (kind, manifest.description(variant));
            }
        }
    }
    if mi_name == STANDIN_MI && bleurt_name == STANDIN_BLEURT {
        return (ScorerKind::StandIn, STANDIN_DESCRIPTION.to_owned());
    }
    (
        ScorerKind::Custom,
        format!("models named by the operator ({mi_name} and {bleurt_name})"),
    )
}

/// The paper's variants worth trying, best first, or why there are none.
fn paper_candidates(sources: &ModelSources, provider: Provider) -> Result<Vec<Candidate>, String> {
    let root = &sources.paper_root;
    let manifest = match Manifest::read(root) {
        Ok(Some(m)) => m,
        Ok(None) => {
            return Err(format!(
                "the paper's models are not installed in {} (`paracrowd models install paper` installs them where the Hugging Face hub is reachable)",
                root.display()
            ))
        }
        Err(e) => return Err(format!("{e:#}")),
    };
    let variants = match sources.paper_variant {
        Some(v) => vec![v],
        None if provider == Provider::Cpu && manifest.int8_check.usable => {
            vec![Variant::Int8, Variant::Fp32]
        }
        None => vec![Variant::Fp32],
    };
    Ok(variants
        .into_iter()
        .map(|variant| Candidate::Paper {
            root: root.clone(),
            variant,
        })
        .collect())
}

fn standin_candidate(sources: &ModelSources) -> Result<Candidate, String> {
    let Some(dir) = &sources.standin_dir else {
        return Err(
            "no development stand-ins (PARACROWD_MODELS_DIR is not set; they exist only beside a development checkout)"
                .into(),
        );
    };
    if !dir.join(STANDIN_MI).is_dir() && !dir.join(STANDIN_BLEURT).is_dir() {
        return Err(format!(
            "no development stand-ins in {} (they exist only beside a development checkout)",
            dir.display()
        ));
    }
    Ok(Candidate::StandIns { dir: dir.clone() })
}

fn lite_candidates(sources: &ModelSources) -> Vec<Candidate> {
    let lite = |heads: HeadsSource| Candidate::Lite {
        embedding: sources.embedding_dir.clone(),
        heads,
    };
    match &sources.lite_heads {
        HeadsSource::BuiltIn => vec![lite(HeadsSource::BuiltIn)],
        // Configured heads first; the built-in ones if those do not load.
        file => vec![lite(file.clone()), lite(HeadsSource::BuiltIn)],
    }
}

/// Loads the first source that works, in the order and under the rules of this module's
/// documentation.
pub fn resolve(config: &MlConfig) -> anyhow::Result<(Scorer, Resolution)> {
    let sources = &config.models;
    let mut resolution = Resolution::default();
    // (candidates, whether a failure stops start-up instead of falling through)
    let (candidates, strict): (Vec<Candidate>, bool) = if let Some((mi, bleurt)) = &sources.explicit
    {
        (
            vec![Candidate::Explicit {
                mi: mi.clone(),
                bleurt: bleurt.clone(),
            }],
            true,
        )
    } else {
        match sources.preference {
            Preference::Lite => (lite_candidates(sources), true),
            Preference::Paper => (
                paper_candidates(sources, config.provider).map_err(anyhow::Error::msg)?,
                true,
            ),
            Preference::StandIn => (
                vec![standin_candidate(sources).map_err(anyhow::Error::msg)?],
                true,
            ),
            Preference::Auto => {
                let mut all = Vec::new();
                match paper_candidates(sources, config.provider) {
                    Ok(c) => all.extend(c),
                    Err(why) => resolution.skipped.push(why),
                }
                match standin_candidate(sources) {
                    Ok(c) => all.push(c),
                    Err(why) => resolution.skipped.push(why),
                }
                all.extend(lite_candidates(sources));
                (all, false)
            }
        }
    };
    let mut last_error = None;
    for candidate in candidates {
        match candidate.load(config) {
            Ok(scorer) => {
                resolution.chosen =
                    format!("{}: {}", candidate.label(), scorer.versions().description);
                for line in resolution.lines() {
                    tracing::info!("{line}");
                }
                return Ok((scorer, resolution));
            }
            Err(e) if strict => {
                return Err(e.context(format!("cannot load {}", candidate.label())));
            }
            Err(e) => {
                let why = format!("{}: {}", candidate.label(), one_line(&e));
                tracing::warn!("model source skipped: {why}");
                resolution.skipped.push(why);
                last_error = Some(e);
            }
        }
    }
    let mut message = String::from("no scorer could be loaded:");
    for s in &resolution.skipped {
        message.push_str("\n  ");
        message.push_str(s);
    }
    message.push_str(
        "\nThe lite scorer needs ONNX Runtime and the all-MiniLM-L6-v2 embedding model: scripts/setup.sh installs both.",
    );
    Err(match last_error {
        Some(e) => e.context(message),
        None => anyhow::anyhow!(message),
    })
}

/// An error chain on one line: "what failed: because: because".
pub fn one_line(e: &anyhow::Error) -> String {
    format!("{e:#}").replace('\n', " ")
}
