"""Reference values for paracrowd's agreement statistics (app/src/domain/agreement.rs,
dawid_skene.rs, glad.rs, mace.rs), computed with the libraries researchers cite: scikit-learn's
cohen_kappa_score, statsmodels' fleiss_kappa, the krippendorff package, irrCAC's Gwet AC1 and
crowd-kit's DawidSkene, GLAD and MACE. Writes tests/fixtures/agreement_reference.json (inputs and
outputs).

    python3 -m venv .tools/agree && .tools/agree/bin/pip install -r scripts/reference/requirements-agreement.txt
    .tools/agree/bin/python scripts/reference/make_agreement_reference.py [SHARED_DATA_DIR]

With SHARED_DATA_DIR (../shared/data), it also records the statistics of the Twitter URL test
set's 6-vote counts (the data stays there; only the numbers are committed).
"""
import json
import math
import random
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import krippendorff
from crowdkit.aggregation import GLAD, MACE, DawidSkene
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

warnings.filterwarnings("ignore")


def num(x):
    x = float(x)
    return None if math.isnan(x) else x


def kappa(a, b):
    return num(cohen_kappa_score(a, b))


def ac1(table):
    """Gwet's AC1 from an items x categories count table, through irrCAC's raw-ratings API."""
    rows = []
    width = max(int(sum(r)) for r in table)
    for r in table:
        ratings = [c for c, n in enumerate(r) for _ in range(int(n))]
        rows.append(ratings + [np.nan] * (width - len(ratings)))
    df = pd.DataFrame(rows)
    cac = CAC(df, categories=list(range(len(table[0]))), digits=15)
    return num(cac.gwet()["est"]["coefficient_value"])


def table_stats(table, complete_n=None):
    out = {"table": table}
    # Fleiss' kappa needs the same number of ratings per item: the items with complete_n.
    full = [r for r in table if complete_n is not None and sum(r) == complete_n]
    out["fleiss_items"] = len(full)
    out["fleiss"] = num(fleiss_kappa(np.array(full), method="fleiss")) if full else None
    out["alpha"] = num(krippendorff.alpha(value_counts=np.array(table, dtype=float), level_of_measurement="nominal"))
    out["ac1"] = ac1(table)
    return out


def synthetic(seed, items, workers, per_item):
    """Workers of mixed quality (honest 80-95%, always-yes, random) answering binary items."""
    rng = random.Random(seed)
    truth = [rng.random() < 0.4 for _ in range(items)]
    kinds = []
    for w in range(workers):
        kinds.append("yes" if w % 7 == 3 else "random" if w % 7 == 5 else rng.uniform(0.8, 0.95))
    answers = []
    for i in range(items):
        for w in rng.sample(range(workers), per_item(rng)):
            k = kinds[w]
            if k == "yes":
                label = 1
            elif k == "random":
                label = int(rng.random() < 0.5)
            else:
                label = int(truth[i]) if rng.random() < k else 1 - int(truth[i])
            answers.append([i, w, label])
    return first_appearance_order(answers)


def first_appearance_order(answers):
    """The same answers with workers numbered, and labels met, in the order they first appear.

    crowd-kit numbers workers and labels by first appearance (pandas' factorize), and its MACE
    mixes that order with the sorted one (its strategy counts come out of a sorted groupby): with
    the two orders equal, its numbers are those of the model as published, in the order paracrowd
    indexes workers and labels. The other statistics do not depend on the order.
    """
    first_zero = next(n for n, a in enumerate(answers) if a[2] == 0)
    answers = [answers[first_zero]] + answers[:first_zero] + answers[first_zero + 1:]
    number = {}
    for _, w, _ in answers:
        number.setdefault(w, len(number))
    return [[i, number[w], label] for i, w, label in answers]


def answers_stats(answers, items, workers):
    out = {"answers": answers, "items": items, "workers": workers}
    table = [[0, 0] for _ in range(items)]
    by_worker = {}
    by_item = {}
    for i, w, l in answers:
        table[i][l] += 1
        by_worker.setdefault(w, {})[i] = l
        by_item.setdefault(i, {})[w] = l
    out.update(table_stats(table, complete_n=max(sum(r) for r in table)))
    # Cohen's kappa between pairs of workers on the items both judged.
    pairs = []
    for a in range(workers):
        for b in range(a + 1, workers):
            common = sorted(set(by_worker.get(a, {})) & set(by_worker.get(b, {})))
            if len(common) >= 5:
                pairs.append({"a": a, "b": b,
                              "kappa": kappa([by_worker[a][i] for i in common], [by_worker[b][i] for i in common])})
    out["pairwise_kappa"] = pairs
    # Each worker against the leave-one-out majority of the others (ties left out).
    loo = []
    for w in range(workers):
        mine, maj = [], []
        for i, l in sorted(by_worker.get(w, {}).items()):
            others = [v for u, v in by_item[i].items() if u != w]
            yes = sum(others)
            if others and yes * 2 != len(others):
                mine.append(l)
                maj.append(int(yes * 2 > len(others)))
        loo.append({"worker": w, "n": len(mine), "kappa": kappa(mine, maj) if mine else None})
    out["kappa_vs_majority"] = loo
    df = pd.DataFrame(answers, columns=["task", "worker", "label"])
    ds = DawidSkene(n_iter=100, tol=1e-5)
    ds.fit(df)
    probas = ds.probas_.reindex(columns=[0, 1]).fillna(0.0)
    out["ds"] = {
        "posteriors": [[float(probas.loc[i, 0]), float(probas.loc[i, 1])] for i in range(items)],
        "priors": [float(ds.priors_.get(0, 0.0)), float(ds.priors_.get(1, 0.0))],
        "confusion": {
            str(w): {str(obs): [float(ds.errors_.loc[(w, obs), 0]), float(ds.errors_.loc[(w, obs), 1])]
                     for obs in (0, 1) if (w, obs) in ds.errors_.index}
            for w in range(workers) if w in by_worker
        },
        "labels": [int(x) for x in ds.labels_.reindex(range(items))],
        "iterations": len(ds.loss_history_),
    }
    glad = GLAD()
    glad.fit(df)
    probas = glad.probas_.reindex(columns=[0, 1]).fillna(0.0)
    out["glad"] = {
        "posteriors": [[float(probas.loc[i, 0]), float(probas.loc[i, 1])] for i in range(items)],
        "abilities": [float(glad.alphas_[w]) for w in range(workers)],
        "labels": [int(x) for x in glad.labels_.reindex(range(items))],
    }
    mace = MACE()
    mace.fit(df)
    probas = mace.probas_.reindex(columns=[0, 1]).fillna(0.0)
    out["mace"] = {
        "posteriors": [[float(probas.loc[i, 0]), float(probas.loc[i, 1])] for i in range(items)],
        "competence": [float(mace.spamming_[w, 1]) for w in range(workers)],
        "labels": [int(x) for x in mace.labels_.reindex(range(items))],
    }
    return out


def main():
    ref = {"generated_by": "scripts/reference/make_agreement_reference.py", "cases": {}}
    cases = ref["cases"]
    # scikit-learn's own test of cohen_kappa_score (test_classification.py).
    y1 = [0] * 40 + [1] * 60
    y2 = [0] * 20 + [1] * 20 + [0] * 15 + [1] * 45
    cases["sklearn_cohen"] = {"a": y1, "b": y2, "kappa": kappa(y1, y2)}
    # Fleiss (1971) as in Wikipedia and statsmodels' tests: 10 subjects, 14 raters, 5 categories.
    fleiss_table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    cases["fleiss_1971"] = table_stats(fleiss_table, complete_n=14)
    # Krippendorff's (2011) example: 4 coders, 12 units, values 1-5 with missing (alpha 0.743).
    data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
            [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None]]
    units = [[0] * 5 for _ in range(12)]
    for coder in data:
        for u, v in enumerate(coder):
            if v is not None:
                units[u][v - 1] += 1
    cases["krippendorff_2011"] = table_stats(units)
    # Synthetic campaigns: every pair has 6 judgments; and a ragged one with 2-7 judgments.
    cases["synthetic_full"] = answers_stats(synthetic(7, 300, 14, lambda r: 6), 300, 14)
    cases["synthetic_ragged"] = answers_stats(synthetic(11, 250, 12, lambda r: r.randint(2, 7)), 250, 12)
    if len(sys.argv) > 1:
        votes = pd.read_csv(Path(sys.argv[1]) / "twitter_url" / "test_votes.tsv", sep="\t", quoting=3)
        table = [[int(r.n_raters - r.n_pos), int(r.n_pos)] for r in votes.itertuples()]
        stats = table_stats(table, complete_n=6)
        del stats["table"]
        stats["pairs"] = len(table)
        stats["distribution"] = [sum(1 for t in table if t[1] == k) for k in range(7)]
        cases["twitter_url_test_votes"] = stats
    out = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agreement_reference.json"
    out.write_text(json.dumps(ref, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
