"""The plan against what comes true: planned (point and range) vs realised final accuracy and
half-width, on real judges, with and without an earlier round to calibrate on (issue 30 item 3).

For each table (PAC Labels' misinfo headlines judged by GPT-4o; the HMCEval release, whose
confidence is a trust score) and a budget, repeat a round many times with the truth known:

* **no labels**: ``hmceval queue --design active --labels B`` planned on the confidences as
  reported (``plan_design`` with the estimate's expected half-width, as ``queue`` plans), drawn
  with a new seed each round;
* **150 earlier labels**: a first round of 150 random labels, then the rest of the budget
  planned on the confidences recalibrated on them (``--calibrate-on``), the 150 carried;
* **two batches**: the pilot of :mod:`core.evaluation.sampling.two_batch` (20 % of the budget, half
  towards the less sure rows), then the rest planned on its labels, weighted by 1 / pi, for
  the two-stage interval, and estimated in two stages (as ``queue --calibrate-on`` and
  ``estimate`` do).

Per cell it prints the plan's expected final accuracy and widest class-share half-width (the
point, and the ``expected_range`` the plan now reports; on labels, the half-width the estimate
is expected to report, ``width_model`` = ``estimator_half_width`` as ``queue`` plans), what the rounds realise (the final
labels' true accuracy; the widest half-width of the estimate ``hmceval estimate`` gives), and
how often the realised value falls inside the planned range.

Usage: ``python bench/plan_truth.py [--rounds 100] [--quick]``. Prints figures only.
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

from core.evaluation.sampling import plan_design  # noqa: E402
from core.evaluation.sampling import EarlierLabels, load_design  # noqa: E402
from core.evaluation.sampling import draw  # noqa: E402
from core.evaluation.sampling import pilot_probabilities  # noqa: E402
from core.evaluation.estimate import (estimator_half_width, pilot_half_width,  # noqa: E402
                                      two_stage_estimates, weighted_estimates)

SHARED = ROOT.parent / "shared" / "data"
N_EARLIER = 150


def load_sets() -> list[dict]:
    m = pd.read_csv(SHARED / "pac-labels" / "misinfo.csv")
    h = pd.read_csv(SHARED / "hmceval" / "ilp_data_trustscore_f2.tsv", sep="\t")
    out = [{"name": "misinfo, 15 %", "machine": m["Yhat (GPT4o)"], "gold": m["Y"],
            "q": m["confidence"], "labels": 289}]
    from core.demo import make_demo

    d = make_demo()
    for share in (0.15, 0.5):
        out.append({"name": f"HMCEval release, {share:.0%}", "machine": h["machine_predict"],
                    "gold": h["target"], "q": h["machine_confidence"],
                    "labels": round(share * len(h))})
        out.append({"name": f"demo, {share:.0%}", "machine": d["machine_label"],
                    "gold": d["human_label"], "q": d["confidence_ts"],
                    "labels": round(share * len(d))})
    for s in out:
        classes = sorted(set(s["gold"]) | set(s["machine"]), key=str)
        idx = {c: i for i, c in enumerate(classes)}
        s["mach"] = np.array([idx[v] for v in s["machine"]])
        s["gld"] = np.array([idx[v] for v in s["gold"]])
        s["q"] = np.asarray(s["q"], dtype=float)
        s["k"] = max(len(classes), 2)
        s["design"] = load_design(pd.DataFrame({"machine_label": s["mach"],
                                                "machine_confidence": s["q"]}))
    return out


def realised(s: dict, xi: np.ndarray, pi: np.ndarray, pilot: tuple | None = None
             ) -> tuple[float, float]:
    """(true accuracy of the final labels, widest class-share half-width of the estimate;
    ``pilot`` = (its rows, p1): in two stages, as ``hmceval estimate`` reads such a round)."""
    mach, gold = s["mach"], s["gld"]
    acc = float((np.where(xi, gold, mach) == gold).mean())
    if pilot is not None:
        first = np.zeros(len(mach), dtype=bool)
        first[pilot[0]] = True
        res = two_stage_estimates(mach, np.where(xi, gold, -1), xi, pi, s["q"],
                                  n_classes=s["k"], pilot=first, pilot_pi=pilot[1])
    else:
        res = weighted_estimates(mach, np.where(xi, gold, -1), xi, pi, s["q"],
                                 n_classes=s["k"])
    halves = [x["half_width"] for x in res["class_shares"] if x["half_width"] is not None]
    return acc, max(halves) if halves else float("nan")


def cell(s: dict, rounds: int, earlier: bool | str) -> dict:
    m, budget = len(s["q"]), s["labels"]
    rows_ = []
    pick = np.random.default_rng(7)
    plan = None if earlier else plan_design(s["design"], labels=budget, seed=0,
                                            width_model=estimator_half_width)
    p1 = pilot_probabilities(s["q"], budget) if earlier == "two batches" else None
    for r in range(rounds):
        if earlier == "two batches":  # the pilot, then the rest planned on its labels
            rows = np.flatnonzero(draw(p1, seed=90_000 + r))
            e = EarlierLabels(rows=rows, labels=s["gld"][rows], source="pilot",
                              weights=1 / p1[rows], inclusion=p1)
            # planned for the two-stage interval, as queue --calibrate-on plans it
            half1 = pilot_half_width(s["mach"], s["q"], s["k"], rows=rows,
                                     human_codes=s["gld"][rows], pilot_pi=p1)
            plan = plan_design(s["design"], labels=max(budget - len(rows), 1), seed=r,
                               earlier=e, pilot_half=half1, width_model=estimator_half_width)
        elif earlier:
            rows = np.sort(pick.choice(m, N_EARLIER, replace=False))
            e = EarlierLabels(rows=rows, labels=s["gld"][rows], source="round 1")
            plan = plan_design(s["design"], labels=budget - N_EARLIER, seed=r, earlier=e,
                               width_model=estimator_half_width)
        pi = plan.inclusion
        xi = draw(pi, seed=10_000 + r)
        acc, half = realised(s, xi, pi, (rows, p1) if earlier == "two batches" else None)
        rg = plan.expected_range
        rows_.append({"p_acc": plan.design.expected_accuracy,
                      "p_half": plan.design.expected_half_width,
                      "lo_acc": rg["expected_accuracy"][0], "hi_acc": rg["expected_accuracy"][1],
                      "lo_half": rg["expected_half_width"][0],
                      "hi_half": rg["expected_half_width"][1], "acc": acc, "half": half})
    t = pd.DataFrame(rows_)
    return {"mean": t.mean(), "acc_in": float(((t.acc >= t.lo_acc) & (t.acc <= t.hi_acc)).mean()),
            "half_in": float(((t.half >= t.lo_half) & (t.half <= t.hi_half)).mean()),
            "labels": int(budget)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rounds = 10 if args.quick else args.rounds
    sets = load_sets()
    print(f"## planned vs realised, {rounds} rounds per cell (accuracy: the final labels' true "
          "accuracy; half-width: the widest class share's, as estimated)")
    print("| data, labels | plan rests on | planned accuracy (range) | realised | in range | "
          "planned half-width (range) | realised | in range |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in sets:
        for earlier in (False, True, "two batches"):
            if earlier == "two batches" and s["labels"] < 120:
                continue
            t0 = time.perf_counter()
            c = cell(s, rounds, earlier)
            mu = c["mean"]
            basis = ("a pilot of 20 % (two batches)" if earlier == "two batches" else
                     f"{N_EARLIER} earlier labels" if earlier else "confidences as reported")
            print(f"| {s['name']}, {c['labels']} | {basis} | {mu.p_acc:.1%} "
                  f"({mu.lo_acc:.1%}-{mu.hi_acc:.1%}) | {mu.acc:.1%} | {c['acc_in']:.2f} | "
                  f"±{mu.p_half:.2%} (±{mu.lo_half:.2%}-±{mu.hi_half:.2%}) | ±{mu.half:.2%} | "
                  f"{c['half_in']:.2f} |", flush=True)
            print(f"<!-- {time.perf_counter() - t0:.0f} s -->", file=sys.stderr)


if __name__ == "__main__":
    main()
