"""Server time of dashboard interactions at scale (issue 11), with streamlit's AppTest.

Run from the project root: ``python bench/app.py`` (5,673 and 100,000 rows; about 2-4 minutes on
a busy 2-core machine), ``python bench/app.py --million`` adds 1,000,000 rows (much longer);
``--pages tradeoff evaluate`` times only those pages, ``--sizes 1000000`` only those row counts
(besides the release). The figures go to stdout;
streamlit's "no runtime" warnings (AppTest runs without a server) go to stderr
(``2>/dev/null`` hides them).

Datasets: the HMCEval release (``../shared/data/hmceval/ilp_data_trustscore_f2.tsv``, 5,673 rows)
and synthetic tables built here from it: whole dialogues of the release drawn with replacement
(seeded) until the wanted row count, with a small jitter on the confidence (normal, sd 0.01,
clipped to [0, 1]) and the two effort columns (log-normal factor, sd 0.05) so the synthetic rows
do not repeat the release's ties; the labels, turns and the joint distribution are the release's.
Each table is made the active dataset through ``st.session_state`` (``data``, ``data_key``,
``data_source``: see ``pages/_common.py``).

What is timed is the wall time of ``AppTest.run()`` (the server running the page script and
building what it sends; no browser), median over ``--runs`` runs. Every figure is printed with its
ratio to a numpy reference timed in the same run: one stable argsort of 100,000 floats (median of
many calls, measured before and after the page timings). Figures, never assertions.

Interactions:

- Trade-off: first load (a new session with all ``st.cache_data`` caches cleared: what a user
  sees right after making the dataset active), N to a new value, lambda to a new value, rerun at
  a visited (N, lambda);
- Turns: N to a new value (not visited on the Trade-off page either: one assignment solve is
  included);
- Confidence, Fairness, Effort: N to a new value, and a plain rerun (the Effort page without a
  fitted model: its model is trained on a button press, which is not timed here);
- Data: a plain rerun (nothing changed);
- Evaluate (``pages/2a_Evaluate.py``): first load in a new session with caches cleared and an
  empty workspace (the dataset is stored there on this load), and first load in a new session
  once the dataset is stored.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from core.data import EvalData, load_table, prepare  # noqa: E402
from pages._common import fingerprint  # noqa: E402
from _timing import argsort_reference as reference  # noqa: E402

RELEASE = ROOT.parent / "shared" / "data" / "hmceval" / "ilp_data_trustscore_f2.tsv"
PAGES = ROOT / "pages"
TIMEOUT = 1800.0


# ------------------------------------------------------------------------------------ data
def synthetic(release: pd.DataFrame, m: int, *, seed: int = 0) -> pd.DataFrame:
    """``m`` rows of whole release dialogues drawn with replacement, jittered (see the module
    docstring)."""
    rng = np.random.default_rng(seed)
    t = release["turn"].to_numpy()
    start = np.r_[True, t[1:] <= t[:-1]]
    bounds = np.flatnonzero(np.r_[start, True])
    lengths = np.diff(bounds)
    mean_len = lengths.mean()
    picks = rng.integers(0, len(lengths), size=int(m / mean_len * 1.2) + 10)
    while lengths[picks].sum() < m:
        picks = np.r_[picks, rng.integers(0, len(lengths), size=len(picks))]
    rows = np.concatenate([np.arange(bounds[p], bounds[p + 1]) for p in picks])[:m]
    out = release.iloc[rows].reset_index(drop=True)
    conf = out["machine_confidence"].to_numpy() + rng.normal(0, 0.01, m)
    out["machine_confidence"] = np.clip(conf, 0.0, 1.0)
    for col in ("human_effort_groundtruth", "human_effort_predicted_avg"):
        out[col] = out[col].to_numpy() * rng.lognormal(0.0, 0.05, m)
    return out


def state_for(data: EvalData) -> dict:
    return {"data": data, "data_key": fingerprint(data.raw, data.roles), "data_source": "bench"}


# ------------------------------------------------------------------------------------ timing
def new_session(page: str, state: dict) -> AppTest:
    at = AppTest.from_file(str(PAGES / page), default_timeout=TIMEOUT)
    for k, v in state.items():
        at.session_state[k] = v
    return at


def timed_run(at: AppTest) -> float:
    t0 = time.perf_counter()
    at.run()
    dt = time.perf_counter() - t0
    if at.exception:
        print(f"    ! the page raised: {at.exception[0].message}", flush=True)
    return dt


def fresh_workspace() -> None:
    os.environ["HMCEVAL_WORKSPACE"] = tempfile.mkdtemp(prefix="hmceval-bench-ws-")


PAGE_NAMES = ("tradeoff", "turns", "confidence", "fairness", "effort", "data", "evaluate")


def measure(data: EvalData, runs: int, label: str,
            pages: tuple[str, ...] = PAGE_NAMES) -> dict[str, list[float]]:
    state = state_for(data)
    res: dict[str, list[float]] = {}

    def note(key: str, dt: float) -> None:
        res.setdefault(key, []).append(dt)
        print(f"    {label:>9} {key:<44} {dt:8.3f} s", flush=True)

    # Trade-off
    at = None
    for _ in range(runs if "tradeoff" in pages else 0):
        st.cache_data.clear()
        at = new_session("2_Trade-off.py", state)
        note("Trade-off, first load", timed_run(at))
    shares = [0.41 - 0.02 * i for i in range(runs)] if at is not None else []
    for s in shares:
        at.session_state["share"] = s
        note("Trade-off, N to a new value", timed_run(at))
    lams = [5.1 + 0.6 * i for i in range(runs)] if at is not None else []
    for lam in lams:
        at.session_state["lam"] = lam
        note("Trade-off, lambda to a new value", timed_run(at))
    for i in range(runs if at is not None else 0):
        at.session_state["lam"] = lams[i % len(lams)]
        note("Trade-off, rerun at a visited value", timed_run(at))

    if "turns" not in pages:
        return _more(data, runs, label, pages, res, note)
    # Turns (same data; shares not visited above)
    tt = new_session("6_Turns.py", state)
    timed_run(tt)
    for i in range(runs):
        tt.session_state["share"] = 0.23 + 0.02 * i
        note("Turns, N to a new value", timed_run(tt))
    return _more(data, runs, label, pages, res, note)


def _more(data: EvalData, runs: int, label: str, pages: tuple[str, ...], res: dict,
          note) -> dict[str, list[float]]:
    state = state_for(data)
    # Confidence, Fairness, Effort: the pages that follow N and lambda (shares not visited above)
    for page, name in (("3_Confidence.py", "Confidence"), ("5_Fairness.py", "Fairness"),
                       ("4_Effort.py", "Effort")):
        if name.lower() not in pages:
            continue
        pt = new_session(page, state)
        timed_run(pt)
        for i in range(runs):
            pt.session_state["share"] = 0.13 + 0.02 * i
            note(f"{name}, N to a new value", timed_run(pt))
        for _ in range(runs):
            note(f"{name}, plain rerun", timed_run(pt))

    if "data" in pages:
        _data_page(state, runs, note)
    if "evaluate" in pages:
        _evaluate_page(state, runs, note)
    return res


def _data_page(state: dict, runs: int, note) -> None:
    dt_ = new_session("1_Data.py", state)
    timed_run(dt_)
    for _ in range(runs):
        note("Data, plain rerun", timed_run(dt_))


def _evaluate_page(state: dict, runs: int, note) -> None:
    for _ in range(runs):
        st.cache_data.clear()
        fresh_workspace()
        ev = new_session("2a_Evaluate.py", state)
        note("Evaluate, first load (empty workspace)", timed_run(ev))
    for _ in range(runs):
        ev = new_session("2a_Evaluate.py", state)
        note("Evaluate, first load (dataset stored)", timed_run(ev))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per interaction (median; default 3)")
    ap.add_argument("--million", action="store_true", help="also 1,000,000 rows (slow)")
    ap.add_argument("--sizes", type=int, nargs="*", default=None,
                    help="synthetic row counts (default 100000, plus 1000000 with --million)")
    ap.add_argument("--pages", nargs="*", choices=PAGE_NAMES, default=list(PAGE_NAMES),
                    help="pages to time (default: all)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    fresh_workspace()

    release = load_table(RELEASE)
    sizes = args.sizes if args.sizes is not None else [10**5] + ([10**6] if args.million else [])
    datasets = [("5,673", prepare(release, name="HMCEval release"))]
    for m in sizes:
        datasets.append((f"{m:,}", prepare(synthetic(release, m), name=f"synthetic {m:,}")))

    # warm-up: imports and first-use costs of every page, on the demo data
    files = dict(zip(PAGE_NAMES, ("2_Trade-off.py", "6_Turns.py", "3_Confidence.py",
                                   "5_Fairness.py", "4_Effort.py", "1_Data.py", "2a_Evaluate.py")))
    for page in (files[p] for p in args.pages):
        AppTest.from_file(str(PAGES / page), default_timeout=TIMEOUT).run()

    ref0 = reference()
    print(f"reference: one stable argsort of 100,000 floats = {ref0 * 1e3:.3f} ms (median)", flush=True)
    results = {}
    for label, data in datasets:
        print(f"  {label} rows", flush=True)
        results[label] = measure(data, args.runs, label, tuple(args.pages))
    ref1 = reference()
    ref = statistics.median([ref0, ref1])
    print(f"reference after the pages: {ref1 * 1e3:.3f} ms; used: {ref * 1e3:.3f} ms")
    print()
    keys = list(next(iter(results.values())))
    labels = [label for label, _ in datasets]
    head = f"{'page, action (median of ' + str(args.runs) + ' runs)':<46}" + "".join(
        f"{label + ' rows':>26}" for label in labels)
    print(head)
    for key in keys:
        cells = []
        for label in labels:
            med = statistics.median(results[label][key])
            cells.append(f"{med:8.3f} s ({med / ref:8.0f}x ref)")
        print(f"{key:<46}" + "".join(f"{c:>26}" for c in cells))
    print()
    print("targets (issue 11): Trade-off interactions <= 200 ms at 10^5 rows (about 20x ref), "
          "<= 1.5 s at 10^6, first load <= 10 s at 10^6; Turns and Evaluate <= 300 ms per "
          "interaction at 10^5 rows (about 30x ref)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
