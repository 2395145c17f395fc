"""Taking back what one step added to a workspace (``core.workspace.undo``): after
:func:`mark`, a dataset, a round, labels, an event, a re-plan and a meta row are added; after
:func:`undo` the database rows (read with sqlite3, not through the store) and the table files
are as at the mark, and rows that were there before are kept."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.workspace import Workspace
from core.workspace.undo import mark, undo

TABLES = ("labels", "annotations", "results", "events", "label_imports", "rounds", "datasets")


def rows(ws) -> dict:
    con = sqlite3.connect(ws.db_path)
    try:
        out = {t: con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES}
        out["meta"] = sorted(con.execute("SELECT key, value FROM meta").fetchall())
    finally:
        con.close()
    return out


def files(ws) -> list[str]:
    return sorted(p.name for p in (ws.root / "tables").iterdir())


def table(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"machine_label": rng.integers(0, 2, n),
                         "machine_confidence": rng.uniform(0.5, 1, n)})


def plan(ws, did, n=6):
    sel = np.array(["routed", "routed", "machine", "machine", "machine", "machine"][:n], dtype=object)
    rank = np.array([1.0, 2.0] + [np.nan] * (n - 2))
    return ws.create_round(did, kind="routing", settings={"labels": 2}, selection=sel,
                           queue_rank=rank)


@pytest.fixture
def ws(tmp_path):
    ws = Workspace(tmp_path / "ws")
    did = ws.add_dataset(table(), name="first")
    plan(ws, did)
    return ws


def test_mark_is_plain_json_of_what_is_there(ws):
    m = mark(ws)
    assert json.loads(json.dumps(m)) == m
    assert m["top"]["datasets"] == 1 and m["top"]["rounds"] == 1 and m["top"]["labels"] == 0
    assert len(m["rounds"]) == 1 and m["files"] == files(ws)


def test_undo_takes_back_every_row_and_file_the_step_added(ws):
    before_rows, before_files = rows(ws), files(ws)
    m = mark(ws)
    # the step: a second dataset and round, labels on round 1, a re-plan of round 1, meta
    did2 = ws.add_dataset(table(seed=1), name="second")
    plan(ws, did2)
    ws.add_labels(1, np.array([0, 1]), [1, 0], source="table")
    ws.update_plan(1, np.array(["routed"] * 3 + ["machine"] * 3, dtype=object),
                   np.array([1.0, 2.0, 3.0] + [np.nan] * 3), action="replan")
    ws.remember_active(did2)
    assert rows(ws) != before_rows and files(ws) != before_files
    deleted = undo(ws, m)
    assert rows(ws) == before_rows
    assert files(ws) == before_files
    assert deleted["datasets"] == 1 and deleted["rounds"] == 1 and deleted["labels"] == 2
    assert deleted["events"] >= 1


def test_undo_of_nothing_deletes_nothing(ws):
    before = rows(ws)
    assert set(undo(ws, mark(ws)).values()) == {0}
    assert rows(ws) == before


def test_a_missing_database_is_a_data_error_naming_it(tmp_path):
    ws = Workspace(tmp_path / "ws")
    m = mark(ws)
    ws.db_path.unlink()
    ws.db_path.mkdir()  # a folder where the database file was: sqlite cannot open it
    with pytest.raises(DataError, match="workspace database"):
        undo(ws, m)
