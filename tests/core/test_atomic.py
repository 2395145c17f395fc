"""``core.atomic``: files written whole or not at all; one writer at a time."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import time

import pandas as pd
import pytest

from core import atomic
from core.atomic import atomic_path, lock_path, locked, temp_prefix, write_bytes, write_text
from core.csv_safe import to_csv_safe
from core.errors import DataError


def _leftovers(folder, name):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(temp_prefix(name)))


def test_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    dest = tmp_path / "a.txt"
    dest.write_text("old")
    write_text(dest, "new text é")
    assert dest.read_text(encoding="utf-8") == "new text é"
    write_bytes(dest, b"\x00\x01")
    assert dest.read_bytes() == b"\x00\x01"
    assert _leftovers(tmp_path, dest) == []


def test_the_temporary_is_beside_the_file_with_its_suffix(tmp_path):
    dest = tmp_path / "table.csv.gz"
    with atomic_path(dest) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".table.csv.gz.")
        assert tmp.name.endswith(".csv.gz") and tmp.exists() and not dest.exists()
        seen = tmp
    assert dest.exists() and not seen.exists()


def test_an_error_inside_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    dest = tmp_path / "a.csv"
    dest.write_text("old,whole\n")
    with pytest.raises(RuntimeError):
        with atomic_path(dest) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert dest.read_text() == "old,whole\n"
    assert _leftovers(tmp_path, dest) == []


def test_a_full_device_is_a_data_error_naming_the_file(tmp_path, monkeypatch):
    dest = tmp_path / "a.csv"
    dest.write_text("old\n")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(DataError, match=f"cannot write {dest}: the device is full"):
        write_text(dest, "new\n")
    assert dest.read_text() == "old\n" and _leftovers(tmp_path, dest) == []


def test_a_writer_failing_with_os_error_inside_is_a_data_error(tmp_path):
    dest = tmp_path / "a.bin"
    with pytest.raises(DataError, match="the device is full"):
        with atomic_path(dest):
            raise OSError(errno.ENOSPC, "No space left on device")
    assert not dest.exists()


@pytest.mark.parametrize("case", ["missing folder", "folder", "file as folder"])
def test_bad_paths_name_the_path(tmp_path, case):
    (tmp_path / "f.txt").write_text("x")
    dest = {"missing folder": tmp_path / "nope" / "a.csv", "folder": tmp_path,
            "file as folder": tmp_path / "f.txt" / "a.csv"}[case]
    with pytest.raises(DataError, match=f"cannot write {dest}"):
        write_text(dest, "x")


def test_permissions_of_an_existing_file_are_kept(tmp_path):
    dest = tmp_path / "a.csv"
    dest.write_text("x")
    os.chmod(dest, 0o640)
    write_text(dest, "y")
    assert stat.S_IMODE(dest.stat().st_mode) == 0o640
    new = tmp_path / "b.csv"
    write_text(new, "y")  # as open(): 0o666 under the umask, not mkstemp's 0o600
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


def test_to_csv_safe_to_a_path_is_atomic(tmp_path, monkeypatch):
    dest = tmp_path / "t.csv"
    pd.DataFrame({"a": [1, 2, 3]}).to_csv(dest, index=False)
    real = pd.DataFrame.to_csv

    def dies_half_way(self, path=None, **kw):
        with open(path, "w") as fh:
            fh.write("a\n1\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", dies_half_way)
    with pytest.raises(KeyboardInterrupt):
        to_csv_safe(pd.DataFrame({"a": range(10)}), dest)
    monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    assert pd.read_csv(dest)["a"].tolist() == [1, 2, 3]
    assert _leftovers(tmp_path, dest) == []
    # compression is still inferred from the destination's name
    gz = tmp_path / "t.csv.gz"
    to_csv_safe(pd.DataFrame({"a": ["=1", "x"]}), gz)
    assert gz.read_bytes()[:2] == b"\x1f\x8b"
    assert pd.read_csv(gz)["a"].tolist() == ["'=1", "x"]
    assert to_csv_safe(pd.DataFrame({"a": [1]})) == '"a"\n1\n'  # no path: the text


def test_locked_excludes_other_holders_until_released(tmp_path):
    dest = tmp_path / "t.csv"
    lock = lock_path(dest)
    assert lock.name == "t.csv.lock"

    def try_lock():
        fd = os.open(lock, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)

    with locked(dest):
        assert not try_lock()
    assert try_lock()


def test_a_second_writer_waits_and_is_told(tmp_path):
    dest = tmp_path / "t.csv"
    order, waited = [], []

    def second():
        with locked(dest, on_wait=waited.append):
            order.append("second")

    with locked(dest):
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.2)
        order.append("first done")
    t.join(5)
    assert order == ["first done", "second"]
    assert waited == [lock_path(dest)]


@pytest.mark.parametrize("kind", ["symlink", "dangling symlink", "fifo", "folder"])
def test_only_a_regular_file_or_a_new_path_is_replaced(tmp_path, kind):
    """Issue 32, item 4: os.replace put a regular file in place of a symbolic link, a FIFO or a
    device node. Each is refused, named, and left exactly as it was (its target too)."""
    target = tmp_path / "target.txt"
    target.write_text("kept")
    dest = tmp_path / "out.csv"
    if kind == "symlink":
        dest.symlink_to(target)
    elif kind == "dangling symlink":
        dest.symlink_to(tmp_path / "nowhere.txt")
    elif kind == "fifo":
        os.mkfifo(dest)
    else:
        dest.mkdir()
    before = os.lstat(dest)
    with pytest.raises(DataError, match=str(dest)):
        write_text(dest, "new")
    with pytest.raises(DataError, match=str(dest)):
        to_csv_safe(pd.DataFrame({"a": [1]}), dest)
    after = os.lstat(dest)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert after.st_ino == before.st_ino
    assert target.read_text() == "kept"
    assert not (tmp_path / "nowhere.txt").exists()
    assert _leftovers(tmp_path, dest) == []


def test_a_device_node_is_refused_and_kept():
    """``report -o /dev/full`` as root replaced the device with an HTML file."""
    before = os.lstat("/dev/null")
    with pytest.raises(DataError, match="/dev/null: it is a device node"):
        atomic.check_writable("/dev/null")
    after = os.lstat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_a_symlink_put_at_the_path_while_writing_is_not_replaced(tmp_path):
    """The check is repeated just before the rename."""
    target = tmp_path / "target.txt"
    target.write_text("kept")
    dest = tmp_path / "out.txt"
    with pytest.raises(DataError, match="symbolic link"):
        with atomic_path(dest) as tmp:
            tmp.write_text("new")
            dest.symlink_to(target)
    assert dest.is_symlink() and target.read_text() == "kept"
    assert _leftovers(tmp_path, dest) == []


# --- staged: the files of one step, all or nothing ------------------------------------------

def test_staged_renames_nothing_until_the_block_ends(tmp_path):
    a, b, gone = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "old.txt"
    a.write_text("old a")
    gone.write_text("stale")
    with atomic.staged():
        write_text(a, "new a")
        write_text(b, "new b")
        atomic.remove(gone)
        assert a.read_text() == "old a" and not b.exists() and gone.exists()
    assert a.read_text() == "new a" and b.read_text() == "new b" and not gone.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def test_staged_error_keeps_every_file_and_removes_every_temporary(tmp_path):
    a, b, kept = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "kept.txt"
    a.write_text("old a")
    kept.write_text("kept")
    with pytest.raises(RuntimeError), atomic.staged():
        write_text(a, "new a")
        atomic.remove(kept)
        write_text(b, "new b")
        raise RuntimeError("the step failed after its files")
    assert a.read_text() == "old a" and not b.exists() and kept.read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "kept.txt"]


def test_staged_full_device_on_the_second_file_keeps_the_first(tmp_path, monkeypatch):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a")
    real = os.fsync

    def fsync(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(temp_prefix(b)):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    with pytest.raises(DataError, match="b.txt: the device is full"), atomic.staged():
        write_text(a, "new a")
        write_text(b, "new b")
    assert a.read_text() == "old a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_staged_file_written_twice_keeps_the_last_and_one_file(tmp_path):
    a = tmp_path / "a.txt"
    with atomic.staged():
        write_text(a, "first")
        with atomic.staged():  # nested: belongs to the outer step
            write_text(a, "second")
        assert not a.exists()
    assert a.read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_apply_ops_skips_what_was_done_before_a_kill(tmp_path):
    """Replaying a journal: a rename whose temporary is gone was done, and the removal before
    it must not remove the new file."""
    side, tmp = tmp_path / "t.round.json", tmp_path / ".t.round.json.x.tmp"
    side.write_text("new sidecar, renamed before the kill")
    atomic.apply_ops([("unlink", str(side), None), ("replace", str(side), str(tmp))])
    assert side.read_text() == "new sidecar, renamed before the kill"
    tmp.write_text("new")
    side.write_text("old")
    atomic.apply_ops([("unlink", str(side), None), ("replace", str(side), str(tmp))])
    assert side.read_text() == "new" and not tmp.exists()


def test_a_step_is_told_of_each_temporary_before_it_exists(tmp_path):
    """A step's journal names every temporary before the file is created: a kill -9 between
    the two used to leave a hidden temporary no journal named (bench/kill.py, certify on
    200,000 rows: one of 20 kills). Each name is told once, starts with the destination's
    prefix, and the file is there when the writer gets it."""
    told = []

    def on_temp(path):
        told.append((path, path.exists()))

    with atomic.staged(on_temp=on_temp):
        write_text(tmp_path / "a.csv", "x\n")
        with atomic_path(tmp_path / "b.txt") as tmp:
            assert tmp.exists() and tmp.name.startswith(temp_prefix(tmp_path / "b.txt"))
            tmp.write_text("y")
    assert [exists for _, exists in told] == [False, False]
    assert [p.name.startswith(".a.csv.") for p, _ in told] == [True, False]
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "b.txt"]  # renamed, no temporary left
