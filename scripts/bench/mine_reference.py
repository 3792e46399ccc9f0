"""Python reference for the mining benchmark (scripts/bench-mining.sh): MSRP's L12 and F2 rules on
the sentences bench-mining wrote, with rapidfuzz (C++) computing the word-level Levenshtein
distances: process.cdist over each cluster, on all cores (workers=-1), the fastest way rapidfuzz
offers. The rules are those of app/src/domain/mining/{l12,f2}.rs; the candidate counts are
printed next to Rust's.

Usage: mine_reference.py OUT_DIR
"""
import json
import re
import sys
import time
from collections import defaultdict

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def words(text):
    return [w.replace("’", "'") for w in WORD.findall(text.lower())]


def load(path):
    clusters = defaultdict(list)
    for line in open(path, encoding="utf-8"):
        row = json.loads(line)
        clusters[row["cluster"]].append(row)
    return [clusters[k] for k in sorted(clusters)]


def l12(clusters, max_d=12, ratio=2 / 3):
    seen = set()
    found = examined = 0
    for rows in clusters:
        texts, seqs = [], []
        local = set()
        for r in rows:
            w = tuple(words(r["text"]))
            if w and w not in local:
                local.add(w)
                texts.append(w)
                seqs.append(list(w))
        n = len(seqs)
        examined += n * (n - 1) // 2
        if n < 2:
            continue
        d = process.cdist(seqs, seqs, scorer=Levenshtein.distance, score_cutoff=max_d,
                          dtype=np.uint8, workers=-1)
        lengths = np.array([len(s) for s in seqs])
        short = np.minimum.outer(lengths, lengths)
        long_ = np.maximum.outer(lengths, lengths)
        keep = np.triu((d >= 1) & (d <= max_d) & (short / long_ + 1e-9 >= ratio), k=1)
        for i, j in zip(*np.nonzero(keep)):
            key = (min(texts[i], texts[j]), max(texts[i], texts[j]))
            if key not in seen:
                seen.add(key)
                found += 1
    return examined, found


def f2(clusters, first=2, min_shared=3, long_chars=4, ratio=0.5):
    seen = set()
    found = examined = 0
    for rows in clusters:
        leads = [r for r in rows if r["position"] < first]
        prepared = [(r["document"], tuple(words(r["text"]))) for r in leads]
        longs = [{w for w in p[1] if len(w) >= long_chars} for p in prepared]
        for i in range(len(prepared)):
            for j in range(i + 1, len(prepared)):
                (di, wi), (dj, wj) = prepared[i], prepared[j]
                if di == dj:
                    continue
                examined += 1
                if not wi or not wj or wi == wj:
                    continue
                if min(len(wi), len(wj)) / max(len(wi), len(wj)) + 1e-9 < ratio:
                    continue
                if len(longs[i] & longs[j]) < min_shared:
                    continue
                key = (min(wi, wj), max(wi, wj))
                if key not in seen:
                    seen.add(key)
                    Levenshtein.distance(list(wi), list(wj))
                    found += 1
    return examined, found


def report(corpus, name, fn, clusters):
    start = time.perf_counter()
    examined, found = fn(clusters)
    took = time.perf_counter() - start
    print(f"  {corpus:<28} {name:<4} {examined:>12} pairs examined  {took:>8.3f} s  "
          f"{examined / took:>14.0f} pairs/s  {found:>7} candidates")


def main():
    out = sys.argv[1]
    import rapidfuzz
    print(f"Python reference (rapidfuzz {rapidfuzz.__version__}, process.cdist on all cores):")
    wiki = load(f"{out}/wikiref_sentences.jsonl")
    synth = load(f"{out}/synthetic_sentences.jsonl")
    report("WikiRef220", "L12", l12, wiki)
    report("WikiRef220", "F2", f2, wiki)
    report("synthetic 3 x 10,000", "L12", l12, synth)


if __name__ == "__main__":
    main()
