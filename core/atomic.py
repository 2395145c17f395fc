"""Files written whole or not at all, and one writer at a time for a read-modify-write.

Every file the command line writes goes through :func:`atomic_path` (or :func:`write_text`,
:func:`write_bytes`): the content goes to a temporary file in the destination's folder
(``.NAME.<random>.tmp<suffix>``, hidden, the destination's suffix kept so that pandas infers the
same format and compression), which is flushed and ``fsync``-ed, then renamed over the
destination with :func:`os.replace` (atomic on POSIX and Windows within one file system), and the
folder is ``fsync``-ed so the rename survives a power cut. A process killed at any moment leaves
the previous file complete, or the new one complete; at worst a stray hidden temporary, never a
truncated destination. A failed write removes its temporary.

A path that cannot be written (a folder that does not exist, a folder given as the file, no
permission, a full device) raises :class:`core.errors.DataError` naming the path: the CLI prints
it and exits 2. Only a regular file or a new path is ever replaced: a symbolic link, a FIFO, a
device node, a socket or a folder at the destination is refused and left as it is (renaming over
it would put a regular file in its place: ``-o /dev/full`` run as root replaced the device).

:func:`locked` serialises read-modify-write cycles of one file between processes with
``fcntl.flock`` on a lock file beside it (``NAME.lock``, left in place: removing a lock file
while another process waits on it would let a third one in). Where ``fcntl`` does not exist
(Windows) it does not lock.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from core.errors import DataError

__all__ = ["apply_ops", "atomic_path", "check_writable", "kill_point", "locked", "lock_path", "note_waiting",
           "refuse_special", "remove", "staged", "temp_prefix", "write_bytes", "write_text"]


def temp_prefix(path: str | os.PathLike) -> str:
    """The name every temporary of ``path`` starts with (``.NAME.``), in ``path``'s folder."""
    return f".{Path(path).name}."


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "the device is full"
    if exc.errno == errno.ENOENT:
        return "its folder does not exist"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EISDIR:
        return "it is a folder"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    return exc.strerror or str(exc)


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device node"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def refuse_special(dest: Path) -> None:
    """A :class:`DataError` naming ``dest`` when something other than a regular file is there
    (looked at without following a symbolic link); nothing when it is a regular file or absent."""
    try:
        mode = os.lstat(dest).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
    kind = _kind(mode)
    if kind == "a folder":
        raise DataError(f"cannot write {dest}: it is a folder; give a file name")
    if kind is not None:
        raise DataError(f"cannot write {dest}: it is {kind}, not a regular file; hmceval "
                        "replaces only a regular file or writes a new one (nothing was written)")


def check_writable(path: str | os.PathLike) -> Path:
    """``path`` as a :class:`~pathlib.Path` when a file can be written there, else a
    :class:`DataError` naming it (the folder is missing or is a file; the path is a folder, a
    symbolic link, a FIFO, a device node or a socket: only a regular file or a new path is
    written)."""
    dest = Path(path)
    folder = dest.parent
    refuse_special(dest)
    if not folder.exists():
        raise DataError(f"cannot write {dest}: its folder {folder} does not exist")
    if not folder.is_dir():
        raise DataError(f"cannot write {dest}: {folder} is not a folder")
    return dest


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows cannot open a folder; the rename is durable there anyway
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _mode_for(dest: Path) -> int:
    """The permissions the destination keeps (an existing file's), else what a plain
    ``open(dest, "w")`` would give under the current umask."""
    try:
        return dest.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path to write; on leaving the block without an error it replaces ``path``.

    Parameters
    ----------
    path : str or path-like
        The destination file.

    Yields
    ------
    pathlib.Path
        A new empty file in the destination's folder; write it by name (``df.to_csv(tmp)``,
        ``tmp.write_text(...)``).

    Raises
    ------
    DataError
        The destination cannot be written; the message names it. An error raised inside the
        block propagates unchanged; in both cases the temporary is removed and the destination
        is untouched.
    """
    dest = check_writable(path)
    suffix = ".tmp" + "".join(dest.suffixes[-2:])
    batch = _BATCH.get()
    try:
        if batch is not None:  # named to the step (its journal) before it exists
            tmp = _reserved_temp(dest, suffix, batch)
        else:
            fd, name = tempfile.mkstemp(prefix=temp_prefix(dest), suffix=suffix,
                                        dir=dest.parent)
            os.close(fd)
            tmp = Path(name)
    except OSError as exc:
        raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
    handed = False
    try:
        try:
            yield tmp
        except OSError as exc:  # the writer inside the block failed (a full device...)
            raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
        try:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp, _mode_for(dest))
            refuse_special(dest)  # again: something may have been put there meanwhile
            if batch is not None:  # renamed with the other files of the step (staged)
                batch.add_replace(tmp, dest)
                handed = True
                return
            os.replace(tmp, dest)
        except OSError as exc:
            raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
        _fsync_folder(dest.parent)
    finally:
        if not handed and tmp.exists():
            try:
                tmp.unlink()
            except OSError:
                pass


def _reserved_temp(dest: Path, suffix: str, batch: "_Batch") -> Path:
    """A new temporary of ``dest`` in a step: its name is told to the step first
    (``note_temp``: the journal records it), then the file is created (exclusively, as
    :func:`tempfile.mkstemp` does), so a step killed in between leaves no temporary its
    journal does not name (a kill -9 of certify left one: bench/kill.py)."""
    import secrets

    tmp = dest.parent / f"{temp_prefix(dest)}{secrets.token_hex(8)}{suffix}"
    batch.note_temp(tmp)
    try:
        fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
    except OSError:
        batch.temps.remove(tmp)  # not created by this step: never removed by it
        raise
    os.close(fd)
    if batch.on_temp is not None:  # test only: a step killed with its first temporary there
        kill_point("step-temp")
    return tmp


class _Batch:
    """The files of one step (:func:`staged`): each one's temporary, written and fsync-ed,
    renamed over its destination only when the whole step succeeded."""

    def __init__(self, on_temp: Callable[[Path], None] | None = None,
                 before_commit: Callable[[list], None] | None = None):
        self.ops: list[tuple[str, str, str | None]] = []  # ("replace", dest, tmp) / ("unlink", dest, None)
        self.temps: list[Path] = []
        self.on_temp = on_temp
        self.before_commit = before_commit

    def note_temp(self, tmp: Path) -> None:
        self.temps.append(tmp)
        if self.on_temp is not None:
            self.on_temp(tmp)

    def add_replace(self, tmp: Path, dest: Path) -> None:
        for i, (kind, d, old) in enumerate(self.ops):  # written twice in one step: the last wins
            if kind == "replace" and d == str(dest):
                self.ops[i] = ("skip", d, None)
                _unlink_quietly(Path(old))
        self.ops.append(("replace", str(dest), str(tmp)))

    def add_unlink(self, dest: Path) -> None:
        self.ops.append(("unlink", str(dest), None))

    def discard(self) -> None:
        for tmp in self.temps:
            _unlink_quietly(tmp)

    def commit(self) -> None:
        ops = [op for op in self.ops if op[0] != "skip"]
        journaled = False
        try:
            for kind, dest, _ in ops:  # nothing renamed when one destination turned special
                refuse_special(Path(dest))
            if self.before_commit is not None:
                self.before_commit(ops)
                journaled = True
            apply_ops(ops)
        except BaseException:
            if not journaled:  # a journal that says "commit" finishes them at the next start
                self.discard()
            raise
        self.discard()


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def apply_ops(ops: list) -> None:
    """Carry out a step's renames and removals (:func:`staged`) in order; a rename whose
    temporary is gone was done already (a journal replayed after a kill, :mod:`core.journal`),
    and so was a removal followed by a rename of the same file that was done."""
    done = {dest for kind, dest, tmp in ops if kind == "replace" and not os.path.exists(tmp)}
    folders = set()
    for kind, dest, tmp in ops:
        try:
            if kind == "replace" and os.path.exists(tmp):
                os.replace(tmp, dest)
                folders.add(os.path.dirname(dest) or ".")
                kill_point("step-mid-renames")
            elif kind == "unlink" and dest not in done and os.path.lexists(dest):
                os.unlink(dest)
        except OSError as exc:
            raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
    for folder in folders:
        _fsync_folder(Path(folder))


def kill_point(name: str) -> None:
    """TEST ONLY: when ``$HMCEVAL_TEST_KILL_AT`` is ``name``, the process kills itself here
    with SIGKILL (``kill -9``: no cleanup runs), so a test can stop a command at a named
    point of a step (:mod:`core.workspace.journal` lists them). Nothing happens otherwise."""
    if os.environ.get("HMCEVAL_TEST_KILL_AT") == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


_BATCH: ContextVar[_Batch | None] = ContextVar("hmceval_atomic_batch", default=None)


@contextmanager
def staged(*, on_temp: Callable[[Path], None] | None = None,
           before_commit: Callable[[list], None] | None = None) -> Iterator[None]:
    """All or nothing for the files of one step: inside the block, every :func:`atomic_path`
    (so :func:`write_text`, :func:`core.csv_safe.to_csv_safe` ...) writes and fsyncs its
    temporary but renames nothing, and :func:`remove` removes nothing; when the block ends
    without an error the renames and removals are done, in the order they were asked for. An
    error inside the block (a full device, a missing workspace file) removes every temporary
    and leaves every destination as it was. Nested blocks belong to the outermost one.

    ``on_temp(path)`` is told of each temporary as it is created and ``before_commit(ops)`` of
    the renames just before they are done (a journal, :mod:`core.journal`)."""
    if _BATCH.get() is not None:
        yield
        return
    batch = _Batch(on_temp, before_commit)
    token = _BATCH.set(batch)
    try:
        yield
    except BaseException:
        _BATCH.reset(token)
        batch.discard()
        raise
    _BATCH.reset(token)
    batch.commit()


def remove(path: str | os.PathLike) -> None:
    """Remove the file ``path`` if it is there (inside :func:`staged`: when the step commits);
    a :class:`DataError` naming it when it cannot be removed."""
    dest = Path(path)
    batch = _BATCH.get()
    if batch is not None:
        batch.add_unlink(dest)
        return
    try:
        dest.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise DataError(f"cannot replace {dest}: {exc.strerror or exc}") from None


def write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding=encoding)


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def lock_path(path: str | os.PathLike) -> Path:
    """The lock file of ``path``: ``NAME.lock`` beside it."""
    p = Path(path)
    return p.with_name(p.name + ".lock")


@contextmanager
def locked(path: str | os.PathLike, *,
           on_wait: Callable[[Path], None] | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (its lock file, :func:`lock_path`) for the block.

    Parameters
    ----------
    path : str or path-like
        The file whose read-modify-write the block does.
    on_wait : callable, optional
        Called once with the lock file's path when another process holds it (before waiting);
        the CLI prints a note.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no advisory locks
        yield
        return
    lock = lock_path(check_writable(path))
    try:
        refuse_special(lock)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o666)
    except OSError as exc:
        raise DataError(f"cannot lock {path} (lock file {lock}): {_reason(exc)}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(lock)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def note_waiting(lock: Path) -> None:
    """The CLI's note while another process holds ``lock``."""
    print(f"note: another hmceval is writing this table ({lock} is held); waiting for it",
          file=sys.stderr)
