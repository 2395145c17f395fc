"""Issue 24's fuzz findings, each reproduced with the real ``hmceval`` and kept fixed: wrong
results with exit 0, tracebacks and hangs. Every test here failed before its fix."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from tests.cli.cli_support import run_cli
from tests.cli.labelstudio_support import FakeLabelStudio

HMCEVAL = [sys.executable, "-m", "core.cli"]


def scored(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """A small scored table: binary labels, the machine right on about 80 % of the rows."""
    rng = np.random.default_rng(seed)
    human = rng.choice([0, 1], n)
    machine = np.where(rng.random(n) < 0.8, human, 1 - human)
    return pd.DataFrame({"sample_id": [f"s{i}" for i in range(n)], "machine_label": machine,
                         "human_label": human,
                         "machine_confidence": rng.uniform(0.5, 1, n).round(3),
                         "human_effort": rng.uniform(1, 10, n).round(2),
                         "turn": rng.integers(1, 5, n), "topic": rng.choice(["a", "b"], n)})


@pytest.mark.parametrize("extra", [["--effort-budget", "50"], ["--group-col", "topic",
                                                                  "--group-share", "a=0.1:0.9"]])
def test_assign_json_with_extra_constraints_prints_json_only(tmp_path, extra):
    """HiGHS printed its banner ("Running HiGHS ...") on stdout before the JSON, from C++ (the
    real process is run: capsys does not see file descriptor 1)."""
    table = tmp_path / "t.csv"
    scored().to_csv(table, index=False)
    proc = subprocess.run([*HMCEVAL, "assign", str(table), "--lam", "0.01", "--json", *extra],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "HiGHS" not in proc.stdout and proc.stdout.lstrip().startswith("{")
    assert json.loads(proc.stdout)["M"] == 40


def _with_text_cell(t: pd.DataFrame) -> pd.DataFrame:
    """The human labels written as floats ("1.0") with one text cell: the column is read as text."""
    t = t.copy()
    t["human_label"] = t["human_label"].astype(float).astype(object)
    t.loc[0, "human_label"] = "x"
    return t


def test_one_text_cell_in_a_label_column_keeps_numbers_as_numbers(capsys, tmp_path):
    """"1.0" != "1" made the machine wrong everywhere (accuracy 0.0 with exit 0): the labels are
    compared by one typed rule, numbers as numbers. Expected: the machine agrees on the rows it
    agrees on, counted by hand (row 0 now has the class "x", which the machine never gives)."""
    t = scored()
    expected = float(np.mean((t["machine_label"] == t["human_label"]).to_numpy()[1:]) * 39 / 40)
    path = tmp_path / "text.csv"
    _with_text_cell(t).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", path, "--json")
    assert code == 0, err
    assert json.loads(out)["machine_only"]["accuracy"] == pytest.approx(expected)
    code, out, err = run_cli(capsys, "confidence", path, "--label-col", "human_label",
                             "--machine-col", "machine_label", "--conf-col", "machine_confidence",
                             "--top", "1", "--json")
    assert code == 0, err
    res = json.loads(out)["machine_confidence"]
    assert res["top_accuracy"] == pytest.approx(expected) and 0 <= res["auc"] <= 1


def test_classes_starting_with_formula_characters_round_trip_through_a_round(capsys, tmp_path):
    """Classes "+yes"/"-no" got a quote in the round table ("'+yes") and the annotators' real
    labels were then refused as not among the classes."""
    t = scored().drop(columns=["human_label"])
    t["machine_label"] = np.where(t["machine_label"] == 1, "+yes", "-no")
    src, table, labelled = tmp_path / "t.csv", tmp_path / "round.csv", tmp_path / "done.csv"
    t.to_csv(src, index=False)
    code, _, err = run_cli(capsys, "queue", src, "--calibration", "10", "-o", table)
    assert code == 0, err
    rnd = pd.read_csv(table)
    assert rnd["machine_label"].str.startswith("'").all()  # a spreadsheet cannot run them
    cal = rnd.loc[rnd["selection"] == "calibration", "sample_id"]
    pd.DataFrame({"sample_id": cal, "label": ["+yes", "-no"] * 5}).to_csv(tmp_path / "l.csv",
                                                                       index=False)
    code, _, err = run_cli(capsys, "labels", table, "--from", tmp_path / "l.csv", "-o", labelled)
    assert code == 0, err
    from core.data import load_table

    back = load_table(labelled)
    assert set(back["machine_label"]) == {"+yes", "-no"}
    assert back.set_index("sample_id").loc[cal, "human_label"].tolist() == ["+yes", "-no"] * 5


@pytest.mark.parametrize("argv, name", [
    (["queue", "{t}", "--calibration", "5", "--format", "labelstudio"], "tasks.xml"),
    (["queue", "{t}", "--calibration", "5"], "round.parquet"),
    (["queue", "{t}", "--calibration", "5"], "round.json"),
    (["assign", "{t}"], "a.parquet"),
    (["turns", "{t}", "--bootstrap", "0"], "turns.xlsx"),
    (["sweep", "{t}", "--lam", "0,1", "--human-share", "0.5"], "s.json"),
])
def test_an_output_named_for_another_format_exits_2_before_writing(capsys, tmp_path, argv, name):
    """`queue --format labelstudio -o tasks.xml` wrote the tasks and then the labelling config
    over them; `-o round.parquet` wrote CSV into a .parquet file. Both exit 0 before."""
    table = tmp_path / "t.csv"
    scored().to_csv(table, index=False)
    out = tmp_path / name
    code, _, err = run_cli(capsys, *[a.replace("{t}", str(table)) for a in argv], "-o", out)
    assert code == 2 and f"-o {out}" in err and "nothing was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_labelstudio_tasks_and_config_are_two_files(capsys, tmp_path):
    table = tmp_path / "t.csv"
    scored().to_csv(table, index=False)
    code, _, err = run_cli(capsys, "queue", table, "--calibration", "5", "--format",
                           "labelstudio", "-o", tmp_path / "tasks.json")
    assert code == 0, err
    tasks = json.loads((tmp_path / "tasks.json").read_text())
    assert len(tasks) == 5 and (tmp_path / "tasks.xml").read_text().lstrip().startswith("<View")


def test_an_effort_of_zero_on_every_row_exits_2_naming_the_column(capsys, tmp_path):
    """assign printed time_cost: NaN with exit 0."""
    path = tmp_path / "t.csv"
    scored().assign(human_effort=0.0).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", path, "--json")
    assert code == 2 and out == "" and "'human_effort'" in err and "0 on every row" in err
    code, out, err = run_cli(capsys, "assign", path, "--json", "--col", "human_effort=-")
    assert code == 0 and json.loads(out)["time_cost"] is None


def test_the_column_named_exactly_as_the_role_wins_over_a_look_alike(capsys, tmp_path):
    """'Machine-Label' (first) was used silently instead of 'machine_label'. Here the look-alike
    is the machine's labels inverted: using it gives accuracy 1 - a."""
    t = scored()
    a = float((t["machine_label"] == t["human_label"]).mean())
    t.insert(1, "Machine-Label", 1 - t["machine_label"])
    path = tmp_path / "t.csv"
    t.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", path, "--json")
    assert code == 0, err
    assert json.loads(out)["machine_only"]["accuracy"] == pytest.approx(a)
    # two look-alikes, neither written as the role: used, and said so on stderr
    t = t.drop(columns="machine_label").assign(**{"machine label": t["machine_label"]})
    t.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", path, "--json")
    assert code == 0 and "several columns could be the machine label" in err


@pytest.mark.parametrize("n_boot", [1, 2, 3, 4, 1000])
def test_turn_intervals_contain_their_estimate(capsys, tmp_path, n_boot):
    """--bootstrap 1 to 4 gave percentile intervals on one side of their estimate."""
    path = tmp_path / "t.csv"
    scored(60, seed=3).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "turns", path, "--bootstrap", n_boot, "--lam", "0.01",
                             "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert sum(r["n"] for r in rows) == 60
    for r in rows:
        for k in ("accuracy", "precision", "recall", "f1", "machine_accuracy", "human_ratio"):
            assert r[f"{k}_lo"] <= r[k] <= r[f"{k}_hi"], (r["turn"], k)


@pytest.mark.parametrize("content, match", [
    ({"format": "hmceval-scenario", "version": "x"}, "field 'version' must be an integer"),
    ({"format": "hmceval-scenario", "version": 2}, "version 2 is not one this app reads"),
    ({"format": "hmceval-scenario", "version": 1, "name": "a", "settings": {},
      "dataset": {"content_hash": "ab", "n_rows": 10**20}}, "'dataset.n_rows' must be an integer"),
    ({"format": "hmceval-scenario", "version": 1, "name": ["a"], "settings": {},
      "dataset": {"content_hash": "ab"}}, "field 'name' must be non-empty text"),
    ({"format": "hmceval-scenario", "version": 1, "name": "a", "settings": {},
      "dataset": {"content_hash": {"x": 1}}}, "'dataset.content_hash' must be a hexadecimal"),
    ("[" * 50_000 + "]" * 50_000, "nested more than 64 levels"),
])
def test_scenario_files_are_checked_against_the_schema(capsys, tmp_path, content, match):
    """A bad version raised ValueError, ids beyond SQLite's integer OverflowError, deep nesting
    RecursionError: each a traceback."""
    sc = tmp_path / "sc.json"
    sc.write_text(content if isinstance(content, str) else json.dumps(content))
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "ws", "import", sc)
    assert code == 2 and match in err and "Traceback" not in err


def test_workspace_show_an_id_beyond_sqlite(capsys, tmp_path):
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "ws", "show",
                             "99999999999999999999")
    assert code == 2 and "no scenario" in err


@pytest.mark.parametrize("alpha", ["1e-320", "5e-324", "1e-17"])
def test_certify_with_a_tiny_alpha_certifies_nothing(capsys, tmp_path, alpha):
    """--alpha 1e-320 divided by zero in required_calibration (1 - alpha == 1.0)."""
    src, table = tmp_path / "t.csv", tmp_path / "round.csv"
    scored(200).to_csv(src, index=False)
    assert run_cli(capsys, "queue", src, "--calibration", "50", "-o", table)[0] == 0
    code, out, err = run_cli(capsys, "certify", table, "--alpha", alpha, "--delta", "0.1",
                             "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["threshold"] is None and res["n_machine"] == 0 and res["n_required"] > 10**12


def test_a_table_with_thousands_of_classes_is_refused_naming_the_columns(capsys, tmp_path):
    """20,000 label classes (a 600 kB table) took 9.4 GB: confusion tables grow as K^2."""
    n = 3000
    path = tmp_path / "t.csv"
    pd.DataFrame({"sample_id": range(n), "machine_label": [f"c{i}" for i in range(n)],
                  "human_label": [f"c{(i + 1) % n}" for i in range(n)],
                  "machine_confidence": np.linspace(0, 1, n)}).to_csv(path, index=False)
    for argv in (["assign", path, "--json"], ["turns", path, "--col", "sample_id=-", "--col",
                                               "turn=sample_id"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and "3,000 distinct classes" in err and "'machine_label'" in err


def test_a_huge_lambda_with_extra_constraints_exits_2(capsys, tmp_path):
    """Found by the fuzz suite (seed 7): --lam 1e308 with subgroup bounds made lambda x effort
    infinite and cvxpy raised ValueError (a traceback)."""
    path = tmp_path / "t.csv"
    scored().to_csv(path, index=False)
    code, out, err = run_cli(capsys, "assign", path, "--lam", "1e308", "--json", "--group-col",
                             "topic", "--group-share", "a=0.1:0.9")
    assert code == 2 and "overflows" in err and out == ""


def test_labelstudio_pull_finds_the_project_by_the_round_not_the_file_name(capsys, tmp_path,
                                                                           monkeypatch):
    """A pull from a file of the round under another name looked for 'HMCEval · <that name>',
    said 'push the queue first', and pushing again duplicated every task."""
    fake = FakeLabelStudio()
    try:
        monkeypatch.setenv("LABEL_STUDIO_TOKEN", "legacy-token-0123456789")
        src, table = tmp_path / "t.csv", tmp_path / "round.csv"
        scored(60).drop(columns="human_label").to_csv(src, index=False)
        assert run_cli(capsys, "queue", src, "--calibration", "10", "-o", table)[0] == 0
        code, out, err = run_cli(capsys, "labelstudio", "push", table, "--url", fake.url)
        assert code == 0, err
        first = tmp_path / "labelled.csv"
        code, out, err = run_cli(capsys, "labelstudio", "pull", table, "--url", fake.url,
                                 "-o", first)
        assert code == 0, err
        again = tmp_path / "again.csv"  # continue from the new file, under its own name
        code, out, err = run_cli(capsys, "labelstudio", "pull", first, "--url", fake.url,
                                 "-o", again)
        assert code == 0, err
        code, out, err = run_cli(capsys, "labelstudio", "push", first, "--url", fake.url)
        assert code == 0, err
        assert len(fake.projects) == 1
        assert len(fake.projects[1]["tasks"]) == 10  # nothing pushed twice
        assert fake.projects[1]["title"].startswith("HMCEval · round ")
    finally:
        fake.httpd.shutdown()
