"""The large-table estimate (core.scale.estimate) against the in-memory one
(estimate_weighted_design) on the same round: every number to 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

from core.evaluation.sampling.plan import plan_design
from core.evaluation.sampling.design import load_design, queue_table
from core.evaluation.estimate.weighted_round import estimate_weighted_design
from core.scale.engine import LocalEngine
from core.scale.estimate import estimate_scaled
from tests.judge_table import judge_table


def _round(per_group, seed, labels, *, done=1.0, lam=0.0):
    df = judge_table(per_group, seed=seed).drop(columns=["predicted_effort_seconds"])
    gold = df["human_label"].to_numpy()
    design = load_design(df.drop(columns=["human_label"]))
    plan = plan_design(design, labels=labels, seed=seed, lam=lam)
    table = queue_table(design, plan.selection, plan.queue_rank, plan.inclusion)
    rank = table["queue_rank"].to_numpy(dtype=float, na_value=np.nan)
    n_done = int(np.floor(np.isfinite(rank).sum() * done))
    table["human_label"] = np.where(rank <= n_done, gold, None)  # labelled in queue order
    return table, gold


def _flat(x, p=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _flat(v, f"{p}/{k}")
    else:
        yield p, x


def _scaled(table, confidence=0.95):
    classes = sorted(set(table["machine_label"]) | set(table["human_label"].dropna()))
    idx = {c: i for i, c in enumerate(classes)}
    code = table["machine_label"].map(idx).to_numpy(np.int16)
    human = table["human_label"].map(idx).fillna(-1).to_numpy(np.int64)
    sel = table["selection"].to_numpy(object)
    pi = table["inclusion_probability"].to_numpy(float).copy()
    lab = (human >= 0) & np.isin(sel, ["routed", "audit"])
    audit = sel == "audit"
    notes = []
    if (audit & lab).sum() < audit.sum():  # as design_arrays scales a partly labelled audit
        frac = (audit & lab).sum() / audit.sum()
        pi = np.where(pi < 1, pi * max(frac, 1e-12), pi)
        notes.append("scaled")
    rows = np.flatnonzero(lab)
    engine = LocalEngine({"code": code, "q": table["confidence"].to_numpy(float), "pi": pi,
                          "lab": lab}, chunk=333)
    return estimate_scaled(engine, classes=classes, labelled_rows=rows, human_lab=human[rows],
                           selection_lab=sel[rows], counts_sel={}, kind="active",
                           confidence=confidence, notes=notes)


@pytest.mark.parametrize("per_group,seed,labels,done,lam", [
    (1000, 0, 300, 1.0, 0.0),     # many labels: the flexible controls compete
    (500, 5, 60, 1.0, 2.0),        # few labels (below FLEX_LABELS): PPI++'s control only
    (1000, 2, 300, 0.6, 0.0),      # part of the audit labelled: probabilities scaled
])
def test_same_estimate_as_in_memory(per_group, seed, labels, done, lam):
    table, _ = _round(per_group, seed, labels, done=done, lam=lam)
    memory = estimate_weighted_design(load_design(table))
    scaled = _scaled(table)
    a, b = dict(_flat(memory)), dict(_flat(scaled))
    assert set(a) == set(b)
    for key, va in a.items():
        if key == "/notes":
            assert len(b[key]) == len(va)
        elif isinstance(va, float):
            assert b[key] == pytest.approx(va, rel=1e-12, abs=1e-12), key
        else:
            assert b[key] == va, key


def test_intervals_cover_the_truth_of_a_known_table():
    """A 12,000-row round with 400 labels: each class share's interval holds its true share
    (the gold labels of every row), and the accuracy's the machine's accuracy on the rest."""
    table, gold = _round(3000, 11, 400)
    res = _scaled(table)
    for label, s in res["class_shares"].items():
        truth = float((gold == label).mean())
        assert s["ci_low"] <= truth <= s["ci_high"], (label, truth, s)
