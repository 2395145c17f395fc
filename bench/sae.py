"""Benchmark of the SAE: the paper's full grid, one ILP solve, and the fast path at scale.

Run from the project root: ``python bench/sae.py``. Prints figures and ratios measured in
one run (the machine is noisy: compare ratios, not absolute times across runs).

``python bench/sae.py --tradeoff`` (issue 11) times instead the core calls behind the Trade-off
page's interactions, in both budget modes, on synthetic tables of 10^5 and 10^6 rows built as
``bench/app.py`` builds them (whole release dialogues drawn with replacement, confidence and
effort jittered): an N move (``lambda_range`` at the new N, the solve and its metrics, the curve
against lambda at the new N), a lambda move (the solve and its metrics, the curve against N/M),
``lambda_range`` and the lambda curve alone, the frontier grid (first load and a mode switch),
and the gain cells the curves share (built once per dataset). Best of 3 wall times, each with
its ratio to one stable argsort of 100,000 floats timed in the same run (``_timing``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.data import load_table, prepare  # noqa: E402
from core.assignment import (SAEInputs, evaluate, lambda_grid, lambda_range, n_from_share,  # noqa: E402
                      solve_fast, solve_ilp, sweep)
from _timing import argsort_reference  # noqa: E402

RELEASE = ROOT.parent / "shared" / "data" / "hmceval" / "ilp_data_trustscore_f2.tsv"


def timed(fn, repeat: int = 3):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def synthetic_inputs(release, m: int, *, seed: int = 0) -> SAEInputs:
    """``m`` rows of whole release dialogues drawn with replacement, with the jitter of
    ``bench/app.py`` (confidence: normal, sd 0.01, clipped; efforts: log-normal factor, sd 0.05)."""
    rng = np.random.default_rng(seed)
    t = release["turn"].to_numpy()
    bounds = np.flatnonzero(np.r_[True, t[1:] <= t[:-1], True])
    lengths = np.diff(bounds)
    picks = rng.integers(0, len(lengths), size=int(m / lengths.mean() * 1.2) + 10)
    while lengths[picks].sum() < m:
        picks = np.r_[picks, rng.integers(0, len(lengths), size=len(picks))]
    rows = np.concatenate([np.arange(bounds[p], bounds[p + 1]) for p in picks])[:m]
    out = release.iloc[rows].reset_index(drop=True)
    out["machine_confidence"] = np.clip(out["machine_confidence"].to_numpy()
                                        + rng.normal(0, 0.01, m), 0.0, 1.0)
    for col in ("human_effort_groundtruth", "human_effort_predicted_avg"):
        out[col] = out[col].to_numpy() * rng.lognormal(0.0, 0.05, m)
    return SAEInputs.from_data(prepare(out, name=f"synthetic {m:,}"))


def curve_grid(inp: SAEInputs, n: int, mode: str) -> np.ndarray:
    """The Trade-off page's lambda grid of its curve against lambda at N."""
    rng = lambda_range(inp, n_human=n, mode=mode)
    if rng.upper <= 0:
        return np.array([0.0, 1.0])
    low = max(rng.first or rng.upper / 1e5, rng.upper / 1e5) / 2
    return np.unique(np.r_[lambda_grid(rng.upper, lower=rng.first),
                           np.geomspace(low, rng.upper, 120)])


def tradeoff() -> None:
    """The Trade-off page's core calls at 10^5 and 10^6 rows, both modes (module docstring)."""
    release = load_table(RELEASE)
    ref0 = argsort_reference()
    print(f"reference: one stable argsort of 100,000 floats = {ref0 * 1e3:.3f} ms (median)",
          flush=True)
    share_grid = np.round(np.arange(0, 1.0001, 0.01), 10)
    rows = []
    for m in (10**5, 10**6):
        inp = synthetic_inputs(release, m)
        inp.label_codes  # encoded once per dataset on the page too
        if hasattr(SAEInputs, "gain_cells"):  # (absent before issue 11)
            t, _ = timed(lambda: SAEInputs.from_arrays(inp.a, inp.l, b=inp.b, k=inp.k).gain_cells,
                         repeat=2)
            rows.append((m, "-", "gain cells (once per dataset)", t))
        whole = lambda_range(inp, n_human=m, mode="at_most")
        grid_lams = lambda_grid(whole.upper, lower=whole.first)
        shares20 = np.round(np.arange(0, 1.0001, 0.05), 10)
        for mode in ("exactly", "at_most"):
            sweep(inp, lams=curve_grid(inp, m // 2, mode), n_values=[m // 2], mode=mode)  # warm
            t, _ = timed(lambda: sweep(inp, lams=grid_lams, shares=shares20, mode=mode), repeat=2)
            rows.append((m, mode, f"frontier grid ({len(grid_lams)} lambda x 21 N)", t))
            moves = iter(n_from_share(s, m) for s in (0.41, 0.39, 0.37, 0.35, 0.33, 0.31))

            def n_move() -> None:
                n = next(moves)
                lams = curve_grid(inp, n, mode)
                evaluate(inp, solve_fast(inp, lam=4.6, n_human=n, mode=mode))
                sweep(inp, lams=lams, n_values=[n], mode=mode)

            rows.append((m, mode, "N move (range, solve, curve vs lambda)", timed(n_move)[0]))
            lam_moves = iter((5.1, 5.7, 6.3, 6.9))

            def lam_move() -> None:
                lam = next(lam_moves)
                evaluate(inp, solve_fast(inp, lam=lam, n_human=m // 2, mode=mode))
                sweep(inp, lams=[lam], shares=share_grid, mode=mode)

            rows.append((m, mode, "lambda move (solve, curve vs N/M)", timed(lam_move)[0]))
            n = n_from_share(0.41, m)
            t, _ = timed(lambda: lambda_range(inp, n_human=n, mode=mode))
            rows.append((m, mode, "lambda_range alone", t))
            lams = curve_grid(inp, n, mode)
            t, _ = timed(lambda: sweep(inp, lams=lams, n_values=[n], mode=mode))
            rows.append((m, mode, f"curve vs lambda alone ({len(lams)} lambdas)", t))
    ref1 = argsort_reference()
    ref = (ref0 + ref1) / 2
    print(f"reference after: {ref1 * 1e3:.3f} ms; used: {ref * 1e3:.3f} ms")
    print(f"{'rows':>9}  {'mode':<8} {'core calls':<44} {'seconds':>9} {'x ref':>8}")
    for m, mode, what, t in rows:
        print(f"{m:>9,}  {mode:<8} {what:<44} {t:9.3f} {t / ref:8.0f}")
    print("targets (issue 11): every Trade-off interaction <= 200 ms of server time at 10^5 rows "
          "(about 20x ref), <= 1.5 s at 10^6; first load <= 10 s at 10^6 (page totals: "
          "bench/app.py)")


def main() -> None:
    if "--tradeoff" in sys.argv[1:]:
        tradeoff()
        return
    path = RELEASE
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
