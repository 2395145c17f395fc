"""All or nothing (issue 32, item 3): when ``hmceval queue`` or ``hmceval labels`` cannot write
its files (a full device, simulated by an ``fsync`` that fails with ENOSPC on one chosen file,
so the real writer and the real workspace code run up to that point) or the workspace's
dataset file is missing, the command exits 2 naming the problem and leaves the files
byte-identical and the workspace's rows as they were (counted straight from its SQLite file),
with no hidden temporary left behind."""

from __future__ import annotations

import errno
import os
import sqlite3

import pandas as pd
import pytest

from core import atomic
from tests.cli.cli_support import folder_files, run_cli, workspace_rows



def _full_device_on(monkeypatch, prefix: str) -> None:
    """``fsync`` fails with ENOSPC on the files whose name starts with ``prefix`` (the
    temporaries of one destination: ``.NAME.``), as on a device that filled up there."""
    real = os.fsync

    def fsync(fd):
        try:
            name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            name = ""
        if name.startswith(prefix):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)


QUEUE_PATHS = {
    "routing": ["--human-share", 0.2, "--audit", 5, "--calibration", 10],
    "guarantee": ["--calibration", 30],
    "active": ["--labels", 80],
    "random": ["--design", "random", "--labels", 80],
    "active-calibration": ["--design", "active", "--calibration", 40],
    "stream": ["--stream", "--labels", 60],
}


def _queued(capsys, demo_csv, tmp_path, path: str):
    """A round planned by ``queue`` along ``path`` into ``out/q.csv``: (table, out folder, out)."""
    table, _ = demo_csv
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "q.csv"
    code, _, err = run_cli(capsys, "queue", table, *QUEUE_PATHS[path], "--seed", 1, "-o", out)
    assert code == 0, err
    return table, out_dir, out


@pytest.mark.parametrize("path", list(QUEUE_PATHS))
@pytest.mark.parametrize("fails", [".q.csv.", ".q.csv.round.json.", ".q_to_label.csv."])
def test_queue_on_a_full_device_changes_nothing(capsys, ws_dir, demo_csv, tmp_path,
                                                monkeypatch, path, fails):
    table, out_dir, out = _queued(capsys, demo_csv, tmp_path, path)
    files, rows = folder_files(out_dir), workspace_rows(ws_dir)
    assert {"q.csv", "q.csv.round.json", "q_to_label.csv"} <= set(files)
    _full_device_on(monkeypatch, fails)
    code, _, err = run_cli(capsys, "queue", table, *QUEUE_PATHS[path], "--seed", 2, "-o", out)
    assert code == 2
    assert "the device is full" in err and fails.strip(".") in err
    assert folder_files(out_dir) == files  # byte-identical, no temporary left
    assert workspace_rows(ws_dir) == rows  # no round, plan, result or event added


@pytest.mark.parametrize("fails", [".q.json.", ".q.xml."])
def test_queue_for_label_studio_on_a_full_device_changes_nothing(capsys, ws_dir, demo_csv,
                                                                 tmp_path, monkeypatch, fails):
    table, _ = demo_csv
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "q.json"
    args = ["queue", table, "--labels", 80, "--format", "labelstudio", "-o", out]
    code, _, err = run_cli(capsys, *args, "--seed", 1)
    assert code == 0, err
    files, rows = folder_files(out_dir), workspace_rows(ws_dir)
    assert {"q.json", "q.xml"} <= set(files)
    _full_device_on(monkeypatch, fails)
    code, _, err = run_cli(capsys, *args, "--seed", 2)
    assert code == 2 and "the device is full" in err
    assert folder_files(out_dir) == files
    assert workspace_rows(ws_dir) == rows


def _dataset_file(ws_dir):
    con = sqlite3.connect(ws_dir / "workspace.sqlite")
    try:
        return ws_dir / "tables" / con.execute("SELECT file FROM datasets").fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("path", ["routing", "active", "stream"])
def test_queue_with_the_workspace_dataset_file_missing_changes_nothing(
        capsys, ws_dir, demo_csv, tmp_path, path):
    table, out_dir, out = _queued(capsys, demo_csv, tmp_path, path)
    missing = _dataset_file(ws_dir)
    missing.unlink()
    files, rows = folder_files(out_dir), workspace_rows(ws_dir)
    code, _, err = run_cli(capsys, "queue", table, *QUEUE_PATHS[path], "--seed", 2, "-o", out)
    assert code == 2 and str(missing) in err and "missing" in err
    assert folder_files(out_dir) == files
    assert workspace_rows(ws_dir) == rows


def _planned_and_labelled(capsys, demo_csv, tmp_path):
    """A routing round written to out/q.csv with a first import of 20 labels (so
    q.csv.labels.csv exists); returns (out folder, table, gold)."""
    table, gold = demo_csv
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "q.csv"
    code, _, err = run_cli(capsys, "queue", table, "--human-share", 0.2, "--seed", 1, "-o", out)
    assert code == 0, err
    ids = pd.read_csv(out_dir / "q_to_label.csv")["sample_id"]
    first = gold[gold["sample_id"].isin(ids[:20])]
    first.to_csv(tmp_path / "first.csv", index=False)
    code, _, err = run_cli(capsys, "labels", out, "--from", tmp_path / "first.csv", "-o", out)
    assert code == 0, err
    second = gold[gold["sample_id"].isin(ids[20:60])].assign(annotator="b")
    second.to_csv(tmp_path / "second.csv", index=False)
    return out_dir, out


@pytest.mark.parametrize("fails", [".q.csv.", ".q.csv.labels.csv."])
def test_labels_on_a_full_device_commit_no_vote(capsys, ws_dir, demo_csv, tmp_path,
                                                monkeypatch, fails):
    out_dir, out = _planned_and_labelled(capsys, demo_csv, tmp_path)
    files, rows = folder_files(out_dir), workspace_rows(ws_dir)
    assert "q.csv.labels.csv" in files and rows["labels"] == 20
    with monkeypatch.context() as m:
        _full_device_on(m, fails)
        code, _, err = run_cli(capsys, "labels", out, "--from", tmp_path / "second.csv",
                               "--annotator-col", "annotator", "-o", out)
    assert code == 2 and "the device is full" in err
    assert folder_files(out_dir) == files
    assert workspace_rows(ws_dir) == rows  # no vote, no import, no label
    # the same import on a device with room goes through, whole
    code, _, err = run_cli(capsys, "labels", out, "--from", tmp_path / "second.csv",
                           "--annotator-col", "annotator", "-o", out)
    assert code == 0, err
    assert workspace_rows(ws_dir)["labels"] == 60


def test_labels_with_the_workspace_dataset_file_missing_commit_no_vote(capsys, ws_dir,
                                                                        demo_csv, tmp_path):
    out_dir, out = _planned_and_labelled(capsys, demo_csv, tmp_path)
    missing = _dataset_file(ws_dir)
    missing.unlink()
    files, rows = folder_files(out_dir), workspace_rows(ws_dir)
    code, _, err = run_cli(capsys, "labels", out, "--from", tmp_path / "second.csv",
                           "--annotator-col", "annotator", "-o", out)
    assert code == 2 and str(missing) in err
    assert folder_files(out_dir) == files
    assert workspace_rows(ws_dir) == rows


def test_labels_on_a_bare_table_keep_table_and_votes_together(capsys, tmp_path, monkeypatch):
    """A table of no round: the table and OUT.labels.csv are written together or not at all
    (the votes file failing used to leave a table computed from votes never stored)."""
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    raw = tmp_path / "raw.csv"
    pd.DataFrame({"sample_id": [f"s{i}" for i in range(30)], "machine_label": ["ok", "bad"] * 15,
                  "machine_confidence": 0.7, "selection": "routed"}).to_csv(raw, index=False)
    pd.DataFrame({"sample_id": ["s1", "s2"], "label": "ok"}).to_csv(tmp_path / "a.csv",
                                                                    index=False)
    pd.DataFrame({"sample_id": ["s3", "s4"], "label": "bad"}).to_csv(tmp_path / "b.csv",
                                                                     index=False)
    out = out_dir / "t.csv"
    assert run_cli(capsys, "labels", raw, "--from", tmp_path / "a.csv", "-o", out)[0] == 0
    files = folder_files(out_dir)
    _full_device_on(monkeypatch, ".t.csv.labels.csv.")
    code, _, err = run_cli(capsys, "labels", out, "--from", tmp_path / "b.csv", "-o", out)
    assert code == 2 and "the device is full" in err
    assert folder_files(out_dir) == files


@pytest.mark.parametrize("fails", [".q.csv.", ".q_to_label.csv."])
def test_replan_on_a_full_device_keeps_the_old_plan(capsys, ws_dir, demo_csv, tmp_path,
                                                    monkeypatch, fails):
    """--replan replaces a round's plan (an update, not a new row): on a full device the old
    plan stays, in the workspace (its plan file and count of rows to label) and in the files."""
    table, gold = demo_csv
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "q.csv"
    assert run_cli(capsys, "queue", table, "--stream", "--labels", 200, "-o", out)[0] == 0
    part = pd.read_csv(out_dir / "q_to_label.csv").iloc[:40]
    gold[gold["sample_id"].isin(part["sample_id"])].to_csv(tmp_path / "l.csv", index=False)
    assert run_cli(capsys, "labels", out, "--from", tmp_path / "l.csv", "-o", out)[0] == 0
    files, rows = folder_files(out_dir), workspace_rows(ws_dir)
    with monkeypatch.context() as m:
        _full_device_on(m, fails)
        code, _, err = run_cli(capsys, "queue", out, "--replan", "--seed", 5, "-o", out)
    assert code == 2 and "the device is full" in err
    assert folder_files(out_dir) == files
    assert workspace_rows(ws_dir) == rows  # the same plan file, rows to label, results and events
    code, _, err = run_cli(capsys, "queue", out, "--replan", "--seed", 5, "-o", out)
    assert code == 0, err
    assert workspace_rows(ws_dir)["plans"] != rows["plans"]  # the re-plan, once there is room


@pytest.mark.parametrize("fails", [".q.csv.", ".q_to_label.csv."])
def test_queue_on_a_table_with_a_selection_writes_all_its_files_or_none(capsys, ws_dir,
                                                                       tmp_path, monkeypatch,
                                                                       fails):
    """A table that already has a selection is recorded as a round and planned on in the
    workspace: its files are still written together or not at all."""
    raw = tmp_path / "raw.csv"
    pd.DataFrame({"sample_id": [f"s{i}" for i in range(40)],
                  "machine_label": ["ok", "bad"] * 20,
                  "machine_confidence": [0.5 + 0.01 * i for i in range(40)],
                  "selection": ["calibration"] * 10 + [""] * 30}).to_csv(raw, index=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "q.csv"
    assert run_cli(capsys, "queue", raw, "--human-share", 0.2, "--seed", 1, "-o", out)[0] == 0
    files = folder_files(out_dir)
    with monkeypatch.context() as m:
        _full_device_on(m, fails)
        code, _, err = run_cli(capsys, "queue", raw, "--human-share", 0.5, "--seed", 2,
                               "-o", out)
    assert code == 2 and "the device is full" in err
    assert folder_files(out_dir) == files
