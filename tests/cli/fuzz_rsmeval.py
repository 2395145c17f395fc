"""Inputs for the fuzz of ``hmceval agreement --rsmeval-config FILE`` (issue 32, item 6), used by
tests/cli/test_cli_fuzz.py like its other commands' inputs.

Each input is an rsmeval configuration file in a folder of its own and a predictions table one
folder up (``../t.csv``, as RSMTool's experiments name theirs), made from a seed: a valid
configuration with some of rsmeval's optional fields, then zero to three changes drawn from

- a field given a value of another kind or out of range (text, number, boolean, null, list,
  object, infinity, a huge number, a path that is absent or a folder, another role's column, a
  hostile text), a required field removed, a field rsmeval does not know;
- the file itself broken (empty, not JSON, a JSON list, nested deeply, a key given twice,
  UTF-16, over 1 MB, ``NaN`` literals);
- the table of 3 rows, or changed (text, missing and huge scores, a constant system score, all-zero human
  scores, hostile group values, a column dropped) or written broken by the harness's
  :func:`write`.

The harness asserts exit 0 or 2 and no traceback for every input; here :func:`check_rsmeval`
adds: when only fields were changed (the file and the table sound) and the run exits 2, the
message names one of the changed fields; when it exits 0, stdout is the JSON report and the
tables were written under the experiment id.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

#: rsmeval's fields (core.rsm.rsmeval_config's REQUIRED, OPTIONAL and REPORT_ONLY, spelt out so
#: that a field the reader forgets still gets fuzzed)
FIELDS = ["experiment_id", "predictions_file", "system_score_column", "trim_min", "trim_max",
          "id_column", "human_score_column", "second_human_score_column", "file_format", "flag_column",
          "exclude_zero_scores", "scale_with", "trim_tolerance", "subgroups", "candidate_column",
          "min_items_per_candidate", "rater_error_variance", "use_wandb", "description", "use_thumbnails",
          "min_n_per_group", "general_sections", "custom_sections", "section_order", "wandb_project",
          "wandb_entity"]
#: values of every kind a field may wrongly hold
BAD_VALUES = [None, "", " ", 0, -1, 2.5, 1e308, float("inf"), float("nan"), "1e400", "-0", True, False,
              [], {}, [1, 2], ["h1", 3], {"a": {"b": 1}}, {"flag": None}, {"flag": []}, "nope",
              "../nope.csv", "..", "/", "../exp", "h1", "score", "QUESTION", "cand", "id", "flag",
              "=1+1", "\u202eevil", "a\x00b", "x" * 5000, "QUESTION, QUESTION", "asis", "raw", "csv",
              "xlsx", 10**30, -(10**30), "true", "FALSE", 100000, 3]


def _table(rng: np.random.Generator) -> tuple[pd.DataFrame, list[str]]:
    n = int(rng.choice([3, 12, 40, 40, 120]))
    h1 = rng.integers(1, 5, n).astype(float)
    t = pd.DataFrame({
        "id": [f"r{i}" for i in range(n)],
        "h1": h1,
        "h2": np.where(rng.random(n) < 0.5, np.clip(h1 + rng.integers(-1, 2, n), 1, 4), np.nan),
        "score": np.round(h1 + rng.normal(0, 0.7, n), 3),
        "QUESTION": rng.choice(["q1", "q2", "q3"], n),
        "L1": rng.choice(["Arabic", "Tamil", "=x"], n),
        "cand": [f"c{i % max(1, n // 4)}" for i in range(n)],
        "flag": rng.choice([0, 1], n, p=[0.8, 0.2]),
    })
    changes: list[str] = []
    for _ in range(int(rng.choice([0, 0, 0, 1, 2]))):
        kind = int(rng.integers(0, 8))
        i = int(rng.integers(0, n))
        if kind != 5 and any(c.startswith("dropped") for c in changes):
            continue  # a column an earlier change dropped
        if kind == 0:
            t["h1"] = t["h1"].astype(object)
            t.loc[i, "h1"] = "text"
        elif kind == 1:
            t.loc[i, "score"] = float(rng.choice([np.nan, np.inf, 1e300]))
        elif kind == 2:
            t["score"] = 2.0
        elif kind == 3:
            t["h1"] = 0.0
        elif kind == 4:
            t["QUESTION"] = rng.choice(["![x](y)", "new\nline", "All data", "1", "1.0"], n)
        elif kind == 5:
            t = t.drop(columns=[str(rng.choice(["h1", "score", "id", "QUESTION"]))], errors="ignore")
            changes.append("dropped")
        elif kind == 6:
            t.loc[i, "id"] = t.loc[0, "id"]
        else:
            t["score"] = t["score"].astype(object)
            t.loc[i, "score"] = str(rng.choice(["1e400", "0x10", "\u0661", "9" * 400]))
        changes.append(f"table{kind}")
    return t, changes


def _config(rng: np.random.Generator, predictions: str, scale_file: str) -> dict:
    cfg = {"experiment_id": "e1", "predictions_file": predictions, "system_score_column": "score",
           "human_score_column": "h1", "id_column": "id", "trim_min": 1, "trim_max": 4}
    if rng.random() < 0.4:
        cfg["second_human_score_column"] = "h2"
    if rng.random() < 0.5:
        cfg["subgroups"] = "QUESTION, L1" if rng.random() < 0.5 else ["QUESTION"]
    if rng.random() < 0.3:
        cfg["candidate_column"] = "cand"
        if rng.random() < 0.5:
            cfg["min_items_per_candidate"] = int(rng.integers(1, 4))
    if rng.random() < 0.3:
        cfg["flag_column"] = {"flag": [0]} if rng.random() < 0.5 else {"flag": 0}
    if rng.random() < 0.3:
        cfg["scale_with"] = str(rng.choice(["asis", "raw", scale_file]))
    if rng.random() < 0.3:
        cfg["exclude_zero_scores"] = bool(rng.random() < 0.5) if rng.random() < 0.5 else "false"
    if rng.random() < 0.3:
        cfg["file_format"] = str(rng.choice(["csv", "tsv", "xlsx"]))
    if rng.random() < 0.2:
        cfg["trim_tolerance"] = float(rng.choice([0, 0.49, 0.5]))
    if rng.random() < 0.2:
        cfg.update(description="d", section_order=["a"], use_thumbnails="true")
    return cfg


def _broken_file(rng: np.random.Generator, text: str) -> tuple[bytes, str]:
    kind = int(rng.integers(0, 8))
    if kind == 0:
        return b"", "empty"
    if kind == 1:
        return text[: len(text) // 2].encode(), "truncated"
    if kind == 2:
        return b"[" + text.encode() + b"]", "list"
    if kind == 3:
        return ("[" * 5000 + "]" * 5000).encode(), "nested"
    if kind == 4:
        return text.replace("{", '{"trim_min": 0, ', 1).encode(), "twice"
    if kind == 5:
        return text.encode("utf-16"), "utf16"
    if kind == 6:
        return (text[:-1] + ', "description": "' + "x" * (1024 * 1024) + '"}').encode(), "huge"
    return text.replace('"trim_max": 4', '"trim_max": NaN').encode(), "nan"


def rsmeval_config_input(rng: np.random.Generator, folder, write) -> tuple[list, dict, str]:
    """One input: (argv, context for :func:`check_rsmeval`, the changes made). ``write`` is the
    harness's table writer (CSV mostly; TSV, JSON, Parquet, broken files, odd encodings)."""
    table, changes = _table(rng)
    plain = rng.random() < 0.7
    if plain:
        path = folder / "t.csv"
        table.to_csv(path, index=False)
    else:
        path = write(table, rng, folder, "t")
    scale = folder / "train.csv"
    pd.DataFrame({"prediction": [1.0, 2.5, 3.0], "sc1": [1, 3, 3]}).to_csv(scale, index=False)
    exp = folder / "exp"
    exp.mkdir()
    cfg = _config(rng, f"../{path.name}", "../train.csv")
    fields: list[str] = []
    for _ in range(int(rng.choice([0, 1, 1, 2, 3]))):
        field = str(rng.choice(FIELDS + ["trim_maxx", "model"]))
        if field in fields:
            continue
        if rng.random() < 0.1 and field in cfg:
            del cfg[field]
        else:
            cfg[field] = BAD_VALUES[int(rng.integers(len(BAD_VALUES)))]
        fields.append(field)
    text = json.dumps(cfg)
    data, broken = (text.encode(), None) if rng.random() < 0.9 else _broken_file(rng, text)
    cfg_path = exp / "c.json"
    cfg_path.write_bytes(data)
    tables = folder / "tables"
    if rng.random() < 0.95:
        tables.mkdir()
    argv = ["agreement", "--rsmeval-config", cfg_path, "--tables", tables]
    # sound: the file and the table as made (12 rows or more: three groups, four candidates)
    sound = broken is None and not changes and plain and len(table) >= 12
    ctx = {"fields": fields, "sound": sound and tables.is_dir(), "tables": tables,
           "experiment_id": cfg.get("experiment_id")}
    what = "+".join(changes + [f"field:{f}" for f in fields] + ([f"file:{broken}"] if broken else []))
    return argv, ctx, what or "none"


def check_rsmeval(code: int, out: str, err: str, ctx: dict) -> None:
    """The --rsmeval-config invariants (beyond exit 0 or 2 and no traceback)."""
    if code == 2 and ctx["sound"]:
        assert ctx["fields"], f"a sound configuration and table refused: {err[-500:]}"
        assert any(f"'{f}'" in err or f"({f})" in err or f" {f} " in err for f in ctx["fields"]), \
            f"the message names none of the changed fields {ctx['fields']}: {err[-500:]}"
    if code == 0:
        report = json.loads(out)
        assert report["responses"]["N_total"] > 0
        written = sorted(p.name for p in ctx["tables"].iterdir())
        assert written and all(n.startswith(f"{ctx['experiment_id']}_") for n in written), written
