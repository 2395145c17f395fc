"""Benchmark of the SAE: the paper's full grid, one ILP solve, and the fast path at scale.

Run from the project root: ``python bench/sae.py``. Prints figures and ratios measured in
one run (the machine is noisy: compare ratios, not absolute times across runs).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.data import load_table, prepare  # noqa: E402
from core.sae import SAEInputs, n_from_share, solve_fast, solve_ilp, sweep  # noqa: E402


def timed(fn, repeat: int = 3):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    path = ROOT.parent / "shared" / "data" / "hmceval" / "ilp_data_trustscore_f2.tsv"
    inp = SAEInputs.from_data(prepare(load_table(path)))
    lams = np.round(np.arange(0, 45.0001, 0.1), 10)
    shares = np.round(np.arange(0, 1.0001, 0.05), 10)
    t_grid, grid = timed(lambda: sweep(inp, lams=lams, shares=shares))
    n = n_from_share(0.5, inp.M)
    t_fast, fast = timed(lambda: solve_fast(inp, lam=4.6, n_human=n), repeat=5)
    t_ilp, ilp = timed(lambda: solve_ilp(inp, lam=4.6, n_human=n), repeat=3)
    print(f"M = {inp.M:,} (HMCEval release), lambda 0..45 step 0.1 x N/M 0..1 step 0.05")
    print(f"full grid, vectorised sweep : {len(grid):,} points in {t_grid:.3f} s "
          f"({t_grid / len(grid) * 1e6:.1f} us/point)")
    print(f"one fast exact solve        : {t_fast * 1e3:.2f} ms")
    print(f"one cvxpy/HiGHS solve       : {t_ilp:.3f} s (objective {ilp.objective:.6f}, fast path "
          f"{fast.objective:.6f})")
    print(f"ratio ILP solve / fast solve: {t_ilp / t_fast:,.0f}x")
    print(f"ratio ILP solve x {len(grid):,} / vectorised grid: {t_ilp * len(grid) / t_grid:,.0f}x "
          f"(the grid by ILP would take about {t_ilp * len(grid) / 60:.0f} min)")
    rng = np.random.default_rng(0)
    for m in (10**5, 10**6):
        big = SAEInputs.from_arrays(rng.random(m), rng.random(m) * 0.05)
        t_big, res = timed(lambda: solve_fast(big, lam=4.6, n_human=m // 2), repeat=3)
        print(f"fast path, M = {m:>9,}       : {t_big:.3f} s ({res.n_human:,} to humans)")
    gold = rng.integers(0, 2, 10**5)
    big = SAEInputs.from_arrays(rng.random(10**5), rng.random(10**5) * 0.05,
                                machine_label=np.where(rng.random(10**5) < 0.85, gold, 1 - gold),
                                human_label=gold, human_effort=rng.random(10**5), labels=(0, 1))
    t_sw, sw = timed(lambda: sweep(big, lams=np.arange(0, 10, 0.5), shares=shares), repeat=1)
    print(f"sweep, M = 100,000, {len(sw)} points: {t_sw:.3f} s")


if __name__ == "__main__":
    main()
