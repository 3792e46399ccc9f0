//! One sequence-pair model from a directory holding `model.onnx`, `tokenizer.json` and
//! `config.json` (as `export_onnx.py` / `export_bleurt.py` write them). Label names come from
//! `config.json`'s `id2label`; the inputs sent are the ones the graph declares (RoBERTa pairs have
//! no `token_type_ids`, BERT/BLEURT pairs do). A session is `&mut` to run, so the owning thread
//! holds the model.
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use ndarray::Array2;
use ort::session::Session;
use ort::value::Tensor;
use sha2::{Digest, Sha256};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams, TruncationStrategy};

use super::config::MlConfig;
use super::runtime::{self, ActiveProvider};

/// The graph inputs this module knows how to fill.
const KNOWN_INPUTS: [&str; 3] = ["input_ids", "attention_mask", "token_type_ids"];

/// A loaded pair model.
pub struct PairModel {
    session: Session,
    encoder: PairEncoder,
    output: String,
    sha256: String,
    provider: ActiveProvider,
    dir: PathBuf,
    /// The graph quantises its activations dynamically (int8): the scale comes from the whole
    /// input tensor, so a row's logits depend on the other rows and the padding of its batch.
    /// Such graphs run one row at a time, so a score never depends on who else is Checking.
    one_row_at_a_time: bool,
}

/// What turns sentence pairs into a pair model's input tensors: its tokenizer, the inputs its
/// graph reads, and its labels. The in-process model and the inference server's client
/// (`super::remote`) share it, so both send the same ids.
#[derive(Clone)]
pub struct PairEncoder {
    tokenizer: Tokenizer,
    inputs: Vec<String>,
    labels: Vec<String>,
    version: String,
    max_length: usize,
    /// The graph is dynamically quantised (see [`PairModel`]): rows must not share a batch.
    one_row_at_a_time: bool,
}

/// One named `[batch, seq]` id tensor per graph input, in the graph's input order.
pub type EncodedPairs = Vec<(String, Array2<i64>)>;

impl PairEncoder {
    /// Graph input names, in order.
    pub fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// Label names in output order (from `id2label`).
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// `dirname@sha256-prefix` of the graph.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Whether the graph's scores depend on the rest of its batch (dynamic int8 quantisation).
    pub fn runs_one_row_at_a_time(&self) -> bool {
        self.one_row_at_a_time
    }

    /// Tokenises `(first, second)` pairs, padded to the longest, then to `pad_to_multiple` tokens
    /// (1: no more), never past the truncation length unless a pair already is.
    pub fn encode(
        &self,
        pairs: &[(&str, &str)],
        pad_to_multiple: usize,
    ) -> anyhow::Result<EncodedPairs> {
        let encodings = self
            .tokenizer
            .encode_batch(pairs.iter().map(|&(a, b)| (a, b)).collect::<Vec<_>>(), true)
            .map_err(|e| anyhow::anyhow!("tokenization failed: {e}"))?;
        let batch = encodings.len();
        let longest = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
        let seq = padded_length(longest, pad_to_multiple, self.max_length);
        let fill = |get: &dyn Fn(&tokenizers::Encoding) -> &[u32], pad: i64| -> Array2<i64> {
            let mut a = Array2::<i64>::from_elem((batch, seq), pad);
            for (row, enc) in encodings.iter().enumerate() {
                for (col, &v) in get(enc).iter().enumerate() {
                    a[[row, col]] = i64::from(v);
                }
            }
            a
        };
        let pad_id = self
            .tokenizer
            .get_padding()
            .map_or(0, |p| i64::from(p.pad_id));
        Ok(self
            .inputs
            .iter()
            .map(|name| {
                let array = match name.as_str() {
                    "input_ids" => fill(&|e| e.get_ids(), pad_id),
                    "attention_mask" => fill(&|e| e.get_attention_mask(), 0),
                    _ => fill(&|e| e.get_type_ids(), 0),
                };
                (name.clone(), array)
            })
            .collect())
    }
}

/// `longest` rounded up to a multiple of `multiple`, capped at `max_length` (or `longest` when it
/// is already longer). Rounding lets an inference server batch requests of one shape together.
pub fn padded_length(longest: usize, multiple: usize, max_length: usize) -> usize {
    let multiple = multiple.max(1);
    let rounded = longest.div_ceil(multiple) * multiple;
    rounded.min(max_length.max(longest))
}

/// The parts of a Hugging Face `config.json` we read.
#[derive(Debug, serde::Deserialize)]
struct HfConfig {
    #[serde(default)]
    id2label: BTreeMap<String, String>,
    #[serde(default)]
    model_type: Option<String>,
    #[serde(default)]
    max_position_embeddings: Option<usize>,
    #[serde(default)]
    pad_token_id: Option<u32>,
    #[serde(default)]
    vocab_size: Option<usize>,
    /// Not a Hugging Face key: lets an export pin the truncation length (BLEURT-base-128: 128).
    #[serde(default)]
    max_length: Option<usize>,
}

impl PairModel {
    /// Loads `dir`. Errors name the missing or broken file.
    pub fn load(dir: &Path, config: &MlConfig) -> anyhow::Result<Self> {
        let model_file = find_graph(dir)?;
        let tokenizer_file = dir.join("tokenizer.json");
        let config_file = dir.join("config.json");
        for f in [&model_file, &tokenizer_file, &config_file] {
            if !f.is_file() {
                bail!("model directory {} lacks {}", dir.display(), f.display());
            }
        }
        let hf: HfConfig = serde_json::from_str(
            &fs::read_to_string(&config_file)
                .with_context(|| format!("cannot read {}", config_file.display()))?,
        )
        .with_context(|| format!("{} is not a model config", config_file.display()))?;
        let labels = labels_in_order(&hf.id2label)
            .with_context(|| format!("bad id2label in {}", config_file.display()))?;

        let mut tokenizer = Tokenizer::from_file(&tokenizer_file)
            .map_err(|e| anyhow::anyhow!("cannot load {}: {e}", tokenizer_file.display()))?;
        configure_tokenizer(&mut tokenizer, &hf)?;

        let (session, provider) = runtime::session(config, &model_file)?;
        let inputs: Vec<String> = session
            .inputs()
            .iter()
            .map(|i| i.name().to_owned())
            .collect();
        if let Some(unknown) = inputs.iter().find(|n| !KNOWN_INPUTS.contains(&n.as_str())) {
            bail!(
                "{} has an input this loader cannot fill: {unknown}",
                model_file.display()
            );
        }
        if !inputs.iter().any(|n| n == "input_ids") {
            bail!("{} has no input_ids input", model_file.display());
        }
        let output = session
            .outputs()
            .iter()
            .map(|o| o.name().to_owned())
            .find(|n| n == "logits")
            .or_else(|| session.outputs().first().map(|o| o.name().to_owned()))
            .with_context(|| format!("{} has no outputs", model_file.display()))?;
        let (sha256, one_row_at_a_time) = sha256_and_dynamic_quantisation(&model_file)?;
        let version = format!("{}@{}", dir_name(dir), &sha256[..12]);
        check_tokenizer_fits(&tokenizer, &hf, &inputs, &tokenizer_file, &model_file)?;
        let max_length = tokenizer
            .get_truncation()
            .map_or(usize::MAX, |t| t.max_length);
        let mut model = Self {
            session,
            encoder: PairEncoder {
                tokenizer,
                inputs,
                labels,
                version,
                max_length,
                one_row_at_a_time,
            },
            output,
            sha256,
            provider,
            dir: dir.to_owned(),
            one_row_at_a_time,
        };
        // One real forward pass, so a graph that loads but cannot run with this tokenizer's
        // ids (or gives the wrong shape, or NaN) is found at start-up, not at the first Check.
        let probe = model.logits(&[PROBE_PAIR]).with_context(|| {
            format!(
                "{} does not run with {}",
                model_file.display(),
                tokenizer_file.display()
            )
        })?;
        if probe.len() != 1 || probe[0].len() != model.labels().len() {
            bail!(
                "{} gives {} values per pair but {} names {} labels",
                model_file.display(),
                probe.first().map_or(0, Vec::len),
                config_file.display(),
                model.labels().len()
            );
        }
        if probe[0].iter().any(|x| !x.is_finite()) {
            bail!(
                "{} gives a value that is not a number",
                model_file.display()
            );
        }
        Ok(model)
    }

    /// Label names in output order (from `id2label`).
    pub fn labels(&self) -> &[String] {
        self.encoder.labels()
    }

    /// `dirname@sha256-prefix` of the graph.
    pub fn version(&self) -> &str {
        self.encoder.version()
    }

    /// The tokenizer, inputs and labels, for a client that runs this graph elsewhere.
    pub fn encoder(&self) -> &PairEncoder {
        &self.encoder
    }

    /// The SHA-256 of the graph file, in hex.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Whether the graph runs one row at a time (dynamic int8 quantisation).
    pub fn runs_one_row_at_a_time(&self) -> bool {
        self.one_row_at_a_time
    }

    pub fn provider(&self) -> ActiveProvider {
        self.provider
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the graph takes `token_type_ids` (BERT-style pairs) or not (RoBERTa).
    pub fn uses_token_type_ids(&self) -> bool {
        self.encoder.inputs.iter().any(|n| n == "token_type_ids")
    }

    /// Raw output rows (`[batch, labels]`) for `(first, second)` pairs, in one forward pass
    /// (one per pair for dynamically quantised graphs).
    pub fn logits(&mut self, pairs: &[(&str, &str)]) -> anyhow::Result<Vec<Vec<f32>>> {
        if self.one_row_at_a_time && pairs.len() > 1 {
            let mut rows = Vec::with_capacity(pairs.len());
            for pair in pairs {
                rows.extend(self.forward(&[*pair])?);
            }
            return Ok(rows);
        }
        self.forward(pairs)
    }

    fn forward(&mut self, pairs: &[(&str, &str)]) -> anyhow::Result<Vec<Vec<f32>>> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let batch = pairs.len();
        let values: Vec<(String, ort::session::SessionInputValue<'_>)> = self
            .encoder
            .encode(pairs, 1)?
            .into_iter()
            .map(|(name, array)| Ok((name, Tensor::from_array(array)?.into())))
            .collect::<anyhow::Result<_>>()?;
        let outputs = self.session.run(values)?;
        let out = outputs[self.output.as_str()].try_extract_array::<f32>()?;
        let shape = out.shape().to_vec();
        if shape.len() != 2 || shape[0] != batch {
            bail!(
                "{} returned shape {shape:?}, expected [{batch}, labels]",
                self.encoder.version
            );
        }
        Ok(out.rows().into_iter().map(|r| r.to_vec()).collect())
    }
}

/// `model.onnx`, else the directory's only `.onnx` file (e.g. `model_int8.onnx`).
fn find_graph(dir: &Path) -> anyhow::Result<PathBuf> {
    let default = dir.join("model.onnx");
    if default.is_file() {
        return Ok(default);
    }
    let graphs: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("model directory {} cannot be read", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "onnx"))
        .collect();
    match graphs.as_slice() {
        [one] => Ok(one.clone()),
        [] => bail!("model directory {} has no model.onnx", dir.display()),
        _ => bail!(
            "model directory {} has several .onnx files and no model.onnx",
            dir.display()
        ),
    }
}

/// `id2label` as a list indexed by id; ids must be 0..n.
fn labels_in_order(id2label: &BTreeMap<String, String>) -> anyhow::Result<Vec<String>> {
    if id2label.is_empty() {
        bail!("config.json has no id2label");
    }
    let mut by_id: BTreeMap<usize, String> = BTreeMap::new();
    for (k, v) in id2label {
        by_id.insert(
            k.parse()
                .with_context(|| format!("id2label key {k:?} is not a number"))?,
            v.clone(),
        );
    }
    if by_id.keys().enumerate().any(|(i, k)| i != *k) {
        bail!("id2label ids must be 0..{}", by_id.len());
    }
    Ok(by_id.into_values().collect())
}

/// Truncation and padding, unless `tokenizer.json` already sets them: truncate pairs
/// longest-first to `max_length` (config), else 512 - 2 for RoBERTa, else 128 (BLEURT-base-128
/// and the MiniLM stand-ins); pad to the longest in the batch with the config's pad id.
fn configure_tokenizer(tokenizer: &mut Tokenizer, hf: &HfConfig) -> anyhow::Result<()> {
    if tokenizer.get_truncation().is_none() {
        let roberta = hf.model_type.as_deref() == Some("roberta");
        let max_length = hf.max_length.unwrap_or(if roberta {
            hf.max_position_embeddings
                .map_or(512, |m| m.saturating_sub(2))
                .min(512)
        } else {
            128
        });
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                strategy: TruncationStrategy::LongestFirst,
                ..Default::default()
            }))
            .map_err(|e| anyhow::anyhow!("cannot set truncation: {e}"))?;
    }
    if tokenizer.get_padding().is_none() {
        let pad_id = hf.pad_token_id.unwrap_or(0);
        let pad_token = tokenizer
            .id_to_token(pad_id)
            .unwrap_or_else(|| "[PAD]".into());
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id,
            pad_token,
            ..Default::default()
        }));
    }
    Ok(())
}

pub(crate) fn dir_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into())
}

pub(crate) fn short_sha256(file: &Path) -> anyhow::Result<String> {
    Ok(sha256_file(file)?[..12].to_owned())
}

/// The SHA-256 of a file, in hex.
pub fn sha256_file(file: &Path) -> anyhow::Result<String> {
    Ok(sha256_and_dynamic_quantisation(file)?.0)
}

/// The operator that marks a dynamically quantised graph (`quantize_dynamic` inserts it before
/// every integer matrix product). ONNX stores operator types as plain strings.
const DYNAMIC_QUANTISATION_OP: &[u8] = b"DynamicQuantizeLinear";

/// The file's SHA-256 (hex) and whether it contains [`DYNAMIC_QUANTISATION_OP`], in one read.
fn sha256_and_dynamic_quantisation(file: &Path) -> anyhow::Result<(String, bool)> {
    let mut f = fs::File::open(file).with_context(|| format!("cannot open {}", file.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut tail: Vec<u8> = Vec::new();
    let mut found = false;
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", file.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        if !found {
            // The marker may straddle two reads: search the last bytes of the previous one too.
            tail.extend_from_slice(&buf[..n]);
            found = tail
                .windows(DYNAMIC_QUANTISATION_OP.len())
                .any(|w| w == DYNAMIC_QUANTISATION_OP);
            let keep = DYNAMIC_QUANTISATION_OP.len() - 1;
            let cut = tail.len().saturating_sub(keep);
            tail.drain(..cut);
        }
    }
    let digest = hasher.finalize();
    Ok((digest.iter().map(|b| format!("{b:02x}")).collect(), found))
}

/// A pair every model is run on once at load time.
const PROBE_PAIR: (&str, &str) = (
    "A man is playing a guitar on the stage.",
    "Someone plays an instrument.",
);

/// Refuses a tokenizer that belongs to another model: ids beyond the graph's vocabulary, a
/// padding id that is not a padding token, or token types the graph reads but never gets
/// (or gets but does not read).
fn check_tokenizer_fits(
    tokenizer: &Tokenizer,
    hf: &HfConfig,
    inputs: &[String],
    tokenizer_file: &Path,
    model_file: &Path,
) -> anyhow::Result<()> {
    let mismatch = |what: String| {
        anyhow::anyhow!(
            "the tokenizer {} does not match the model {}: {what}; put the tokenizer.json exported with this model beside it",
            tokenizer_file.display(),
            model_file.display()
        )
    };
    let tokens = tokenizer.get_vocab_size(true);
    if let Some(vocab) = hf.vocab_size {
        if tokens > vocab {
            return Err(mismatch(format!(
                "it has {tokens} tokens, the model's config.json says vocab_size {vocab}"
            )));
        }
    }
    if let Some(pad) = tokenizer.id_to_token(hf.pad_token_id.unwrap_or(0)) {
        let padding_like = pad.to_lowercase().contains("pad");
        if !padding_like {
            return Err(mismatch(format!(
                "the padding id {} is {pad:?} in this tokenizer",
                hf.pad_token_id.unwrap_or(0)
            )));
        }
    }
    let encoding = tokenizer
        .encode(PROBE_PAIR, true)
        .map_err(|e| mismatch(format!("it cannot encode a pair ({e})")))?;
    let second_segment_typed = encoding.get_type_ids().iter().any(|&t| t != 0);
    let graph_reads_types = inputs.iter().any(|n| n == "token_type_ids");
    if graph_reads_types && !second_segment_typed {
        return Err(mismatch(
            "the graph reads token_type_ids but the tokenizer gives every token type 0 (a RoBERTa-style tokenizer for a BERT-style graph)".into(),
        ));
    }
    if !graph_reads_types && second_segment_typed && hf.model_type.as_deref() == Some("roberta") {
        return Err(mismatch(
            "the tokenizer marks the second sentence with token type 1, which a RoBERTa graph does not read (a BERT-style tokenizer)".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::padded_length;

    #[test]
    fn lengths_round_up_to_the_multiple_within_the_truncation_length() {
        assert_eq!(padded_length(13, 1, 128), 13);
        assert_eq!(padded_length(13, 16, 128), 16);
        assert_eq!(padded_length(16, 16, 128), 16);
        assert_eq!(padded_length(17, 16, 128), 32);
        assert_eq!(padded_length(120, 16, 128), 128);
        assert_eq!(
            padded_length(126, 16, 126),
            126,
            "never past the truncation length"
        );
        assert_eq!(
            padded_length(140, 16, 128),
            140,
            "a longer pair keeps its length"
        );
        assert_eq!(padded_length(0, 16, 128), 0);
    }
}
