"""A seeded, time-bounded fuzz of every ``hmceval`` command and of the upload path (issue 24,
item 5), so that the count of tracebacks, hangs and broken invariants stays at zero.

Each input is a table built from a seed with some of the mutations the issue's fuzz found
defects with (text cells in label columns, NaN/inf, integers beyond 64 bits, formula-like
classes, duplicated ids, look-alike column names, all-zero effort, thousands of classes, empty
or broken files, several formats), the generators added after it (hostile class labels, group
values and column names; odd numbers as text; odd encodings and formats; duplicate and
look-alike ids in labels files), and arguments drawn from valid and invalid values. Every run
must

- end with exit 0 or 2, never an exception (a traceback) and never a hang (SIGALRM);
- with ``--json``, print JSON only on stdout;
- keep the invariants: class shares sum to 1 and every interval holds its estimate, N <= M,
  rates in [0, 1], no row lost or duplicated between the input and a written round table or
  labelled table, no formula-like cell in a written CSV.

``HMCEVAL_FUZZ_RUNS`` (default 1: about 40 s) multiplies the inputs per command, for a longer
run by hand; ``HMCEVAL_FUZZ_SEED`` changes the seed. A failure names the seed, the command line
and the input file, so it reproduces with the real ``hmceval``.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import signal

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main
from tests.cli.fuzz_rsmeval import check_rsmeval, rsmeval_config_input

SEED = int(os.environ.get("HMCEVAL_FUZZ_SEED", "24"))
RUNS = int(os.environ.get("HMCEVAL_FUZZ_RUNS", "1"))
#: seconds one command may take before it counts as a hang
HANG_S = 30
#: inputs per command (times RUNS), and the seconds a command's inputs may take in all
PER_COMMAND = {"assign": 120, "queue": 80, "estimate": 60, "certify": 60, "labels": 60,
               "turns": 60, "sweep": 60, "confidence": 120, "agreement": 80, "annotators": 60,
               "effort": 15, "workspace": 80, "report": 40, "scorekeeping": 60, "tooltalk": 60,
               "train-classifier": 4, "labelstudio": 20, "rsmeval-config": 80}
#: seconds of inputs per command when HMCEVAL_FUZZ_RUNS is 1 (the suite's ~45 s)
BUDGET_S = 2.2
#: inputs run per command (printed with -s)
COUNTS: dict[str, int] = {}


class Hang(Exception):
    pass


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise Hang()


def run(argv: list) -> tuple[int, str, str]:
    """``hmceval ARGV`` in this process: (exit code, stdout, stderr); any exception but
    SystemExit propagates (a traceback), a run over HANG_S raises :class:`Hang`."""
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in argv])
            except SystemExit as exc:  # argparse: usage errors exit 2, --help 0
                code = exc.code if isinstance(exc.code, int) else 2
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------------------------ inputs

CLASSES = [["0", "1"], ["a", "b", "c"], ["+yes", "-no"], ["=x", "@y", "z"], [0, 1], [1, 2, 3, 4]]


def base_table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    classes = CLASSES[int(rng.integers(len(CLASSES)))]
    k = len(classes)
    human = rng.integers(0, k, n)
    machine = np.where(rng.random(n) < 0.75, human, rng.integers(0, k, n))
    t = pd.DataFrame({
        "sample_id": [f"s{i}" for i in range(n)],
        "machine_label": [classes[i] for i in machine],
        "human_label": [classes[i] for i in human],
        "machine_confidence": rng.uniform(0, 1, n).round(3),
        "human_effort": rng.uniform(0.5, 30, n).round(2),
        "turn": rng.integers(1, 5, n),
        "topic": rng.choice(["a", "b", "=c"], n),
        "annotator": rng.choice(["ann1", "ann2", "ann3"], n),
        "text": rng.choice(["hello", "a longer response", "=HYPERLINK(\"x\")"], n),
    })
    return t


def mutate(t: pd.DataFrame, rng: np.random.Generator) -> tuple[pd.DataFrame, str]:
    """Zero to three of the defects the issue's fuzz used."""
    names = []
    t = t.copy()
    n = len(t)
    for _ in range(int(rng.integers(0, 4))):
        kind = int(rng.integers(0, 19))
        i = int(rng.integers(0, max(n, 1))) if n else 0
        if n == 0:
            break
        try:
            t = _mutation(t.copy(), kind, min(i, len(t) - 1), len(t), rng)
        except (KeyError, ValueError, TypeError):  # a column an earlier mutation changed
            continue
        names.append(str(kind))
    return t, "+".join(names) or "none"


#: class labels, group values and column names that are active content somewhere: markdown
#: images and links, HTML, colour directives, LaTeX, spreadsheet formulas, bidi and zero-width
#: characters, emoji, padding, tabs and newlines, quotes (a generator of issue 24's fuzz)
HOSTILE_TEXT = ["![x](http://127.0.0.1:9/x.png)", "<img src=x>", "**b**", "$x$", ":red[x]",
                '=HYPERLINK("http://127.0.0.1:9","x")', "+", "-", "@a", "=1+1", "\u202eevil",
                "a\u200bb", "\U0001f600", " padded ", "tab\tin", "new\nline", '"q"', "'",
                "NaN", "None", "1.0", "01"]
#: numbers as text a table may hold where a number is expected (huge, subnormal, overflowing,
#: hexadecimal, grouped, decimal comma, Arabic-Indic digits, words; a generator of issue 24's fuzz)
ODD_NUMBERS = ["1e308", "-1e308", "5e-324", "1e400", "-0", "0x10", "1_000", "0,5", " 0.5 ",
               "\u0661", "NaN", "Infinity", "-inf", "1e-320", "9" * 400, "0.5e", "+0.3"]


def _mutation(t: pd.DataFrame, kind: int, i: int, n: int, rng) -> pd.DataFrame:
    if kind >= 16:
        return _new_mutation(t, kind, i, n, rng)
    if kind < 16:  # one mutation, chosen by the caller
        if kind == 0:
            t["human_label"] = t["human_label"].astype(object)
            t.loc[i, "human_label"] = "text"
        elif kind == 1:
            t["machine_confidence"] = t["machine_confidence"].astype(float)
            t.loc[i, "machine_confidence"] = float(rng.choice([np.nan, np.inf, -1.0, 2.0]))
        elif kind == 2:
            t["sample_id"] = t["sample_id"].astype(object)
            t.loc[i, "sample_id"] = 99999999999999999999
        elif kind == 3:
            t.loc[i, "sample_id"] = t.loc[0, "sample_id"]
        elif kind == 4:
            t = t.rename(columns={"machine_label": "Machine-Label"})
            t["machine_label"] = t["Machine-Label"]
        elif kind == 5:
            t["human_effort"] = 0.0
        elif kind == 6:
            t["human_effort"] = t["human_effort"].astype(float)
            t.loc[i, "human_effort"] = -5.0
        elif kind == 7:
            t["machine_label"] = [f"c{j}" for j in range(n)]
        elif kind == 8:
            t = t.drop(columns=[str(rng.choice(list(t.columns)))])
        elif kind == 9:
            t["human_label"] = t["human_label"].astype(object)
            t.loc[i, "human_label"] = None
        elif kind == 10:
            t["turn"] = t["turn"].astype(object)
            t.loc[i, "turn"] = "x"
        elif kind == 11:
            t.columns = ["=" + str(c) if j == 0 else c for j, c in enumerate(t.columns)]
        elif kind == 12:
            t["machine_label"] = t["machine_label"].iloc[0]
        elif kind == 13:
            t = pd.concat([t, t.iloc[:2]], ignore_index=True)
        elif kind == 14:
            t["selection"] = rng.choice(["calibration", "routed", "audit", "machine", "?"], n)
        elif kind == 15:
            t["machine_confidence"] = t["machine_confidence"].astype(object)
            t.loc[i, "machine_confidence"] = "high"
    return t


def _new_mutation(t: pd.DataFrame, kind: int, i: int, n: int, rng) -> pd.DataFrame:
    """Mutations 16-18: hostile class labels and group values, hostile column names, odd
    numbers as text in the confidence and effort columns."""
    if kind == 16:  # hostile class labels (both label columns, the same classes)
        k = int(rng.integers(2, 4))
        classes = list(rng.choice(HOSTILE_TEXT, k, replace=False))
        codes = {v: classes[j % k] for j, v in enumerate(pd.unique(t["human_label"]))}
        t["human_label"] = t["human_label"].map(codes).fillna(classes[0])
        t["machine_label"] = t["machine_label"].map(codes).fillna(classes[-1])
    elif kind == 17:  # hostile group values and a hostile extra column
        t["topic"] = rng.choice(HOSTILE_TEXT, n)
        t[str(rng.choice(HOSTILE_TEXT))] = rng.choice(HOSTILE_TEXT, n)
    elif kind == 18:  # odd numbers as text
        col = str(rng.choice(["machine_confidence", "human_effort"]))
        t[col] = t[col].astype(object)
        rows = rng.choice(n, size=min(n, int(rng.integers(1, 4))), replace=False)
        for r in rows:
            t.loc[int(r), col] = str(rng.choice(ODD_NUMBERS))
        if rng.random() < 0.3:  # all the column's values huge but finite
            t[col] = pd.to_numeric(t[col], errors="coerce").fillna(0.5) * 1e300
    return t


def write(t: pd.DataFrame, rng: np.random.Generator, folder, stem: str):
    """The table as CSV (mostly), TSV, JSON or Parquet; sometimes an empty, truncated or
    binary file."""
    kind = rng.choice(["csv"] * 6 + ["tsv", "json", "parquet", "empty", "truncated", "binary"]
                      + ["odd"] * 3)
    if kind == "odd":
        return write_odd(t, rng, folder, stem)
    if kind == "parquet":
        path = folder / f"{stem}.parquet"
        try:
            t.astype({c: str for c in t.columns if t[c].dtype == object}).to_parquet(path)
        except Exception:  # a frame pyarrow cannot write: CSV instead
            kind = "csv"
    if kind == "json":
        path = folder / f"{stem}.json"
        path.write_text(t.to_json(orient="records"))
    elif kind == "tsv":
        path = folder / f"{stem}.tsv"
        t.to_csv(path, sep="\t", index=False)
    elif kind == "empty":
        path = folder / f"{stem}.csv"
        path.write_bytes(b"")
    elif kind == "truncated":
        path = folder / f"{stem}.csv"
        text = t.to_csv(index=False).encode()
        path.write_bytes(text[: max(1, len(text) // 3)])
    elif kind == "binary":
        path = folder / f"{stem}.csv"
        path.write_bytes(bytes(rng.integers(0, 256, 300, dtype=np.uint8)))
    elif kind == "csv":
        path = folder / f"{stem}.csv"
        t.to_csv(path, index=False)
    return path


def write_odd(t: pd.DataFrame, rng: np.random.Generator, folder, stem: str):
    """The table in an encoding or format a user may have (a generator of issue 24's fuzz):
    UTF-16 with its BOM, Latin-1 with accents, UTF-8 with a BOM and CRLF, semicolons,
    gzip bytes named .csv, an Excel workbook, NUL bytes in a cell, a JSON object of columns,
    JSON lines."""
    kind = str(rng.choice(["utf16", "latin1", "bom_crlf", "semicolon", "gzip", "xlsx", "nul",
                           "json_columns", "jsonl"]))
    t = t.copy()
    if len(t) and "text" in t.columns and kind in ("latin1", "utf16", "nul"):
        t["text"] = t["text"].astype(object)
        t.loc[0, "text"] = "caf\u00e9 na\u00efve" + ("\x00x" if kind == "nul" else "")
    text = t.to_csv(index=False)
    path = folder / f"{stem}.csv"
    if kind == "utf16":
        path.write_bytes(text.encode("utf-16"))
    elif kind == "latin1":
        path.write_bytes(text.encode("latin-1", errors="replace"))
    elif kind == "bom_crlf":
        path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    elif kind == "semicolon":
        path.write_text(t.to_csv(index=False, sep=";"))
    elif kind == "gzip":
        import gzip

        path.write_bytes(gzip.compress(text.encode()))
    elif kind == "xlsx":
        path = folder / f"{stem}.xlsx"
        try:
            t.to_excel(path, index=False)
        except Exception:  # a cell openpyxl refuses (control characters): the bytes of a zip
            path.write_bytes(b"PK\x03\x04" + bytes(rng.integers(0, 256, 100, dtype=np.uint8)))
    elif kind == "nul":
        path.write_bytes(text.encode())
    elif kind == "json_columns":
        path = folder / f"{stem}.json"
        path.write_text(t.to_json(orient="columns"))
    else:
        path = folder / f"{stem}.jsonl"
        path.write_text(t.to_json(orient="records", lines=True))
    return path


def pick(rng, *values):
    return values[int(rng.integers(len(values)))]


# -------------------------------------------------------------------------------- invariants

def check_shares(res: dict, where: str) -> None:
    shares = res.get("class_shares") or {}
    est = [v["estimate"] for v in shares.values() if v.get("estimate") is not None]
    if est and len(est) == len(shares):
        assert math.isclose(sum(est), 1.0, abs_tol=1e-9), (where, sum(est))
    for c, v in shares.items():
        if v.get("ci_low") is not None and v.get("estimate") is not None:
            assert v["ci_low"] - 1e-9 <= v["estimate"] <= v["ci_high"] + 1e-9, (where, c, v)
    acc = res.get("accuracy") or {}
    if acc.get("ci_low") is not None and acc.get("estimate") is not None:
        assert acc["ci_low"] - 1e-9 <= acc["estimate"] <= acc["ci_high"] + 1e-9, (where, acc)
    for col, groups in (res.get("by_group") or {}).items():
        for g, r in groups.items():
            check_shares(r, f"{where} group {col}={g}")


def _rows(path) -> int | None:
    """The rows of the input as hmceval reads it (None: it does not read)."""
    from core.data import load_table
    from core.errors import DataError

    try:
        return len(load_table(path))
    except DataError:
        return None


def check(command: str, argv: list, code: int, out: str, err: str, ctx: dict) -> None:
    assert code in (0, 2), (code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    if command == "rsmeval-config":  # agreement --rsmeval-config (tests/cli/fuzz_rsmeval.py)
        return check_rsmeval(code, out, err, ctx)
    if code != 0:
        return
    if "--json" in argv:
        res = json.loads(out)  # JSON only on stdout
    else:
        res = None
    out_path = ctx.get("out")
    if out_path is not None and out_path.suffix == ".csv" and out_path.is_file():
        check_written_csv(out_path)
    if command in ("assign",) and res is not None:
        assert 0 <= res["n_human"] <= res["N"] <= res["M"], res
        assert math.isclose(res["human_ratio"], res["n_human"] / res["M"])
        for k in ("precision", "recall", "f1", "accuracy", "time_cost"):
            v = res.get(k)
            assert v is None or (isinstance(v, float) and math.isnan(v)) or 0 <= v <= 1 + 1e-12, (k, v)
    if command == "estimate" and res is not None:
        for r in res if isinstance(res, list) else [res]:
            check_shares(r, "estimate")
    if command == "turns" and res is not None:
        assert sum(r["n"] for r in res) == ctx["M"], (res, ctx)
        for r in res:
            for k in ("accuracy", "precision", "recall", "f1", "machine_accuracy",
                      "human_ratio"):
                lo, hi, v = r.get(f"{k}_lo"), r.get(f"{k}_hi"), r.get(k)
                if None not in (lo, hi, v) and not any(map(math.isnan, (lo, hi, v))):
                    assert lo - 1e-12 <= v <= hi + 1e-12, (k, r)
    if command == "queue" and ctx.get("out") is not None and ctx["out"].suffix == ".csv":
        from core.data import load_table

        written = load_table(ctx["out"])
        src = ctx["table"]
        assert len(written) == ctx["M"], (len(written), ctx["M"])  # no row lost or added
        if "sample_id" in written.columns and "sample_id" in src.columns:
            a = sorted(map(str, written["sample_id"]))
            b = sorted(map(str, load_table(ctx["path"])["sample_id"]))
            assert a == b
    if command == "labels" and ctx.get("out") is not None and ctx["out"].is_file():
        from core.data import load_table

        written, src = load_table(ctx["out"]), load_table(ctx["round"])
        assert len(written) == len(src), (len(written), len(src))  # no row lost or duplicated
        if "sample_id" in written.columns and "sample_id" in src.columns:
            assert sorted(map(str, written["sample_id"])) == sorted(map(str, src["sample_id"]))
    if command == "sweep" and ctx.get("out") is not None:
        grid = pd.read_csv(ctx["out"])
        if {"n_human", "N"} <= set(grid.columns):
            assert (grid["n_human"] <= grid["N"]).all()


def duplicate_ids(lab: pd.DataFrame, rng) -> pd.DataFrame:
    """A labels file whose ids repeat (conflicting labels, several annotators), name rows the
    round does not have, or the round's ids in another form (padded, upper case, a number
    as 1.0) (a generator of issue 24's fuzz)."""
    extra = lab.sample(n=min(len(lab), int(rng.integers(1, 6))), replace=True,
                       random_state=int(rng.integers(2**31)))
    extra = extra.assign(label=rng.choice(["0", "1", "b", "=x"], len(extra)))
    forms = [lambda s: s, lambda s: f" {s} ", str.upper, lambda s: "ghost" + s,
             lambda s: s + ".0"]
    extra["sample_id"] = [forms[int(rng.integers(len(forms)))](str(s)) for s in extra["sample_id"]]
    out = pd.concat([lab, extra], ignore_index=True)
    if rng.random() < 0.5:
        out["annotator"] = rng.choice(["ann1", "ann2", "=ann"], len(out))
    return out


def check_written_csv(path) -> None:
    """A CSV hmceval wrote: no text cell or header a spreadsheet would run as a formula
    (core.csv_safe puts a quote before it), and it reads back (load_table) with its rows."""
    import csv

    from core.data import load_table

    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    for r, row in enumerate(rows):
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(cell):
                raise AssertionError(f"{path.name} row {r}: formula-like cell {cell!r}")
    assert len(load_table(path)) == len(rows) - 1, path


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# ----------------------------------------------------------------------------- the commands

def args_for(command: str, rng, path, folder, round_path) -> tuple[list, dict]:
    ctx: dict = {}
    lam = pick(rng, "0", "0.01", "4.6", "-1", "nan", "1e308")
    share = pick(rng, "0", "0.3", "1", "1.5", "-0.1")
    if command == "assign":
        argv = ["assign", path, "--lam", lam, "--human-share", share, "--json"]
        if rng.random() < 0.3:
            argv += ["--effort-budget", pick(rng, "10", "0", "-3", "inf")]
        if rng.random() < 0.2:
            argv += ["--group-col", "topic", "--group-share", pick(rng, "a=0.1:0.9", "b=2:1",
                                                                   "zz=0:1")]
        if rng.random() < 0.3:
            ctx["out"] = folder / pick(rng, "a.csv", "a.parquet", "missing/a.csv")
            argv += ["-o", ctx["out"]]
    elif command == "queue":
        ctx["out"] = folder / pick(rng, "q.csv", "q.csv", "q.json", "q.parquet")
        argv = ["queue", path, "--calibration", pick(rng, "0", "5", "20", "-1", "100000"),
                "--human-share", share, "--audit", pick(rng, "0", "5", "-2"), "--seed",
                str(int(rng.integers(0, 1000))), "-o", ctx["out"]]
        if rng.random() < 0.2:
            argv = ["queue", path, "--design", pick(rng, "active", "random"), "--labels",
                    pick(rng, "5", "20", "0"), "-o", ctx["out"]]
            if rng.random() < 0.5:  # a round of the workspace, maybe of another table or none
                argv += ["--calibrate-on", pick(rng, "1", "2", "0", "-3", "x")]
        if rng.random() < 0.2:
            argv += ["--format", "labelstudio"]
    elif command == "estimate":
        argv = ["estimate", round_path or path, "--json"]
        if rng.random() < 0.5:
            argv += ["--group", pick(rng, "topic", "turn", "nope")]
        if rng.random() < 0.2:
            argv += ["--confidence", pick(rng, "0.9", "1", "0", "nan")]
    elif command == "certify":
        argv = ["certify", round_path or path, "--delta", pick(rng, "0.1", "0", "1e-320"),
                "--json"]
        argv += pick(rng, ["--alpha", pick(rng, "0.1", "1e-320", "0.5", "2")],
                     ["--overall-error", pick(rng, "0.05", "1e-320", "1")])
    elif command == "labels":
        labels = folder / "l.csv"
        t = pd.read_csv(round_path) if round_path else pd.DataFrame({"sample_id": ["s0"]})
        if "selection" in t:
            t = t[t["selection"].isin(["calibration", "routed", "audit"])]
        ids = t["sample_id"].tolist() if "sample_id" in t else ["s0"]
        lab = pd.DataFrame({"sample_id": ids,
                            "label": rng.choice(["0", "1", "a", "+yes", "1.0"], len(ids))})
        if rng.random() < 0.4 and len(ids):  # duplicate ids across and within files
            lab = duplicate_ids(lab, rng)
        lab.to_csv(labels, index=False)
        ctx["out"] = folder / "labelled.csv"
        ctx["round"] = round_path or path
        argv = ["labels", round_path or path, "--from", labels, "-o", ctx["out"]]
        if rng.random() < 0.3:
            argv.append("--json")
    elif command == "turns":
        argv = ["turns", path, "--lam", lam, "--bootstrap", pick(rng, "0", "1", "3", "50",
                                                                  "-1"), "--json"]
    elif command == "sweep":
        ctx["out"] = folder / "s.csv"
        argv = ["sweep", path, "--lam", pick(rng, "0,0.5,1", "auto", "x", "-1,2"),
                "--human-share", pick(rng, "0,0.5,1", "0.2", "2"), "-o", ctx["out"]]
    elif command == "confidence":
        argv = ["confidence", path, "--label-col", "human_label", "--machine-col",
                pick(rng, "machine_label", "nope"), "--conf-col", "machine_confidence",
                "--top", pick(rng, "0.5", "1", "0", "nan"), "--bins", pick(rng, "10", "0", "1"),
                "--json"]
    elif command == "agreement":
        argv = ["agreement", path, "--human", pick(rng, "human_label", "turn"), "--system",
                pick(rng, "machine_confidence", "machine_label", "turn"), "--json"]
        if rng.random() < 0.3:
            argv += ["--group", "topic"]
    elif command == "annotators":
        argv = ["annotators", round_path or path, "--json", "--boot", pick(rng, "0", "20",
                                                                            "-1")]
    elif command == "effort":
        argv = ["effort", path, "--time-col", pick(rng, "human_effort", "text", "nope"),
                "--features", pick(rng, "machine_confidence", "turn,machine_confidence"),
                "--folds", pick(rng, "2", "1"), "--trees", "3", "--jobs", "1", "--json"]
    elif command == "workspace":
        ws = folder / "ws"
        verb = pick(rng, "list", "show", "import", "add", "export")
        argv = ["workspace", "--workspace", ws, verb]
        if verb == "show":
            argv.append(pick(rng, "1", "99999999999999999999", "nope", "-1"))
        elif verb == "import":
            sc = folder / "sc.json"
            sc.write_text(pick(rng, "{}", "[" * 3000 + "]" * 3000, '{"format": "hmceval-'
                               'scenario", "version": "x"}', "not json", json.dumps(
                                   {"format": "hmceval-scenario", "version": 1, "name": "a",
                                    "dataset": {"content_hash": "ab"}, "settings": {}})))
            argv.append(sc)
        elif verb == "add":
            argv.append(path)
        elif verb == "export":
            argv += ["1", "-o", folder / pick(rng, "e.json", "e.csv")]
        else:
            argv.append("--json")
    elif command == "report":
        argv = ["report", "--workspace", folder / "ws", pick(rng, "1", "nope"), "-o",
                folder / pick(rng, "r.html", "r.csv")]
    elif command in ("scorekeeping", "tooltalk"):
        f = folder / pick(rng, "x.json", "x.zip", "x.jsonl")
        f.write_bytes(pick(rng, b"", b"{}", b"[1, 2]", b"[" * 5000,
                           bytes(rng.integers(0, 256, 200, dtype=np.uint8))))
        argv = [command, f, "--json"]
        if command == "tooltalk":
            argv += ["--similarity", "exact"]
    elif command == "train-classifier":
        argv = ["train-classifier", "--train", path, "--eval", path, "--text-col",
                pick(rng, "nope", "text"), "--label-col", "nope", "-o", folder / "o.xlsx"]
    elif command == "labelstudio":
        argv = ["labelstudio", pick(rng, "push", "pull"), round_path or path, "--url",
                pick(rng, "http://[::1", "ftp://x", "http://127.0.0.1:9"), "--token", "t",
                "-o", folder / "p.csv"]
    else:  # pragma: no cover
        raise AssertionError(command)
    return argv, ctx


def make_input(command: str, rng, folder) -> tuple[list, dict, str]:
    """One input of ``command`` written into ``folder``: (argv, context for :func:`check`, the
    mutations applied)."""
    if command == "rsmeval-config":
        return rsmeval_config_input(rng, folder, write)
    n = int(pick(rng, 0, 3, 12, 40, 40, 120))
    table, mutation = mutate(base_table(rng, n), rng)
    path = write(table, rng, folder, "t")
    round_path = None
    if command in ("estimate", "certify", "labels", "annotators", "labelstudio"):
        clean = base_table(rng, max(n, 30))
        src = folder / "src.csv"
        clean.to_csv(src, index=False)
        rp = folder / "round.csv"
        code, _, err = run(["queue", src, "--calibration", "10", "--human-share", "0.2",
                            "--lam", "0.01", "--audit", "5", "-o", rp])
        assert code in (0, 2), err
        if code == 0:
            round_path = rp
            if rng.random() < 0.5:  # a hand-edited round
                t, mutation = mutate(pd.read_csv(rp), rng)
                t.to_csv(rp, index=False)
    argv, ctx = args_for(command, rng, path, folder, round_path)
    ctx.update(M=_rows(path), table=table, path=path)  # as read: a file may be truncated
    return argv, ctx, mutation


@pytest.mark.parametrize("command", sorted(PER_COMMAND))
def test_fuzz_command(command, tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    rng = np.random.default_rng([SEED, sum(map(ord, command))])
    start = time.monotonic()
    runs = 0
    for i in range(PER_COMMAND[command] * RUNS):
        if RUNS == 1 and time.monotonic() - start > BUDGET_S and runs >= 2:
            break
        folder = tmp_path / f"in{i}"
        folder.mkdir()
        argv, ctx, mutation = make_input(command, rng, folder)
        where = f"seed {SEED}, input {i} ({mutation}): hmceval {' '.join(map(str, argv))}"
        try:
            code, out, err = run(argv)
        except Hang:
            pytest.fail(f"hang: {where}")
        except Exception as exc:  # a traceback
            raise AssertionError(f"traceback {type(exc).__name__}: {exc}; {where}") from exc
        try:
            check(command, argv, code, out, err, ctx)
        except AssertionError as exc:
            raise AssertionError(f"{where}: {exc}") from exc
        runs += 1
        shutil.rmtree(folder, ignore_errors=True)
    COUNTS[command] = runs
    print(f"fuzz {command}: {runs} inputs, 0 tracebacks, 0 hangs, 0 broken invariants")
    assert runs >= 2


# ---------------------------------------------------------------------------- upload path

@settings(max_examples=60 * RUNS, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.integers(0, 2**32 - 1), st.sampled_from(["t.csv", "t.tsv", "t.json", "t", "t.parquet"]),
       st.binary(max_size=64), st.integers(0, 3))
def test_fuzz_upload_path(seed, name, noise, how):
    """core.data.load_table + prepare, what the Data page calls on an upload: a DataError or a
    dataset with every row (none lost, none duplicated)."""
    from core.data import load_table, prepare
    from core.errors import DataError

    rng = np.random.default_rng(seed)
    table, _ = mutate(base_table(rng, int(rng.integers(0, 50))), rng)
    buf = io.BytesIO()
    if name.endswith(".parquet"):
        try:
            table.astype({c: str for c in table.columns if table[c].dtype == object}
                         ).to_parquet(buf)
        except Exception:
            table.to_csv(buf, index=False)
    elif name.endswith(".json"):
        buf.write(table.to_json(orient="records").encode())
    else:
        buf.write(table.to_csv(index=False, sep="\t" if name.endswith(".tsv") else ",").encode())
    data = buf.getvalue()
    if how == 1:
        data = data[: len(data) // 2] + noise
    elif how == 2:
        data = noise + data
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_S)
    try:
        raw = load_table(data, name=name)
        ready = prepare(raw, name=name)
    except DataError:
        return
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert len(ready.frame) == len(raw)
    if "sample_id" in ready.frame.columns:
        assert len(ready.frame["sample_id"]) == len(raw)
