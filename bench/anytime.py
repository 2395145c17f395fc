"""The labelling stream's confidence sequences on real tables with gold, by simulation.

For each table (PAC Labels' misinformation headlines judged by GPT-4o, the HMCEval release with
its trust scores, the built-in demo) and each stream design (uniform, weighted: the default),
run many streams with the gold labels as the annotators' and print:

* **time-uniform miscoverage**: the share of streams in which ANY interval of the trace (every
  10 labels; any class share, the final labels' accuracy) or any group's final interval misses
  its truth (nominal 0.05); a rare-class cut of misinfo (5 % misinformation) and a 500-row
  sample of it (a small file) are among the tables;
* **labels to a target**: the median labels a stream takes until the widest class share's
  half-width first reaches H (4 points), against the labels fixed-n PPI++ (``ppi_py.
  ppi_mean_ci``, lam=None, the machine's probabilities as prediction) on uniformly random
  labels needs for the same mean half-width, chosen knowing the truth (the smallest n on a
  grid), and their ratio;
* **decisions**: "share(c) <= x" with x just above and just below the truth: the share of
  streams that decide wrongly (nominal at most 0.05) and the median labels to decide;
* the labels the plan (``hmceval queue --stream --target-half-width``) expects the target to
  take, on the judge's confidences, beside the labels the streams took;
* the price of looking at every label (the sequence's radius against a fixed-n interval's on
  the same labels) and the time per stream.

``--peeking``: what reading ordinary intervals after every import does, and the betting
sequence beside the asymptotic one: fixed-n PPI++ (ppi_py) read after every 10 labels of 200
uniform streams of misinfo, its any-look miscoverage and half-widths, against both sequences.

Usage: ``python bench/anytime.py [--streams 500] [--quick] [--only NAME] [--sequence betting]
[--peeking]``. Needs ``ppi-python`` (the test
extras). Prints figures only; the tests assert a smaller version.
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

from core.evaluation.sampling import machine_probabilities  # noqa: E402
from core.evaluation.estimate import anytime_estimate  # noqa: E402
from core.evaluation.estimate import labels_for_half_width  # noqa: E402
from core.evaluation.sampling import draw_stream, stream_weights  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"


def _misinfo_set(name: str, rows: pd.DataFrame) -> dict:
    return {"name": name, "machine": rows["Yhat (GPT4o)"], "gold": rows["Y"],
            "q": rows["confidence"], "group": rows["topic"]}


def load_sets() -> list[dict]:
    """The tables with gold: misinfo, the release, the demo, and two cuts of misinfo (a rare
    class: every real headline and 59 misinformation ones, 5 %; a small file: 500 rows)."""
    from core.demo import make_demo
    from core.evaluation.sampling import coded_classes

    m = pd.read_csv(SHARED / "pac-labels" / "misinfo.csv")
    h = pd.read_csv(SHARED / "hmceval" / "ilp_data_trustscore_f2.tsv", sep="\t")
    d = make_demo()
    rng = np.random.default_rng(0)
    y = m["Y"].to_numpy()
    rare = np.r_[np.flatnonzero(y == "real"),
                 rng.choice(np.flatnonzero(y == "misinfo"), size=59, replace=False)]
    small = rng.choice(len(m), size=500, replace=False)
    out = [_misinfo_set("misinfo (GPT-4o, verbal)", m),
           {"name": "HMCEval release (trust score)", "machine": h["machine_predict"],
            "gold": h["target"], "q": h["machine_confidence"],
            "effort": h["human_effort_predicted_avg"], "group": h["turn"].clip(upper=4)},
           {"name": "demo", "machine": d["machine_label"], "gold": d["human_label"],
            "q": d["confidence_ts"]},
           _misinfo_set("misinfo, 5 % misinformation (rare class)", m.iloc[np.sort(rare)]),
           _misinfo_set("misinfo, 500 rows (small file)", m.iloc[np.sort(small)])]
    for s in out:
        s["classes"], s["mach"] = coded_classes(s["machine"].to_numpy(object), set(s["gold"]))
        _, s["gld"] = coded_classes(s["gold"].to_numpy(object), s["classes"])
        s["q"] = np.clip(np.asarray(s["q"], dtype=float), 0, 1)
    return out


def ppi_labels_for(s: dict, target: float, rng, draws: int = 60) -> tuple[int, float]:
    """The fewest uniformly random labels whose mean PPI++ half-width (widest class) is at most
    ``target``, on a grid of 5 % steps (the truth known: the gold of every row)."""
    from ppi_py import ppi_mean_ci

    mach, gold, q = s["mach"], s["gld"], s["q"]
    m, k = len(q), len(s["classes"])
    f = machine_probabilities(mach, q, k)

    def mean_half(n: int) -> float:
        hw = []
        for _ in range(draws):
            lab = rng.choice(m, size=n, replace=False)
            unl = np.setdiff1d(np.arange(m), lab)
            widest = 0.0
            for c in range(k):
                lo, hi = ppi_mean_ci((gold[lab] == c).astype(float), f[lab, c], f[unl, c],
                                     alpha=0.05)
                widest = max(widest, (hi[0] - lo[0]) / 2)
            hw.append(widest)
        return float(np.mean(hw))

    n = 50
    while n < m - 1:
        h = mean_half(n)
        if h <= target:
            return n, h
        n = int(n * 1.05) + 1
    return m, float("nan")


def run_streams(s: dict, design: str, streams: int, length: int, target: float,
                method: str = "asymptotic") -> dict:
    mach, gold, q = s["mach"], s["gld"], s["q"]
    m, k = len(q), len(s["classes"])
    truth = np.bincount(gold, minlength=k) / m
    correct = mach == gold
    w = stream_weights(machine_probabilities(mach, q, k), s.get("effort"), design=design)
    c_dec = int(np.argmin(np.abs(truth - 0.5)))  # decide about the class nearest a half
    missed, reach, prices, secs = 0, [], [], []
    decisions = {"inside": [0, 0, []], "outside": [0, 0, []]}  # wrong, decided, labels
    groups = {"group": np.asarray(s["group"], dtype=object)} if "group" in s else None
    for r in range(streams):
        plan = draw_stream(w, length, seed=r)
        for side, shift in (("inside", 0.02), ("outside", -0.02)):
            x = float(np.clip(truth[c_dec] + shift, 0.001, 0.999))
            t0 = time.perf_counter()
            res = anytime_estimate(classes=s["classes"], machine=mach, confidence=q,
                                   order=plan.order, draw_probability=plan.draw_probability,
                                   human=gold[plan.order], weights=plan.weights, groups=groups,
                                   trace_every=10, target_half_width=target,
                                   decide=f"share({s['classes'][c_dec]}) <= {x}", method=method)
            secs.append(time.perf_counter() - t0)
            d = res["decision"]
            rec = decisions[side]
            if d["decided"]:
                rec[1] += 1
                rec[0] += d["answer"] != (truth[c_dec] <= x)
                rec[2].append(d["labels"])
            if side == "outside":
                continue
            bad = False
            for tr in res["trace"]:
                lab = np.zeros(m, bool)
                lab[plan.order[:tr["labels"]]] = True
                final = (correct | lab).mean()
                a = tr["accuracy"]
                bad |= not a["ci_low"] <= final <= a["ci_high"]
                for c, cls in enumerate(s["classes"]):
                    iv = tr["class_shares"][str(cls)]
                    bad |= not iv["ci_low"] <= truth[c] <= iv["ci_high"]
            lab = np.zeros(m, bool)
            lab[plan.order[:res["labels"]]] = True
            for value, g in (res.get("by_group") or {}).get("group", {}).items():
                rows = groups["group"].astype(str) == value
                final = (correct | lab)[rows].mean()
                bad |= not g["accuracy"]["ci_low"] <= final <= g["accuracy"]["ci_high"]
            missed += bad
            reach.append(res["stop"]["labels"] if res["stop"]["reached"] else np.nan)
            if res["price"]["ratio"]:
                prices.append(res["price"]["ratio"])
    return {"miss": missed / streams, "reach": reach, "price": float(np.median(prices)),
            "decisions": decisions, "sec": float(np.mean(secs))}


def peeking(s: dict, streams: int, length: int) -> None:
    """What the stream replaces, and its two sequences side by side, on uniform streams of one
    table: fixed-n PPI++ (ppi_py) read after every 10 labels, against the asymptotic and the
    betting sequence read as often; time-uniform miscoverage of the widest class share, and
    the mean half-width at a few label counts."""
    from ppi_py import ppi_mean_ci

    mach, gold, q = s["mach"], s["gld"], s["q"]
    m, k = len(q), len(s["classes"])
    f = machine_probabilities(mach, q, k)
    c = int(np.argmin(np.abs(np.bincount(gold, minlength=k) / m - 0.5)))
    truth = float(np.mean(gold == c))
    looks = list(range(10, length + 1, 10))
    shown = [n for n in (100, 300, 600) if n <= length]
    w = stream_weights(f, design="uniform")
    out = {name: {"miss": 0, "half": []} for name in ("fixed-n PPI++", "asymptotic", "betting")}
    for r in range(streams):
        plan = draw_stream(w, length, seed=10_000 + r)
        bad, half = False, {}
        for n in looks:
            lab = plan.order[:n]
            unl = np.setdiff1d(np.arange(m), lab)
            lo, hi = ppi_mean_ci((gold[lab] == c).astype(float), f[lab, c], f[unl, c], alpha=0.05)
            bad |= not lo[0] <= truth <= hi[0]
            if n in shown:
                half[n] = (hi[0] - lo[0]) / 2
        out["fixed-n PPI++"]["miss"] += bad
        out["fixed-n PPI++"]["half"].append([half[n] for n in shown])
        for method in ("asymptotic", "betting"):
            res = anytime_estimate(classes=s["classes"], machine=mach, confidence=q,
                                   order=plan.order, draw_probability=plan.draw_probability,
                                   human=gold[plan.order], weights=plan.weights,
                                   trace_every=10, method=method)
            ivs = {t["labels"]: t["class_shares"][str(s["classes"][c])] for t in res["trace"]}
            out[method]["miss"] += any(not iv["ci_low"] <= truth <= iv["ci_high"]
                                       for iv in ivs.values())
            out[method]["half"].append([(ivs[n]["ci_high"] - ivs[n]["ci_low"]) / 2
                                        for n in shown])
    print(f"\n{s['name']}: {streams} uniform streams of {length:,}, share of "
          f"{s['classes'][c]!r} looked at every 10 labels; half-width at {shown} labels")
    for name, rec in out.items():
        half = ", ".join(f"{h:.4f}" for h in np.mean(rec["half"], axis=0))
        print(f"  {name:>14}: any-look miscoverage {rec['miss'] / streams:.3f}; mean "
              f"half-width {half}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--streams", type=int, default=500)
    ap.add_argument("--target", type=float, default=0.04, help="target half-width (default 0.04)")
    ap.add_argument("--quick", action="store_true", help="60 streams, misinfo only")
    ap.add_argument("--only", default=None, help="only the tables whose name contains this")
    ap.add_argument("--sequence", choices=("asymptotic", "betting"), default="asymptotic",
                    help="the sequence measured (betting: valid in finite samples, slower)")
    ap.add_argument("--peeking", action="store_true",
                    help="only: fixed-n PPI++ read after every 10 labels against the asymptotic "
                         "and betting sequences, on uniform streams of misinfo (1,176 labels)")
    args = ap.parse_args()
    sets = load_sets()
    if args.peeking:
        peeking(sets[0], min(args.streams, 200), 1176)
        return
    if args.quick:
        args.streams, sets = 60, sets[:1]
    if args.only:
        sets = [s for s in sets if args.only in s["name"]]
    rng = np.random.default_rng(0)
    print(f"{args.streams} streams per cell; trace every 10 labels; target half-width "
          f"{args.target:g}; 95 % {args.sequence} sequences")
    for s in sets:
        m = len(s["q"])
        n_ppi, h_ppi = ppi_labels_for(s, args.target, rng)
        length = int(min(m, max(3 * n_ppi, 200)))
        if not np.isfinite(h_ppi):
            print(f"\n{s['name']}: M = {m:,}: fixed-n PPI++ never reaches {args.target:g} "
                  "within the table; streams of the whole table")
        # what hmceval queue --stream --target-half-width promises before any label
        planned = labels_for_half_width(float(np.sqrt(np.mean(s["q"] * (1 - s["q"])))),
                                        args.target)
        print(f"\n{s['name']}: M = {m:,}, classes {s['classes']}, machine accuracy "
              f"{(s['mach'] == s['gld']).mean():.3f}; fixed-n PPI++ needs {n_ppi:,} random "
              f"labels for a mean widest half-width of {h_ppi:.4f}; streams of {length:,}; "
              f"the plan (queue --stream) expects the target after {planned:,} labels")
        for design in ("uniform", "weighted"):
            r = run_streams(s, design, args.streams, length, args.target, args.sequence)
            reach = np.asarray(r["reach"], dtype=float)
            med = float(np.nanmedian(reach)) if np.isfinite(reach).any() else float("nan")
            ins, out = r["decisions"]["inside"], r["decisions"]["outside"]
            ratio = (f"{med / n_ppi:.2f}x PPI++'s" if np.isfinite(h_ppi) else
                     "PPI++ never gets there")
            print(f"  {design:>8}: time-uniform miscoverage {r['miss']:.3f}; target reached in "
                  f"{np.isfinite(reach).mean():.0%} of streams, median {med:,.0f} labels "
                  f"({ratio}); price {r['price']:.2f}x a fixed-n interval")
            for name, rec, total in (("truth inside", ins, args.streams),
                                     ("truth outside", out, args.streams)):
                rate = rec[0] / total
                lab = f"median {np.median(rec[2]):,.0f} labels" if rec[2] else "never"
                print(f"            decision, {name} by 2 points: wrong {rate:.3f} of streams, "
                      f"decided {rec[1] / total:.0%} ({lab})")
            print(f"            {r['sec'] * 1000:.0f} ms per estimate of a whole stream")


if __name__ == "__main__":
    main()
