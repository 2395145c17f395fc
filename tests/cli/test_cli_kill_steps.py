"""All or nothing under ``kill -9`` for ``hmceval certify``, ``estimate`` and ``labelstudio
pull`` (issue 32, item 3), as :mod:`tests.core.test_workspace_journal` checks it for ``queue``
and ``labels``: each command, run in a subprocess, kills itself with SIGKILL at a named point
of its step (``HMCEVAL_TEST_KILL_AT``: ``step-temp`` after its first temporary file,
``step-end`` with its workspace rows committed and no file renamed, ``step-renames`` once its
journal says commit, ``step-mid-renames`` after its first rename); the next command that opens
the workspace repairs it. The oracle is not the code's report: the folder's bytes and the
workspace's rows (read with sqlite3) before the step, and those after the same command run to
its end from the same state (the folders put back first), and the killed run must end as one
of them, exactly the one its point implies."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from core.cli import main
from tests.cli.cli_support import demo_round, folder_files, workspace_rows
from tests.cli.labelstudio_support import FakeLabelStudio

ROOT = Path(__file__).resolve().parents[2]


def _state(ws: Path, out_dir: Path) -> tuple[dict, dict]:
    files = folder_files(out_dir)
    files = {k: v for k, v in files.items() if not k.endswith(".lock")}  # lock files stay
    return files, workspace_rows(ws)


def _run(ws: Path, argv, point: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "HMCEVAL_WORKSPACE": str(ws), "PYTHONPATH": str(ROOT)}
    env.pop("HMCEVAL_TEST_KILL_AT", None)
    if point:
        env["HMCEVAL_TEST_KILL_AT"] = point
    return subprocess.run([sys.executable, "-m", "core.cli", *map(str, argv)], env=env,
                          capture_output=True, text=True, timeout=300)


def _repair(ws: Path) -> str:
    """The next command that opens the workspace (its journal replayed); its stderr."""
    proc = _run(ws, ["workspace", "list", "--json"], None)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def _before_and_after(tmp_path, argv):
    """The state before the step, the state after it run whole, and the state restored."""
    ws, out_dir = tmp_path / "ws", tmp_path / "out"
    before = _state(ws, out_dir)
    for d in (ws, out_dir):
        shutil.copytree(d, tmp_path / f"saved-{d.name}")
    proc = _run(ws, argv, None)
    assert proc.returncode == 0, proc.stderr
    after = _state(ws, out_dir)
    assert after != before
    for d in (ws, out_dir):
        shutil.rmtree(d)
        shutil.copytree(tmp_path / f"saved-{d.name}", d)
    assert _state(ws, out_dir) == before
    return before, after


def _killed_ends_as(tmp_path, argv, point: str, expect: str) -> None:
    ws, out_dir = tmp_path / "ws", tmp_path / "out"
    before, after = _before_and_after(tmp_path, argv)
    proc = _run(ws, argv, point)
    assert proc.returncode == -9, proc.stderr  # killed at the point, by SIGKILL
    note = _repair(ws)
    state = _state(ws, out_dir)
    if expect == "before":
        assert "taken back" in note
        assert state == before
    else:
        assert "finished" in note or point == "step-end"
        assert state == after
    assert not list((ws / "journal").iterdir())
    assert not [n for n in os.listdir(out_dir) if ".tmp" in n]  # no temporary left


@pytest.fixture
def guarantee_round(tmp_path, monkeypatch):
    """A guarantee round (calibration 150 of the demo's rows) planned to out/q.csv, its
    calibration rows labelled in the workspace; returns out/q.csv."""
    _, _, out_dir, df = demo_round(tmp_path, monkeypatch, "--calibration", 150, "--seed", 1)
    q = out_dir / "q.csv"
    ids = pd.read_csv(out_dir / "q_to_label.csv")["sample_id"]
    gold = df[["sample_id", "human_label"]].rename(columns={"human_label": "label"})
    gold[gold["sample_id"].isin(ids)].to_csv(tmp_path / "back.csv", index=False)
    assert main(["labels", str(q), "--from", str(tmp_path / "back.csv"), "-o", str(q)]) == 0
    return q


CERTIFY = ["--alpha", 0.2, "--delta", 0.1, "--audit", 10, "--seed", 3]


@pytest.mark.parametrize("point,expect", [("step-temp", "before"), ("step-end", "before"),
                                          ("step-renames", "after"),
                                          ("step-mid-renames", "after")])
def test_certify_killed_is_taken_back_or_finished(guarantee_round, tmp_path, point, expect):
    q = guarantee_round
    _killed_ends_as(tmp_path, ["certify", q, *CERTIFY, "-o", q.with_name("c.csv")],
                    point, expect)


def test_certify_killed_and_taken_back_can_be_run_again(guarantee_round, tmp_path):
    q = guarantee_round
    argv = ["certify", q, *CERTIFY, "-o", q.with_name("c.csv")]
    assert _run(tmp_path / "ws", argv, "step-end").returncode == -9
    _repair(tmp_path / "ws")
    proc = _run(tmp_path / "ws", argv, None)  # the round is not left "certified already"
    assert proc.returncode == 0, proc.stderr
    assert pd.read_csv(q.with_name("c.csv"))["selection"].isin(["machine", "routed"]).any()


def test_estimate_killed_with_its_result_stored_is_taken_back(guarantee_round, tmp_path):
    """estimate writes no file: its rows (the table's labels taken in, the result) are taken
    back together."""
    q = guarantee_round
    c = q.with_name("c.csv")
    assert main(["certify", str(q), *map(str, CERTIFY), "-o", str(c)]) == 0
    _killed_ends_as(tmp_path, ["estimate", c, "--json"], "step-end", "before")


def _pulled_round(tmp_path, monkeypatch, fake):
    """A budget round planned to out/q.csv and pushed to ``fake``."""
    _, _, out_dir, _ = demo_round(tmp_path, monkeypatch, "--human-share", 0.1, "--seed", 1)
    q = out_dir / "q.csv"
    assert main(["labelstudio", "push", str(q), "--url", fake.url, "--token", "t"]) == 0
    return q


@pytest.mark.parametrize("point,expect", [("step-temp", "before"), ("step-end", "before"),
                                          ("step-renames", "after")])
def test_labelstudio_pull_killed_is_taken_back_or_finished(tmp_path, monkeypatch, point,
                                                          expect):
    fake = FakeLabelStudio(label="1")
    try:
        q = _pulled_round(tmp_path, monkeypatch, fake)
        _killed_ends_as(tmp_path, ["labelstudio", "pull", q, "--url", fake.url, "--token", "t",
                                   "-o", q], point, expect)
    finally:
        fake.httpd.shutdown()


def test_a_certify_whose_files_were_lost_runs_again_to_the_same_files(guarantee_round):
    """Issue 32: a certified round whose files were lost refused a re-run ("certified
    already"). The same settings now write the same files again (the stored certificate, the
    workspace unchanged); other settings are still refused (a round is certified once)."""
    q = guarantee_round
    ws, out_dir = q.parents[1] / "ws", q.parent
    c = q.with_name("c.csv")
    assert main(["certify", str(q), *map(str, CERTIFY), "-o", str(c)]) == 0
    files, rows = _state(ws, out_dir)
    for name in ("c.csv", "c.csv.round.json", "c_to_label.csv"):
        (out_dir / name).unlink()
    assert main(["certify", str(q), *map(str, CERTIFY), "-o", str(c)]) == 0
    assert _state(ws, out_dir) == (files, rows)
    other = ["--alpha", "0.25", *map(str, CERTIFY[2:])]
    assert main(["certify", str(q), *other, "-o", str(c)]) == 2
    assert _state(ws, out_dir) == (files, rows)
