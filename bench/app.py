"""Server time of dashboard interactions at scale (issue 11), with streamlit's AppTest.

Run from the project root: ``python bench/app.py`` (5,673 and 100,000 rows; about 4-6 minutes on
a busy 2-core machine, the Effort training included), ``python bench/app.py --million`` adds 1,000,000 rows (much longer);
``--pages tradeoff evaluate`` times only those pages, ``--sizes 1000000`` only those row counts
(besides the release). The figures go to stdout;
streamlit's "no runtime" warnings (AppTest runs without a server) go to stderr
(``2>/dev/null`` hides them).

Datasets: the HMCEval release (``../shared/data/hmceval/ilp_data_trustscore_f2.tsv``, 5,673 rows)
and synthetic tables built here from it: whole dialogues of the release drawn with replacement
(seeded) until the wanted row count, with a small jitter on the confidence (normal, sd 0.01,
clipped to [0, 1]) and the two effort columns (log-normal factor, sd 0.05) so the synthetic rows
do not repeat the release's ties; the labels, turns and the joint distribution are the release's.
Every table, the release's too, gets the columns the release lacks (``decorate``, seeded): three
subgroup columns, ``system`` (4 levels, shares 40/30/20/10 %) and ``topic`` (5 levels, uniform),
both drawn once per dialogue, and ``dialogue_length`` (short <= 4 turns, medium <= 6, long, from
the release's ``turns``); and a turn text ``response`` (a phrase that follows the gold label and a
word count), so that the Fairness page runs its per-subgroup analyses and the Effort page fits
its model on the active dataset. They are mapped as the Data page maps them (``roles``
``subgroups`` and ``text`` of :func:`core.data.prepare`). Each table is made the active dataset
through ``st.session_state`` (``data``, ``data_key``, ``data_source``: see ``pages/_common.py``).

What is timed is the wall time of ``AppTest.run()`` (the server running the page script and
building what it sends; no browser), median over ``--runs`` runs. Every figure is printed with its
ratio to a numpy reference timed in the same run: one stable argsort of 100,000 floats (median of
many calls, measured before and after the page timings). Figures, never assertions.

Interactions:

- Trade-off: first load (a new session with all ``st.cache_data`` caches cleared: what a user
  sees right after making the dataset active), N to a new value, lambda to a new value, rerun at
  a visited (N, lambda); then the mode radio to "exactly N" (``mode``), N and lambda to new
  values in that mode, and a plain rerun;
- Turns: N to a new value (not visited on the Trade-off page either: one assignment solve is
  included);
- Confidence: N to a new value and a plain rerun;
- Fairness, with the subgroup column ``system`` selected (the page preselects the first
  subgroup column): first load, N to a new value and a plain rerun comparing the machine; the
  comparison switched to the collaborative result, N to a new value and a plain rerun there;
  then the subgroup selection changed (``topic``, ``dialogue_length``, ``system`` + ``topic``);
- Effort: the first load extracts the dialogue features from the turn texts and fits the
  models (the page fits by itself once it has a table; printed as "training"), then N to a new
  value and a plain rerun with the fitted models;
- Data: a plain rerun (nothing changed);
- Evaluate (``pages/2a_Evaluate.py``): first load in a new session with caches cleared and an
  empty workspace (the dataset is stored there on this load), and first load in a new session
  once the dataset is stored; then, in that session, the audit size to a new value, a plain
  rerun, planning a round (the button; twice, with seeds 1 and 2), a plain rerun with a round
  shown, switching the round shown, and the mode radio between budget and guarantee.

First loads, training and planning a round are printed for reference; the targets of issue 11
are for the other interactions.
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
    return decorate(out, seed=seed)


SYSTEMS = ("seq2seq", "retrieval", "gpt2-ft", "blender")
TOPICS = ("travel", "politics", "health", "sports", "relationships")
PHRASES_OK = ("sure", "that sounds great", "I love hiking", "maybe next week", "thanks a lot",
              "what do you think", "let's talk about it", "I agree with you")
PHRASES_BAD = ("you are stupid", "nobody cares about you", "shut up", "go away loser",
               "that is a dumb question")


def decorate(df: pd.DataFrame, *, seed: int = 0) -> pd.DataFrame:
    """The table with the columns the release lacks and the pages need (see the module
    docstring): subgroups ``system`` (4 levels), ``topic`` (5 levels), both drawn once per
    dialogue, and ``dialogue_length`` (short / medium / long, from the release's ``turns``); the
    turn text ``response`` (a phrase that follows the gold label, and a word count)."""
    rng = np.random.default_rng(seed + 1)
    t = df["turn"].to_numpy()
    d_of = np.cumsum(np.r_[True, t[1:] <= t[:-1]]) - 1
    n_d = int(d_of[-1]) + 1
    out = df.copy()
    out["system"] = np.array(SYSTEMS)[rng.choice(4, n_d, p=[0.4, 0.3, 0.2, 0.1])][d_of]
    out["topic"] = np.array(TOPICS)[rng.integers(0, len(TOPICS), n_d)][d_of]
    turns = df["turns"].to_numpy()
    out["dialogue_length"] = np.where(turns <= 4, "short", np.where(turns <= 6, "medium", "long"))
    m = len(df)
    words = rng.integers(4, 28, m)
    bad = df["target"].to_numpy() == 1
    phrase = np.where(bad, np.array(PHRASES_BAD)[rng.integers(0, len(PHRASES_BAD), m)],
                      np.array(PHRASES_OK)[rng.integers(0, len(PHRASES_OK), m)])
    out["response"] = [f"{p} ({w} words)" for p, w in zip(phrase, words)]
    return out


#: The roles the bench maps besides detection's (what a user sets on the Data page).
ROLES = {"subgroups": ["system", "topic", "dialogue_length"], "text": ["response"]}


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
        print(f"    {label:>9} {key:<48} {dt:8.3f} s", flush=True)

    # Trade-off ("at most" N, the default mode)
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
    if at is not None:  # "exactly N": the mode radio, then N and lambda moves in that mode
        at.session_state["mode"] = "exactly"
        note("Trade-off exactly, mode switch", timed_run(at))
        for i in range(runs):
            at.session_state["share"] = 0.37 - 0.02 * i
            note("Trade-off exactly, N to a new value", timed_run(at))
        for i in range(runs):
            at.session_state["lam"] = 2.3 + 0.7 * i
            note("Trade-off exactly, lambda to a new value", timed_run(at))
        for i in range(runs):
            note("Trade-off exactly, plain rerun", timed_run(at))

    if "turns" in pages:  # same data; shares not visited above
        tt = new_session("6_Turns.py", state)
        timed_run(tt)
        for i in range(runs):
            tt.session_state["share"] = 0.23 + 0.02 * i
            note("Turns, N to a new value", timed_run(tt))
    if "confidence" in pages:
        _follower(state, runs, note, "3_Confidence.py", "Confidence", 0.13)
    if "fairness" in pages:
        _fairness_page(state, runs, note)
    if "effort" in pages:
        _effort_page(state, runs, note)
    if "data" in pages:
        _data_page(state, runs, note)
    if "evaluate" in pages:
        _evaluate_page(state, runs, note)
    return res


def _follower(state: dict, runs: int, note, page: str, name: str, share0: float,
              at: AppTest | None = None) -> AppTest:
    """N to a new value (shares not visited elsewhere) and a plain rerun of a page that follows
    the current assignment."""
    if at is None:
        at = new_session(page, state)
        timed_run(at)
    for i in range(runs):
        at.session_state["share"] = share0 + 0.02 * i
        note(f"{name}, N to a new value", timed_run(at))
    for _ in range(runs):
        note(f"{name}, plain rerun", timed_run(at))
    return at


def _fairness_page(state: dict, runs: int, note) -> None:
    """The Fairness page with a subgroup column selected (the first one, ``system``, as the page
    preselects): N moves and reruns comparing the machine, then the collaborative result, then
    changes of the subgroup column (each to a column not shown before in this session)."""
    ft = new_session("5_Fairness.py", state)
    note("Fairness, first load (subgroup system)", timed_run(ft))
    if list(ft.session_state["fair_groups"]) != ["system"]:
        print(f"    ! subgroups selected: {ft.session_state['fair_groups']}", flush=True)
    _follower(state, runs, note, "5_Fairness.py", "Fairness", 0.13, at=ft)
    ft.session_state["fair_compare"] = "collaborative"
    note("Fairness collaborative, compare switch", timed_run(ft))
    _follower(state, runs, note, "5_Fairness.py", "Fairness collaborative", 0.19, at=ft)
    for groups in (["topic"], ["dialogue_length"], ["system", "topic"])[:max(runs, 1)]:
        ft.session_state["fair_groups"] = groups
        note("Fairness collaborative, subgroup change", timed_run(ft))


def _effort_page(state: dict, runs: int, note) -> None:
    """The Effort page on the active dataset's turn texts: the first load extracts the features
    and fits the models (the page fits on its own when a table is there: printed as "training"),
    then N moves and plain reruns with the fitted models."""
    et = new_session("4_Effort.py", state)
    dt = timed_run(et)
    fit = [b for b in et.button if b.key == "_w_eff_fit"]
    if fit:  # above EFFORT_AUTO_FIT_ROWS dialogues the page fits on a button press
        fit[0].click()
        dt += timed_run(et)
    note("Effort, training (first load)", dt)
    if not et.get("plotly_chart"):
        print("    ! the Effort page fitted no model", flush=True)
    _follower(state, runs, note, "4_Effort.py", "Effort (fitted)", 0.25, at=et)


def _data_page(state: dict, runs: int, note) -> None:
    dt_ = new_session("1_Data.py", state)
    timed_run(dt_)
    for _ in range(runs):
        note("Data, plain rerun", timed_run(dt_))


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _evaluate_page(state: dict, runs: int, note) -> None:
    for _ in range(runs):
        st.cache_data.clear()
        fresh_workspace()
        ev = new_session("2a_Evaluate.py", state)
        note("Evaluate, first load (empty workspace)", timed_run(ev))
    for _ in range(runs):
        ev = new_session("2a_Evaluate.py", state)
        note("Evaluate, first load (dataset stored)", timed_run(ev))
    # interactions in one session: the budget plan's audit size, plain reruns, planning rounds,
    # switching the round shown, and the plan's mode (budget <-> guarantee)
    for i in range(runs):
        ev.number_input(key="_w_ev_audit").set_value(300 + 50 * i)
        note("Evaluate, audit size to a new value", timed_run(ev))
    for _ in range(runs):
        note("Evaluate, plain rerun (no round)", timed_run(ev))
    for i in range(2):
        ev.number_input(key="_w_ev_seed").set_value(i + 1)
        timed_run(ev)
        _button(ev, "Plan the round").click()
        note("Evaluate, plan a round (button)", timed_run(ev))
    for _ in range(runs):
        note("Evaluate, plain rerun (a round shown)", timed_run(ev))
    for _ in range(runs):
        box = ev.selectbox(key="_w_ev_round_id")
        box.set_value(next(r for r in _round_ids(ev) if r != box.value))
        note("Evaluate, round switch", timed_run(ev))
    for i in range(runs):
        ev.radio(key="_w_ev_kind").set_value("guarantee" if i % 2 == 0 else "budget")
        note("Evaluate, mode switch (budget/guarantee)", timed_run(ev))


def _round_ids(at: AppTest) -> list[int]:
    """The ids of the rounds the Round box offers (its options read "#<id> · ...")."""
    return [int(o.split(" ", 1)[0].lstrip("#")) for o in at.selectbox(key="_w_ev_round_id").options]


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
    datasets = [("5,673", prepare(decorate(release), ROLES, name="HMCEval release"))]
    for m in sizes:
        datasets.append((f"{m:,}", prepare(synthetic(release, m), ROLES, name=f"synthetic {m:,}")))

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
    keys = list(dict.fromkeys(k for r in results.values() for k in r))
    labels = [label for label, _ in datasets]
    head = f"{'page, action (median of ' + str(args.runs) + ' runs)':<52}" + "".join(
        f"{label + ' rows':>26}" for label in labels)
    print(head)
    for key in keys:
        cells = []
        for label in labels:
            if key not in results[label]:
                cells.append("—")
                continue
            med = statistics.median(results[label][key])
            cells.append(f"{med:8.3f} s ({med / ref:8.0f}x ref)")
        print(f"{key:<52}" + "".join(f"{c:>26}" for c in cells))
    print()
    print("targets (issue 11): Trade-off interactions (both modes) <= 200 ms at 10^5 rows (about "
          "20x ref), <= 1.5 s at 10^6, first load <= 10 s at 10^6; Turns, Fairness, Confidence, "
          "Effort (fitted) and Evaluate <= 300 ms per interaction at 10^5 rows (about 30x ref); "
          "first loads, training and planning a round are not interactions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
