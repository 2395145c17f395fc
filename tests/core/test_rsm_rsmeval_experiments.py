"""RSMTool's own rsmeval test experiments: every value of every expected output file.

The inputs, configurations and expected outputs are RSMTool's (Apache-2.0), copied unchanged
from ``tests/data`` of EducationalTestingService/rsmtool at commit a844f716 into
``tests/data/rsmtool`` (see its README): the 26 rsmeval experiments of its
``tests/test_experiment_rsmeval.py`` and every file of their expected ``output`` folders. Each
experiment is run through :func:`core.rsm.rsmeval.rsmeval_tables` with the options of its
configuration file, its tables written with :func:`core.rsm.rsmeval.write_tables` in the
experiment's ``file_format`` (csv, tsv, xlsx) and read back, then compared cell by cell with
RSMTool's expected file of the same name, lined up as RSMTool's ``check_file_output`` lines them
up (first column as the index unless it is numeric, rows and columns matched by name;
:mod:`tests.core.rsmtool_support`), numbers with a tolerance 1000 times tighter than RSMTool's
own (``rtol=1e-6`` against its ``1e-3``; ``atol=1e-9`` for values that are 0 up to rounding, such
as the "All data" DSM of ``-8.4e-17``), texts (group names, categories) exactly.

Every expected cell is counted as equal, wrong or without counterpart (our file, row or column
absent); the test asserts none wrong and none without counterpart, and that every number
compared is equal (so a file silently skipped fails). Over the 26 experiments: 457 files,
44,080 numbers and 7,186 texts.

The rows of every file are also in the order of RSMTool's file (issue 32: the by-group tables
listed the groups by size where rsmeval lists them by name, ``All data`` among them): 453 of the
457 files. The other 4 are ``estimates_osa`` and ``estimates_osd`` of two experiments whose groups
are all of one size (``lr-eval-with-h2`` and ``lr-eval-exclude-listwise``, ``QUESTION``): RSMTool
orders the fairness models' groups by size, ties by name (``convert_to_ordered_category``), and
its ``estimates_csd`` file of the same run lists them by name, but these two files (written in
2019; RSMTool's own test sorts rows before comparing) list the tied groups in another order.
Ours follow RSMTool's rule; the test checks that they differ from RSMTool's files only by the
order of groups of equal size. That order cannot be had by any rule: RSMTool then ordered the
groups by ``value_counts()`` alone, and its fix the same day (commit a95b37ac, "makes sure that
the order is consistent and reproducible across runs") names why; the two experiments list the
same five equal-size groups in two different orders (3, 5, 4, 2 and 4, 2, 5, 3).

The columns of every file are also RSMTool's file's, left to right: 452 of the 457 files.
RSMTool's ``filter_metrics`` builds ``eval_short`` and ``eval_by_<group>`` with
``pd.DataFrame([metricdict])`` in its own order (``N``, ``h_mean``, ``h_sd``, the ``_trim``
metrics, then the ``_trim_round`` ones); the pandas RSMTool pinned when it wrote its files
(0.23.4) sorted the keys of a frame built from a list of dicts (pandas-dev/pandas#22708), so 47
of its 52 such files list the columns sorted by name, and so do ours. The other 5 are files of
the same tables that RSMTool rewrote after unpinning pandas (``lr-eval-system-score-constant``,
2020: ``eval_short``, ``eval_by_L1``, ``eval_by_QUESTION``; ``lr-eval-scale-raw``, 2023:
``eval_short``, ``eval_by_QUESTION``), in ``filter_metrics``' order, as rsmeval 12 writes them
with a current pandas; they come from the same code as the 47, so no rule matches both. The test
checks the 452 column for column, and that each of the 5 holds our columns in
``filter_metrics``' order (written in the test from RSMTool's source), ours sorted by name.

Checked once by hand (issue 32) against rsmeval 12.0.0 itself, run on the 26 configuration
files with pandas 2.2 and 3.0 (not part of the suite: RSMTool is not a dependency): all 457 files
written, 44,080 of 44,080 numbers and every text equal, every file's rows in the same order (the
tied ``estimates_osa``/``osd`` groups by name, as ours); the columns differ in 56 files only, the
52 ``eval_short``/``eval_by`` files (``filter_metrics``' order, see above) and 4
``test_excluded_responses`` files, whose columns a current pandas sorts by name in
``pd.concat(..., sort=True)`` where RSMTool's files of 2016 and ours keep the table's order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from core.rsm.rsmeval import read_table, rsmeval_tables, write_tables
from tests.core.rsmtool_support import (
    DATA, EXPERIMENTS, FILTER_METRICS_ORDER_FILES, TIED_ESTIMATES, check_column_orders, check_row_orders, compare_folder,
    filter_metrics_files, filter_metrics_order, header, is_sorted_by_text)


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
    _cfg, fmt = _run(name, folder)
    return compare_folder(DATA / "experiments" / name / "output", folder, fmt)


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_expected_number_of_the_experiment(name, tmp_path):
    counts = compare_experiment(name, tmp_path)
    assert counts["files"] > 0
    assert counts["wrong"] == []
    assert counts["missing"] == []
    assert counts["text_wrong"] == []
    assert counts["extra"] == []  # e.g. an index column RSMTool does not write
    assert counts["equal"] == counts["numbers"]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_files_rows_and_columns_in_rsmevals_order(name, tmp_path):
    _cfg, fmt = _run(name, tmp_path)
    assert check_row_orders(name, tmp_path, fmt) == TIED_ESTIMATES.get(name, 0)
    # every file's columns left to right as RSMTool's, but its 5 files in filter_metrics' order
    assert check_column_orders(name, tmp_path, fmt) == filter_metrics_files(name)


def test_the_expected_files_column_orders():
    """Of RSMTool's 52 eval_short and eval_by_<group> files, 47 list filter_metrics' columns
    sorted by their text (pandas 0.23.4) and 5, rewritten since, in filter_metrics' order."""
    kinds = {"sorted": [], "filter_metrics": []}
    for name in EXPERIMENTS:
        for path in sorted((DATA / "experiments" / name / "output").glob("*")):
            columns = header(path) if path.suffix in (".csv", ".tsv", ".xlsx") else []
            order = filter_metrics_order(columns)
            if order is None:
                continue
            assert columns == order or (is_sorted_by_text(columns) and sorted(columns) == sorted(order)), path.name
            kinds["sorted" if columns != order else "filter_metrics"].append(path.name)
    assert len(kinds["sorted"]) == 47
    assert len(kinds["filter_metrics"]) == sum(map(filter_metrics_files, EXPERIMENTS)) == FILTER_METRICS_ORDER_FILES
    assert sorted(kinds["filter_metrics"]) == [
        "lr_eval_scale_raw_eval_by_QUESTION.csv", "lr_eval_scale_raw_eval_short.csv",
        "lr_eval_system_score_constant_eval_by_L1.csv", "lr_eval_system_score_constant_eval_by_QUESTION.csv",
        "lr_eval_system_score_constant_eval_short.csv"]


def test_filter_metrics_order_by_hand():
    # RSMTool's chosen_metrics, hand-copied: scaled, DSM (a by-group table)
    cols = ["", "DSM.scale_trim", "DSM.scale_trim_round", "N", "R2.scale_trim", "RMSE.scale_trim",
            "adj_agr.scale_trim_round", "corr.scale_trim", "exact_agr.scale_trim_round", "h_mean", "h_sd",
            "kappa.scale_trim_round", "sys_mean.scale_trim", "sys_mean.scale_trim_round", "sys_sd.scale_trim",
            "sys_sd.scale_trim_round", "wtkappa.scale_trim"]
    assert is_sorted_by_text(cols)
    assert filter_metrics_order(cols) == [
        "", "N", "h_mean", "h_sd", "sys_mean.scale_trim", "sys_sd.scale_trim", "wtkappa.scale_trim",
        "corr.scale_trim", "DSM.scale_trim", "RMSE.scale_trim", "R2.scale_trim", "sys_mean.scale_trim_round",
        "sys_sd.scale_trim_round", "kappa.scale_trim_round", "exact_agr.scale_trim_round",
        "adj_agr.scale_trim_round", "DSM.scale_trim_round"]
    assert filter_metrics_order(["", "N", "h_mean"]) is None  # not such a table


def test_by_group_rows_by_name_with_all_data_among_them():
    # hand-made: groups of sizes 3 ("b"), 2 ("Zed"), 1 ("1"): rsmeval's groupby lists them by
    # their text: "1" < "All data" < "Zed" < "b"
    df = pd.DataFrame({"h": [1, 2, 3, 2, 3, 4], "s": [1.2, 2.1, 2.9, 2.2, 3.1, 3.8],
                       "g": ["b", "b", "b", "Zed", "Zed", "1"]})
    tables = rsmeval_tables(df, human="h", system="s", groups=["g"], trim_min=1, trim_max=4)
    assert list(tables["eval_by_g"].index) == ["1", "All data", "Zed", "b"]
    assert tables["eval_by_g"].loc["b", "N"] == 3 and tables["eval_by_g"].loc["All data", "N"] == 6
    # the fairness estimates keep the model order: the largest group is the base
    assert list(tables["estimates_osa_by_g"].index) == ["Intercept (b)", "Zed", "1"]


def test_the_experiments_are_rsmtools_rsmeval_list():
    # the 24 parameterised experiments of RSMTool's tests/test_experiment_rsmeval.py plus its
    # configuration-object and dictionary experiments
    assert len(EXPERIMENTS) == 26
    assert {"lr-eval-with-xlsx-output", "lr-eval-xlsx-input-files", "lr-eval-with-tsv-output",
            "lr-eval-with-scaling-and-h2-keep-zeros", "lr-eval-system-score-constant"} <= set(EXPERIMENTS)
