"""A step killed outright (SIGKILL at a named point, ``HMCEVAL_TEST_KILL_AT``, test only) is
repaired at the next command that opens the workspace (:mod:`core.workspace.journal`): killed
after its rows were committed but before its files were complete, it is taken back (workspace
rows and files as before); killed once every temporary was written, before or between the
renames, it is finished (the files the round in the workspace describes). Checked against the
files' bytes and the workspace's rows read with sqlite3, never against the code's own report."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from core.cli import main
from tests.cli.cli_support import demo_round, folder_files, workspace_rows

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A workspace with round 1 planned to out/q.csv; returns (ws, table, out folder, gold)."""
    ws, table, out_dir, df = demo_round(tmp_path, monkeypatch, "--labels", 80, "--seed", 1)
    gold = df[["sample_id", "human_label"]].rename(columns={"human_label": "label"})
    return ws, table, out_dir, gold


def _killed(ws, point: str, *argv) -> None:
    env = {**os.environ, "HMCEVAL_WORKSPACE": str(ws), "HMCEVAL_TEST_KILL_AT": point,
           "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "core.cli", *map(str, argv)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == -9, proc.stderr  # killed at the point, by SIGKILL


def _next_command(capsys) -> str:
    assert main(["workspace", "list", "--json"]) == 0
    return capsys.readouterr().err


def test_queue_killed_before_its_files_are_written_is_taken_back(setup, capsys):
    ws, table, out_dir, _ = setup
    files, rows = folder_files(out_dir), workspace_rows(ws)
    _killed(ws, "step-temp", "queue", table, "--labels", 80, "--seed", 2,
            "-o", out_dir / "q.csv")
    assert workspace_rows(ws)["rounds"] == rows["rounds"] + 1  # the hazard: stored, files not written
    assert folder_files(out_dir) != files  # its first temporary is there
    err = _next_command(capsys)
    assert "taken back" in err
    assert workspace_rows(ws) == rows and folder_files(out_dir) == files
    assert not list((ws / "journal").iterdir())


@pytest.mark.parametrize("point", ["step-renames", "step-mid-renames"])
def test_queue_killed_during_its_renames_is_finished(setup, capsys, point):
    ws, table, out_dir, _ = setup
    files, rows = folder_files(out_dir), workspace_rows(ws)
    _killed(ws, point, "queue", table, "--labels", 80, "--seed", 2, "-o", out_dir / "q.csv")
    err = _next_command(capsys)
    assert "finished" in err
    assert workspace_rows(ws)["rounds"] == rows["rounds"] + 1
    con = sqlite3.connect(ws / "workspace.sqlite")
    rid, plan_file, n_to_label = con.execute(
        "SELECT id, plan_file, n_to_label FROM rounds ORDER BY id DESC").fetchone()
    con.close()
    plan = pd.read_parquet(ws / "tables" / plan_file)
    written = pd.read_csv(out_dir / "q.csv", keep_default_na=False)
    assert json.loads((out_dir / "q.csv.round.json").read_text())["round_id"] == rid == 2
    assert written["selection"].tolist() == plan["selection"].fillna("").tolist()
    assert len(pd.read_csv(out_dir / "q_to_label.csv")) == n_to_label
    assert sorted(folder_files(out_dir)) == sorted(files)  # the same names: no temporary left
    assert folder_files(out_dir)["q_to_label.csv"] != files["q_to_label.csv"]
    assert not list((ws / "journal").iterdir())


def test_labels_killed_before_its_files_are_written_commit_no_vote(setup, capsys, tmp_path):
    ws, _, out_dir, gold = setup
    ids = pd.read_csv(out_dir / "q_to_label.csv")["sample_id"][:30]
    gold[gold["sample_id"].isin(ids)].to_csv(tmp_path / "back.csv", index=False)
    files, rows = folder_files(out_dir), workspace_rows(ws)
    _killed(ws, "step-temp", "labels", out_dir / "q.csv", "--from", tmp_path / "back.csv",
            "-o", out_dir / "q.csv")
    assert workspace_rows(ws)["labels"] == rows["labels"] + 30  # the hazard: votes committed
    err = _next_command(capsys)
    assert "taken back" in err
    assert workspace_rows(ws) == rows
    after = folder_files(out_dir)
    assert after.pop("q.csv.lock") == b""  # the output's lock file stays (core.atomic.locked)
    assert after == files


def test_a_running_step_is_left_alone_and_an_ended_one_leaves_no_journal(tmp_path):
    from core.workspace import Workspace
    from core.workspace.journal import begin, replay
    from core.workspace.undo import mark

    ws = Workspace(tmp_path / "ws")
    journal = begin(ws, mark(ws))
    assert replay(ws) == []  # its lock is held: the step is alive
    assert journal.path.is_file()
    journal.done()
    assert list((tmp_path / "ws" / "journal").iterdir()) == []


def test_an_unreadable_journal_is_reported_and_kept(tmp_path):
    from core.workspace import Workspace
    from core.workspace.journal import replay

    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws" / "journal").mkdir()
    bad = tmp_path / "ws" / "journal" / "step-x.json"
    bad.write_text("{not json")
    notes = replay(ws)
    assert len(notes) == 1 and "unreadable" in notes[0] and bad.is_file()


def test_a_step_that_cannot_be_finished_is_reported_and_its_journal_kept(tmp_path):
    import json as _json

    from core.workspace import Workspace
    from core.workspace.journal import replay

    ws = Workspace(tmp_path / "ws")
    (tmp_path / "ws" / "journal").mkdir()
    tmp, dest = tmp_path / ".q.csv.x.tmp.csv", tmp_path / "q.csv"
    tmp.write_text("new")
    dest.mkdir()  # a folder where the file goes: the rename fails
    journal = tmp_path / "ws" / "journal" / "step-y.json"
    journal.write_text(_json.dumps({"state": "commit",
                                    "ops": [["replace", str(dest), str(tmp)]]}))
    notes = replay(ws)
    assert len(notes) == 1 and "could not be finished" in notes[0] and str(dest) in notes[0]
    assert journal.is_file() and tmp.read_text() == "new" and dest.is_dir()
    dest.rmdir()  # once the folder is gone, the next start finishes it
    assert "finished" in replay(ws)[0]
    assert dest.read_text() == "new" and not tmp.exists() and not journal.exists()


def test_a_rename_failing_after_the_commit_is_finished_at_the_next_start(setup, capsys,
                                                                          monkeypatch):
    """Every temporary written, the journal says commit, then the second rename fails: the
    step cannot be taken back (the first file is new), so it is finished at the next start:
    the workspace and the files both as after."""
    ws, table, out_dir, _ = setup
    rows = workspace_rows(ws)
    real, calls = os.replace, []

    def replace(src, dst):
        if str(dst).startswith(str(out_dir)):
            calls.append(dst)
            if len(calls) == 2:
                raise OSError(5, "Input/output error")
        return real(src, dst)

    with monkeypatch.context() as m:
        m.setattr(os, "replace", replace)
        code = main(["queue", str(table), "--labels", "80", "--seed", "2",
                     "-o", str(out_dir / "q.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "renamed by the next hmceval command" in err
    assert workspace_rows(ws)["rounds"] == rows["rounds"] + 1
    assert "finished" in _next_command(capsys)
    con = sqlite3.connect(ws / "workspace.sqlite")
    n_to_label = con.execute("SELECT n_to_label FROM rounds WHERE id=2").fetchone()[0]
    con.close()
    assert json.loads((out_dir / "q.csv.round.json").read_text())["round_id"] == 2
    assert len(pd.read_csv(out_dir / "q_to_label.csv")) == n_to_label
    assert not [p for p in out_dir.iterdir() if p.name.startswith(".")]
    assert not list((ws / "journal").iterdir())


def test_a_lock_left_by_a_step_killed_before_its_journal_is_removed(tmp_path):
    """A kill -9 between a step's lock file and its journal left ``step-<id>.lock`` alone in
    the journal folder (bench/kill.py, labels on 200,000 rows, 1 of 20 kills); the next start
    removes it, and leaves a running step's lock (held) alone."""
    from core.workspace import Workspace
    from core.workspace.journal import begin, replay
    from core.workspace.undo import mark

    ws = Workspace(tmp_path / "ws")
    running = begin(ws, mark(ws))
    running.path.unlink()  # a step whose journal is not written yet, its lock held
    orphan = tmp_path / "ws" / "journal" / "step-dead.lock"
    orphan.write_text("")
    assert replay(ws) == []
    assert not orphan.exists() and running.lock_file.exists()
    running.done()
    assert list((tmp_path / "ws" / "journal").iterdir()) == []
