"""The large-table design (core.scale.design) against the in-memory plan (plan_design): the
same inclusion probabilities, the same rows drawn in the same queue order, the same frontier,
with chunks much smaller than the table (so every sum is cut many times)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.evaluation.sampling.active import inclusion_probabilities
from core.evaluation.sampling.plan import plan_design
from core.evaluation.sampling.design import load_design
from core.scale.design import bisection_hi, plan_scaled
from core.scale.engine import LocalEngine
from core.scale.kernels import design_pi
from tests.judge_table import judge_table

CHUNK = 700


def _both(per_group, seed, *, kind="active", labels=None, effort_budget=None, effort=False,
          lam=0.0, ties=False):
    df = judge_table(per_group, seed=seed)
    if ties:  # confidences on a grid: the routing reference's top N cuts through ties
        df["confidence"] = df["confidence"].round(2)
    if not effort:
        df = df.drop(columns=["predicted_effort_seconds"])
    memory = plan_design(load_design(df.drop(columns=["human_label"])), kind=kind,
                         labels=labels, effort_budget=effort_budget, seed=seed, lam=lam)
    cols = {"q": df["confidence"].to_numpy(float),
            "code": (df["machine_label"] == "yes").to_numpy().astype(np.int16)}
    if effort:
        cols["effort"] = df["predicted_effort_seconds"].to_numpy(float)
    scaled = plan_scaled(LocalEngine(dict(cols), chunk=CHUNK), n_classes=2, labels=labels,
                         effort_budget=effort_budget, kind=kind, seed=seed, lam=lam)
    pi = np.concatenate([design_pi({k: v[s:s + CHUNK] for k, v in cols.items()}, scaled.spec)
                         for s in range(0, len(df), CHUNK)])
    return memory, scaled, pi


def _rank(scaled, m):
    rank = np.full(m, np.nan)
    queue = np.concatenate([scaled.audit, scaled.routed])
    rank[queue] = np.arange(1, len(queue) + 1)
    return rank


@pytest.mark.parametrize("case", [
    dict(per_group=500, seed=0, labels=200),
    dict(per_group=1500, seed=3, labels=400, lam=0.5),
    dict(per_group=1000, seed=1, labels=250, kind="random"),
    dict(per_group=1000, seed=2, effort_budget=15000.0, effort=True),
    dict(per_group=700, seed=4, labels=333, ties=True),
])
def test_same_design_draw_and_queue_as_in_memory(case):
    memory, scaled, pi = _both(**case)
    m = len(memory.inclusion)
    np.testing.assert_allclose(pi, memory.inclusion, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(_rank(scaled, m), memory.queue_rank)
    assert {k: v for k, v in scaled.counts.items()} == memory.counts
    a, b = memory.design.frontier, scaled.frontier
    assert list(a["design"]) == list(b["design"])
    assert list(a["recommended"]) == list(b["recommended"])
    for col in ("expected_labels", "expected_accuracy", "expected_half_width"):
        np.testing.assert_allclose(b[col], a[col], rtol=1e-11)
    # a few dozen passes, whatever the table's size: the solves share them
    assert scaled.passes < 120


def test_bisection_replay_is_the_in_memory_bisection():
    """inclusion_probabilities's bisection, replayed on the exact root of a sum whose root is
    known by hand: pi = 1 / sqrt(nu) on 100 rows of cost 1, budget 10 -> nu* = 100."""
    hi = bisection_hi(lambda nu: nu < 100.0 if abs(math.log(nu / 100.0)) > 1e-12 else None,
                      exact=lambda nu: 100 / math.sqrt(nu) > 10)
    pi = inclusion_probabilities(np.ones(100), np.ones(100), 10.0)
    assert pi[0] == pytest.approx(1 / math.sqrt(hi), rel=1e-15)
    assert hi == pytest.approx(100.0, rel=1e-9)
