#!/usr/bin/env bash
# Adaptive redundancy on a real study's votes: replays LABELS in ORDERS random arrival orders
# through `paracrowd replay` at up to MAX judgments an item, and prints, for fixed redundancy (the
# majority of all MAX), the count-only rule and the weighted rule, each with the gate off and on:
# the share of the judgments used, the accuracy against the gold labels (an unresolved item
# counted as wrong, and over the labelled items), the unresolved items and the workers stopped,
# as the mean over the orders with the lowest and highest.
# LABELS: the replay's columns (item, worker, label, gold; docs/replay.md), every item with its
# gold label, or Snow et al. 2008's `*.standardized.tsv` layout (!amt_worker_ids, orig_id,
# response, gold; the temporal task's answers 1/2 are read as 0/1).
# Usage: scripts/bench-replay.sh LABELS [ORDERS] [MAX]
LABELS="$(realpath "${1:?usage: scripts/bench-replay.sh LABELS [ORDERS] [MAX]}")"
source "$(dirname "$0")/lib.sh"
ORDERS="${2:-5}"
MAX="${3:-10}"
if [ -n "${BENCH_BIN:-}" ]; then
  BIN="$BENCH_BIN"
else
  cargo build --release -p server --bin paracrowd
  BIN="$CARGO_TARGET_DIR/release/paracrowd"
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# The replay's columns, and ORDERS arrival orders: the rows shuffled with Python's seeded
# generator (the same orders on every machine).
python3 - "$LABELS" "$WORK" "$ORDERS" <<'EOF'
import csv, random, sys
path, work, orders = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, newline="") as f:
    rows = [r for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE) if any(v for v in r.values())]
if not rows:
    sys.exit(f"{path}: no rows")
snow = "!amt_worker_ids" in rows[0]
need = ("orig_id", "!amt_worker_ids", "response", "gold") if snow else ("item", "worker", "label", "gold")
missing = [c for c in need if c not in rows[0]]
if missing:
    sys.exit(f"{path}: no column {', '.join(missing)} (the replay's columns item, worker, label, gold, or Snow et al.'s orig_id, !amt_worker_ids, response, gold)")
item, worker, label, gold = need
one_two = snow and any(r[label] == "2" or r[gold] == "2" for r in rows)
out = []
for n, r in enumerate(rows, start=2):
    if not (r[gold] or "").strip():
        sys.exit(f"{path}: row {n} has no gold label; the benchmark measures accuracy on every item")
    l, g = r[label], r[gold]
    if one_two:
        l, g = str(int(l) - 1), str(int(g) - 1)
    out.append(f"{r[item]}\t{r[worker]}\t{l}\t{g}\n")
for seed in range(1, orders + 1):
    order = out[:]
    random.Random(seed).shuffle(order)
    with open(f"{work}/order-{seed}.tsv", "w") as f:
        f.write("item\tworker\tlabel\tgold\n")
        f.writelines(order)
EOF

run() {
  local name="$1"; shift
  local seed out
  for seed in $(seq 1 "$ORDERS"); do
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

python3 - "$WORK/runs.tsv" "$ORDERS" "$MAX" <<'EOF'
import json, sys
runs, orders, mx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
by = {}
for line in open(runs):
    name, js = line.rstrip("\n").split("\t", 1)
    by.setdefault(name, []).append(json.loads(js))
first = next(iter(by.values()))[0]
print(f"{first['items']:,} items, {first['labels_available']:,} judgments, {first['workers']} workers; "
      f"{orders} arrival orders; 3 to {mx} judgments an item, settled at 0.95; the confidence gate where on")
head = ("rule", "judgments used", "accuracy", "of the labelled", "unresolved", "workers stopped")
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
def cell(values, fmt, unit=""):
    if not values:
        return "-"
    lo, hi, mean = min(values), max(values), sum(values) / len(values)
    span = f" ({fmt.format(lo)}-{fmt.format(hi)}{unit})" if lo != hi else ""
    return fmt.format(mean) + unit + span
for name, rs in by.items():
    # Every item has its gold label and none is a test pair: the ordinary items are all items.
    items = [r["items"] - r["test_items"] for r in rs]
    used = [100 * r["labels_used"] / r["labels_available"] for r in rs]
    right = [r["accuracy"] * r["accuracy_items"] if r["accuracy"] is not None else 0 for r in rs]
    acc = [100 * c / n for c, n in zip(right, items)]
    labelled = [100 * r["accuracy"] for r in rs if r["accuracy"] is not None]
    print(f"| {name} | {cell(used, '{:.1f}', '%')} | {cell(acc, '{:.2f}', '%')} | {cell(labelled, '{:.2f}', '%')} | "
          f"{cell([r['unresolved'] for r in rs], '{:.0f}')} | {cell([r['workers_stopped'] for r in rs], '{:.0f}')} |")
EOF
