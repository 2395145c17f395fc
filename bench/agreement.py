"""Benchmark of the agreement and fairness report (target: 10^5 responses, 5 subgroups < 2 s).

Run: ``python bench/agreement.py [--n 100000] [--repeat 3]`` from the project root.

The whole set of metrics is :func:`core.rsm.evaluation_report` on one table: the eval row,
human-human consistency (30 % double-scored), the true-score evaluation, and for the subgroup
column the per-group eval table with DSM, the three OLS fairness analyses and consistency by
group. Scores are ordinal 1..5 (continuous system scores), plus a run with binary labels and
``--rounded``. It also times the machine-vs-gold report on the real HMCEval data
(``../shared/data/hmceval``, 5,673 responses, subgroup = dialogue length).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.rsm import evaluation_report, fairness_analyses  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "hmceval"
TARGET_S = 2.0


def best_of(fn, repeat: int) -> tuple[float, float]:
    """(best, median) wall time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times))


def ordinal_table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    groups = rng.choice(["grp.A", "grp.B", "grp.C", "grp.D", "grp.E"], size=n, p=[0.35, 0.25, 0.2, 0.12, 0.08])
    h = rng.integers(1, 6, size=n).astype(float)
    bias = pd.Series(groups).map({"grp.A": 0.0, "grp.B": 0.05, "grp.C": -0.1, "grp.D": 0.2, "grp.E": 0.0}).to_numpy()
    m = np.clip(h + rng.normal(0, 0.7, size=n) + bias, 1, 5)
    double = rng.random(n) < 0.3
    h2 = np.where(double, np.clip(h + rng.integers(-1, 2, size=n), 1, 5), np.nan)
    return pd.DataFrame({"human": h, "system": m, "human2": h2, "group": groups})


def binary_table(n: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    groups = rng.choice(list("VWXYZ"), size=n)
    gold = (rng.random(n) < 0.25).astype(int)
    flip = rng.random(n) < 0.12
    machine = np.where(flip, 1 - gold, gold)
    return pd.DataFrame({"gold": gold, "machine": machine, "group": groups})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000, help="responses (default 100000)")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions (default 3)")
    args = ap.parse_args()
    n, r = args.n, args.repeat

    df = ordinal_table(n)
    # warm-up (imports, first statsmodels call)
    evaluation_report(df.head(1000), human="human", system="system", human2="human2", groups=["group"])

    full = lambda: evaluation_report(df, human="human", system="system", human2="human2", groups=["group"])  # noqa: E731
    best, med = best_of(full, r)
    print(f"ordinal 1..5, N = {n:,}, 5 subgroups, 30 % double-scored, all metrics:")
    print(f"  best {best:.3f} s, median {med:.3f} s  (target < {TARGET_S:.1f} s: "
          f"{'OK' if best < TARGET_S else 'MISSED'}, {TARGET_S / best:.1f}x headroom)")

    no_groups = lambda: evaluation_report(df, human="human", system="system", human2="human2")  # noqa: E731
    b0, _ = best_of(no_groups, r)
    h = df["human"].to_numpy()
    m = df["system"].to_numpy()
    g = df["group"].to_numpy(dtype=object)
    bf, _ = best_of(lambda: fairness_analyses(h, m, g), r)
    print(f"  of which: whole-set eval + consistency + true score {b0:.3f} s; "
          f"the three OLS fairness analyses {bf:.3f} s")

    rep = full()
    print("  DSM by subgroup: " + ", ".join(
        f"{k} {v['DSM']:+.3f}" for k, v in rep["eval_by_group"].items()))
    print("  fairness: " + ", ".join(
        f"{k} R2 {rep['fairness_by_group'][k]['R2']:+.5f} p {rep['fairness_by_group'][k]['sig']:.2g}"
        for k in ("osa", "osd", "csd")))

    bdf = binary_table(n)
    bb, bm = best_of(lambda: evaluation_report(bdf, human="gold", system="machine", groups=["group"], rounded=True), r)
    print(f"binary labels, N = {n:,}, 5 subgroups, --rounded: best {bb:.3f} s, median {bm:.3f} s")

    if SHARED.is_dir():
        d = pd.read_csv(SHARED / "ilp_data_trustscore_f2.tsv", sep="\t")
        real = lambda: evaluation_report(d, human="target", system="machine_predict", groups=["turns"])  # noqa: E731
        rb, _ = best_of(real, r)
        rep = real()
        print(f"HMCEval MDRDC test set (N = {len(d):,}, {d['turns'].nunique()} dialogue lengths): "
              f"{rb:.3f} s; machine exact agreement {rep['eval']['exact_agr']:.3f} % "
              f"(paper Table 1: accuracy 0.862), kappa {rep['eval']['kappa']:.4f}")
    else:
        print(f"HMCEval data not found at {SHARED}: real-data timing skipped")


if __name__ == "__main__":
    main()
