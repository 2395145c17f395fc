"""The sampling design and the queue (``core.evaluation.sampling.design``, ``labelstudio``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.data import load_table
from core.errors import DataError
from core.evaluation import labelstudio
from core.evaluation.sampling.design import load_design, plan_queue, queue_table
from core.assignment import SAEInputs, gains, n_from_share, solve_fast


@pytest.fixture(scope="module")
def release(hmceval_tsv):
    return load_design(load_table(hmceval_tsv))


def test_calibration_alone_is_a_seeded_simple_random_sample(release):
    p1 = plan_queue(release, calibration=1000, seed=4)
    p2 = plan_queue(release, calibration=1000, seed=4)
    p3 = plan_queue(release, calibration=1000, seed=5)
    assert (p1.selection == p2.selection).all() and (p1.queue_rank[np.isfinite(p1.queue_rank)]
                                                      == p2.queue_rank[np.isfinite(p2.queue_rank)]).all()
    assert not (p1.selection == p3.selection).all()
    assert p1.counts == {"calibration": 1000, "routed": 0, "audit": 0, "machine": 0, "": 4673}
    ranks = p1.queue_rank[p1.selection == "calibration"]
    assert sorted(ranks.tolist()) == list(range(1, 1001))
    assert np.isnan(p1.queue_rank[p1.selection == ""]).all()


def test_routing_equals_assign_and_the_audit_comes_from_kept_rows(release):
    plan = plan_queue(release, lam=4.6, share=0.5, audit=200, seed=1)
    inp = release.inputs()
    human = solve_fast(inp, lam=4.6, n_human=n_from_share(0.5, release.M)).human
    assert ((plan.selection == "routed") == human).all()
    assert plan.counts["audit"] == 200 and plan.counts["machine"] == release.M - 2836 - 200
    assert not human[plan.selection == "audit"].any()
    # queue order: audit first (random), then routed rows by descending gain
    order = np.argsort(plan.queue_rank)[:plan.n_to_label]
    assert set(plan.selection[order[:200]]) == {"audit"}
    g = gains(inp.a, inp.l, lam=4.6, b=inp.b, k=inp.k)
    routed_gains = g[order[200:]]
    assert (np.diff(routed_gains) <= 0).all()


def test_calibration_then_budget_routes_the_rest(release):
    plan = plan_queue(release, calibration=500, lam=0.0, n_human=1000, audit=50, seed=2)
    assert plan.counts["calibration"] == 500 and plan.counts["routed"] == 1000
    assert plan.counts["audit"] == 50 and plan.counts["machine"] == release.M - 1550
    ranks = plan.queue_rank
    assert ranks[plan.selection == "calibration"].max() < ranks[plan.selection == "audit"].min()
    assert ranks[plan.selection == "audit"].max() < ranks[plan.selection == "routed"].min()


def test_a_second_round_keeps_labelled_calibration_rows(release):
    first = plan_queue(release, calibration=300, seed=1)
    table = queue_table(release, first.selection, first.queue_rank)
    d = load_design(table)
    assert d.has_selection and "selection" not in d.data.subgroup_columns
    plan = plan_queue(d, lam=0.0, share=0.5, audit=10, seed=1)
    assert (plan.selection[first.selection == "calibration"] == "calibration").all()
    # the release has gold on every row: labelled calibration rows are not queued again
    assert np.isnan(plan.queue_rank[plan.selection == "calibration"]).all()
    assert plan.n_to_label == plan.counts["routed"] + 10


@pytest.mark.parametrize("kwargs,match", [
    ({"audit": 5, "calibration": 10}, "give a budget"),
    ({}, "nothing to plan"),
    ({"lam": 0.0, "share": 0.5, "audit": 10**6}, "exceeds the"),
    ({"calibration": 10**6}, "exceeds the"),
    ({"lam": 0.0, "n_human": 10**6}, "human count must be between"),
    ({"calibration": -1}, "whole number >= 0"),
])
def test_plan_errors(release, kwargs, match):
    with pytest.raises(DataError, match=match):
        plan_queue(release, **kwargs)


def test_routed_table_cannot_be_planned_again(release):
    plan = plan_queue(release, lam=0.0, share=0.5, seed=1)
    d = load_design(queue_table(release, plan.selection))
    with pytest.raises(DataError, match="already routes"):
        plan_queue(d, lam=0.0, share=0.5)
    first = plan_queue(release, calibration=10)
    d = load_design(queue_table(release, first.selection))
    with pytest.raises(DataError, match="already has 10 calibration rows"):
        plan_queue(d, calibration=10)


def test_queue_table_keeps_every_column_and_text():
    df = pd.DataFrame({"id": [f"s{i}" for i in range(6)],
                       "response": ["a long enough response text number %d" % i for i in range(6)],
                       "prediction": [0, 1, 0, 1, 0, 1], "confidence": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
                       "extra": list("abcdef")})
    d = load_design(df)
    plan = plan_queue(d, lam=0.0, n_human=2, audit=1, seed=0)
    out = queue_table(d, plan.selection, plan.queue_rank)
    assert list(out.columns) == list(df.columns) + ["selection", "queue_rank"]
    assert out["queue_rank"].notna().sum() == 3
    tasks = labelstudio.tasks(d, plan.queue_rank)
    assert [t["data"]["queue_rank"] for t in tasks] == [1, 2, 3]
    assert all(set(t["data"]) == {"sample_id", "queue_rank", "response"} for t in tasks)
    assert {t["data"]["sample_id"] for t in tasks} <= set(df["id"])
    config = labelstudio.labelling_config(d.data.labels, d.data.text_columns)
    assert '<Choice value="0"/>' in config and 'value="$response"' in config
    json.loads(labelstudio.task_json(tasks))


def test_selection_column_can_be_mapped():
    df = pd.DataFrame({"machine_label": [0, 1, 0, 1], "machine_confidence": [0.9, 0.8, 0.7, 0.6],
                       "plan": ["routed", "machine", "", None]})
    d = load_design(df, {"selection": "plan"})
    assert d.selection.tolist() == ["routed", "machine", "", ""]
    with pytest.raises(DataError, match="'nope' \\(mapped to selection\\)"):
        load_design(df, {"selection": "nope"})


def test_annotator_table_is_the_queue_without_answers():
    """Only the rows to label, by queue rank: the sample id, queue_rank and the text (an
    allow-list, issue 32: an unmapped column such as ``topic`` is shown only when asked)."""
    from core.evaluation.sampling.design import annotator_table

    df = pd.DataFrame({"uid": [11, 12, 13, 14, 15],
                       "response": ["a", "b", "c", "d", "e"],
                       "target": [0, 1, 1, 0, 1],
                       "machine_label": [0, 1, 0, 0, 0],
                       "confidence_ts": [0.9, 0.8, 0.7, 0.6, 0.95],
                       "confidence_mcp": [0.5, 0.5, 0.5, 0.5, 0.5],
                       "topic": ["x", "y", "x", "y", "x"]})
    d = load_design(df, {"sample_id": "uid", "human_label": "target",
                         "machine_confidence": "confidence_ts", "text": ["response"]})
    sel = np.array(["audit", "machine", "routed", "machine", "routed"], dtype=object)
    rank = np.array([3.0, np.nan, 1.0, np.nan, 2.0])
    out = annotator_table(d, sel, rank)
    # blind audit (issue 23): no selection column, so annotators cannot tell audit rows
    assert list(out.columns) == ["uid", "queue_rank", "response"]
    assert list(annotator_table(d, sel, rank, show=["topic"]).columns) == [
        "uid", "queue_rank", "response", "topic"]
    assert out["uid"].tolist() == [13, 15, 11]
    assert out["queue_rank"].tolist() == [1, 2, 3]
    assert out["response"].tolist() == ["c", "e", "a"]
    # without a sample id column the row number is the id, as in the round's table
    d2 = load_design(df.drop(columns=["uid"]), {"human_label": "target"})
    out2 = annotator_table(d2, sel, rank)
    assert out2["sample_id"].tolist() == [3, 5, 1] and "target" not in out2
    # rows already labelled (a certified round's calibration rows) are left out, ranks kept
    done = np.array([False, False, True, False, False])
    out3 = annotator_table(d, sel, rank, done=done)
    assert out3["uid"].tolist() == [15, 11] and out3["queue_rank"].tolist() == [2, 3]


def test_queue_order_by_rank_without_the_unqueued_and_the_done():
    from core.evaluation.sampling import queue_order

    rank = np.array([3.0, np.nan, 0.0, 2.0, 1.0, 2.0])
    assert queue_order(rank).tolist() == [2, 4, 3, 5, 0]  # equal ranks keep row order
    done = np.array([False, False, False, True, False, False])
    assert queue_order(rank, done).tolist() == [2, 4, 5, 0]
