"""Validation of a real evaluation round by simulation: coverage, guarantee violations, widths.

Run: ``python bench/certify.py [--rounds 1000]`` from the project root. On data with gold
labels on every row (the HMCEval release in ``../shared/data/hmceval`` and the built-in demo)
the gold labels are hidden except on the rows the design selects; every round runs the
product's own estimators and certification and compares them with the truth.

Budget mode: lam 0 / 4.6, N/M 0.3-0.85, audits 30-400 (20 regimes per dataset, ``--rounds``
audits each): coverage of the class-share and accuracy intervals at nominal 0.95, their mean
widths, the plain (unsmoothed) normal interval's coverage for comparison, and the width a
simple random sample of the same number of labels would give.

Guarantee mode: ``--rounds`` calibration samples of 1,000 rows (alpha 0.05, delta 0.1, lam 0
and 4.6): violation rate (the machine's true error on the rows it keeps above alpha), median
machine share and the share of rounds that certified anything.

Targets (issue 9): coverage >= 0.94 everywhere; violation <= delta; mean width of the
unsafe-rate interval at lam 0, N/M 0.5, audit 200 on the release <= 0.022.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.data import load_table, prepare  # noqa: E402
from core.demo import make_demo  # noqa: E402
from core.evaluation.simulate import simulate_budget, simulate_certify  # noqa: E402
from core.sae import SAEInputs, n_from_share  # noqa: E402

RELEASE = ROOT.parent / "shared" / "data" / "hmceval" / "ilp_data_trustscore_f2.tsv"

REGIMES = [(lam, q, a) for lam in (0.0, 4.6)
           for q, audits in ((0.3, (30, 200)), (0.5, (30, 100, 200, 400)), (0.7, (30, 200)),
                             (0.85, (30, 200)))
           for a in audits]


def datasets():
    rel = prepare(load_table(RELEASE), name="HMCEval release")
    demo = prepare(make_demo(), name="demo")
    return [("release", rel, "1"), ("demo", demo, None)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=1000, help="rounds per regime (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    worst = 1.0
    t0 = time.perf_counter()
    for name, data, positive in datasets():
        inp = SAEInputs.from_data(data)
        mach = data.frame["machine_label"].to_numpy()
        gold = data.frame["human_label"].to_numpy()
        classes = sorted(set(gold.tolist()) | set(mach.tolist()), key=lambda v: (str(type(v)), v))
        cls = positive if positive is not None else str(classes[-1])
        print(f"\n== {name}: M = {data.M:,}, classes {classes}; share of class {cls!r} "
              f"(true {float((gold.astype(str) == cls).mean()):.4f}) and accuracy, "
              f"{args.rounds} audits per regime ==")
        print(f"{'lam':>4} {'N/M':>5} {'audit':>5} {'labels':>6} | {'cover':>6} {'width':>7} "
              f"{'plain':>6} {'p.width':>7} {'random':>7} {'ratio':>5} | {'acc cov':>7} "
              f"{'acc w':>7} | {'machine':>7}")
        for lam, q, a in REGIMES:
            s = simulate_budget(inp, mach, gold, lam=lam, n_human=n_from_share(q, data.M),
                                audit=a, rounds=args.rounds, seed=args.seed).summary
            covers = [s[k] for k in s if k.startswith("cover_")]
            worst = min(worst, *covers)
            flag = "  <- below 0.94" if min(covers) < 0.94 else ""
            print(f"{lam:>4g} {q:>5.2f} {a:>5} {s['n_labelled']:>6} | {s[f'cover_{cls}']:>6.3f} "
                  f"{s[f'width_{cls}']:>7.4f} {s[f'plain_cover_{cls}']:>6.3f} "
                  f"{s[f'plain_width_{cls}']:>7.4f} {s[f'random_width_{cls}']:>7.4f} "
                  f"{s[f'width_{cls}'] / s[f'random_width_{cls}']:>5.2f} | "
                  f"{s['cover_accuracy']:>7.3f} {s['width_accuracy']:>7.4f} | "
                  f"{s['machine_share']:>7.3f}{flag}")
        for lam in (0.0, 4.6):
            c = simulate_certify(inp, mach, gold, alpha=0.05, delta=0.1, calibration=1000,
                                 lam=lam, rounds=args.rounds, seed=args.seed).summary
            print(f"guarantee alpha 0.05, delta 0.1, calibration 1,000, lam {lam:g}: violation "
                  f"rate {c['violation_rate']:.3f} (<= 0.1), median machine share "
                  f"{c['median_machine_share']:.3f}, certified in {c['certified_rate']:.1%} of "
                  "rounds")
    print(f"\nworst coverage over all regimes and quantities: {worst:.3f} (target >= 0.94); "
          f"{time.perf_counter() - t0:.0f} s")
    print("columns: cover/width = our class-share interval (smoothed normal, FPC); plain = the "
          "unsmoothed normal interval; random = the width of a simple random sample of the same "
          "number of labels; ratio = width / random; acc = exact hypergeometric accuracy bounds;"
          " machine = share of rows left unlabelled")


if __name__ == "__main__":
    main()
