"""A table of no round goes through the one round path (issue 32, item 2): ``estimate``,
``certify`` and ``labels`` on a table whose sidecar names no round record it as a round of the
workspace (``--workspace``, else ``$HMCEVAL_WORKSPACE``, else ``hmceval-workspace`` beside the
table), write its sidecar naming that round, and a re-run continues the same round. The
numbers are checked against hand-worked values (the difference estimator on a 12-row table)
and the all-or-nothing cases against the folder's bytes and the workspace's rows read with
sqlite3 (a full device on the sidecar; a kill -9 of a forked command at the points of its
step, repaired by the next command)."""

from __future__ import annotations

import errno
import json
import os
import signal

import pandas as pd
import pytest

from core import atomic
from core.cli import main
from core.cli.round_table import round_link, sidecar_path
from core.cli.table_round import BESIDE
from tests.cli.cli_support import folder_files, run_cli, workspace_rows


def _table(folder, name: str = "t.csv"):
    """12 rows: 4 routed (labelled), 2 audit (labelled), 6 machine; the machine says ``ok`` on
    the even rows. Labels: routed rows 0-3 ok, bad, bad, bad; audit rows 4-5 ok, bad."""
    folder.mkdir(exist_ok=True)
    path = folder / name
    pd.DataFrame({
        "sample_id": [f"s{i}" for i in range(12)],
        "machine_label": ["ok", "bad"] * 6,
        "machine_confidence": [0.6 + 0.03 * i for i in range(12)],
        "human_label": ["ok", "bad", "bad", "bad", "ok", "bad"] + [None] * 6,
        "selection": ["routed"] * 4 + ["audit"] * 2 + ["machine"] * 6,
    }).to_csv(path, index=False)
    return path


def _rounds(ws_dir) -> list[int]:
    import sqlite3

    con = sqlite3.connect(ws_dir / "workspace.sqlite")
    try:
        return [r[0] for r in con.execute("SELECT id FROM rounds ORDER BY id")]
    finally:
        con.close()


def test_estimate_records_the_table_as_a_round_and_a_rerun_continues_it(capsys, ws_dir,
                                                                       tmp_path):
    path = _table(tmp_path / "data")
    code, out, err = run_cli(capsys, "estimate", path, "--json")
    assert code == 0, err
    res = json.loads(out)
    # by hand: routed rows are the humans' (ok, bad, bad, bad); the 8 kept rows' machine
    # labels (4 ok, 4 bad) are corrected by the audit: the machine was right on both audit
    # rows, so the kept rows' share of ok is 4/8 and the accuracy on the audit 2/2
    assert (res["M"], res["n_routed"], res["n_audit"], res["n_machine"]) == (12, 4, 2, 6)
    assert res["class_shares"]["ok"]["estimate"] == pytest.approx((1 + 4) / 12)
    assert res["class_shares"]["bad"]["estimate"] == pytest.approx((3 + 4) / 12)
    # the final labels: the humans' on routed rows, the machine's (right on the whole audit)
    # on the kept rows
    assert res["accuracy"]["estimate"] == pytest.approx(1.0)
    link = round_link(path)
    assert link is not None and link["workspace"] == str(ws_dir.resolve())
    assert "named no round: recorded as round" in err and "6 labels" in err
    rows = workspace_rows(ws_dir)
    assert rows["rounds"] == 1 and rows["labels"] == 6 and rows["results"] == 1
    # a re-run continues the same round: no new round, no label taken in twice
    code, out2, err = run_cli(capsys, "estimate", path, "--json")
    assert code == 0, err
    assert json.loads(out2)["class_shares"] == res["class_shares"]
    assert round_link(path) == link and "named no round" not in err
    again = workspace_rows(ws_dir)
    assert again["rounds"] == 1 and again["labels"] == 6 and again["results"] == 2


def test_with_no_workspace_named_the_round_is_kept_beside_the_table(capsys, tmp_path,
                                                                   monkeypatch):
    monkeypatch.delenv("HMCEVAL_WORKSPACE", raising=False)
    path = _table(tmp_path / "data")
    assert run_cli(capsys, "estimate", path)[0] == 0
    beside = tmp_path / "data" / BESIDE
    assert round_link(path)["workspace"] == str(beside.resolve())
    assert _rounds(beside) == [1]
    # with no workspace named again, the sidecar's workspace is opened and continued
    code, _, err = run_cli(capsys, "estimate", path)
    assert code == 0, err
    assert _rounds(beside) == [1] and workspace_rows(beside)["results"] == 2
    # a named workspace other than the sidecar's is refused, naming the sidecar's
    code, _, err = run_cli(capsys, "estimate", path, "--workspace", tmp_path / "other")
    assert code == 2 and str(beside.resolve()) in err


def test_labels_on_a_table_of_no_round_import_into_its_recorded_round(capsys, ws_dir,
                                                                      tmp_path):
    path = _table(tmp_path / "data")
    pd.DataFrame({"sample_id": ["s4"], "label": ["bad"]}).to_csv(tmp_path / "l.csv",
                                                               index=False)
    out = tmp_path / "data" / "out.csv"
    code, stdout, err = run_cli(capsys, "labels", path, "--from", tmp_path / "l.csv",
                                "-o", out, "--json")
    assert code == 0, err
    res = json.loads(stdout)
    link = round_link(path)
    assert res["round_id"] == link["round_id"] and round_link(out) == link
    # the table's 6 labels are the round's record; the file's vote for s4 (an audit row the
    # table says is ok) is its only vote, so it is s4's label now, as the table alone gave
    assert res["progress"]["to_label"] == 6 and res["progress"]["labelled"] == 6
    written = pd.read_csv(out)
    assert written["human_label"].iloc[:6].tolist() == ["ok", "bad", "bad", "bad", "bad", "bad"]
    assert (tmp_path / "data" / "out.csv.labels.csv").is_file()
    assert workspace_rows(ws_dir)["rounds"] == 1


def test_the_votes_kept_beside_a_table_of_no_round_go_into_its_round(capsys, ws_dir, tmp_path):
    """An older hmceval labels kept every annotator's vote in PATH.labels.csv beside a table of
    no round: they are the round's votes, so the next import aggregates with them."""
    path = _table(tmp_path / "data")
    pd.DataFrame({"sample_id": ["s0", "s1", "s2"], "annotator": ["ann", "ann", ""],
                  "label": ["ok", "bad", "bad"], "seconds": [3.0, "", ""]}).to_csv(
        tmp_path / "data" / "t.csv.labels.csv", index=False)
    pd.DataFrame({"sample_id": ["s0", "s1"], "annotator": "bob", "label": ["ok", "ok"]}).to_csv(
        tmp_path / "l.csv", index=False)
    code, _, err = run_cli(capsys, "labels", path, "--from", tmp_path / "l.csv",
                           "--annotator-col", "annotator", "-o", path)
    assert code == 0, err
    votes = pd.read_csv(tmp_path / "data" / "t.csv.labels.csv", keep_default_na=False)
    assert sorted(zip(votes["sample_id"], votes["annotator"], votes["label"])) == [
        ("s0", "ann", "ok"), ("s0", "bob", "ok"), ("s1", "ann", "bad"), ("s1", "bob", "ok"),
        ("s2", "", "bad")]  # an unnamed annotator's vote (a file without annotator column)
    table = pd.read_csv(path)
    # s0: ok twice; s1: ann bad, bob ok, a tie left for adjudication (no label)
    assert table["human_label"].iloc[0] == "ok" and pd.isna(table["human_label"].iloc[1])


def test_certify_on_a_table_of_no_round_records_a_guarantee_round(capsys, ws_dir, tmp_path):
    """Without a selection column every labelled row is the calibration sample (as certify
    reads such a table); the round is certified once, a re-run gives the stored certificate."""
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "c.csv"
    n = 200
    pd.DataFrame({"sample_id": range(n), "machine_label": ["a", "b"] * (n // 2),
                  "machine_confidence": [0.5 + 0.5 * i / n for i in range(n)],
                  "human_label": [("a", "b")[i % 2] if i < 120 else None for i in range(n)],
                  }).to_csv(path, index=False)
    args = ["--alpha", 0.1, "--delta", 0.1, "--json"]
    code, out, err = run_cli(capsys, "certify", path, *args, "-o", folder / "o.csv")
    assert code == 0, err
    res = json.loads(out)
    assert res["n_calibration"] == 120  # every labelled row, each one right: all kept
    assert (pd.read_csv(folder / "o.csv")["selection"] == "calibration").sum() == 120
    rid = round_link(path)["round_id"]
    assert round_link(folder / "o.csv")["round_id"] == rid
    code, out2, err = run_cli(capsys, "certify", path, *args, "-o", folder / "o.csv")
    assert code == 0 and json.loads(out2) == res and "certified already" in err
    assert _rounds(ws_dir) == [rid]


def _files(folder) -> dict:
    """The folder's files and bytes, lock files aside (they stay, empty)."""
    return {k: v for k, v in folder_files(folder).items() if not k.endswith(".lock")}


def _full_device_on(monkeypatch, prefix: str) -> None:
    real = os.fsync

    def fsync(fd):
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        if name.startswith(prefix):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)


@pytest.mark.parametrize("fails", [".t.csv.round.json.", ".out.csv."])
def test_a_failed_step_records_no_round_and_writes_no_sidecar(capsys, ws_dir, tmp_path,
                                                              monkeypatch, fails):
    path = _table(tmp_path / "data")
    assert run_cli(capsys, "workspace", "list")[0] == 0  # the workspace exists, empty
    before = _files(tmp_path / "data"), workspace_rows(ws_dir)
    pd.DataFrame({"sample_id": ["s0"], "label": ["ok"]}).to_csv(tmp_path / "l.csv", index=False)
    with monkeypatch.context() as m:
        _full_device_on(m, fails)
        code, _, err = run_cli(capsys, "labels", path, "--from", tmp_path / "l.csv",
                               "-o", tmp_path / "data" / "out.csv")
    assert code == 2 and "the device is full" in err
    assert (_files(tmp_path / "data"), workspace_rows(ws_dir)) == before
    assert not sidecar_path(path).exists()
    # once there is room the same command records the round
    assert run_cli(capsys, "labels", path, "--from", tmp_path / "l.csv",
                   "-o", tmp_path / "data" / "out.csv")[0] == 0
    assert workspace_rows(ws_dir)["rounds"] == 1 and round_link(path) is not None


def _killed_at(argv, point: str) -> None:
    """Run ``hmceval argv`` in a forked child that kills itself with SIGKILL at ``point``."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.environ["HMCEVAL_TEST_KILL_AT"] = point
        try:
            main([str(a) for a in argv])
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status


@pytest.mark.parametrize("point,ends", [("step-temp", "before"), ("step-end", "before"),
                                        ("step-renames", "after"),
                                        ("step-mid-renames", "after")])
def test_estimate_killed_leaves_table_and_workspace_both_old_or_both_new(capsys, ws_dir,
                                                                         tmp_path, point,
                                                                         ends):
    import shutil

    data = tmp_path / "data"
    path = _table(data)
    assert run_cli(capsys, "workspace", "list")[0] == 0
    before = folder_files(data), workspace_rows(ws_dir)
    shutil.copytree(ws_dir, tmp_path / "saved-ws")
    shutil.copytree(data, tmp_path / "saved-data")
    assert run_cli(capsys, "estimate", path)[0] == 0
    after = folder_files(data), workspace_rows(ws_dir)
    assert after != before and sidecar_path(path).name in after[0]
    for saved, d in ((tmp_path / "saved-ws", ws_dir), (tmp_path / "saved-data", data)):
        shutil.rmtree(d)
        shutil.copytree(saved, d)
    _killed_at(["estimate", path], point)
    code, _, err = run_cli(capsys, "workspace", "list", "--json")  # the next command repairs
    assert code == 0, err
    want = before if ends == "before" else after
    assert (_files(data), workspace_rows(ws_dir)) == (
        {k: v for k, v in want[0].items() if not k.endswith(".lock")}, want[1])
