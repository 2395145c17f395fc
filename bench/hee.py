"""Benchmark of the HEE effort model on the HMCEval release (``data_per_dialogue.tsv``).

Run from the project root: ``python bench/hee.py [--jobs N] [--seeds K]``. Prints the wall time
of the paper's 5-fold shuffled cross-validation (100 trees, max_features 8, seed 397) for the
dialogue features D and D + W with the metrics reached, the effect of max_features 8/9/10,
and the spread of the metrics over K other seeds. The paper reports the whole HEE run under
10 minutes. The machine is shared and noisy: compare ratios, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.data import load_table  # noqa: E402
from core.hee import estimate_effort, feature_correlations, resolve_feature_set  # noqa: E402

PAPER = {"D": {"mse": 0.009, "rmse": 0.092, "mae": 0.061, "r2": 0.433},
         "D+W": {"mse": 0.004, "rmse": 0.059, "mae": 0.033, "r2": 0.763}}


def _row(name, m):
    return f"{name:28s} " + " ".join(f"{m[k]:.4f}" for k in ("mse", "rmse", "mae", "r2"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jobs", type=int, default=2, help="parallel trees (default 2)")
    ap.add_argument("--seeds", type=int, default=5, help="other seeds for the spread (default 5)")
    args = ap.parse_args()
    path = ROOT.parent / "shared" / "data" / "hmceval" / "data_per_dialogue.tsv"
    t0 = time.perf_counter()
    table = load_table(path)
    t_load = time.perf_counter() - t0
    print(f"data: {path.name}, {len(table):,} dialogues (loaded in {t_load:.3f} s); "
          f"5-fold shuffled CV, 100 trees, n_jobs={args.jobs}")
    print(f"{'':28s}    MSE   RMSE    MAE     R2")
    times = {}
    for fs in ("D", "D+W"):
        t = time.perf_counter()
        res = estimate_effort(table, time_col="WorkTimeInSeconds", features=fs, n_jobs=args.jobs)
        times[fs] = time.perf_counter() - t
        print(_row(f"{fs} (max_features 8, seed 397)", res.metrics) +
              f"   {times[fs]:.2f} s wall")
        print(_row(f"{fs} paper Table 4", PAPER[fs]))
    print(f"CV wall time: D {times['D']:.2f} s, D+W {times['D+W']:.2f} s, total "
          f"{times['D'] + times['D+W']:.2f} s = {(times['D'] + times['D+W']) / 600:.2%} of the "
          f"paper's 10-minute bound")
    t = time.perf_counter()
    fs = resolve_feature_set("D+W", table.columns)
    feature_correlations(table[fs.columns], table["WorkTimeInSeconds"])
    print(f"Table 5 correlations (12 features x Pearson/Spearman): {time.perf_counter() - t:.3f} s")

    print("\nmax_features (seed 397)")
    for fs in ("D", "D+W"):
        for mf in (8, 9, 10):
            res = estimate_effort(table, time_col="WorkTimeInSeconds", features=fs,
                                  max_features=mf, n_jobs=args.jobs)
            print(_row(f"{fs} max_features {mf}", res.metrics))

    if args.seeds > 0:
        print(f"\nseed spread (max_features 8, seeds 0..{args.seeds - 1} for folds and forest)")
        for fs in ("D", "D+W"):
            vals = []
            for s in range(args.seeds):
                res = estimate_effort(table, time_col="WorkTimeInSeconds", features=fs,
                                      random_state=s, n_jobs=args.jobs)
                vals.append([res.metrics[k] for k in ("mse", "rmse", "mae", "r2")])
            v = np.array(vals)
            print(f"{fs:4s} R2 min {v[:, 3].min():.4f} mean {v[:, 3].mean():.4f} max {v[:, 3].max():.4f}"
                  f" | RMSE min {v[:, 1].min():.4f} mean {v[:, 1].mean():.4f} max {v[:, 1].max():.4f}")


if __name__ == "__main__":
    main()
