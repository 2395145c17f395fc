"""core.workspace.adopt: a round's table of no round stored as a round of the workspace, its
plan read from the table's own columns (checked against the tables built here by hand)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.sampling import load_design
from core.workspace import Workspace
from core.workspace.adopt import adopt_design, adopted_plan, stream_draw
from core.workspace.rounds import round_design


def _frame(n: int = 8) -> pd.DataFrame:
    return pd.DataFrame({"sample_id": [f"s{i}" for i in range(n)],
                         "machine_label": ["a", "b"] * (n // 2),
                         "machine_confidence": np.linspace(0.6, 0.95, n),
                         "topic": ["x", "y", "x", "y"] * (n // 4)})


def test_a_routing_table_becomes_a_round_with_its_plan_and_without_its_plan_columns(tmp_path):
    df = _frame()
    df["selection"] = ["routed", "routed", "audit", "machine", "machine", "machine", "machine",
                       "machine"]
    df["queue_rank"] = [2, 1, 3, None, None, None, None, None]
    df["double"] = [True, False, False, False, False, False, False, False]
    ws = Workspace(tmp_path / "ws")
    rid = adopt_design(ws, load_design(df, name="t.csv"), "t.csv")
    rnd, design = round_design(ws, rid)
    assert rnd["kind"] == "budget" and rnd["settings"]["adopted_from"] == "t.csv"
    assert design.selection.tolist() == df["selection"].tolist()
    assert rnd["queue_rank"][:3].tolist() == [2.0, 1.0, 3.0]
    assert np.isnan(rnd["queue_rank"][3:]).all()
    stored = ws.dataset(rnd["dataset_id"])["raw"]
    assert list(stored.columns) == ["sample_id", "machine_label", "machine_confidence", "topic"]
    assert ws.latest_result(rid, "double") == {"k": 1, "rows": [0]}
    assert ws.round_labels(rid) == {}  # labels are taken in by the command, not here


def test_undecided_rows_make_a_guarantee_round_and_certify_keeps_the_calibration_only():
    df = _frame()
    df["selection"] = ["calibration"] * 3 + ["routed"] + [""] * 4
    design = load_design(df)
    plan = adopted_plan(design, "t.csv")
    assert plan.kind == "guarantee"
    cert = adopted_plan(design, "t.csv", purpose="certify")
    assert cert.kind == "guarantee"
    assert cert.selection.tolist() == ["calibration"] * 3 + [""] * 5
    # without a selection column: every labelled row is the calibration sample
    bare = _frame()
    bare["human_label"] = ["a", None, "b", None, None, None, None, None]
    cert = adopted_plan(load_design(bare), "t.csv", purpose="certify")
    assert cert.selection.tolist() == ["calibration", "", "calibration"] + [""] * 5
    assert adopted_plan(load_design(df), "t.csv", purpose="plan").kind == "budget"


def test_inclusion_probabilities_are_kept_with_the_plan(tmp_path):
    df = _frame()
    df["selection"] = ["routed", "audit", "machine", "audit", "machine", "machine", "machine",
                       "machine"]
    df["inclusion_probability"] = [1.0, 0.5, 0.25, 0.5, 0.25, 0.25, 0.25, 0.25]
    ws = Workspace(tmp_path / "ws")
    rid = adopt_design(ws, load_design(df), "t.csv")
    rnd, design = round_design(ws, rid)
    assert design.inclusion.tolist() == df["inclusion_probability"].tolist()
    assert "inclusion_probability" not in ws.dataset(rnd["dataset_id"])["raw"].columns


def test_a_streams_table_stores_its_draw(tmp_path):
    df = _frame()
    df["queue_rank"] = [None, 2, None, 1, 3, None, None, None]
    df["draw_probability"] = [None, 0.2, None, 0.125, 0.5, None, None, None]
    ws = Workspace(tmp_path / "ws")
    rid = adopt_design(ws, load_design(df), "s.csv")
    rnd, design = round_design(ws, rid)
    assert rnd["settings"]["design"] == "stream" and rnd["settings"]["labels"] == 3
    assert design.selection[[3, 1, 4]].tolist() == ["audit"] * 3
    assert (design.selection[[0, 2, 5, 6, 7]] == "machine").all()
    rec = ws.latest_result(rid, "stream")
    assert rec["order"] == [3, 1, 4] and rec["draw_probability"] == [0.125, 0.2, 0.5]
    assert rec["weights"] == [1.0] * 8  # no draw_weight column: uniform


@pytest.mark.parametrize("change,match", [
    ({"queue_rank": [None, 2, None, 4, 1, None, None, None]}, "without gaps or repeats"),
    ({"draw_probability": [None, 0.2, None, 0.0, 0.5, None, None, None]}, "row 5 has 0.0"),
    ({"draw_weight": [1, 1, 1, -1, 1, 1, 1, 1]}, "'draw_weight' must be a number >= 0"),
])
def test_a_streams_columns_are_checked_naming_them(change, match):
    df = _frame()
    df["queue_rank"] = [None, 2, None, 1, 3, None, None, None]
    df["draw_probability"] = [None, 0.2, None, 0.125, 0.5, None, None, None]
    for col, values in change.items():
        df[col] = values
    with pytest.raises(DataError, match=match):
        stream_draw(load_design(df), "s.csv")


def test_a_table_that_is_no_streams_is_refused_only_when_one_is_required():
    design = load_design(_frame())
    assert stream_draw(design, "t.csv") is None
    with pytest.raises(DataError, match="needs the column 'queue_rank'"):
        stream_draw(design, "t.csv", required=True)
