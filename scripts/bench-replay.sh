#!/usr/bin/env bash
# Adaptive redundancy on a real study's votes: replays LABELS (item, worker, label, gold; or the
# Snow et al. 2008 `*.standardized.tsv` layout, converted on the fly) in SEEDS random arrival
# orders through `paracrowd replay` at up to MAX judgments an item, and prints, for fixed
# redundancy (the majority of all MAX), the count-only rule and the weighted rule, each with the
# gate off and on: the share of the judgments used, the accuracy against the gold labels (an
# unresolved item counted as wrong, and over the labelled items), the unresolved items and the
# workers stopped, as the mean over the orders with the lowest and highest.
# Usage: scripts/bench-replay.sh LABELS [SEEDS] [MAX]
source "$(dirname "$0")/lib.sh"
LABELS="${1:?usage: scripts/bench-replay.sh LABELS [SEEDS] [MAX]}"
SEEDS="${2:-5}"
MAX="${3:-10}"
BIN="${BENCH_BIN:-$CARGO_TARGET_DIR/release/paracrowd}"
if [ ! -x "$BIN" ]; then
  cargo build --release -p server --bin paracrowd
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The replay's columns, from either layout; labels and gold as 0/1 (Snow et al.'s temporal
# ordering task answers 1/2).
awk -F'\t' 'BEGIN { OFS = "\t" }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
            snow = ("!amt_worker_ids" in col)
            if (snow) { it = col["orig_id"]; wk = col["!amt_worker_ids"]; lb = col["response"]; gd = col["gold"] }
            else { it = col["item"]; wk = col["worker"]; lb = col["label"]; gd = col["gold"] }
            if (!it || !wk || !lb || !gd) { print "LABELS needs the columns item, worker, label and gold" > "/dev/stderr"; bad = 1; exit 2 }
            next }
  { item[NR] = $it; worker[NR] = $wk; label[NR] = $lb; gold[NR] = $gd
    if (snow && ($lb == 2 || $gd == 2)) one_two = 1 }
  END { if (bad) exit 2
        print "item", "worker", "label", "gold"
        for (r = 2; r <= NR; r++)
          print item[r], worker[r], label[r] - one_two, (gold[r] == "" ? "" : gold[r] - one_two) }' "$LABELS" > "$WORK/labels.tsv"

for seed in $(seq 1 "$SEEDS"); do
  # One arrival order: the rows shuffled (Fisher-Yates, seeded), the header first.
  awk -v seed="$seed" 'BEGIN { srand(seed) } NR == 1 { print; next } { r[n++] = $0 }
    END { for (i = n - 1; i > 0; i--) { j = int(rand() * (i + 1)); t = r[i]; r[i] = r[j]; r[j] = t }
          for (i = 0; i < n; i++) print r[i] }' "$WORK/labels.tsv" > "$WORK/order-$seed.tsv"
done

run() {
  local name="$1"; shift
  local seed out
  for seed in $(seq 1 "$SEEDS"); do
    out="$("$BIN" replay "$WORK/order-$seed.tsv" --test-every 0 "$@")"
    printf '%s\t%s\n' "$name" "$out"
  done
}
{
  run "fixed $MAX, majority of all" --min "$MAX" --max "$MAX" --aggregator majority --gate off
  run "adaptive, votes counted" --min 3 --max "$MAX" --weighting counted --gate off
  run "adaptive, votes weighted" --min 3 --max "$MAX" --gate off
  run "adaptive, votes counted, gate on" --min 3 --max "$MAX" --weighting counted
  run "adaptive, votes weighted, gate on" --min 3 --max "$MAX"
} > "$WORK/runs.tsv"

python3 - "$WORK/runs.tsv" "$SEEDS" "$MAX" <<'EOF'
import json, sys
runs, seeds, mx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
by = {}
for line in open(runs):
    name, js = line.rstrip("\n").split("\t", 1)
    by.setdefault(name, []).append(json.loads(js))
first = next(iter(by.values()))[0]
print(f"{first['items']} items, {first['labels_available']} judgments, {first['workers']} workers; "
      f"{seeds} arrival orders; at most {mx} judgments an item; the default gate (confidence) where on")
head = ("rule", "judgments used", "accuracy", "of the labelled", "unresolved", "workers stopped")
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
def cell(values, fmt):
    lo, hi, mean = min(values), max(values), sum(values) / len(values)
    return fmt.format(mean) + (f" ({fmt.format(lo)}-{fmt.format(hi)})" if len(values) > 1 and lo != hi else "")
for name, rs in by.items():
    ordinary = [r["items"] - r["test_items"] for r in rs]
    used = [100 * r["labels_used"] / r["labels_available"] for r in rs]
    right = [r["accuracy"] * r["accuracy_items"] if r["accuracy"] is not None else 0 for r in rs]
    acc = [100 * c / n for c, n in zip(right, ordinary)]
    labelled = [100 * r["accuracy"] for r in rs if r["accuracy"] is not None]
    print(f"| {name} | {cell(used, '{:.1f}%')} | {cell(acc, '{:.2f}%')} | {cell(labelled, '{:.2f}%')} | "
          f"{cell([r['unresolved'] for r in rs], '{:.0f}')} | {cell([r['workers_stopped'] for r in rs], '{:.0f}')} |")
EOF
