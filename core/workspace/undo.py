"""Undo what one step added to a workspace: the compensating half of "all or nothing".

A command's step (``hmceval queue`` planning a round, ``hmceval labels`` importing votes)
commits its workspace rows in the store's own transactions, then writes its files. When the
files cannot be written (a full device, a workspace table file missing), the rows it added are
taken away again so that workspace and files are both as before: :func:`mark` records, before
the step, the highest row id of every table, the rounds' and the meta rows as they are and the
table files present; :func:`undo` deletes every row added since (children first) and puts the
rounds and meta rows back, in one transaction, then removes the table files the step added
that no remaining row names. A mark is plain JSON (the journal of :mod:`core.journal` keeps
it so that a step killed between its commit and its renames is undone at the next start).

Rows added meanwhile by another process to the same tables would be taken away too: a step is
short and runs under its round's lock; the Evaluate page and two commands planning rounds in
one workspace at the same second are the case this does not cover.
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from core.errors import DataError

__all__ = ["mark", "undo"]

#: children before parents (foreign keys); each with its row id column
_TABLES = (("labels", "rowid"), ("annotations", "rowid"), ("results", "id"), ("events", "id"),
           ("label_imports", "id"), ("rounds", "id"), ("scenarios", "id"), ("datasets", "id"))


def _connect(ws) -> sqlite3.Connection:
    try:
        con = sqlite3.connect(ws.db_path, timeout=30, isolation_level=None)
    except sqlite3.Error as exc:
        raise DataError(f"cannot open the workspace database {ws.db_path}: {exc}") from None
    con.row_factory = sqlite3.Row
    return con


def _files(ws) -> list[str]:
    try:
        return sorted(os.listdir(ws.root / "tables"))
    except OSError:
        return []


def mark(ws) -> dict[str, Any]:
    """What the workspace ``ws`` holds now, as much as :func:`undo` needs (plain JSON)."""
    con = _connect(ws)
    try:
        top = {t: int(con.execute(f"SELECT COALESCE(MAX({k}), 0) FROM {t}").fetchone()[0])
               for t, k in _TABLES}
        rounds = [dict(r) for r in con.execute("SELECT * FROM rounds")]
        meta = [dict(r) for r in con.execute("SELECT key, value FROM meta")]
    finally:
        con.close()
    return {"top": top, "rounds": rounds, "meta": meta, "files": _files(ws)}


def undo(ws, before: dict[str, Any]) -> dict[str, int]:
    """Take away from ``ws`` what was added or changed since :func:`mark` gave ``before``;
    returns how many rows of each table were deleted."""
    con = _connect(ws)
    deleted: dict[str, int] = {}
    try:
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("BEGIN IMMEDIATE")
        try:
            for table, key in _TABLES:
                cur = con.execute(f"DELETE FROM {table} WHERE {key} > ?",
                                  (int(before["top"][table]),))
                deleted[table] = int(cur.rowcount)
            for row in before["rounds"]:  # a plan replaced (re-planned, certified)
                cols = [c for c in row if c != "id"]
                con.execute(f"UPDATE rounds SET {', '.join(f'{c}=?' for c in cols)} WHERE id=?",
                            [row[c] for c in cols] + [row["id"]])
            con.execute("DELETE FROM meta")
            con.executemany("INSERT INTO meta (key, value) VALUES (?, ?)",
                            [(m["key"], m["value"]) for m in before["meta"]])
            named = {r[0] for r in con.execute("SELECT file FROM datasets UNION "
                                               "SELECT plan_file FROM rounds")}
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
    except sqlite3.Error as exc:
        raise DataError(f"the workspace database {ws.db_path} failed while taking back a "
                        f"step: {exc}") from None
    finally:
        con.close()
    old = set(before["files"])
    for name in _files(ws):
        if name not in old and name not in named:
            try:
                os.unlink(ws.root / "tables" / name)
            except OSError:
                pass
    return deleted
