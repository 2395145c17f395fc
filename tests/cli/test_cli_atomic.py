"""Nothing the command line writes is lost: ``kill -9`` in the middle of ``hmceval labels``
leaves the previous table whole, concurrent in-place imports keep every label, a truncated
round table is refused, and bad output paths exit 2 naming the path."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from core import atomic
from core.atomic import temp_prefix
from core.cli import main
from core.cli.common import load_round
from core.cli.round_table import sidecar_path
from tests.cli.cli_support import run_cli

HMCEVAL = [sys.executable, "-m", "core.cli"]


def _round_table(n: int, *, text: str = "a sample of some length " * 3) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"sample_id": [f"s{i}" for i in range(n)],
                         "machine_label": rng.choice(["ok", "bad"], n),
                         "machine_confidence": rng.uniform(0.5, 1, n).round(4),
                         "text": text, "selection": "routed"})


def _labels(path, ids, label="ok"):
    pd.DataFrame({"sample_id": ids, "label": label}).to_csv(path, index=False)
    return path


def _n_labels(path) -> int:
    t = pd.read_csv(path)
    return int(t["human_label"].notna().sum()) if "human_label" in t else 0


@pytest.fixture(scope="module")
def big_round(tmp_path_factory):
    """A 150,000-row round table written by hmceval itself (so with its sidecar)."""
    folder = tmp_path_factory.mktemp("big")
    raw = folder / "raw.csv"
    _round_table(150_000).to_csv(raw, index=False)
    first = _labels(folder / "first.csv", [f"s{i}" for i in range(0, 600, 3)], "bad")
    table = folder / "pristine.csv"
    assert main(["labels", str(raw), "--from", str(first), "-o", str(table)]) == 0
    assert sidecar_path(table).is_file()
    return table


def test_kill_9_during_an_in_place_import_leaves_the_previous_table_whole(big_round, tmp_path):
    """SIGKILL while the table is being written (its temporary exists, or, for a writer that
    is not atomic, the moment the table itself changes): the table is the previous one or the
    new one, whole, and hmceval still reads it (its sidecar check passes)."""
    labels = _labels(tmp_path / "new.csv", [f"s{i}" for i in range(1, 3000, 3)])
    table = tmp_path / "round.csv"
    before = pd.read_csv(big_round, low_memory=False)
    killed_mid_write = 0
    for _ in range(6):
        shutil.copy(big_round, table)
        shutil.copy(sidecar_path(big_round), sidecar_path(table))
        start = table.stat()
        proc = subprocess.Popen([*HMCEVAL, "labels", str(table), "--from", str(labels),
                                 "-o", str(table)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            temps = [p for p in tmp_path.iterdir() if p.name.startswith(temp_prefix(table))]
            now = table.stat()
            if temps or (now.st_mtime_ns, now.st_size) != (start.st_mtime_ns, start.st_size):
                proc.send_signal(signal.SIGKILL)
                killed_mid_write += proc.wait() == -signal.SIGKILL
                break
            time.sleep(0.001)
        proc.wait()
        after = pd.read_csv(table, low_memory=False)
        assert len(after) == len(before)
        assert after["sample_id"].tolist() == before["sample_id"].tolist()
        # the previous labels (200) or the previous and the new ones (200 + 1,000): never partial
        assert int(after["human_label"].notna().sum()) in (200, 1200)
        load_round(str(table))  # the sidecar check passes: the table is whole
        for p in tmp_path.iterdir():
            if p.name.startswith(temp_prefix(table)):
                p.unlink()  # what a killed writer leaves: a hidden temporary, never the table
        if killed_mid_write >= 2:
            break
    assert killed_mid_write >= 1, "no attempt was killed during the write"


def test_concurrent_in_place_imports_keep_every_label(tmp_path):
    table = tmp_path / "round.csv"
    _round_table(20_000).to_csv(table, index=False)
    ids = [f"s{i}" for i in range(0, 3000)]
    files = [_labels(tmp_path / f"l{k}.csv", ids[k::3]) for k in range(3)]
    for attempt in range(2):
        procs = [subprocess.Popen([*HMCEVAL, "labels", str(table), "--from", str(f), "-o",
                                   str(table)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for f in files]
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], outs
        assert _n_labels(table) == 3000
        assert len(pd.read_csv(table)) == 20_000
        if attempt == 0:  # start again from an empty column
            t = pd.read_csv(table)
            t["human_label"] = np.nan
            t.to_csv(table, index=False)
            sidecar_path(table).unlink()


def _small_round(tmp_path, capsys, n=50):
    raw = tmp_path / "raw.csv"
    _round_table(n).to_csv(raw, index=False)
    table = tmp_path / "round.csv"
    code, _, err = run_cli(capsys, "labels", raw, "--from",
                           _labels(tmp_path / "l.csv", ["s0", "s1"]), "-o", table)
    assert code == 0, err
    return table


def test_a_truncated_round_table_is_refused(tmp_path, capsys):
    table = _small_round(tmp_path, capsys, n=400)
    rec = json.loads(sidecar_path(table).read_text())
    assert rec["rows"] == 400 and rec["sample_id_column"] == "sample_id"
    lines = table.read_text().splitlines(keepends=True)
    table.write_text("".join(lines[:76]))  # cut at a row boundary: still a valid CSV
    more = _labels(tmp_path / "more.csv", ["s2"])
    for argv in (("estimate", table), ("labels", table, "--from", more, "-o", table)):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2, (argv, out, err)
        assert f"round table {table} holds 75 rows; its plan has 400: truncated or edited?" in err
        assert "Traceback" not in err
    assert len(pd.read_csv(table)) == 75  # labels refused it: nothing written
    sidecar_path(table).unlink()  # the way out the message gives: read it as it is
    assert run_cli(capsys, "labels", table, "--from", more, "-o", table)[0] == 0


def test_changed_sample_ids_are_refused_but_sorting_and_hand_labels_are_not(tmp_path, capsys):
    table = _small_round(tmp_path, capsys)
    t = pd.read_csv(table)
    t = t.sort_values("machine_confidence")  # reordered, a label typed in by hand: same round
    t.loc[t["sample_id"] == "s5", "human_label"] = "bad"
    t.to_csv(table, index=False)
    code, out, err = run_cli(capsys, "labels", table, "--from",
                             _labels(tmp_path / "m.csv", ["s3"]), "-o", table)
    assert code == 0, err
    assert _n_labels(table) == 4
    t = pd.read_csv(table)
    t.loc[0, "sample_id"] = "other"
    t.to_csv(table, index=False)
    code, _, err = run_cli(capsys, "estimate", table)
    assert code == 2 and "holds 50 rows as planned but not the same sample ids" in err


def test_tables_without_a_sidecar_are_read_unchecked(tmp_path, capsys):
    table = tmp_path / "hand.csv"
    _round_table(30).to_csv(table, index=False)
    code, _, err = run_cli(capsys, "labels", table, "--from",
                           _labels(tmp_path / "l.csv", ["s1"]), "-o", tmp_path / "out.csv")
    assert code == 0, err
    # read as it is, then recorded as a round (issue 32): its new sidecar names the round, as
    # the output's does
    link = json.loads(sidecar_path(table).read_text())
    assert link["rows"] == 30 and "round_id" in link
    assert json.loads(sidecar_path(tmp_path / "out.csv").read_text())["round_id"] == \
        link["round_id"]


def test_queue_and_certify_write_the_sidecar(tmp_path, capsys):
    raw = tmp_path / "scored.csv"
    t = _round_table(300).drop(columns="selection")
    t["human_label"] = np.where(np.arange(300) < 150, t["machine_label"], None)
    t.drop(columns="human_label").to_csv(raw, index=False)
    out = tmp_path / "q.csv"
    code, _, err = run_cli(capsys, "queue", raw, "--design", "routing", "--calibration", "40",
                           "--human-count", "20", "-o", out)
    assert code == 0, err
    assert json.loads(sidecar_path(out).read_text())["rows"] == 300
    assert not sidecar_path(tmp_path / "q_to_label.csv").exists()
    t.to_csv(raw, index=False)
    cert = tmp_path / "c.csv"
    code, _, err = run_cli(capsys, "certify", raw, "--alpha", "0.2", "--delta", "0.1", "-o", cert)
    assert code == 0, err
    assert json.loads(sidecar_path(cert).read_text())["rows"] == 300


@pytest.mark.parametrize("where", ["missing folder", "a folder", "a file as folder"])
def test_bad_output_paths_exit_2_naming_the_path(tmp_path, capsys, where):
    table = _small_round(tmp_path, capsys, n=30)
    bad = {"missing folder": tmp_path / "nope" / "o.csv", "a folder": tmp_path,
           "a file as folder": table / "o.csv"}[where]
    labels = _labels(tmp_path / "l2.csv", ["s2"])
    scored = tmp_path / "scored.csv"
    t = _round_table(30).drop(columns="selection")
    t.assign(human_label=t["machine_label"]).to_csv(scored, index=False)
    for argv in (("labels", table, "--from", labels, "-o", bad),
                 ("queue", scored, "--design", "routing", "--calibration", "5", "-o", bad),
                 ("certify", scored, "--alpha", "0.2", "--delta", "0.1", "-o", bad),
                 ("assign", scored, "-o", bad),
                 ("report", "-o", bad)):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2, (argv, out, err)
        assert f"cannot write {bad}" in err and "Traceback" not in err


def test_a_full_device_exits_2_and_keeps_the_table(tmp_path, capsys, monkeypatch):
    table = _small_round(tmp_path, capsys, n=30)
    before = table.read_bytes()
    real = os.fsync

    def full(fd):  # the device fills as the table is written (the workspace's journal and
        # rows went in first: the table's round is a workspace round, issue 32)
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(temp_prefix(table)):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", full)
    code, _, err = run_cli(capsys, "labels", table, "--from",
                           _labels(tmp_path / "l2.csv", ["s2"]), "-o", table)
    assert code == 2 and f"cannot write {table}: the device is full" in err
    assert table.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(temp_prefix(table))]
    monkeypatch.undo()
    load_round(str(table))  # sidecar and table still agree
    assert os.path.exists(sidecar_path(table))


def _scored(path, n: int = 20):
    """A small scored table: labels, confidences and efforts chosen by hand."""
    pd.DataFrame({"sample_id": [f"s{i}" for i in range(n)],
                  "machine_label": ["ok", "bad"] * (n // 2),
                  "human_label": ["ok"] * n,
                  "machine_confidence": [0.5 + 0.02 * i for i in range(n)],
                  "human_effort": [1.0] * n}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command", [["assign"], ["queue", "--calibration", "5"],
                                     ["turns"], ["sweep"]])
@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_o_at_a_symlink_or_a_fifo_exits_2_and_keeps_it(tmp_path, capsys, ws_dir, command, kind):
    """Issue 32, item 4: ``-o`` at a symbolic link or a FIFO left a regular file in its place
    with exit 0. Now exit 2 naming the path; the link, its target and the FIFO are as before."""
    data = _scored(tmp_path / "t.csv")
    target = tmp_path / "target.csv"
    target.write_text("kept\n")
    out = tmp_path / "out.csv"
    if kind == "symlink":
        out.symlink_to(target)
    else:
        os.mkfifo(out)
    code, _, err = run_cli(capsys, command[0], data, *command[1:], "-o", out)
    assert code == 2 and str(out) in err and "not a regular file" in err
    assert (out.is_symlink() if kind == "symlink" else stat_is_fifo(out))
    assert target.read_text() == "kept\n"


def stat_is_fifo(path) -> bool:
    import stat

    return stat.S_ISFIFO(os.lstat(path).st_mode)


def test_o_dash_writes_the_one_file_to_standard_output(tmp_path, capsys):
    """``-o -`` wrote a file named '-'. For assign (one CSV) it is standard output: the
    assignment's 20 rows, s0 first; the metrics go to standard error."""
    data = _scored(tmp_path / "t.csv")
    code, out, err = run_cli(capsys, "assign", data, "--human-count", "3", "-o", "-")
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 21 and lines[1].startswith('1,"s0",')
    assert "accuracy" in err
    assert not (tmp_path / "-").exists() and not os.path.exists("-")


def test_o_dash_with_json_or_for_a_round_table_exits_2(tmp_path, capsys, ws_dir):
    """Two outputs cannot share standard output: ``--json -o -`` and a round's table (which
    has files beside it) are refused before any work."""
    data = _scored(tmp_path / "t.csv")
    code, out, err = run_cli(capsys, "assign", data, "--json", "-o", "-")
    assert code == 2 and "standard output" in err and out == ""
    code, out, err = run_cli(capsys, "queue", data, "--calibration", "5", "-o", "-")
    assert code == 2 and "-o -" in err and out == ""
    assert not os.path.exists("-") and not ws_dir.exists()


def test_o_at_a_device_node_exits_2_and_keeps_it(tmp_path, capsys):
    """``report -o /dev/full`` as root replaced the device with an HTML file; ``-o /dev/null``
    is refused alike (exit 2 naming it) and stays a character device."""
    import stat

    data = _scored(tmp_path / "t.csv")
    code, _, err = run_cli(capsys, "assign", data, "-o", "/dev/null")
    assert code == 2 and "/dev/null: it is a device node" in err
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
