"""A labelling stream stored in the workspace (``core.workspace.stream_rounds``): the round's
selection and queue rank follow the stored draw, the draw reads back as planned, the labelled
prefix after each import is counted in queue order, the expected labels by hand (the tuned
sequence's constant 9.24996 at alpha 0.05), and bad settings refused naming them. Coverage of
the sequences themselves: ``test_evaluation_estimate_anytime.py``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.data import prepare
from core.errors import DataError
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.stream_rounds import (anytime_round, expected_labels, import_points,
                                          is_stream, plan_stream_round, stream_of, stream_plan)
from tests.judge_table import judge_table


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


@pytest.fixture(scope="module")
def data():
    return prepare(judge_table(per_group=60), name="judge")


def test_is_stream():
    assert is_stream({"design": "stream"}) and not is_stream({"design": "active"})
    assert not is_stream({})


def test_bad_settings_are_named(data):
    with pytest.raises(DataError, match="stream design must be one of .* got 'zigzag'"):
        stream_plan(data, {"labels": 10, "stream_design": "zigzag"})
    for bad in ({}, {"labels": "many"}, {"labels": None}):
        with pytest.raises(DataError, match="a stream needs its length: --labels MAX"):
            stream_plan(data, bad)


def test_the_stored_round_follows_its_draw(ws, data):
    rid = plan_stream_round(ws, data, {"labels": 25, "seed": 3, "stream_design": "uniform"})
    plan = stream_of(ws, rid)
    assert len(plan.order) == 25 and len(set(plan.order.tolist())) == 25
    assert plan.design == "uniform"
    # uniform: every row drawn with the same probability at each step, 1 / rows left
    np.testing.assert_allclose(plan.draw_probability, 1 / (data.M - np.arange(25)))
    rnd = ws.round(rid)
    assert rnd["settings"]["design"] == "stream"
    sel, rank = np.asarray(rnd["selection"], dtype=object), np.asarray(rnd["queue_rank"], float)
    assert set(np.flatnonzero(sel == "audit")) == set(plan.order.tolist())
    assert rank[plan.order].tolist() == list(range(1, 26))
    # the same settings draw the same queue
    assert stream_of(ws, plan_stream_round(ws, data, {"labels": 25, "seed": 3,
                                                      "stream_design": "uniform"})).order.tolist() \
        == plan.order.tolist()


def test_a_round_that_is_not_a_stream_is_named(ws, data):
    from core.workspace.rounds import dataset_id_for

    did = dataset_id_for(ws, data, source="test")
    rid = ws.create_round(did, kind="budget", settings={"design": "routing"},
                          selection=np.full(data.M, "machine", dtype=object),
                          queue_rank=np.full(data.M, np.nan))
    with pytest.raises(DataError, match=rf"^round #{rid} is not a labelling stream"):
        stream_of(ws, rid)


def test_import_points_count_the_labelled_prefix_in_queue_order(ws, data):
    rid = plan_stream_round(ws, data, {"labels": 30, "seed": 1})
    order = stream_of(ws, rid).order
    gold = data.frame["human_label"].to_numpy(object)
    R.import_labels(ws, rid, order[:8], list(gold[order[:8]]), source="test")
    # a later import labels rows 10..14 of the queue: the prefix is still 8 (row 9 is missing)
    R.import_labels(ws, rid, order[9:15], list(gold[order[9:15]]), source="test")
    R.import_labels(ws, rid, order[8:9], list(gold[order[8:9]]), source="test")
    assert import_points(ws, rid, order) == [8, 8, 15]
    res = anytime_round(ws, rid, save=False)
    assert res["labels"] == 15 and res["round_id"] == rid
    assert ws.latest_result(rid, "estimate") is None  # save=False stores nothing


def test_expected_labels_by_hand():
    # every confidence 0.5: per-label sd 0.5; c^2 = 9.24996 at alpha 0.05 -> ceil(9.24996 * 0.25 / 0.05^2)
    df = pd.DataFrame({"machine_label": [0, 1] * 10, "machine_confidence": [0.5] * 20})
    assert expected_labels(prepare(df), 0.05) == math.ceil(9.24996 * 0.25 / 0.0025)
    # confidences 0.9 and 1.0: mean q(1 - q) = 0.045
    df2 = pd.DataFrame({"machine_label": [0, 1] * 10, "machine_confidence": [0.9, 1.0] * 10})
    assert expected_labels(prepare(df2), 0.05) == math.ceil(9.24996 * 0.045 / 0.0025)
