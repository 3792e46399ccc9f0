#!/usr/bin/env bash
# Exports the APT paper's own models to the layout paracrowd loads (model.onnx, tokenizer.json,
# config.json), on a machine that can reach the Hugging Face hub:
#   - MI judge: ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli (3-way NLI, RoBERTa pairs)
#   - BLEURT:   Elron/bleurt-base-128 (BERT pair regression, logits[:, 0])
# Uses the export scripts in ../shared/models/scripts with torch + transformers from PyPI.
# Then: PARACROWD_MI_MODEL=DEST/nli-roberta-large PARACROWD_BLEURT_MODEL=DEST/bleurt-base-128 scripts/run.sh
# (Not run in CI: the hub is not reachable there.)
# Usage: scripts/export-paper-models.sh DEST
set -euo pipefail
dest=${1:?usage: export-paper-models.sh DEST}
here="$(cd "$(dirname "$0")/.." && pwd)"
exporters="${PARACROWD_EXPORT_SCRIPTS:-$here/../shared/models/scripts}"
venv="${PARACROWD_CACHE:-$HOME/.cache/paracrowd}/export-venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet torch transformers onnx onnxruntime sentencepiece protobuf
mkdir -p "$dest"
"$venv/bin/python" "$exporters/export_onnx.py" ynie/roberta-large-snli_mnli_fever_anli_R1_R2_R3-nli "$dest/nli-roberta-large" seqcls
"$venv/bin/python" "$exporters/export_bleurt.py" Elron/bleurt-base-128 "$dest/bleurt-base-128"
echo "exported to $dest: nli-roberta-large, bleurt-base-128"
