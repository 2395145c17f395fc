"""One step of a round, all or nothing: its workspace rows and its files together.

``hmceval queue`` stores a round, then writes the round's table, its sidecar and the
annotators' file; ``hmceval labels`` and ``labelstudio pull`` store the votes, then write the
table and ``OUT.labels.csv``; ``hmceval certify`` takes in the table's labels, stores the
certificate and the new plan, then writes the round's files; ``hmceval estimate`` takes in the
table's labels and stores its result (rows only, no file). Inside :func:`one_step` every file is written to its temporary first
(:func:`core.atomic.staged`) and renamed only when the whole step succeeded; when anything
fails (a full device, the workspace's table file missing) every temporary is removed and the
rows the step added to the workspace are taken away again (:func:`core.workspace.undo.undo`),
so files and workspace are both as before, and the command exits 2 with the error. A step
killed outright is finished or taken back at the next start from its journal
(:mod:`core.workspace.journal`, replayed by :func:`core.cli.cmd_workspace.open_workspace`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["one_step"]


@contextmanager
def one_step(ws) -> Iterator[None]:
    """The block's workspace rows in ``ws`` and its files, committed together or not at all."""
    from core.atomic import kill_point, staged
    from core.workspace.journal import begin
    from core.workspace.undo import mark, undo

    if ws.read_only:  # a read-only workspace gets no rows: the files alone, all or none
        with staged():
            yield
        return
    before = mark(ws)
    journal = begin(ws, before)  # a kill -9 in the step is repaired at the next start
    try:
        with staged(on_temp=journal.temp, before_commit=journal.commit):
            yield
            kill_point("step-end")  # test only: the rows committed, no file renamed yet
    except BaseException as exc:
        if journal.committing:  # every file was written; a rename failed: finish, not undo
            journal.release()
            from core.errors import DataError

            if isinstance(exc, DataError):
                raise DataError(f"{exc}; the workspace holds the step: its files are "
                                "renamed by the next hmceval command that opens the "
                                "workspace") from None
            raise
        undo(ws, before)
        journal.done()
        raise
    journal.done()
