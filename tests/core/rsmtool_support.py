"""RSMTool's rsmeval test data (tests/data/rsmtool) and the cell-by-cell comparison of its
expected output files with ours, the way RSMTool's ``check_file_output`` lines them up (used by
tests/core/test_rsm_rsmeval_experiments.py and tests/cli/test_cli_agreement.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parents[1] / "data" / "rsmtool"
EXPERIMENTS = sorted(p.name for p in (DATA / "experiments").iterdir() if p.is_dir())
RTOL, ATOL = 1e-6, 1e-9
#: Experiments whose estimates_osa and estimates_osd files list groups of one size in an order
#: other than RSMTool's rule (see tests/core/test_rsm_rsmeval_experiments.py): how many files.
TIED_ESTIMATES = {"lr-eval-with-h2": 2, "lr-eval-exclude-listwise": 2}
#: Expected files (of all 457) whose columns are in RSMTool's ``filter_metrics`` order, not sorted
#: by name as in its other files of those tables (see tests/core/test_rsm_rsmeval_experiments.py).
FILTER_METRICS_ORDER_FILES = 5


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


def compare_folder(expected_dir: Path, ours_dir: Path, fmt: str) -> dict:
    """Every cell of every expected ``*.<fmt>`` file of ``expected_dir`` against the file of the
    same name in ``ours_dir``: counts of the numbers and texts, the numbers equal, and the cells
    wrong (numbers beyond the tolerance, texts not equal) or without counterpart (our file, row or
    column absent), and our rows and columns that RSMTool's file has not (``extra``)."""
    counts = {"files": 0, "numbers": 0, "texts": 0, "equal": 0, "wrong": [], "missing": [], "text_wrong": [],
              "extra": []}
    for expected_path in sorted(expected_dir.glob(f"*.{fmt}")):
        counts["files"] += 1
        expected = _lined_up(_read(expected_path))
        ours_path = ours_dir / expected_path.name
        ours = _lined_up(_read(ours_path)) if ours_path.exists() else None
        if ours is not None:  # a row or column of ours that RSMTool's file has not
            counts["extra"] += [f"{expected_path.name}: row {r!r}" for r in ours.index if r not in expected.index]
            counts["extra"] += [f"{expected_path.name}: column {c!r}" for c in ours.columns
                                if c not in expected.columns]
        for row in expected.index:
            for col in expected.columns:
                exp = expected.at[row, col]
                where = f"{expected_path.name}[{row}, {col}]"
                number = _is_number(exp)
                counts["numbers"] += number
                counts["texts"] += not number
                if ours is None or row not in ours.index or col not in ours.columns:
                    counts["missing"].append(where)  # a number or a text (a group's name, a category)
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


def row_orders(expected_dir: Path, ours_dir: Path, fmt: str) -> list[tuple[str, list[str], list[str] | None]]:
    """Every expected ``*.<fmt>`` file whose rows (their labels, lined up as
    :func:`compare_folder` lines them up) are not in the order of ours: ``(file name, expected
    labels, our labels or None when our file is absent)``."""
    out = []
    for expected_path in sorted(expected_dir.glob(f"*.{fmt}")):
        expected = list(_lined_up(_read(expected_path)).index)
        ours_path = ours_dir / expected_path.name
        ours = list(_lined_up(_read(ours_path)).index) if ours_path.exists() else None
        if ours != expected:
            out.append((expected_path.name, expected, ours))
    return out


def group_sizes(folder: Path, fmt: str, group: str) -> dict[str, int]:
    """Group label -> number of responses, from the ``data_composition_by_<group>`` file in ``folder``."""
    (path,) = folder.glob(f"*_data_composition_by_{group}.{fmt}")
    table = _read(path)
    return {_label(k): int(n) for k, n in zip(table.iloc[:, 0], table["N responses"])}


def check_row_orders(name: str, folder: Path, fmt: str) -> int:
    """Assert every file's rows are in RSMTool's order, but for estimates files whose expected
    order differs from RSMTool's rule only among groups of one size; returns how many such."""
    expected_dir = DATA / "experiments" / name / "output"
    tied = 0
    for file, expected, ours in row_orders(expected_dir, folder, fmt):
        assert ours is not None, file
        assert "_estimates_os" in file, f"{file}: rows {ours} where RSMTool has {expected}"
        group = file.rsplit("_by_", 1)[1].rsplit(".", 1)[0]
        sizes = group_sizes(expected_dir, fmt, group)
        base = expected[0]
        assert ours[0] == base and base.startswith("Intercept (")
        # ours: by size, largest first, ties by name (RSMTool's convert_to_ordered_category)
        assert ours[1:] == sorted(ours[1:], key=lambda g: (-sizes[g], g)), file
        # RSMTool's file: the same groups, differing only among groups of one size
        assert sorted(expected) == sorted(ours)
        assert [sizes[g] for g in expected[1:]] == [sizes[g] for g in ours[1:]], file
        tied += 1
    return tied


def header(path: Path) -> list[str]:
    """A file's columns as written, left to right (the unnamed index column as ``""``)."""
    return ["" if str(c).startswith("Unnamed") else str(c) for c in _read(path).columns]


def filter_metrics_order(columns: list[str]) -> list[str] | None:
    """The columns of an ``eval_short`` or ``eval_by_<group>`` table in the order RSMTool's
    ``Analyzer.filter_metrics`` builds them (rsmtool/analyzer.py at a844f716: its
    ``chosen_metrics``, ``N``, ``h_mean``, ``h_sd``, then the ``X_trim`` metrics, then the
    ``X_trim_round`` ones, into ``pd.DataFrame([metricdict])``), or None if ``columns`` are
    not such a table's. Written from RSMTool's source, not from hmceval's."""
    names = [c for c in columns if c]
    prefix = "scale" if "sys_mean.scale_trim" in names else "raw"
    smd = "DSM" if f"DSM.{prefix}_trim" in names else "SMD"
    order = (["N", "h_mean", "h_sd"]
             + [f"{m}.{prefix}_trim" for m in ("sys_mean", "sys_sd", "wtkappa", "corr", smd, "RMSE", "R2")]
             + [f"{m}.{prefix}_trim_round" for m in ("sys_mean", "sys_sd", "kappa", "exact_agr", "adj_agr", smd)])
    return [""] + order if sorted(names) == sorted(order) else None


def is_sorted_by_text(columns: list[str]) -> bool:
    """The columns (but the index) sorted by their text, as pandas before 0.25 sorted the keys
    of a frame built from a list of dicts (pandas-dev/pandas#22708)."""
    return columns[1:] == sorted(columns[1:])


def check_column_orders(name: str, folder: Path, fmt: str) -> int:
    """Assert every file's columns are RSMTool's file's, left to right, but for files whose
    columns RSMTool's file lists in ``filter_metrics``' order where its other files of those
    tables (and ours) list them sorted by their text. Returns how many such."""
    expected_dir = DATA / "experiments" / name / "output"
    later = 0
    for expected_path in sorted(expected_dir.glob(f"*.{fmt}")):
        expected, ours = header(expected_path), header(folder / expected_path.name)
        if ours == expected:
            continue
        assert filter_metrics_order(expected) == expected, \
            f"{expected_path.name}: columns {ours} where RSMTool has {expected}"
        assert ours == [""] + sorted(expected[1:]) and is_sorted_by_text(ours), \
            f"{expected_path.name}: columns {ours}, not sorted by their text"
        later += 1
    return later


def filter_metrics_files(name: str) -> int:
    """How many of the experiment's expected files list ``filter_metrics``' columns in its order
    (not sorted by their text)."""
    (cfg,) = (DATA / "experiments" / name).glob("*.json")
    fmt = json.loads(cfg.read_text()).get("file_format", "csv")
    n = 0
    for path in sorted((DATA / "experiments" / name / "output").glob(f"*.{fmt}")):
        columns = header(path)
        n += filter_metrics_order(columns) == columns
    return n
