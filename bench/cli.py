"""Benchmark of the command line's start-up and of ``hmceval assign --json`` on the HMCEval release.

Run from the project root: ``python bench/cli.py``. Each command is timed as a whole process
(``subprocess``, wall clock), the runs of the command and of its reference interleaved, and the
medians and the median of the per-pair ratios are printed (the machine is noisy: quote ratios).

References, timed in the same run:

* ``hmceval --help`` against a bare ``python -c pass``;
* ``hmceval assign RELEASE --lam 4.6 --human-share 0.5 --json`` against a plain numpy/pandas
  script doing the same work: read the table, compute the gains, take the top N with a stable
  sort, and print accuracy, macro precision/recall/F1, human ratio and time cost as JSON.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASE = ROOT.parent / "shared" / "data" / "hmceval" / "ilp_data_trustscore_f2.tsv"

REFERENCE = r'''
import json, sys
import numpy as np
import pandas as pd

df = pd.read_csv(sys.argv[1], sep="\t")
conf = df["machine_confidence"].to_numpy(float)
effort = df["human_effort_predicted_avg"].to_numpy(float)
true_effort = df["human_effort_groundtruth"].to_numpy(float)
gold = df["target"].to_numpy()
machine = df["machine_predict"].to_numpy()
lam, M = 4.6, len(df)
n = int(np.floor(0.5 * M))
gain = (1.0 - lam * effort) - conf
order = np.argsort(-gain, kind="stable")[:n]
order = order[gain[order] > 0]
human = np.zeros(M, bool)
human[order] = True
final = np.where(human, gold, machine)
labels = np.unique(np.concatenate([gold, machine]))
p, r, f = [], [], []
for c in labels:
    tp = np.sum((final == c) & (gold == c))
    pp, tt = np.sum(final == c), np.sum(gold == c)
    pc = tp / pp if pp else 0.0
    rc = tp / tt if tt else 0.0
    p.append(pc); r.append(rc); f.append(2 * pc * rc / (pc + rc) if pc + rc else 0.0)
print(json.dumps({"M": M, "N": n, "n_human": int(human.sum()), "human_ratio": human.mean(),
                  "time_cost": true_effort[human].sum() / true_effort.sum(),
                  "precision": float(np.mean(p)), "recall": float(np.mean(r)),
                  "f1": float(np.mean(f)), "accuracy": float(np.mean(final == gold))}, indent=2))
'''


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    return time.perf_counter() - t0


def paired(cmd: list[str], ref: list[str], runs: int = 9) -> tuple[float, float, float]:
    """Median time of ``cmd``, of ``ref``, and the median of the per-pair ratios (one warm-up)."""
    _time(cmd), _time(ref)
    a, b = [], []
    for _ in range(runs):
        a.append(_time(cmd))
        b.append(_time(ref))
    return statistics.median(a), statistics.median(b), statistics.median(x / y for x, y in zip(a, b))


def main() -> None:
    exe = shutil.which("hmceval")
    if exe is None:
        sys.exit("hmceval is not on PATH: run `make install` first")
    py = sys.executable
    a, b, ratio = paired([exe, "--help"], [py, "-c", "pass"])
    print(f"hmceval --help          : {a * 1e3:7.1f} ms   bare python {b * 1e3:6.1f} ms   "
          f"ratio {ratio:.2f}x   (target: <= 250 ms)")
    with tempfile.TemporaryDirectory() as tmp:
        ref = Path(tmp) / "assign_reference.py"
        ref.write_text(REFERENCE)
        a, b, ratio = paired([exe, "assign", str(RELEASE), "--lam", "4.6", "--human-share", "0.5",
                              "--json"], [py, str(ref), str(RELEASE)])
    print(f"assign --json (release) : {a * 1e3:7.1f} ms   numpy script {b * 1e3:6.1f} ms   "
          f"ratio {ratio:.2f}x   (target: <= 3x)")
    print(f"({os.cpu_count()} cores; medians of 9 interleaved runs after one warm-up)")


if __name__ == "__main__":
    main()
