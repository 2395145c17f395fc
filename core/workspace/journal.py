"""The journal of a step in progress, replayed at the next start after a kill.

A step of ``hmceval queue`` or ``hmceval labels`` (:func:`core.cli.step.one_step`) commits
workspace rows, writes its files' temporaries, then renames them (:func:`core.atomic.staged`).
A process killed (``kill -9``, a power cut) between the commit and the last rename would leave
the workspace "after" and the files "before". So the step keeps a journal in the workspace,
``journal/step-<id>.json`` (written atomically), with a lock file ``step-<id>.lock`` held
(``flock``) for as long as the step runs:

- ``"pending"``: what the workspace held before the step (:func:`core.workspace.undo.mark`)
  and the temporaries created so far. A step killed in this state is taken back: its rows
  undone, its temporaries removed (workspace and files as before).
- ``"commit"``: every temporary is written and fsync-ed; the renames to do, in order. A step
  killed in this state is finished: the renames whose temporary is still there are done
  (workspace and files as after).

The journal is removed when the step ends (committed, or failed and taken back in process).
:func:`replay` (called when the command line opens a workspace) handles the journals left
behind whose lock no live process holds; a journal of a step still running is left alone.

Test hook (test only): ``HMCEVAL_TEST_KILL_AT=step-temp`` (after the first temporary is
recorded and created, :func:`core.atomic.atomic_path`) or ``step-renames`` (after the journal says ``commit``, before any rename) makes
the process kill itself there with SIGKILL (:func:`core.atomic.kill_point`;
``step-mid-renames``, after the first rename, is in :func:`core.atomic.apply_ops`;
``step-end``, at the end of the step's block, its rows committed, before its renames, is in
:func:`core.cli.step.one_step`).
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from core.atomic import apply_ops, kill_point
from core.errors import DataError
from core.workspace.undo import undo

__all__ = ["Journal", "begin", "replay"]

FOLDER = "journal"


def _write(path: Path, obj: dict[str, Any]) -> None:
    """``obj`` as JSON at ``path``, whole or not at all (its own temporary, fsync, rename:
    not :func:`core.atomic.atomic_path`, whose renames wait for the step inside ``staged``)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(obj, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise DataError(f"cannot write the workspace journal {path}: "
                        f"{exc.strerror or exc}") from None


def _lock(path: Path, *, wait: bool) -> int | None:
    """An ``flock`` held on ``path`` (created when missing): its descriptor, or None when
    another process holds it and ``wait`` is False (or, where ``fcntl`` does not exist, when
    nothing can tell a dead step from a running one: no replay there)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666) if wait else None
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


class Journal:
    """One step's journal (:func:`begin`)."""

    def __init__(self, ws, before: dict[str, Any]):
        folder = Path(ws.root) / FOLDER
        try:
            folder.mkdir(exist_ok=True)
            name = f"step-{uuid.uuid4().hex}"
            self.path = folder / f"{name}.json"
            self.lock_file = folder / f"{name}.lock"
            self.fd = _lock(self.lock_file, wait=True)
        except OSError as exc:
            raise DataError(f"cannot write the workspace journal in {folder}: "
                            f"{exc.strerror or exc}") from None
        self.state = {"state": "pending", "mark": before, "temps": []}
        _write(self.path, self.state)

    def temp(self, tmp: Path) -> None:
        """A temporary is about to be created (``staged``'s ``on_temp``: recorded before the
        file exists, so a kill in between leaves none the journal does not name)."""
        self.state["temps"].append(str(tmp))
        _write(self.path, self.state)

    def commit(self, ops: list) -> None:
        """Every temporary is written: the renames are next (``staged``'s ``before_commit``)."""
        self.state = {"state": "commit", "ops": [list(op) for op in ops]}
        _write(self.path, self.state)
        kill_point("step-renames")

    @property
    def committing(self) -> bool:
        """The journal says ``commit``: the step can only be finished, not taken back."""
        return self.state.get("state") == "commit"

    def release(self) -> None:
        """Let go of the step, its journal kept: the next start finishes it (:func:`replay`)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def done(self) -> None:
        """The step ended (committed, or taken back in process): no journal left."""
        for path in (self.path, self.lock_file):
            try:
                path.unlink()
            except OSError:
                pass
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def begin(ws, before: dict[str, Any]) -> Journal:
    """A journal for a step of ``ws`` that starts from ``before`` (:func:`undo.mark`)."""
    return Journal(ws, before)


def replay(ws) -> list[str]:
    """Finish or take back every step of ``ws`` killed before it ended; a sentence for each."""
    folder = Path(ws.root) / FOLDER
    if ws.read_only or not folder.is_dir():
        return []
    done = []
    for path in sorted(folder.glob("step-*.json")):
        lock_file = path.with_suffix(".lock")
        fd = _lock(lock_file, wait=False)
        if fd is None:  # the step is still running in another process
            continue
        try:
            try:
                state = json.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:  # it ended meanwhile
                continue
            except (OSError, ValueError):
                done.append(f"the workspace journal {path} is unreadable; left as it is")
                continue
            if state.get("state") == "commit":
                try:
                    apply_ops([tuple(op) for op in state["ops"]])
                except DataError as exc:  # a destination turned into a folder, say
                    done.append(f"a step killed before it ended could not be finished "
                                f"({exc}); its journal {path} is kept for the next start")
                    continue
                names = [op[1] for op in state["ops"] if op[0] == "replace"]
                done.append("a step killed before it ended was finished: wrote "
                            + ", ".join(names))
            else:
                deleted = undo(ws, state["mark"])
                for tmp in state.get("temps", []):
                    try:
                        os.unlink(tmp)
                    except OSError:
                        pass
                n = sum(deleted.values())
                done.append(f"a step killed before it ended was taken back ({n:,} workspace "
                            "rows removed, its temporary files deleted)")
            path.unlink()
        finally:
            try:
                lock_file.unlink()
            except OSError:
                pass
            os.close(fd)
    for lock_file in sorted(folder.glob("step-*.lock")):  # a step killed before its journal
        if lock_file.with_suffix(".json").exists():
            continue
        fd = _lock(lock_file, wait=False)
        if fd is None:  # a step starting now: its journal is being written
            continue
        try:
            lock_file.unlink()
        except OSError:
            pass
        finally:
            os.close(fd)
    return done
