"""``hmceval assign`` and ``hmceval sweep``: the stable JSON/CSV contract and error exits."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from core.cli import main

KEYS = ["M", "N", "lambda", "mode", "n_human", "human_ratio", "time_cost", "time_cost_predicted",
        "precision", "recall", "f1", "accuracy", "objective", "machine_only"]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_assign_json_reproduces_the_paper(capsys, hmceval_tsv):
    code, out, err = run_cli(capsys, "assign", str(hmceval_tsv), "--lam", "4.6",
                             "--human-share", "0.5", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert list(res)[:len(KEYS)] == KEYS
    assert (res["M"], res["N"], res["mode"], res["n_human"]) == (5673, 2836, "at_most", 2836)
    assert round(res["accuracy"], 5) == 0.98484 and round(res["time_cost"], 5) == 0.50556
    assert set(res["machine_only"]) == {"precision", "recall", "f1", "accuracy"}


def test_assign_exactly_and_count_and_output(capsys, hmceval_tsv, tmp_path):
    out_csv = tmp_path / "a.csv"
    code, out, err = run_cli(capsys, "assign", str(hmceval_tsv), "--lam", "500",
                             "--human-count", "1000", "--exactly", "--json", "-o", str(out_csv))
    assert code == 0, err
    res = json.loads(out)
    assert res["mode"] == "exactly" and res["n_human"] == 1000 and res["N"] == 1000
    table = pd.read_csv(out_csv)
    assert len(table) == 5673 and (table["decision"] == "human").sum() == 1000
    assert {"decision", "machine_confidence", "predicted_effort", "human_effort", "final_label"} <= set(table.columns)
    human = table[table["decision"] == "human"]
    assert (human["final_label"] == human["human_label"]).all()


def test_assign_without_gold_prints_null_reliability(capsys, tmp_path):
    path = tmp_path / "nogold.csv"
    path.write_text("machine_label,machine_confidence\n1,0.9\n0,0.2\n1,0.4\n")
    code, out, err = run_cli(capsys, "assign", str(path), "--human-count", "1", "--lam", "0",
                             "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["accuracy"] is None and res["machine_only"] is None and res["time_cost"] is None
    assert '"accuracy": null' in out
    assert res["n_human"] == 1


def test_col_mapping(capsys, tmp_path):
    path = tmp_path / "named.csv"
    path.write_text("sys,conf,gold\n1,0.9,1\n0,0.2,1\n1,0.4,0\n")
    code, out, err = run_cli(capsys, "assign", str(path), "--col", "machine_label=sys",
                             "--col", "machine_confidence=conf", "--col", "human_label=gold",
                             "--human-count", "3", "--lam", "0", "--json")
    assert code == 0, err
    assert json.loads(out)["accuracy"] == 1.0


@pytest.mark.parametrize("content, args, match", [
    ("machine_label,machine_confidence\n1,1.5\n0,0.2\n", [], "machine_confidence.*row 1"),
    ("a,b\n1,2\n", [], "required role 'machine_label'"),
    ("machine_label,machine_confidence\n1,0.5\n0,0.2\n", ["--col", "bogus=x"], "unknown role"),
    ("machine_label,machine_confidence\n1,0.5\n0,0.2\n", ["--human-count", "9"], "human-count"),
    ("machine_label,machine_confidence\n1,0.5\n0,0.2\n", ["--lam", "-1"], "lambda"),
    ("", [], "empty"),
])
def test_errors_exit_2_with_message(capsys, tmp_path, content, args, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = run_cli(capsys, "assign", str(path), *args)
    assert code == 2 and out == ""
    assert err.startswith("hmceval assign: error: ")
    assert re.search(match, err), err


def test_missing_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "assign", str(tmp_path / "nope.csv"))
    assert code == 2 and "not found" in err


def test_sweep_csv(capsys, hmceval_tsv, tmp_path):
    out_csv = tmp_path / "s.csv"
    code, out, err = run_cli(capsys, "sweep", str(hmceval_tsv), "--lam", "0:1:0.5",
                             "--human-share", "0:1:0.25", "-o", str(out_csv))
    assert code == 0, err
    # one line confirms the file (issue 13: -o printed nothing)
    assert out == f"wrote 15 rows to {out_csv}\n"
    t = pd.read_csv(out_csv)
    assert list(t.columns[:3]) == ["lambda", "human_share", "N"]
    assert set(KEYS) - {"machine_only", "mode", "lambda", "N"} <= set(t.columns)
    assert len(t) == 3 * 5
    row = t[(t["lambda"] == 0) & (t["human_share"] == 0.5)].iloc[0]
    assert round(row["accuracy"], 5) == 0.98925 and round(row["time_cost"], 5) == 0.63894


def test_sweep_bad_range(capsys, hmceval_tsv):
    code, _, err = run_cli(capsys, "sweep", str(hmceval_tsv), "--lam", "1:0:0.1")
    assert code == 2 and "--lam" in err


@pytest.mark.parametrize("entry", ["console-script", "module"])
def test_entry_points(hmceval_tsv, entry):
    exe = shutil.which("hmceval")
    cmd = [exe] if entry == "console-script" else [sys.executable, "-m", "core.cli"]
    assert cmd[0], "the hmceval console script is not installed"
    proc = subprocess.run([*cmd, "assign", str(hmceval_tsv), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["M"] == 5673
    bad = subprocess.run([*cmd, "assign", str(hmceval_tsv), "--lam", "-2"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "lambda" in bad.stderr and "Traceback" not in bad.stderr


def test_effort_budget_uses_the_ilp(capsys, hmceval_tsv):
    code, out, err = run_cli(capsys, "assign", str(hmceval_tsv), "--lam", "0", "--human-share", "0.5",
                             "--effort-budget-share", "0.3", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["method"] == "ilp"
    assert res["time_cost_predicted"] <= 0.3 + 1e-9
    # without the budget lambda = 0 spends 0.629 of the predicted effort (see the sweep test)
    assert res["n_human"] <= 2836


def test_group_share_bounds(capsys, tmp_path):
    path = tmp_path / "g.csv"
    # rows 0-2 group x (low confidence), rows 3-5 group y (high confidence)
    path.write_text("machine_label,machine_confidence,grp\n1,0.1,x\n0,0.2,x\n1,0.3,x\n"
                    "0,0.9,y\n1,0.95,y\n0,0.99,y\n")
    code, out, err = run_cli(capsys, "assign", str(path), "--lam", "0", "--human-count", "2",
                             "--group-col", "grp", "--group-share", "y=0.3:", "-o",
                             str(tmp_path / "o.csv"), "--json")
    assert code == 0, err
    assert json.loads(out)["method"] == "ilp"
    table = pd.read_csv(tmp_path / "o.csv")
    # one y sample is forced in (ceil(0.3 x 3) = 1); the other human is the least confident x
    assert table["decision"].tolist() == ["human", "machine", "machine", "human", "machine", "machine"]


@pytest.mark.parametrize("args, match", [
    (["--group-share", "y=0.3:"], "needs --group-col"),
    (["--group-col", "grp", "--group-share", "z=0.3:"], "does not occur"),
    (["--group-col", "grp", "--group-share", "y=0.3"], "VALUE=MIN:MAX"),
    (["--group-col", "nope", "--group-share", "y=0.3:"], "not in the table"),
    (["--effort-budget", "1", "--effort-budget-share", "0.1"], "not both"),
    (["--group-col", "grp", "--group-share", "y=1:", "--human-count", "1"], "infeasible"),
])
def test_constraint_errors(capsys, tmp_path, args, match):
    path = tmp_path / "g.csv"
    path.write_text("machine_label,machine_confidence,grp\n1,0.1,x\n0,0.2,x\n1,0.9,y\n0,0.8,y\n")
    code, out, err = run_cli(capsys, "assign", str(path), "--lam", "0", *args)
    assert code == 2 and re.search(match, err), err


# ----------------------------------------------------------------------- lambda's range (issue 13)
def test_assign_reports_the_lambda_range(capsys, hmceval_tsv):
    code, out, err = run_cli(capsys, "assign", str(hmceval_tsv), "--json")
    assert code == 0, err
    res = json.loads(out)
    t = pd.read_csv(hmceval_tsv, sep="\t")
    # b = human_confidence, k = machine_effort: the largest (b - a) / (l - k) over l > k
    c = t["human_confidence"] - t["machine_confidence"]
    d = t["human_effort_predicted_avg"] - t["machine_effort"]
    assert res["lambda_range"]["upper"] == pytest.approx(float((c / d)[d > 0].max()), rel=1e-12)
    assert res["lambda_range"]["effort_unit"] == "effort units"
    assert 4.6 < res["lambda_range"]["pivot"] < res["lambda_range"]["upper"]
    # beyond the range nobody goes to humans
    code, out, _ = run_cli(capsys, "assign", str(hmceval_tsv), "--json", "--lam",
                           repr(res["lambda_range"]["upper"] * (1 + 1e-9)))
    assert json.loads(out)["n_human"] == 0


def seconds_csv(tmp_path):
    """Effort in seconds: gains (1 - c) - lam s cross 0 at 0.1/30, 0.4/60, 0.8/20 = 0.04, 0.05/10."""
    path = tmp_path / "seconds.csv"
    pd.DataFrame({"machine_label": [0, 1, 1, 0] * 2, "machine_confidence": [0.9, 0.6, 0.2, 0.95] * 2,
                  "human_label": [0] * 8, "annot_seconds": [30.0, 60.0, 20.0, 10.0] * 2}
                 ).to_csv(path, index=False)
    return str(path)


def test_lambda_in_seconds(capsys, tmp_path):
    path = seconds_csv(tmp_path)
    col = ["--col", "human_effort=annot_seconds"]
    code, out, err = run_cli(capsys, "assign", path, "--json", *col)  # the default 4.6
    res = json.loads(out)
    assert code == 0 and res["n_human"] == 0
    assert res["lambda_range"] == {"upper": pytest.approx(0.04), "pivot": pytest.approx(0.1 / 15),
                                   "first": pytest.approx(0.1 / 30), "n_beyond": 0,
                                  "effort_unit": "seconds"}
    code, out, err = run_cli(capsys, "assign", path, "--json", "--lam", "0.01", *col)
    assert json.loads(out)["n_human"] == 2
    code, out, err = run_cli(capsys, "assign", path, "--lam", "0.01", *col)  # the text form
    assert re.search(r"lambda_range: upper 0\.04, pivot 0\.0066667, first 0\.0033333, "
                     r"n_beyond 0, effort_unit seconds", out)
    # the sweep's summary says the same and points at --lam auto (0:45:0.1 is all beyond 0.04)
    code, out, err = run_cli(capsys, "sweep", path, *col)
    assert code == 0, err
    assert "lambda (per second) changes the assignment of this table between 0 and 0.04;" in out
    assert "try --lam auto" in out
    out_csv = tmp_path / "auto.csv"
    code, _, err = run_cli(capsys, "sweep", path, *col, "--lam", "auto", "--human-share", "0.5",
                           "-o", str(out_csv))
    t = pd.read_csv(out_csv)
    lams = t["lambda"].tolist()
    # 0, then the 1-1.2-1.5-... steps from 0.001 (the decade of 0.1/30), then 0.04
    assert lams[:4] == [0.0, 0.001, 0.0012, 0.0015] and lams[-2:] == [0.03, 0.04]
    assert t["n_human"].tolist()[-1] == 0 and t.loc[t["lambda"] == 0.01, "n_human"].item() == 2


def test_sweep_without_output_prints_a_summary(capsys, hmceval_tsv):
    code, out, err = run_cli(capsys, "sweep", str(hmceval_tsv))
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) <= 12
    assert lines[0] == ("9,471 rows: 451 lambda values (0 to 45) x 21 human shares (0 to 1); "
                        "not printed.")
    assert lines[-1] == "Write every row with -o FILE.csv, or print them with --all."
    # the glimpse: lambda 0 at N/M = 0.5 is the sweep test's row
    assert re.search(r"\n\s+0\s+0\.5\s+2836\s+0\.98925\s+0\.63894\n", out)
    code, out, err = run_cli(capsys, "sweep", str(hmceval_tsv), "--all")
    assert code == 0 and len(out.strip().splitlines()) == 9471 + 1
    with pytest.raises(SystemExit) as exit_:  # argparse: one of -o and --all
        main(["sweep", str(hmceval_tsv), "--all", "-o", "x.csv"])
    assert exit_.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_unsure_role_detection_is_a_note_on_stderr(capsys, tmp_path):
    """Two columns could be the machine confidence: the CLI says which it used and how to
    choose (the Data page asks the same); mapping it with --col silences the note."""
    path = tmp_path / "t.csv"
    pd.DataFrame({"model_pred": [0, 1, 1, 0], "model_prob": [0.9, 0.8, 0.6, 0.7],
                  "p_unsafe": [0.1, 0.8, 0.6, 0.3], "gold": [0, 1, 0, 0]}).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", str(path), "--json")
    assert code == 0
    assert json.loads(out)["confidence_column"] == "model_prob"
    assert ("note: several columns could be the machine confidence: using 'model_prob', not "
            "'p_unsafe'; choose with --col machine_confidence=NAME") in err
    code, out, err = run_cli(capsys, "assign", str(path), "--json", "--col", "machine_confidence=p_unsafe")
    assert code == 0 and json.loads(out)["confidence_column"] == "p_unsafe"
    assert "several columns" not in err


def _seconds_table(path):
    rng = np.random.default_rng(3)
    m = 400
    pd.DataFrame({"model_pred": rng.integers(0, 2, m), "model_prob": rng.uniform(0.5, 1.0, m),
                  "annot_seconds": rng.uniform(10, 80, m), "gold": rng.integers(0, 2, m)}
                 ).to_csv(path, index=False)


def test_a_lambda_too_large_for_the_effort_unit_is_a_note(capsys, tmp_path):
    """lambda = 4.6 (the paper's, on a normalised effort) with effort in seconds routes nothing:
    the CLI says so and names where the assignment stops changing (issue 13)."""
    path = tmp_path / "seconds.csv"
    _seconds_table(path)
    code, out, err = run_cli(capsys, "assign", str(path), "--json")
    res = json.loads(out)
    assert code == 0 and res["n_human"] == 0
    upper = res["lambda_range"]["upper"]
    assert 0 < upper < 0.05  # (b - a) / l <= 0.5 / 10 s
    assert (f"note: at lambda 4.6 no sample goes to humans: with effort in seconds, the assignment "
            f"on this table stops changing at lambda {upper:.4g}") in err
    code, out, err = run_cli(capsys, "assign", str(path), "--json", "--lam", f"{upper / 2}")
    assert code == 0 and json.loads(out)["n_human"] > 0 and "note:" not in err


def test_assign_target_accuracy_is_the_cheapest_on_a_brute_force_sweep(capsys, hmceval_tsv,
                                                                        hmceval_inputs):
    """issue 25: --target-accuracy 0.95 returns a setting that reaches 95% and that no point of
    an independent sweep (lambda x N/M in 1% steps, solve_fast's exact equal) beats in time."""
    from core.assignment import lambda_grid, lambda_range, sweep

    code, out, err = run_cli(capsys, "assign", str(hmceval_tsv), "--target-accuracy", "0.95",
                             "--json")
    assert code == 0, err
    res = json.loads(out)
    assert list(res)[:len(KEYS)] == KEYS  # the contract's keys first, the goal added
    goal = res["goal"]
    assert goal["met"] and goal["basis"] == "gold" and goal["effort_basis"] == "observed"
    assert res["accuracy"] >= 0.95 and res["N"] == goal["N"] and res["lambda"] == goal["lambda"]
    assert res["time_cost"] == pytest.approx(goal["effort_share"])
    inp = hmceval_inputs
    upper = lambda_range(inp, n_human=inp.M).upper
    grid = sweep(inp, lams=lambda_grid(upper), shares=np.round(np.arange(0, 1.0001, 0.01), 10))
    reach = grid[grid["accuracy"] >= 0.95]
    assert len(reach) and res["time_cost"] <= reach["time_cost"].min() + 1e-12
    # the same setting by hand reproduces it
    code, out, err = run_cli(capsys, "assign", str(hmceval_tsv), "--lam", repr(res["lambda"]),
                             "--human-count", str(res["N"]), "--json")
    again = json.loads(out)
    assert again["accuracy"] == res["accuracy"] and again["n_human"] == res["n_human"]


def test_assign_goal_refusals(capsys, hmceval_tsv):
    code, _, err = run_cli(capsys, "assign", str(hmceval_tsv), "--effort-budget-hours", "2")
    assert code == 2 and "unit of time" in err
    code, _, err = run_cli(capsys, "assign", str(hmceval_tsv), "--target-accuracy", "95")
    assert code == 2 and "--target-accuracy" in err
    code, _, err = run_cli(capsys, "assign", str(hmceval_tsv), "--target-accuracy", "0.9",
                           "--human-share", "0.3")
    assert code == 2 and "chooses N and lambda" in err


def test_assign_effort_budget_hours_on_seconds(capsys, tmp_path):
    # hand-worked: confidences 0.9, 0.6, 0.5, 0.8, review 10, 45, 20, 100 s; within 30 s the
    # samples 0 and 2 (gains 0.1 + 0.5) -> expected accuracy (2.8 + 0.6) / 4 = 85%
    p = tmp_path / "t.csv"
    pd.DataFrame({"machine_label": ["x", "y", "x", "y"], "machine_confidence": [0.9, 0.6, 0.5, 0.8],
                  "review_seconds": [10.0, 45.0, 20.0, 100.0]}).to_csv(p, index=False)
    code, out, err = run_cli(capsys, "assign", str(p), "--effort-budget-hours", str(30 / 3600),
                             "--json")
    assert code == 0, err
    goal = json.loads(out)["goal"]
    assert goal["basis"] == "confidence" and goal["n_human"] == 2
    assert goal["accuracy"] == pytest.approx(0.85) and goal["effort_hours"] == pytest.approx(30 / 3600)


def test_assign_json_on_one_row_is_strict_json(tmp_path, capsys):
    """Issue 32's fuzz: one row (N = int(0.5 * 1) = 0) printed ``"pivot": Infinity``, which a
    strict JSON reader refuses. N go to humans at every lambda: pivot is null, n_beyond = N = 0."""
    path = tmp_path / "one.csv"
    pd.DataFrame({"sample_id": ["a"], "machine_label": [0], "human_label": [1],
                  "machine_confidence": [0.7]}).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", str(path), "--json")
    assert code == 0, err

    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")

    res = json.loads(out, parse_constant=refuse)
    assert res["N"] == 0 and res["lambda_range"]["pivot"] is None
    assert res["lambda_range"]["n_beyond"] == 0


def test_every_assign_option_is_in_the_readme_command_line_section():
    """issue 33: README's command-line section lacked --target-accuracy and
    --effort-budget-hours. Every long option of ``hmceval assign`` is named there."""
    import argparse
    from pathlib import Path

    from core.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    actions = [a.option_strings for a in sub.choices["assign"]._actions
               if a.option_strings and "--help" not in a.option_strings]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Command line"):readme.index("## Running a real evaluation")]
    assert ["--target-accuracy"] in actions and ["--effort-budget-hours"] in actions
    # an option is named by any of its spellings (-o or --output)
    assert [o for o in actions if not any(f"{s} " in section or f"{s}]" in section
                                          for s in o)] == []
