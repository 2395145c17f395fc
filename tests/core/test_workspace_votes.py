"""Labels accumulate in the workspace: two annotators' files, re-import, a changed label, a tie,
Dawid-Skene, times, bad input (nothing stored)."""

from __future__ import annotations

import numpy as np
import pytest

from core.data import prepare
from core.demo import make_demo
from core.errors import DataError
from core.evaluation.labels.imports import labels_from_table
from core.workspace import Workspace
from core.workspace import rounds as R


@pytest.fixture(scope="module")
def demo():
    return prepare(make_demo(), name="demo")


def _setup(tmp_path, demo):
    ws = Workspace(tmp_path / "ws")
    rid = R.plan_round(ws, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    routed = np.flatnonzero(ws.round(rid)["selection"] == "routed")[:4]
    ids = [str(demo.frame["sample_id"].iat[r]) if "sample_id" in demo.frame else str(r + 1)
           for r in routed]
    return ws, rid, routed, ids


def _file(ids, labels, who, seconds=None):
    import pandas as pd

    df = pd.DataFrame({"sample_id": ids, "label": labels, "annotator": who})
    if seconds is not None:
        df["seconds"] = seconds
    return labels_from_table(df, label_col="label", annotator_col="annotator",
                             time_col=None if seconds is None else "seconds")


def test_two_files_accumulate_reimport_changes_and_ties(tmp_path, demo):
    ws, rid, routed, ids = _setup(tmp_path, demo)
    a = _file(ids, [0, 1, 1, 0], "a", [10, 20, 30, 40])
    first = R.import_joined(ws, rid, a)
    assert first["n_labels"] == 4
    b = _file(ids[:3], [0, 0, 1], "b")
    second = R.import_joined(ws, rid, b)
    # row 2: a 1, b 0 -> tie, its label withdrawn; rows 1, 3 agree: unchanged
    assert second["adjudication"] == [ids[1]] and second["n_labels"] == 1
    labels = ws.round_labels(rid)
    assert [labels.get(int(r)) for r in routed] == [0, None, 1, 0]
    again = R.import_joined(ws, rid, b)
    assert again["import_id"] is None and "nothing new was stored" in again["notices"][-1]
    assert ws.round_labels(rid) == labels
    # b changes their mind on row 2 -> agrees with a; said so
    fix = R.import_joined(ws, rid, _file(ids[1:2], [1], "b"))
    assert any("replace the same annotator's earlier label (annotator 'b'" in n
               for n in fix["notices"])
    assert ws.round_labels(rid)[int(routed[1])] == 1
    cur = ws.current_annotations(rid)
    assert len(cur) == 7 and cur["seconds"].notna().sum() == 4
    per = {p["annotator"]: p for p in fix["annotators"]["per_annotator"]}
    assert per["a"]["median_seconds"] == 25.0 and per["b"]["items"] == 3
    # the same as one file with both annotators' final labels
    ws2, rid2, _, _ = _setup(tmp_path / "two", demo)
    both = _file(ids + ids[:3], [0, 1, 1, 0, 0, 1, 1], ["a"] * 4 + ["b"] * 3)
    R.import_joined(ws2, rid2, both)
    assert ws2.round_labels(rid2) == ws.round_labels(rid)


def test_gold_and_dawid_skene_and_bad_input(tmp_path, demo):
    ws, rid, routed, ids = _setup(tmp_path, demo)
    R.import_joined(ws, rid, _file(ids[:2], [0, 1], "a"))
    R.import_joined(ws, rid, _file(ids[:2], [1, 1], "b"), aggregate="dawid-skene")
    res = R.import_joined(ws, rid, _file(ids[:1], [1], "judge"), gold_annotator="judge")
    assert ws.round_labels(rid)[int(routed[0])] == 1 and res["annotators"]["n_gold"] == 1
    before = (ws.round_labels(rid), len(ws.annotations(rid)), len(ws.imports(rid)))
    with pytest.raises(DataError, match="not among the dataset's classes"):
        R.import_joined(ws, rid, _file(ids[:1], [7], "c"))
    with pytest.raises(DataError, match="row 1 \\(-5\\)"):
        _file(ids[:1], [1], "c", [-5])
    outside = np.flatnonzero(ws.round(rid)["selection"] == "machine")[0]
    with pytest.raises(DataError, match="not in the round's queue"):
        R.import_joined(ws, rid, _file([str(demo.frame["sample_id"].iat[outside])
                                        if "sample_id" in demo.frame else str(outside + 1)],
                                       [1], "c"))
    assert (ws.round_labels(rid), len(ws.annotations(rid)), len(ws.imports(rid))) == before
