"""core.workspace.stream_replan: a weighted stream re-planned in the workspace on its labelled
prefix keeps that prefix, draws the rest again with the recalibrated confidences, and its sequences still cover
the truth."""

from __future__ import annotations

import numpy as np
import pytest

from core.data import prepare
from core.errors import DataError
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.stream_replan import replan_stream_round
from core.workspace.stream_rounds import anytime_round, plan_stream_round, stream_of
from tests.judge_table import judge_table


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


def label_prefix(ws, rid, data, n):
    plan = stream_of(ws, rid)
    rows = plan.order[:n]
    gold = data.frame["human_label"].to_numpy(object)
    R.import_labels(ws, rid, rows, list(gold[rows]), source="test")


def test_replan_keeps_the_prefix_and_its_sequences_stay_valid(ws):
    table = judge_table(per_group=400)
    data = prepare(table, name="judge")
    rid = plan_stream_round(ws, data, {"labels": 600, "seed": 3, "stream_design": "weighted"})
    before = stream_of(ws, rid)
    label_prefix(ws, rid, data, 150)
    info = replan_stream_round(ws, rid)
    after = stream_of(ws, rid)
    assert info["labelled"] == 150 and info["redrawn"] == 450 and info["replans"] == 1
    assert after.order[:150].tolist() == before.order[:150].tolist()
    assert [t for t, _ in after.segments] == [0, 150]
    rnd = ws.round(rid)
    queued = np.flatnonzero(np.isfinite(rnd["queue_rank"]))
    assert set(queued.tolist()) == set(after.order.tolist())
    assert rnd["queue_rank"][after.order[200]] == 201
    # more labels in the new order, then the sequences: valid after the re-plan
    label_prefix(ws, rid, data, 400)
    res = anytime_round(ws, rid)
    gold = table["human_label"].to_numpy()
    for c in ("no", "yes"):
        iv = res["class_shares"][c]
        assert iv["ci_low"] <= np.mean(gold == c) <= iv["ci_high"]
    assert res["labels"] == 400


def test_replan_refusals(ws):
    data = prepare(judge_table(per_group=100), name="judge")
    rid = plan_stream_round(ws, data, {"labels": 100, "seed": 1, "stream_design": "weighted"})
    label_prefix(ws, rid, data, 10)
    with pytest.raises(DataError, match="at least 30"):
        replan_stream_round(ws, rid)
    uni = plan_stream_round(ws, data, {"labels": 100, "seed": 1, "stream_design": "uniform"})
    with pytest.raises(DataError, match="uniform stream"):
        replan_stream_round(ws, uni)
    other = R.plan_round(ws, data, kind="budget", settings={"design": "random", "labels": 50,
                                                           "seed": 1})
    with pytest.raises(DataError, match="not a labelling stream"):
        replan_stream_round(ws, other)
    label_prefix(ws, rid, data, 100)
    with pytest.raises(DataError, match="nothing left"):
        replan_stream_round(ws, rid)
