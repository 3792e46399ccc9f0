"""The Python references on the benchmark's data (written by bench-agreement): the same
statistics with statsmodels, krippendorff, irrCAC, scikit-learn and crowd-kit, timed."""
import sys
import time
import warnings

import numpy as np
import pandas as pd
import krippendorff
from crowdkit.aggregation import GLAD, MACE, DawidSkene
from irrCAC.raw import CAC
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

warnings.filterwarnings("ignore")
df = pd.read_csv(sys.argv[1], sep="\t")
t0 = time.perf_counter()
counts = df.pivot_table(index="task", columns="label", aggfunc="size", fill_value=0).reindex(columns=[0, 1], fill_value=0)
table = counts.to_numpy()
fleiss = fleiss_kappa(table[table.sum(axis=1) == 6], method="fleiss")
t1 = time.perf_counter()
alpha = krippendorff.alpha(value_counts=table.astype(float), level_of_measurement="nominal")
t2 = time.perf_counter()
wide = df.pivot(index="task", columns="worker", values="label")
ac1 = CAC(wide, categories=[0, 1], digits=15).gwet()["est"]["coefficient_value"]
t3 = time.perf_counter()
yes = df.groupby("task")["label"].transform("sum")
n = df.groupby("task")["label"].transform("size")
oy, on = yes - df.label, (n - 1) - (yes - df.label)
keep = oy != on
df2 = df[keep].assign(maj=(oy[keep] > on[keep]).astype(int))
kappas = [cohen_kappa_score(g.label, g.maj) for _, g in df2.groupby("worker")]
mean_kappa = np.nanmean(kappas)
t4 = time.perf_counter()
ds = DawidSkene(n_iter=100, tol=1e-5).fit(df)
t5 = time.perf_counter()
glad = GLAD().fit(df)
t6 = time.perf_counter()
mace = MACE().fit(df)
t7 = time.perf_counter()
print(f"Python references: {len(counts)} pairs, {len(df)} judgments")
print(f"  statsmodels fleiss_kappa {t1 - t0:.3f} s, krippendorff.alpha {t2 - t1:.3f} s, irrCAC gwet {t3 - t2:.3f} s,")
print(f"  sklearn cohen_kappa_score per worker {t4 - t3:.3f} s, crowd-kit DawidSkene {t5 - t4:.3f} s")
print(f"  crowd-kit GLAD {t6 - t5:.3f} s, crowd-kit MACE {t7 - t6:.3f} s")
print(f"  all statistics: {t7 - t0:.3f} s")
same = lambda m: int((m.labels_.sort_index() == ds.labels_.sort_index()).sum())
print(f"  labels equal to Dawid-Skene's: GLAD {same(glad)}, MACE {same(mace)} of {len(counts)}")
print(f"  fleiss {fleiss:.6f}  alpha {alpha:.6f}  ac1 {ac1:.6f}  mean kappa vs majority {mean_kappa:.6f}  DS prior {ds.priors_[1]:.6f}")
