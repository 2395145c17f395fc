"""Issue 12: every numeric option has documented bounds; out-of-bounds values and hostile
tables end in exit code 2 with a message naming the option or the column, never a traceback,
a hang or a multi-gigabyte allocation; CSV exports neutralise formula cells."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from core.cli import build_parser
from core.demo import make_demo
from tests.cli.cli_support import run_cli


@pytest.fixture(scope="module")
def demo_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "demo.csv"
    make_demo().to_csv(path, index=False)
    return path


@pytest.mark.parametrize("opt, value, message", [
    ("--lam", "0:nan:1", "--lam must hold finite numbers"),
    ("--human-share", "0:inf:1", "--human-share must hold finite numbers"),
    ("--lam", "nan", "--lam must hold finite numbers"),
    ("--lam", "0:1:1e-9", r"--lam '0:1:1e-9' would have 1,000,000,001 grid points; at most 10,001"),
    ("--lam", "0:1:1e-7", "at most 10,001 are allowed"),
    ("--lam", "-2:1:1", "--lam values must be >= 0"),
])
def test_sweep_grid_bounds(capsys, demo_csv, opt, value, message):
    code, out, err = run_cli(capsys, "sweep", demo_csv, f"{opt}={value}")
    assert code == 2 and out == ""
    assert re.search(message, err), err


def test_sweep_whole_grid_is_capped(capsys, demo_csv):
    code, _, err = run_cli(capsys, "sweep", demo_csv, "--lam", "0:45:0.01", "--human-share",
                           "0:1:0.001")
    assert code == 2
    assert "4,501 x 1,001 = 4,505,501 grid points; at most 250,000" in err


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be between 0 and 4,294,967,295, got -1"),
    (["--seed", "4294967296"], "--seed must be between 0 and 4,294,967,295, got 4294967296"),
    (["--bootstrap", "100000"], "--bootstrap must be between 0 and 10,000, got 100000"),
    (["--bootstrap", "-1"], "--bootstrap must be between 0 and 10,000, got -1"),
])
def test_turns_bounds(capsys, demo_csv, argv, message):
    code, out, err = run_cli(capsys, "turns", demo_csv, *argv)
    assert code == 2 and message in err


def test_turns_json_prints_null_for_metrics_without_gold(capsys, demo_csv):
    code, out, err = run_cli(capsys, "turns", demo_csv, "--col", "human_label=", "--col",
                             "human_effort=", "--bootstrap", "20", "--json")
    assert code == 0, err
    assert "NaN" not in out
    rows = json.loads(out)
    for r in rows:
        for k in ("accuracy", "precision", "recall", "f1", "machine_accuracy", "time_cost",
                  "accuracy_lo", "f1_hi"):
            assert r[k] is None, k
        assert 0 <= r["human_ratio"] <= 1
    # as assign prints them
    code, out, _ = run_cli(capsys, "assign", demo_csv, "--col", "human_label=", "--col",
                           "human_effort=", "--json")
    res = json.loads(out)
    assert res["accuracy"] is None and res["time_cost"] is None


def test_turns_json_keeps_numbers_with_gold(capsys, demo_csv):
    code, out, err = run_cli(capsys, "turns", demo_csv, "--bootstrap", "0", "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert all(isinstance(r["accuracy"], float) for r in rows)


@pytest.fixture(scope="module")
def effort_csv(tmp_path_factory):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"secs": rng.uniform(1, 100, 30), "length": rng.uniform(0, 10, 30),
                       "other": rng.uniform(0, 1, 30)})
    path = tmp_path_factory.mktemp("effort") / "eff.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed must be between 0 and 4,294,967,295, got -1"),
    (["--seed", "4294967296"], "--seed must be between 0 and 4,294,967,295"),
    (["--jobs", "0"], "--jobs (or -1 for every CPU) must be between 1 and 256, got 0"),
    (["--trees", "0"], "--trees must be between 1 and 10,000, got 0"),
    (["--folds", "1"], "--folds must be at least 2, got 1"),
    (["--permutation-repeats", "-1"], "--permutation-repeats must be between 0 and 1,000"),
])
def test_effort_bounds(capsys, effort_csv, argv, message):
    code, _, err = run_cli(capsys, "effort", effort_csv, "--time-col", "secs", "--features",
                           "length,other", *argv)
    assert code == 2 and message in err, err


def test_effort_feature_beyond_float32_names_the_column(capsys, tmp_path, effort_csv):
    df = pd.read_csv(effort_csv)
    df.loc[4, "length"] = 1e39
    path = tmp_path / "big.csv"
    df.to_csv(path, index=False)
    code, _, err = run_cli(capsys, "effort", path, "--time-col", "secs", "--features",
                           "length,other")
    assert code == 2
    assert "column 'length' has values beyond 3.403e+38" in err and "row 5" in err


def test_effort_output_neutralises_formulas(capsys, tmp_path, effort_csv):
    df = pd.read_csv(effort_csv)
    df["dialogue_id"] = [f"=HYPERLINK(\"http://x\",\"{i}\")" if i == 0 else f"d{i}"
                         for i in range(len(df))]
    df["turns"] = 2
    path, out_csv = tmp_path / "e.csv", tmp_path / "o.csv"
    df.to_csv(path, index=False)
    code, _, err = run_cli(capsys, "effort", path, "--time-col", "secs", "--features",
                           "length,other", "--id-col", "dialogue_id", "--turns-col", "turns",
                           "--trees", "5", "-o", out_csv)
    assert code == 0, err
    text = out_csv.read_text()
    assert "'=HYPERLINK" in text and "\n=HYPERLINK" not in text and ",=HYPERLINK" not in text


@pytest.mark.parametrize("value", [1e308, -1e200, 1e16])
def test_agreement_huge_scores_are_refused(capsys, tmp_path, value):
    rng = np.random.default_rng(0)
    h = rng.integers(1, 5, 40).astype(float)
    df = pd.DataFrame({"h": h, "s": h + rng.normal(0, 0.5, 40)})
    df.loc[3, "s"] = value
    path = tmp_path / "a.csv"
    df.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "agreement", path, "--human", "h", "--system", "s")
    assert code == 2 and "Infinity" not in out
    assert "column 's' (--system) has scores beyond 1e+15 in magnitude in row 4" in err


def test_agreement_prints_no_infinity_at_the_bound(capsys, tmp_path):
    rng = np.random.default_rng(0)
    h = rng.integers(1, 5, 40).astype(float)
    df = pd.DataFrame({"h": h, "s": h + rng.normal(0, 0.5, 40), "g": ["a", "b"] * 20})
    df.loc[3, "s"] = 1e15
    path = tmp_path / "a.csv"
    df.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "agreement", path, "--human", "h", "--system", "s",
                             "--group", "g")
    assert code == 0, err
    assert "Infinity" not in out


@pytest.mark.parametrize("argv, message", [
    (["--effort-budget", "nan"], "--effort-budget must be a finite number >= 0, got nan"),
    (["--effort-budget", "inf"], "--effort-budget must be a finite number >= 0, got inf"),
    (["--effort-budget-share", "nan"], "--effort-budget-share must be a finite number in [0, 1]"),
    (["--lam", "inf"], "lambda must be a finite number >= 0, got inf"),
    (["--human-share", "nan"], "human share must be in [0, 1], got nan"),
])
def test_assign_bounds(capsys, demo_csv, argv, message):
    code, _, err = run_cli(capsys, "assign", demo_csv, *argv)
    assert code == 2 and message in err, err


def test_assign_ilp_size_is_capped_before_the_solver(capsys, demo_csv, monkeypatch):
    import core.assignment.report
    import core.cli.cmd_assign as cmd

    monkeypatch.setattr(cmd, "MAX_ILP_SAMPLES", 1000)

    def no_solver(*a, **k):  # the solver must not be reached
        raise AssertionError("solver called")

    monkeypatch.setattr(core.assignment.report, "solve", no_solver)
    code, _, err = run_cli(capsys, "assign", demo_csv, "--effort-budget-share", "0.3")
    assert code == 2
    assert "at most 1,000 samples; the table has 3,557 rows" in err


def test_assign_output_neutralises_formulas(capsys, tmp_path):
    df = make_demo().head(200).copy()
    df["sample_id"] = ["=HYPERLINK(\"http://evil\",\"x\")", "+SUM(A1:A9)", "@SUM(1)", "-3"] + \
        [f"s{i}" for i in range(196)]
    path, out_csv = tmp_path / "d.csv", tmp_path / "o.csv"
    df.to_csv(path, index=False)
    code, _, err = run_cli(capsys, "assign", path, "-o", out_csv)
    assert code == 0, err
    out = pd.read_csv(out_csv)
    assert out["sample_id"].tolist()[:4] == ["'=HYPERLINK(\"http://evil\",\"x\")", "'+SUM(A1:A9)",
                                             "'@SUM(1)", "-3"]
    assert out["machine_confidence"].dtype == float


def test_sweep_output_stays_numeric(capsys, demo_csv, tmp_path):
    out_csv = tmp_path / "s.csv"
    code, _, err = run_cli(capsys, "sweep", demo_csv, "--lam", "4.6", "--human-share", "0:1:0.5",
                           "-o", out_csv)
    assert code == 0, err
    out = pd.read_csv(out_csv)
    assert out["N"].tolist() == [0, 1778, 3557]


@pytest.mark.parametrize("argv, message", [
    (["--bins", "1000000000"], "--bins must be between 1 and 10,000, got 1000000000"),
    (["--bins", "0"], "--bins must be between 1 and 10,000, got 0"),
    (["--top", "nan"], "--top must be a fraction in (0, 1], got nan"),
])
def test_confidence_bounds(capsys, demo_csv, argv, message):
    code, _, err = run_cli(capsys, "confidence", demo_csv, "--label-col", "human_label",
                           "--machine-col", "machine_label", "--conf-col", "confidence_ts", *argv)
    assert code == 2 and message in err, err


@pytest.mark.parametrize("command, option, bound", [
    ("sweep", "--lam", "at most 10,001 points"),
    ("sweep", "--human-share", "in [0, 1]"),
    ("turns", "--bootstrap", "0 to 10,000"),
    ("turns", "--seed", "0 to 4,294,967,295"),
    ("effort", "--seed", "0 to 4,294,967,295"),
    ("effort", "--jobs", "1 to 256, or -1"),
    ("effort", "--trees", "1 to 10,000"),
    ("effort", "--folds", "2 to the number of dialogues"),
    ("confidence", "--bins", "1 to 10,000"),
    ("confidence", "--top", "in (0, 1]"),
    ("assign", "--lam", "a finite number >= 0"),
    ("turns", "--human-share", "in [0, 1]"),
    ("turns", "--human-count", "0 to M"),
])
def test_numeric_options_document_their_bounds(command, option, bound):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    action = next(a for a in sub.choices[command]._actions if option in a.option_strings)
    assert bound in " ".join(action.help.split())


@pytest.mark.parametrize("argv, message", [
    (["--epochs", "0"], "--epochs must be between 1 and 1,000, got 0"),
    (["--batch-size", "100000"], "--batch-size must be between 1 and 4,096"),
    (["--seed", "-1"], "--seed must be between 0 and 4,294,967,295, got -1"),
    (["--learning-rate", "nan"], "--learning-rate must be in (0, 1], got nan"),
    (["--dropout", "1"], "--dropout must be in [0, 1), got 1.0"),
    (["--ts-k", "0"], "--ts-k must be between 1 and 10,000, got 0"),
])
def test_train_classifier_bounds_before_loading(capsys, tmp_path, argv, message):
    code, _, err = run_cli(capsys, "train-classifier", "--train", tmp_path / "absent.csv", "--eval",
                           tmp_path / "absent.csv", "--text-col", "t", "--label-col", "l", "-o",
                           tmp_path / "o.csv", *argv)
    assert code == 2 and message in err, err
