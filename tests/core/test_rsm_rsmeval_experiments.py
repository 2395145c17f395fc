"""RSMTool's own rsmeval test experiments, every number of their expected outputs.

The inputs, configurations and expected outputs are RSMTool's (Apache-2.0), copied unchanged
from ``tests/data`` of EducationalTestingService/rsmtool at commit a844f716 into
``tests/data/rsmtool`` (see its README). Each experiment is run through
:func:`core.rsm.rsmeval.rsmeval_tables` with the options of its configuration file, its tables
written with :func:`core.rsm.rsmeval.write_tables` in the experiment's ``file_format`` (csv, tsv,
xlsx) and read back, then compared cell by cell with RSMTool's expected file of the same name
the way RSMTool's ``check_file_output`` lines them up (first column as the index unless it is
numeric, rows and columns matched by name), with a tolerance 1000 times tighter than RSMTool's
own (``rtol=1e-6`` against its ``1e-3``; ``atol=1e-9`` for values that are 0 up to rounding,
such as the "All data" DSM of ``-8.4e-17``).

Every expected cell is counted as equal, wrong or without counterpart (our table lacks the
file, the row or the column); the test asserts none wrong and none without counterpart, and
that the count of numbers compared is what the files hold (so a file silently skipped fails).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.rsm.rsmeval import read_table, rsmeval_tables, write_tables

DATA = Path(__file__).resolve().parents[1] / "data" / "rsmtool"
EXPERIMENTS = sorted(p.name for p in (DATA / "experiments").iterdir() if p.is_dir())
RTOL, ATOL = 1e-6, 1e-9


def _read(path: Path) -> pd.DataFrame:
    if path.suffix == ".xlsx":
        return pd.read_excel(path, engine="openpyxl")
    return pd.read_csv(path, sep="\t" if path.suffix == ".tsv" else ",")


def _label(value) -> str:
    """A row or column label as text, numbers in one form (``1``, ``1.0`` and ``"1"`` alike)."""
    if isinstance(value, float) and math.isnan(value):
        return ""
    text = str(value)
    try:
        return repr(float(text))
    except ValueError:
        return text


def _lined_up(df: pd.DataFrame) -> pd.DataFrame:
    """RSMTool's ``check_file_output``: the first column is the index unless it is numeric (then
    the positions are); labels as text."""
    df = df.copy()
    df.columns = [_label(c) if not str(c).startswith("Unnamed") else "" for c in df.columns]
    if pd.api.types.is_numeric_dtype(df[df.columns[0]].dtype):
        df.index = [_label(i) for i in range(len(df))]
    else:
        df.index = [_label(v) for v in df[df.columns[0]]]
        df = df.iloc[:, 1:]
    return df


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _config(name: str) -> dict:
    (cfg_path,) = (DATA / "experiments" / name).glob("*.json")
    return json.loads(cfg_path.read_text())


def _run(name: str, folder: Path) -> tuple[dict, str]:
    cfg = _config(name)
    here = DATA / "experiments" / name
    files = DATA / "files"
    pred = read_table(files / Path(cfg["predictions_file"]).name)
    scale_with = cfg.get("scale_with")
    scale_frame = None
    if scale_with not in (None, "asis", "raw"):
        assert (here / scale_with).resolve().parent == files.resolve()
        scale_frame = read_table(files / Path(scale_with).name)
    subgroups = [g.strip() for g in cfg.get("subgroups", "").split(",") if g.strip()]
    tables = rsmeval_tables(
        pred, human=cfg["human_score_column"], system=cfg["system_score_column"],
        human2=cfg.get("second_human_score_column"), groups=subgroups, scale_with=scale_with,
        scale_frame=scale_frame, trim_min=cfg["trim_min"], trim_max=cfg["trim_max"],
        trim_tolerance=cfg.get("trim_tolerance", 0.4998),
        exclude_zero_scores=cfg.get("exclude_zero_scores", True), flag_column=cfg.get("flag_column"),
        candidate_column=cfg.get("candidate_column"), min_items_per_candidate=cfg.get("min_items_per_candidate"),
        id_column=cfg.get("id_column", "spkitemid"),
    )
    fmt = cfg.get("file_format", "csv")
    write_tables(tables, folder, experiment_id=cfg["experiment_id"], file_format=fmt)
    return cfg, fmt


def compare_experiment(name: str, folder: Path) -> dict:
    """Counts of expected numbers equal / wrong / without counterpart, and the details."""
    cfg, fmt = _run(name, folder)
    counts = {"files": 0, "numbers": 0, "equal": 0, "wrong": [], "missing": [], "text_wrong": []}
    for expected_path in sorted((DATA / "experiments" / name / "output").glob(f"*.{fmt}")):
        counts["files"] += 1
        expected = _lined_up(_read(expected_path))
        ours_path = folder / expected_path.name
        ours = _lined_up(_read(ours_path)) if ours_path.exists() else None
        for row in expected.index:
            for col in expected.columns:
                exp = expected.at[row, col]
                where = f"{expected_path.name}[{row}, {col}]"
                number = _is_number(exp)
                counts["numbers"] += number
                if ours is None or row not in ours.index or col not in ours.columns:
                    if number:
                        counts["missing"].append(where)
                    continue
                got = ours.at[row, col]
                if not number:
                    if str(got) != str(exp):
                        counts["text_wrong"].append(f"{where}: {got!r} != {exp!r}")
                    continue
                ok = _is_number(got) and (
                    (math.isnan(exp) and math.isnan(got))
                    or (not math.isnan(exp) and math.isclose(got, exp, rel_tol=RTOL, abs_tol=ATOL)))
                if ok:
                    counts["equal"] += 1
                else:
                    counts["wrong"].append(f"{where}: ours {got!r}, RSMTool {exp!r}")
    return counts


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_expected_number_of_the_experiment(name, tmp_path):
    counts = compare_experiment(name, tmp_path)
    assert counts["files"] > 0
    assert counts["wrong"] == []
    assert counts["missing"] == []
    assert counts["text_wrong"] == []
    assert counts["equal"] == counts["numbers"]


def test_the_experiments_are_rsmtools_rsmeval_list():
    # the 24 parameterised experiments of RSMTool's tests/test_experiment_rsmeval.py plus its
    # configuration-object and dictionary experiments
    assert len(EXPERIMENTS) == 26
    assert {"lr-eval-with-xlsx-output", "lr-eval-xlsx-input-files", "lr-eval-with-tsv-output",
            "lr-eval-with-scaling-and-h2-keep-zeros", "lr-eval-system-score-constant"} <= set(EXPERIMENTS)
