"""Benchmark of the command line's start-up and of ``hmceval assign --json`` on the HMCEval release.

Run from the project root: ``python bench/cli.py``. Each command is timed as a whole process
(``subprocess``, wall clock), the runs of the command and of its reference interleaved, and the
medians and the median of the per-pair ratios are printed (the machine is noisy: quote ratios).

References, timed in the same run:

* ``hmceval --help`` against a bare ``python -c pass``;
* ``hmceval assign RELEASE --lam 4.6 --human-share 0.5 --json`` against two scripts doing the
  same work: read the table, compute the gains, take the top N with a stable sort, and print
  the result as JSON. The *numpy* script is the minimal one (``np.loadtxt`` of the five columns
  needed, one stable argsort of the gain, accuracy and time cost to stdout: issue 24 item 6's
  reference, target <= 3x); the *pandas* script reads with ``pd.read_csv`` and prints macro
  precision/recall/F1 too (the floor of any command that imports pandas).

Every process runs with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` removed,
``PYTHONPYCACHEPREFIX`` a temporary folder, filled by the warm-up run), as an installed
``hmceval`` runs: without it each run of ``hmceval`` compiles the project's modules again
(about 70 ms) while the libraries' caches are already installed. When the ``hmceval`` console
script does not run (an editable install made elsewhere), ``python -m core.cli`` from the project
is timed instead, and the line says so.
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

NUMPY_REFERENCE = r'''
import json, sys
import numpy as np

# machine_confidence, target, machine_predict, human_effort_groundtruth, human_effort_predicted_avg
conf, gold, machine, true_effort, effort = np.loadtxt(
    sys.argv[1], delimiter="\t", skiprows=1, usecols=(0, 3, 4, 5, 6), unpack=True)
lam, M = 4.6, len(conf)
n = int(np.floor(0.5 * M))
gain = (1.0 - lam * effort) - conf
order = np.argsort(-gain, kind="stable")[:n]
order = order[gain[order] > 0]
human = np.zeros(M, bool)
human[order] = True
final = np.where(human, gold, machine)
print(json.dumps({"M": M, "N": n, "n_human": int(human.sum()), "human_ratio": human.mean(),
                  "time_cost": true_effort[human].sum() / true_effort.sum(),
                  "accuracy": float(np.mean(final == gold))}, indent=2))
'''

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


#: the environment of every timed process (set by main): bytecode cache on, in a temporary folder
ENV: dict[str, str] = dict(os.environ)


def _time(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=tempfile.gettempdir(), env=ENV)
    return time.perf_counter() - t0


def paired(cmd: list[str], ref: list[str], runs: int = 9) -> tuple[float, float, float]:
    """Median time of ``cmd``, of ``ref``, and the median of the per-pair ratios (one warm-up)."""
    _time(cmd), _time(ref)
    a, b = [], []
    for _ in range(runs):
        a.append(_time(cmd))
        b.append(_time(ref))
    return statistics.median(a), statistics.median(b), statistics.median(x / y for x, y in zip(a, b))


def hmceval_command() -> tuple[list[str], str]:
    """The ``hmceval`` console script when it runs, else ``python -m core.cli`` from the project."""
    exe = shutil.which("hmceval")
    if exe is not None and subprocess.run([exe, "--help"], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, env=ENV,
                                          cwd=tempfile.gettempdir()).returncode == 0:
        return [exe], "hmceval"
    ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), ENV.get("PYTHONPATH")]))
    return [sys.executable, "-m", "core.cli"], "python -m core.cli"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        ENV["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        exe, name = hmceval_command()
        a, b, ratio = paired([*exe, "--help"], [py, "-c", "pass"], runs)
        print(f"{name} --help: {a * 1e3:7.1f} ms   bare python {b * 1e3:6.1f} ms   "
              f"ratio {ratio:.2f}x   (target: <= 250 ms)")
        assign = [*exe, "assign", str(RELEASE), "--lam", "4.6", "--human-share", "0.5", "--json"]
        for label, script in (("numpy", NUMPY_REFERENCE), ("pandas", REFERENCE)):
            ref = Path(tmp) / f"assign_{label}.py"
            ref.write_text(script)
            a, b, ratio = paired(assign, [py, str(ref), str(RELEASE)], runs)
            target = "   (target: <= 3x)" if label == "numpy" else ""
            print(f"assign --json (release): {a * 1e3:7.1f} ms   {label} script {b * 1e3:6.1f} ms"
                  f"   ratio {ratio:.2f}x{target}")
        a, b, ratio = paired([py, "-c", "import pandas"], [py, str(Path(tmp) / "assign_numpy.py"),
                                                            str(RELEASE)], runs)
        print(f"python -c 'import pandas': {a * 1e3:7.1f} ms   numpy script {b * 1e3:6.1f} ms"
              f"   ratio {ratio:.2f}x   (the floor of a command that imports pandas)")
    print(f"({os.cpu_count()} cores; medians of {runs} interleaved runs after one warm-up)")


if __name__ == "__main__":
    main()
