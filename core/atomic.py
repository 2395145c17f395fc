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
from pathlib import Path

from core.errors import DataError

__all__ = ["atomic_path", "check_writable", "locked", "lock_path", "note_waiting",
           "refuse_special", "temp_prefix", "write_bytes", "write_text"]


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
    try:
        fd, name = tempfile.mkstemp(prefix=temp_prefix(dest), suffix=suffix, dir=dest.parent)
    except OSError as exc:
        raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
    os.close(fd)
    tmp = Path(name)
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
            os.replace(tmp, dest)
        except OSError as exc:
            raise DataError(f"cannot write {dest}: {_reason(exc)}") from None
        _fsync_folder(dest.parent)
    finally:
        if tmp.exists():
            try:
                tmp.unlink()
            except OSError:
                pass


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
