//! `paracrowd models install paper`: downloads the APT paper's models from the Hugging Face hub,
//! exports them to ONNX with a Python environment made from PyPI, checks the export in Rust
//! against PyTorch, writes and checks an int8 copy, and records it all in a manifest.
//!
//! Nothing is written to the model cache until everything has worked: the export goes to a
//! temporary folder beside it, which is renamed into place at the end (a dropped connection, a
//! killed process or a full disk leave the cache as it was). Two installs at once wait for each
//! other (a lock file).
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use app::domain::reward::{reward_cents, DEFAULT_BLEURT_THRESHOLD};
use serde::Deserialize;

use super::manifest::{ExportCheck, Int8Check, Manifest, SourceModel, Variant, FORMAT, MANIFEST};
use crate::ml::config::MlConfig;
use crate::ml::model::PairModel;
use crate::ml::scorer::Scorer;

/// The paper's MI judge (Nighojkar & Licato 2021, §3.1) and BLEURT-base-128 (its PyTorch port).
pub const PAPER_NLI: &str = "ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli";
pub const PAPER_BLEURT: &str = "Elron/bleurt-base-128";

const EXPORT_SCRIPT: &str = include_str!("export_paper.py");
pub const REQUIREMENTS: &str = include_str!("requirements-export.txt");

/// The exported graphs must reproduce PyTorch this closely (logits and BLEURT).
pub const EXPORT_TOLERANCE: f64 = 1e-4;
/// The int8 copy is used on the CPU only when it decides MI as the full models do on at least
/// this share of the check pairs ...
pub const INT8_MIN_MI_AGREEMENT: f64 = 0.95;
/// ... and its BLEURT is never further than this from the full model's.
pub const INT8_MAX_BLEURT_DIFFERENCE: f64 = 0.05;

/// Roughly what the paper's models take on disk while installing: the download (1.9 GB), the
/// fp32 graphs (1.9 GB) and the int8 copies (0.5 GB), with room to spare.
const PAPER_BYTES_NEEDED: u64 = 5_000_000_000;
/// The Python environment (torch with its CUDA libraries).
const PYTHON_ENV_BYTES: u64 = 6_000_000_000;

/// Sentence pairs every install checks its export and its int8 copy on: paraphrases, near
/// paraphrases, and pairs that are not, written for this purpose.
pub const CHECK_PAIRS: [(&str, &str); 24] = [
    (
        "A man is playing a guitar on the stage.",
        "On the stage, a man plays the guitar.",
    ),
    (
        "The committee approved the budget on Tuesday.",
        "On Tuesday the budget was approved by the committee.",
    ),
    (
        "Two years later, the insurance coverage would begin.",
        "The insurance will start in two years.",
    ),
    (
        "The company's shares fell 5 percent after the report.",
        "After the report, the company's stock dropped 5%.",
    ),
    (
        "She has lived in Paris since 2010.",
        "She moved to Paris in 2010 and still lives there.",
    ),
    (
        "The weather is lovely today.",
        "It is raining heavily today.",
    ),
    ("The cat sat on the mat.", "The dog sat on the mat."),
    ("He did not attend the meeting.", "He attended the meeting."),
    (
        "The museum opens at nine every morning.",
        "Every morning the museum's doors open at 9.",
    ),
    (
        "Researchers found no link between the drug and the symptoms.",
        "The study showed the drug caused the symptoms.",
    ),
    (
        "The train was delayed by heavy snow.",
        "Heavy snow held up the train.",
    ),
    (
        "Most students passed the exam.",
        "All students passed the exam.",
    ),
    (
        "The bridge was closed for repairs last week.",
        "Last week the bridge shut so it could be repaired.",
    ),
    (
        "Sales rose sharply in the third quarter.",
        "In the third quarter, sales increased a lot.",
    ),
    (
        "The river flooded the village.",
        "The village was flooded by the river.",
    ),
    ("I will call you tomorrow.", "You will call me tomorrow."),
    (
        "The government plans to raise taxes next year.",
        "Next year taxes are expected to go up under a government plan.",
    ),
    (
        "A woman is slicing an onion.",
        "A woman is cutting up an onion.",
    ),
    (
        "The team won the championship for the third time.",
        "For the third time, the team took the title.",
    ),
    (
        "The painting was sold for two million dollars.",
        "Someone bought the painting for $2 million.",
    ),
    ("Nobody answered the phone.", "Someone picked up the phone."),
    (
        "The flight to Tokyo was cancelled.",
        "The flight to Tokyo left on time.",
    ),
    (
        "Prices have doubled since last year.",
        "Prices are twice what they were a year ago.",
    ),
    (
        "The children are playing in the garden.",
        "Kids play outside in the garden.",
    ),
];

/// What to install and where.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    /// The MI judge: a hub repository, or a local model directory (the tests).
    pub nli: String,
    /// BLEURT: a hub repository, or a local model directory.
    pub bleurt: String,
    /// The model cache; the models go to `cache/models/paper`.
    pub cache: PathBuf,
    /// The Python environment with the export tools (made there when missing).
    pub python_env: PathBuf,
    /// The Python that makes that environment (`python3`).
    pub base_python: PathBuf,
    /// How long the hub may take to answer one request.
    pub hub_timeout: Duration,
    /// Another hub (a mirror, or the tests' silent one): `HF_ENDPOINT` for the export.
    pub hub_endpoint: Option<String>,
    /// Install again over an existing installation.
    pub force: bool,
    /// Loads the models for the Rust checks (ONNX Runtime, threads).
    pub ml: MlConfig,
}

impl InstallOptions {
    /// The paper's models, into the default cache, with the default environment.
    pub fn paper(ml: MlConfig) -> Self {
        let cache = crate::ml::source::cache_dir();
        Self {
            nli: PAPER_NLI.into(),
            bleurt: PAPER_BLEURT.into(),
            python_env: std::env::var_os("PARACROWD_EXPORT_ENV")
                .map(PathBuf::from)
                .unwrap_or_else(|| cache.join("py-export")),
            cache,
            base_python: std::env::var_os("PARACROWD_PYTHON")
                .map(PathBuf::from)
                .unwrap_or_else(|| "python3".into()),
            hub_timeout: Duration::from_secs(20),
            hub_endpoint: std::env::var("HF_ENDPOINT").ok().filter(|v| !v.is_empty()),
            force: false,
            ml,
        }
    }

    pub fn root(&self) -> PathBuf {
        self.cache.join("models/paper")
    }
}

/// What the export script reports.
#[derive(Debug, Deserialize)]
struct ExportReport {
    sources: Vec<SourceModel>,
    download_bytes: u64,
    download_seconds: f64,
    export_seconds: f64,
    tools: std::collections::BTreeMap<String, String>,
    torch_reference: TorchReference,
}

#[derive(Debug, Deserialize)]
struct TorchReference {
    nli: Vec<Vec<f64>>,
    bleurt: Vec<f64>,
}

/// Installs (or, with `force`, reinstalls) the paper's models; `say` gets one line at a time
/// for the user. Returns the manifest written.
pub fn install(options: &InstallOptions, say: &mut dyn FnMut(&str)) -> anyhow::Result<Manifest> {
    let root = options.root();
    let parent = root
        .parent()
        .expect("BUG: the root has a parent")
        .to_path_buf();
    create_dir(&parent)?;
    let _lock = InstallLock::take(&parent.join(".install.lock"))?;
    if !options.force {
        if let Ok(Some(m)) = Manifest::read(&root) {
            say(&format!(
                "the paper's models are already installed in {} (--force installs them again)",
                root.display()
            ));
            return Ok(m);
        }
    }
    remove_stale_partials(&parent)?;
    let local = Path::new(&options.nli).is_dir() && Path::new(&options.bleurt).is_dir();
    let needed = if local {
        // At least the graphs' own size again (the int8 copies and the tokenizers come on top).
        dir_bytes(Path::new(&options.nli)) + dir_bytes(Path::new(&options.bleurt))
    } else {
        PAPER_BYTES_NEEDED
    };
    ensure_free_space(&parent, needed, "the paper's models")?;

    let python = ensure_python_env(options, say)?;
    let partial = parent.join(format!(".paper-partial-{}", std::process::id()));
    let result = export_and_check(options, &python, &partial, say);
    let manifest = match result {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            return Err(e);
        }
    };
    // Into place: the old installation (if any) moves aside first, then goes.
    let old = parent.join(format!(".paper-old-{}", std::process::id()));
    if root.exists() {
        std::fs::rename(&root, &old).with_context(|| {
            format!("cannot move the old installation {} aside", root.display())
        })?;
    }
    if let Err(e) = std::fs::rename(&partial, &root) {
        let _ = std::fs::rename(&old, &root);
        let _ = std::fs::remove_dir_all(&partial);
        return Err(e)
            .with_context(|| format!("cannot move the new installation to {}", root.display()));
    }
    let _ = std::fs::remove_dir_all(&old);
    // The hub's download cache is not needed any more: the graphs hold the weights.
    let _ = std::fs::remove_dir_all(options.cache.join("hub-download"));
    say(&format!("installed in {}", root.display()));
    Ok(manifest)
}

fn export_and_check(
    options: &InstallOptions,
    python: &Path,
    partial: &Path,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<Manifest> {
    create_dir(partial)?;
    let work = partial.join(".work");
    create_dir(&work)?;
    let script = work.join("export_paper.py");
    write_file(&script, EXPORT_SCRIPT.as_bytes())?;
    let pairs = work.join("pairs.json");
    write_file(
        &pairs,
        serde_json::to_string(&CHECK_PAIRS.to_vec())?.as_bytes(),
    )?;
    let report_path = work.join("report.json");
    let mut command = Command::new(python);
    command
        .arg(&script)
        .args(["--nli", &options.nli, "--bleurt", &options.bleurt])
        .arg("--out")
        .arg(partial)
        .arg("--pairs")
        .arg(&pairs)
        .arg("--report")
        .arg(&report_path)
        .arg("--hub-cache")
        .arg(options.cache.join("hub-download"))
        .args(["--timeout", &options.hub_timeout.as_secs().to_string()]);
    if let Some(endpoint) = &options.hub_endpoint {
        command.env("HF_ENDPOINT", endpoint);
    }
    run_python(command, say, partial)?;
    let report: ExportReport = serde_json::from_str(
        &std::fs::read_to_string(&report_path)
            .with_context(|| format!("the export wrote no report at {}", report_path.display()))?,
    )
    .context("the export's report is malformed")?;
    std::fs::remove_dir_all(&work).ok();

    say("checking the ONNX graphs in Rust against PyTorch");
    let export_check = check_export(options, partial, &report.torch_reference)?;
    say(&format!(
        "export check: {} pairs, largest MI logit difference {:.2e}, largest BLEURT difference {:.2e} (limit {EXPORT_TOLERANCE:.0e})",
        export_check.pairs, export_check.max_nli_logit_difference, export_check.max_bleurt_difference
    ));
    if export_check.max_nli_logit_difference > EXPORT_TOLERANCE
        || export_check.max_bleurt_difference > EXPORT_TOLERANCE
    {
        bail!("the exported graphs do not reproduce PyTorch (see the numbers above); nothing was installed");
    }
    say("comparing the int8 copy with the full models");
    let int8_check = check_int8(options, partial)?;
    say(&format!(
        "int8 check: MI decisions agree on {:.1}% of {} pairs, largest BLEURT difference {:.4}, paid-or-not agrees on {:.1}%: {}",
        int8_check.mi_agreement * 100.0,
        int8_check.pairs,
        int8_check.max_bleurt_difference,
        int8_check.paid_agreement * 100.0,
        if int8_check.usable {
            "the int8 copy will score Checks on the CPU"
        } else {
            "not close enough; the full models will score Checks"
        }
    ));
    let manifest = Manifest {
        format: FORMAT,
        created_at: time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        sources: report.sources,
        download_bytes: report.download_bytes,
        download_seconds: report.download_seconds,
        export_seconds: report.export_seconds,
        tools: report.tools,
        export_check,
        int8_check,
        files: Manifest::hash_files(partial)?,
    };
    if manifest.download_bytes > 0 {
        say(&format!(
            "downloaded {} in {} ({}/s); exported and checked in {}",
            human_bytes(manifest.download_bytes),
            human_duration(manifest.download_seconds),
            human_bytes(
                (manifest.download_bytes as f64 / manifest.download_seconds.max(0.001)) as u64
            ),
            human_duration(manifest.export_seconds)
        ));
    }
    let manifest = manifest.with_measures_rounded();
    write_file(
        &partial.join(MANIFEST),
        (serde_json::to_string_pretty(&manifest)? + "\n").as_bytes(),
    )?;
    Ok(manifest)
}

/// The fp32 graphs, run by this build's Rust path, against PyTorch's outputs.
fn check_export(
    options: &InstallOptions,
    root: &Path,
    torch: &TorchReference,
) -> anyhow::Result<ExportCheck> {
    let (nli_dir, bleurt_dir) = Variant::Fp32.dirs(root);
    let mut nli = PairModel::load(&nli_dir, &options.ml)
        .with_context(|| format!("the exported MI judge {} does not load", nli_dir.display()))?;
    let mut bleurt = PairModel::load(&bleurt_dir, &options.ml)
        .with_context(|| format!("the exported BLEURT {} does not load", bleurt_dir.display()))?;
    if torch.nli.len() != CHECK_PAIRS.len() || torch.bleurt.len() != CHECK_PAIRS.len() {
        bail!("the export's PyTorch reference has the wrong number of pairs");
    }
    let (mut max_nli, mut max_bleurt) = (0f64, 0f64);
    // Batched, as the engine runs them.
    let nli_rows = nli.logits(&CHECK_PAIRS)?;
    let bleurt_rows = bleurt.logits(&CHECK_PAIRS)?;
    for i in 0..CHECK_PAIRS.len() {
        if nli_rows[i].len() != torch.nli[i].len() {
            bail!(
                "the exported MI judge gives {} logits, PyTorch {}",
                nli_rows[i].len(),
                torch.nli[i].len()
            );
        }
        for (r, t) in nli_rows[i].iter().zip(&torch.nli[i]) {
            max_nli = max_nli.max((f64::from(*r) - t).abs());
        }
        max_bleurt = max_bleurt.max((f64::from(bleurt_rows[i][0]) - torch.bleurt[i]).abs());
    }
    Ok(ExportCheck {
        pairs: CHECK_PAIRS.len(),
        max_nli_logit_difference: max_nli,
        max_bleurt_difference: max_bleurt,
    })
}

/// The int8 copy against the full models, as a Check scores (both directions, the MI rule).
fn check_int8(options: &InstallOptions, root: &Path) -> anyhow::Result<Int8Check> {
    let scorer = |variant: Variant| -> anyhow::Result<Scorer> {
        let (mi, bleurt) = variant.dirs(root);
        Scorer::new(
            PairModel::load(&mi, &options.ml)?,
            PairModel::load(&bleurt, &options.ml)?,
        )
    };
    let full = scorer(Variant::Fp32)?.score_pairs(&CHECK_PAIRS)?;
    let int8 = scorer(Variant::Int8)
        .context("the int8 copy does not load")?
        .score_pairs(&CHECK_PAIRS)?;
    let n = CHECK_PAIRS.len();
    let (mut agree, mut paid_agree, mut max_bleurt, mut max_prob) = (0usize, 0usize, 0f64, 0f64);
    let paid =
        |mi: bool, bleurt: f32| reward_cents(mi, f64::from(bleurt), DEFAULT_BLEURT_THRESHOLD) > 0;
    for (f, q) in full.iter().zip(&int8) {
        agree += usize::from(f.is_mutual_implication == q.is_mutual_implication);
        paid_agree += usize::from(
            paid(f.is_mutual_implication, f.bleurt) == paid(q.is_mutual_implication, q.bleurt),
        );
        max_bleurt = max_bleurt.max((f64::from(f.bleurt) - f64::from(q.bleurt)).abs());
        for (a, b) in f
            .forward_probs
            .iter()
            .chain(&f.backward_probs)
            .zip(q.forward_probs.iter().chain(&q.backward_probs))
        {
            max_prob = max_prob.max((f64::from(*a) - f64::from(*b)).abs());
        }
    }
    let mi_agreement = agree as f64 / n as f64;
    Ok(Int8Check {
        pairs: n,
        mi_agreement,
        max_bleurt_difference: max_bleurt,
        max_mi_probability_difference: max_prob,
        paid_agreement: paid_agree as f64 / n as f64,
        usable: mi_agreement >= INT8_MIN_MI_AGREEMENT && max_bleurt <= INT8_MAX_BLEURT_DIFFERENCE,
        rule: format!(
            "usable when MI decisions agree on at least {:.0}% of the pairs and BLEURT differs by at most {INT8_MAX_BLEURT_DIFFERENCE}",
            INT8_MIN_MI_AGREEMENT * 100.0
        ),
    })
}

/// The Python with the export tools: `env/bin/python`, made from `base_python` and the pinned
/// requirements when missing or made from other requirements. The requirements are written
/// into the environment last, so an interrupted install is redone.
pub fn ensure_python_env(
    options: &InstallOptions,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<PathBuf> {
    let env = &options.python_env;
    let python = env.join("bin/python");
    let marker = env.join("paracrowd-requirements.txt");
    if python.is_file() && std::fs::read_to_string(&marker).ok().as_deref() == Some(REQUIREMENTS) {
        return Ok(python);
    }
    if env.exists() {
        std::fs::remove_dir_all(env).with_context(|| {
            format!("cannot remove the incomplete environment {}", env.display())
        })?;
    }
    create_dir(env.parent().unwrap_or(Path::new(".")))?;
    ensure_free_space(
        env.parent().unwrap_or(Path::new(".")),
        PYTHON_ENV_BYTES,
        "the export tools",
    )?;
    say(&format!(
        "installing the export tools (torch, transformers, onnx, onnxruntime) from PyPI into {}: about 3.5 GB, a few minutes, once",
        env.display()
    ));
    let status = Command::new(&options.base_python)
        .args(["-m", "venv"])
        .arg(env)
        .status()
        .with_context(|| {
            format!(
                "cannot run {} (set PARACROWD_PYTHON to a Python 3)",
                options.base_python.display()
            )
        })?;
    if !status.success() {
        bail!(
            "{} -m venv {} failed",
            options.base_python.display(),
            env.display()
        );
    }
    let requirements = env.join("requirements-export.txt");
    write_file(&requirements, REQUIREMENTS.as_bytes())?;
    let mut pip = Command::new(&python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "-r",
    ])
    .arg(&requirements);
    run_python(pip, say, env)?;
    write_file(&marker, REQUIREMENTS.as_bytes())?;
    Ok(python)
}

/// Runs a Python command, passing its "progress:" lines to `say`; on failure the error is its
/// last line of output, or a full disk said plainly with the folder being written.
fn run_python(
    mut command: Command,
    say: &mut dyn FnMut(&str),
    writing_to: &Path,
) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {:?}", command.get_program()))?;
    let stderr = child.stderr.take().expect("BUG: piped");
    let errors = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    for line in BufReader::new(child.stdout.take().expect("BUG: piped"))
        .lines()
        .map_while(Result::ok)
    {
        if let Some(p) = line.strip_prefix("progress: ") {
            say(p);
        }
    }
    let status = child.wait()?;
    let errors = errors.join().unwrap_or_default();
    if status.success() {
        return Ok(());
    }
    let all = errors.join("\n");
    // A full disk shows as ENOSPC, or (torch's exporter writes without checking) as a graph
    // that is cut short: either way the disk has (next to) nothing left.
    let disk_full = all.contains("No space left on device")
        || all.contains("Errno 28")
        || free_bytes(writing_to).is_ok_and(|free| free < 1 << 20);
    if disk_full {
        bail!(
            "the disk is full while writing {}: free some space, or point PARACROWD_CACHE at a larger disk, and run the install again",
            writing_to.display()
        );
    }
    let hub_unreachable = [
        "stopped answering",
        "Timeout",
        "timed out",
        "ConnectError",
        "ConnectionError",
        "Name or service not known",
        "Temporary failure in name resolution",
        "Network is unreachable",
        "LocalEntryNotFoundError",
        "OfflineModeIsEnabled",
        "Max retries exceeded",
    ];
    if hub_unreachable.iter().any(|k| all.contains(k)) {
        bail!(
            "the Hugging Face hub did not answer (after {:.0} s): nothing was installed; try again where the hub is reachable (the lite scorer works meanwhile)",
            started.elapsed().as_secs_f64()
        );
    }
    let last = errors
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())
        .cloned()
        .unwrap_or_else(|| format!("exit status {status}"));
    bail!("{:?} failed: {last}", command.get_program())
}

/// Free bytes on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> anyhow::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())?;
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statvfs the call fills.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("cannot stat {}", dir.display()));
    }
    Ok(s.f_bavail as u64 * s.f_frsize as u64)
}

fn ensure_free_space(dir: &Path, needed: u64, what: &str) -> anyhow::Result<()> {
    let free = free_bytes(dir)?;
    if free < needed {
        bail!(
            "not enough free space in {}: {what} need about {}, {} are free; free some space or point PARACROWD_CACHE at a larger disk",
            dir.display(),
            human_bytes(needed),
            human_bytes(free)
        );
    }
    Ok(())
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_bytes(&p)
                    } else {
                        e.metadata().map_or(0, |m| m.len())
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Partial folders left by an install that was killed (theirs is not running: we hold the lock).
fn remove_stale_partials(parent: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(parent)?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".paper-partial-") || name.starts_with(".paper-old-") {
            std::fs::remove_dir_all(entry.path()).ok();
        }
    }
    Ok(())
}

fn create_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| disk_error(e, dir))
}

fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut f = std::fs::File::create(path).map_err(|e| disk_error(e, path))?;
    f.write_all(bytes).map_err(|e| disk_error(e, path))?;
    f.sync_all().map_err(|e| disk_error(e, path))
}

/// An I/O error in words; a full disk says what to do.
fn disk_error(e: std::io::Error, path: &Path) -> anyhow::Error {
    if e.raw_os_error() == Some(libc::ENOSPC) {
        anyhow::anyhow!(
            "the disk is full while writing {}: free some space, or point PARACROWD_CACHE at a larger disk, and run the install again",
            path.display()
        )
    } else {
        anyhow::anyhow!("cannot write {}: {e}", path.display())
    }
}

/// An exclusive lock on a file, released when dropped (flock: also when the process dies).
struct InstallLock {
    _file: std::fs::File,
}

impl InstallLock {
    fn take(path: &Path) -> anyhow::Result<Self> {
        use std::os::unix::io::AsRawFd;
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| disk_error(e, path))?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error())
                .with_context(|| format!("cannot lock {}", path.display()));
        }
        Ok(Self { _file: f })
    }
}

pub fn human_bytes(n: u64) -> String {
    if n >= 100_000_000 {
        format!("{:.2} GB", n as f64 / 1e9)
    } else if n >= 1_000_000 {
        format!("{:.1} MB", n as f64 / 1e6)
    } else {
        format!("{} KB", n / 1000)
    }
}

pub fn human_duration(seconds: f64) -> String {
    if seconds >= 90.0 {
        format!(
            "{} min {:02} s",
            (seconds / 60.0) as u64,
            (seconds % 60.0) as u64
        )
    } else {
        format!("{seconds:.1} s")
    }
}
