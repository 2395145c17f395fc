"""The large-table path at 10^6 and 10^7 rows: time and peak memory against a pyarrow scan.

For each size, a seeded judge table is written as Parquet (``sample_id``, ``language``,
``machine_label``, ``confidence``; the gold labels in a file beside it, as an annotation team
would return them), then each step runs as its own process, timed (wall clock and CPU) with
its peak resident memory (``os.wait4``'s ``ru_maxrss``, the process alone):

* ``scan``: the reference, a pyarrow scan of the whole file batch by batch (what reading the
  table costs at the least);
* ``queue``: ``hmceval queue TABLE.parquet --design active --labels B -o Q.parquet`` (local
  engine);
* ``fill``: a script writing the gold labels into ``human_label`` on the rows to label, batch
  by batch (the annotators' work, not the tool's: shown for completeness);
* ``estimate``: ``hmceval estimate QL.parquet --json``; every class share's interval is
  checked against the true share (the gold labels of all rows);
* ``queue ray`` (``--ray``, Ray installed): the same queue with ``--engine ray --workers 2``;
  its round must be the local one exactly (selection, rank, inclusion probabilities);
* ``queue in memory`` (``--before``, 10^6 rows only): today's path, ``-o Q.csv`` (the
  workspace round, the whole table in pandas), for the before/after figures.

Time and memory are printed with their ratio to the scan's. The machine is shared and loaded:
CPU seconds are steadier than wall seconds. Ray's workers are separate processes: the peak
memory shown for ``queue ray`` is the driver's.

Usage: ``python bench/scale.py [--rows 1e6 1e7] [--labels 10000] [--ray] [--before]
[--keep DIR]``. Prints figures only; the tests (``tests/core/test_scale_*.py``) assert that
the path equals the in-memory one on small tables.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_GEN = """
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
m, out, gold = int(float(sys.argv[1])), sys.argv[2], sys.argv[3]
rng = np.random.default_rng(34)
lang = np.array(["de", "en", "fr", "ja"])[rng.integers(0, 4, m)]
conf = rng.uniform(0.6, 0.995, m)
right = rng.random(m) < np.where(lang == "ja", 0.5, conf)  # a judge as sure on ja, wrong
machine = np.where(rng.random(m) < 0.3, "yes", "no")
truth = np.where(right, machine, np.where(machine == "yes", "no", "yes"))
pq.write_table(pa.table({"sample_id": np.arange(1, m + 1), "language": lang,
                         "machine_label": machine, "confidence": conf}), out)
pq.write_table(pa.table({"sample_id": np.arange(1, m + 1), "gold": truth}), gold)
"""

_SCAN = """
import sys, pyarrow.parquet as pq
n = 0
for b in pq.ParquetFile(sys.argv[1]).iter_batches(batch_size=1 << 17):
    n += b.num_rows
"""

_FILL = """
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
q, gold, out = sys.argv[1:4]
fq, fg = pq.ParquetFile(q), pq.ParquetFile(gold)
w = pq.ParquetWriter(out, fq.schema_arrow)
for bq, bg in zip(fq.iter_batches(batch_size=1 << 17), fg.iter_batches(batch_size=1 << 17)):
    t = pa.Table.from_batches([bq])
    queued = t.column("queue_rank").is_valid().to_numpy(zero_copy_only=False)
    g = bg.column(1).to_numpy(zero_copy_only=False)
    lab = pa.array(np.where(queued, g, None).tolist(), type=pa.string())
    t = t.set_column(t.schema.get_field_index("human_label"), "human_label", lab)
    w.write_table(t.cast(fq.schema_arrow))
w.close()
"""


def run(argv: list[str], cwd: Path, env: dict) -> dict:
    """Run one process, reaped by ``os.wait4`` for its own figures: wall and CPU seconds,
    peak memory (MB), exit code, output."""
    t0 = time.perf_counter()
    with open(cwd / ".out", "wb") as fo, open(cwd / ".err", "wb") as fe:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=fo, stderr=fe)
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024, "code": os.waitstatus_to_exitcode(status),
            "out": (cwd / ".out").read_text(), "err": (cwd / ".err").read_text()}


def line(rows: int, step: str, r: dict, scan: dict | None) -> None:
    ratio = "" if scan is None else (f"  {r['wall'] / scan['wall']:6.1f}x  "
                                     f"{r['rss'] / scan['rss']:5.1f}x")
    print(f"{rows:>12,}  {step:<18} {r['wall']:8.1f} {r['cpu']:8.1f} {r['rss']:9.0f}{ratio}"
          + ("" if r["code"] == 0 else f"  EXIT {r['code']}: {r['err'][-300:]}"), flush=True)


def same_round(a: Path, b: Path) -> bool:
    import numpy as np
    import pyarrow.parquet as pq

    cols = ["selection", "queue_rank", "inclusion_probability"]
    ta, tb = pq.read_table(a, columns=cols), pq.read_table(b, columns=cols)
    return all(ta.column(c).equals(tb.column(c)) for c in cols[:2]) and np.array_equal(
        ta.column(cols[2]).to_numpy(), tb.column(cols[2]).to_numpy())


def covered(est: dict, gold: Path) -> str:
    import pyarrow.parquet as pq
    import pyarrow.compute as pc

    g = pq.read_table(gold, columns=["gold"]).column(0)
    out = []
    for label, s in est["class_shares"].items():
        truth = pc.sum(pc.equal(g, label)).as_py() / len(g)
        ok = s["ci_low"] <= truth <= s["ci_high"]
        out.append(f"{label} {truth:.4f} in [{s['ci_low']:.4f}, {s['ci_high']:.4f}] "
                   f"{'yes' if ok else 'NO'}")
    return "; ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", nargs="+", type=float, default=[1e6, 1e7])
    ap.add_argument("--labels", type=int, default=10_000)
    ap.add_argument("--ray", action="store_true", help="also --engine ray --workers 2")
    ap.add_argument("--before", action="store_true",
                    help="also the in-memory path (-o CSV) at 10^6 rows or fewer")
    ap.add_argument("--keep", type=Path, default=None, help="work in this folder, kept")
    args = ap.parse_args()
    py = sys.executable
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    work = args.keep or Path(tempfile.mkdtemp(prefix="hmceval-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    env["HMCEVAL_WORKSPACE"] = str(work / "workspace")
    print(f"{'rows':>12}  {'step':<18} {'wall s':>8} {'cpu s':>8} {'peak MB':>9}  "
          f"{'time':>7}  {'memory'} (x the scan)")
    for rows in (int(r) for r in args.rows):
        d = work / f"{rows}"
        d.mkdir(exist_ok=True)
        table, gold = d / "table.parquet", d / "gold.parquet"
        if not table.exists():
            subprocess.run([py, "-c", _GEN, str(rows), str(table), str(gold)], check=True)
        scan = run([py, "-c", _SCAN, str(table)], d, env)
        line(rows, "scan (pyarrow)", scan, None)
        cli = [py, "-m", "core.cli"]
        budget = ["--design", "active", "--labels", str(args.labels), "--seed", "1"]
        q = run(cli + ["queue", str(table), *budget, "-o", "q.parquet"], d, env)
        line(rows, "queue", q, scan)
        f = run([py, "-c", _FILL, "q.parquet", str(gold), "ql.parquet"], d, env)
        line(rows, "fill (annotators)", f, scan)
        e = run(cli + ["estimate", "ql.parquet", "--json"], d, env)
        line(rows, "estimate", e, scan)
        if e["code"] == 0:
            print(f"{'':>14}intervals: {covered(json.loads(e['out']), gold)}")
        if args.ray:
            r = run(cli + ["queue", str(table), *budget, "-o", "qr.parquet", "--engine", "ray",
                           "--workers", "2"], d, env)
            line(rows, "queue ray (2)", r, scan)
            if r["code"] == 0:
                print(f"{'':>14}ray round equal to the local one: "
                      f"{same_round(d / 'q.parquet', d / 'qr.parquet')}")
        if args.before and rows <= 1_000_000:
            b = run(cli + ["queue", str(table), *budget, "-o", "q.csv"], d, env)
            line(rows, "queue in memory", b, scan)
    if args.keep is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
