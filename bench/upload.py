"""Server time of the Data page's upload and validation at scale (issue 11), with AppTest.

Run from the project root: ``python bench/upload.py`` (10^5 and 10^6 rows, 3 runs each; about
2-3 minutes on a busy 2-core machine); ``--sizes 100000`` only those row counts, ``--runs 5``
more runs. The figures go to stdout; streamlit's "no runtime" warnings (AppTest runs without a
server) go to stderr (``2>/dev/null`` hides them).

The uploads are CSV files of the synthetic tables of ``bench/app.py`` (whole dialogues of the
HMCEval release, ``../shared/data/hmceval/ilp_data_trustscore_f2.tsv``, drawn with replacement,
seeded, with a small jitter on the confidence and the efforts, plus its subgroup columns and a
turn text), written to a temporary folder and removed at the end; 10^6 rows are about 125 MB of
CSV.

What is timed:

- the Data page (``pages/1_Data.py``) with streamlit's AppTest, wall time of ``AppTest.run()``
  (the server running the page script and building what it sends; no browser), in a new
  session with every streamlit cache cleared, after a first run on the demo data:
  *upload* (the file's bytes in ``st.session_state["upload"]``, as the uploader leaves them:
  hash, read, role detection, the mapping form), *validate* (the "Validate and make active"
  button: ``prepare``, the active dataset's key, its figures and preview), their sum, and a
  *plain rerun* afterwards; and the bytes of the plotly figures sent (what must not grow with
  the rows);
- the core steps alone, with the same bytes: ``load_table``, ``detect_columns`` and ``prepare``
  with the detected roles (what the button calls).

Every figure is the median over ``--runs`` runs, printed with its ratio to a numpy reference
timed in the same run: one stable argsort of 100,000 floats (median of many calls, measured
before and after). Figures, never assertions. Target (issue 11): an upload of 10^6 rows
validated in <= 3 s of server time.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from core.data import detect_columns, load_table, prepare  # noqa: E402
from _timing import argsort_reference as reference  # noqa: E402

RELEASE = ROOT.parent / "shared" / "data" / "hmceval" / "ilp_data_trustscore_f2.tsv"
PAGE = ROOT / "pages" / "1_Data.py"
TIMEOUT = 1800.0


def _synthetic():
    """``bench/app.py``'s ``synthetic`` (loaded by path: ``app`` is also the app's entry point)."""
    spec = importlib.util.spec_from_file_location("bench_app", HERE / "app.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.synthetic


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def page_runs(name: str, content: bytes, note) -> None:
    """One fresh session: upload, validate, plain rerun."""
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(str(PAGE), default_timeout=TIMEOUT)
    at.run()  # the demo, as a new session shows it

    def run(key: str, fn) -> None:
        dt = timed(fn)
        if at.exception or at.error:
            msg = (at.exception or at.error)[0]
            print(f"    ! the page showed: {getattr(msg, 'message', None) or msg.value}", flush=True)
        note(key, dt)

    def upload() -> None:
        at.session_state["upload"] = {"name": name, "bytes": content}
        at.run()

    run("Data page: upload (hash, read, detect, form)", upload)
    button = [b for b in at.button if "Validate" in str(b.label)][0]
    run("Data page: validate and make active", lambda: button.click().run())
    if at.session_state["data"].name != name:
        print("    ! the upload did not become the active dataset", flush=True)
    run("Data page: plain rerun", at.run)
    spec = sum(len(e.proto.spec) for e in at.get("plotly_chart"))
    note("Data page: plotly figures sent (kB)", spec / 1e3)


def core_runs(name: str, content: bytes, note) -> None:
    raw = None

    def load() -> None:
        nonlocal raw
        raw = load_table(content, name=name)

    note("core: load_table (CSV bytes)", timed(load))
    roles = {}

    def detect() -> None:
        nonlocal roles
        roles = detect_columns(raw).roles

    note("core: detect_columns", timed(detect))
    note("core: prepare (detected roles)", timed(lambda: prepare(raw, roles, name=name)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs per step (median; default 3)")
    ap.add_argument("--sizes", type=int, nargs="*", default=[10**5, 10**6],
                    help="synthetic row counts (default 100000 1000000)")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")

    synthetic = _synthetic()
    release = load_table(RELEASE)
    tmp = Path(tempfile.mkdtemp(prefix="hmceval-bench-upload-"))
    try:
        files = []
        for m in args.sizes:
            path = tmp / f"synthetic_{m}.csv"
            synthetic(release, m).to_csv(path, index=False)
            files.append((f"{m:,}", path))
        AppTest.from_file(str(PAGE), default_timeout=TIMEOUT).run()  # warm-up: imports

        ref0 = reference()
        print(f"reference: one stable argsort of 100,000 floats = {ref0 * 1e3:.3f} ms (median)",
              flush=True)
        results: dict[str, dict[str, list[float]]] = {}
        for label, path in files:
            content = path.read_bytes()
            print(f"  {label} rows ({len(content) / 1e6:.1f} MB of CSV)", flush=True)
            res = results[label] = {}

            def note(key: str, value: float) -> None:
                res.setdefault(key, []).append(value)
                unit = "" if key.endswith("(kB)") else " s"
                print(f"    {label:>9} {key:<46} {value:9.3f}{unit}", flush=True)

            for _ in range(args.runs):
                page_runs(path.name, content, note)
                up, va = res["Data page: upload (hash, read, detect, form)"][-1], \
                    res["Data page: validate and make active"][-1]
                note("Data page: upload + validate", up + va)
            for _ in range(args.runs):
                core_runs(path.name, content, note)
        ref1 = reference()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ref = statistics.median([ref0, ref1])
    print(f"reference after: {ref1 * 1e3:.3f} ms; used: {ref * 1e3:.3f} ms")
    print()
    labels = list(results)
    print(f"{'step (median of ' + str(args.runs) + ' runs)':<48}"
          + "".join(f"{label + ' rows':>26}" for label in labels))
    for key in results[labels[0]]:
        cells = []
        for label in labels:
            med = statistics.median(results[label][key])
            cells.append(f"{med:9.1f} kB" if key.endswith("(kB)")
                         else f"{med:8.3f} s ({med / ref:6.0f}x ref)")
        print(f"{key:<48}" + "".join(f"{c:>26}" for c in cells))
    print()
    print("target (issue 11): an upload of 10^6 rows validated in <= 3 s of server time; the "
          "figures sent do not grow with the rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
