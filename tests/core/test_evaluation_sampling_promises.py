"""What a plan promises before any label (``core.evaluation.sampling.promises``): plain random
labelling where the active design would give a looser interval than PPI++ (hand-built frontiers,
then by simulation on PAC Labels' misinfo file against ``ppi_py`` itself), the note that says
so, and the large-table path choosing the same design."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.evaluation.estimate import estimator_half_width, weighted_estimates
from core.evaluation.sampling import (ActiveDesign, draw, load_design, machine_probabilities,
                                      plan_design, prefer_random, random_labels_half,
                                      target_note)

MISINFO_ROLES = {"machine_label": "Yhat (GPT4o)", "machine_confidence": "confidence"}


def _frontier(rec_worth: float, rec_acc: float, rand_acc: float, rand_half: float = 0.05
              ) -> tuple[ActiveDesign, pd.DataFrame]:
    """A hand-built frontier of 100 rows and 20 labels: one active design (recommended),
    routing and plain random labelling; PPI++'s half-width is 0.04."""
    ppi = 0.04
    half = ppi / math.sqrt(rec_worth)
    rows = [
        {"design": "active", "mu": 1.0, "expected_labels": 20.0, "expected_effort": 20.0,
         "expected_accuracy": rec_acc, "expected_half_width": half, "random_equivalent": 50,
         "n_routed": 0, "accuracy_vs_routing": rec_acc - 0.9, "worth_vs_ppi": rec_worth,
         "meets_targets": False, "recommended": True},
        {"design": "routing", "mu": None, "expected_labels": 20.0, "expected_effort": 20.0,
         "expected_accuracy": 0.9, "expected_half_width": None, "random_equivalent": None,
         "n_routed": 20, "accuracy_vs_routing": 0.0, "worth_vs_ppi": None,
         "meets_targets": False, "recommended": False},
        {"design": "random", "mu": None, "expected_labels": 20.0, "expected_effort": 20.0,
         "expected_accuracy": rand_acc, "expected_half_width": rand_half,
         "random_equivalent": 40, "n_routed": 0, "accuracy_vs_routing": rand_acc - 0.9,
         "worth_vs_ppi": (ppi / rand_half) ** 2, "meets_targets": False, "recommended": False},
    ]
    table = pd.DataFrame(rows)
    rec = ActiveDesign(pi=np.linspace(0.1, 0.3, 100), mu=1.0, kind="active",
                       expected_labels=20.0, expected_effort=20.0, expected_accuracy=rec_acc,
                       expected_half_width=half, random_equivalent=50, n_routed=0,
                       recommended=True, frontier=table, accuracy_vs_routing=rec_acc - 0.9,
                       worth_vs_ppi=rec_worth)
    return rec, table


def test_random_stands_in_when_the_active_design_is_worth_less_than_ppi():
    rec, table = _frontier(rec_worth=0.64, rec_acc=0.885, rand_acc=0.882)
    got, frontier = prefer_random(rec, table)
    assert got.kind == "random"
    # pi = budget / rows on every row; the estimate on random labels is PPI++'s or tighter:
    # its half-width min(0.04, 0.05) = 0.04, worth exactly PPI++'s
    np.testing.assert_allclose(got.pi, np.full(100, 0.2))
    assert got.expected_half_width == pytest.approx(0.04)
    assert got.worth_vs_ppi == pytest.approx(1.0)
    assert got.expected_accuracy == pytest.approx(0.882)
    assert list(frontier["recommended"]) == [False, False, True]
    assert list(frontier["displaced"]) == [True, False, False]
    note = target_note(frontier)
    assert note.startswith("Plain random labelling is recommended instead of the active design")
    assert "worth only 0.64 times PPI++'s labels" in note
    assert "only 0.3 points less accurate" in note
    # random labelling is 1.8 points below routing: the targets are not met, said too
    assert not frontier["meets_targets"].any()
    assert "no design is expected both" in note
    # within a point of routing, random labelling meets both: nothing more to say
    met = prefer_random(*_frontier(rec_worth=0.64, rec_acc=0.895, rand_acc=0.892))[1]
    assert met["meets_targets"].tolist() == [False, False, True]
    assert "no design is expected both" not in target_note(met)
    # the table passed in is not changed
    assert "displaced" not in table and table["recommended"].tolist() == [True, False, False]


@pytest.mark.parametrize("worth,rand_acc", [
    (1.0, 0.895),  # the active design is worth PPI++'s labels: kept
    (0.64, 0.884),  # random labelling would cost 1.1 points of final accuracy: kept
])
def test_the_active_design_is_kept(worth, rand_acc):
    rec, table = _frontier(rec_worth=worth, rec_acc=0.895, rand_acc=rand_acc)
    got, frontier = prefer_random(rec, table)
    assert got is rec and frontier is table
    assert target_note(frontier) is None or "Plain random" not in target_note(frontier)


def test_random_labels_never_wider_than_ppi():
    # random labelling with an ideal half-width 0.05 worth 0.64 of PPI++'s: PPI++'s is 0.04
    rand = ActiveDesign(pi=np.full(100, 0.2), mu=float("nan"), kind="random",
                        expected_labels=20.0, expected_effort=20.0, expected_accuracy=0.88,
                        expected_half_width=0.05, random_equivalent=40, n_routed=0,
                        worth_vs_ppi=0.64)
    assert random_labels_half(rand, 0.06) == pytest.approx(0.04)
    assert random_labels_half(rand, 0.03) == pytest.approx(0.03)


def test_about_as_accurate_is_said_so():
    rec, table = _frontier(rec_worth=0.5, rec_acc=0.895, rand_acc=0.895)
    note = target_note(prefer_random(rec, table)[1])
    assert "leaves the final labels about as accurate;" in note


@pytest.fixture(scope="module")
def misinfo(shared_data):
    return pd.read_csv(shared_data / "pac-labels" / "misinfo.csv")


def test_few_labels_on_misinfo_plan_random_labelling_and_it_pays(misinfo):
    """At 40 labels on GPT-4o's misinfo file, the plan (as ``queue`` makes it) labels at random:
    over 150 draws its intervals are PPI++'s own (``ppi_py.ppi_mean_ci``, lam=None, on the same
    labels), while the active design's, on as many labels, are wider on average."""
    from ppi_py import ppi_mean_ci

    design = load_design(misinfo.drop(columns=["Y"]), MISINFO_ROLES)
    plan = plan_design(design, labels=40, seed=3, width_model=estimator_half_width)
    assert plan.design.kind == "random"
    assert np.ptp(plan.inclusion) == 0 and plan.inclusion[0] == pytest.approx(40 / len(misinfo))
    assert set(plan.selection) == {"audit", "machine"}
    active = plan_design(design, labels=40, seed=3)  # the ideal estimator's choice, as before
    assert active.design.kind == "active" and np.ptp(active.inclusion) > 0
    classes = sorted(set(misinfo["Y"]) | set(misinfo["Yhat (GPT4o)"]))
    mach = misinfo["Yhat (GPT4o)"].map(classes.index).to_numpy()
    gold = misinfo["Y"].map(classes.index).to_numpy()
    q = misinfo["confidence"].to_numpy(float)
    f = machine_probabilities(mach, q, 2)
    ours, theirs = [], []
    for r in range(150):
        halves = []
        for pi in (plan.inclusion, active.inclusion):
            xi = draw(pi, seed=500 + r)
            res = weighted_estimates(mach, np.where(xi, gold, -1), xi, pi, q, n_classes=2)
            halves.append(res["class_shares"][0]["half_width"])
            if pi is plan.inclusion:
                assert res["method"] == "ppi++"
                lo, hi = ppi_mean_ci((gold[xi] == 0).astype(float), f[xi, 0], f[~xi, 0],
                                     alpha=0.05)
                assert halves[0] == pytest.approx((hi[0] - lo[0]) / 2, rel=1e-9)
        ours.append(halves[0])
        theirs.append(halves[1])
    # the active design's intervals are wider: worth less than random labelling's
    assert np.mean(theirs) > 1.05 * np.mean(ours)


def test_the_large_table_path_chooses_the_same(misinfo):
    from core.scale.design import plan_scaled
    from core.scale.engine import LocalEngine
    from core.scale.kernels import design_pi

    design = load_design(misinfo.drop(columns=["Y"]), MISINFO_ROLES)
    classes = list(design.data.labels)
    cols = {"q": misinfo["confidence"].to_numpy(float),
            "code": misinfo["Yhat (GPT4o)"].map(classes.index).to_numpy().astype(np.int16)}
    for labels, kind in ((40, "random"), (292, "active")):
        memory = plan_design(design, labels=labels, seed=2, width_model=estimator_half_width)
        scaled = plan_scaled(LocalEngine(dict(cols), chunk=500), n_classes=2, labels=labels,
                             seed=2, width_model=estimator_half_width)
        assert memory.design.kind == scaled.design.kind == kind
        pi = np.concatenate([design_pi({k: v[s:s + 500] for k, v in cols.items()}, scaled.spec)
                             for s in range(0, len(misinfo), 500)])
        np.testing.assert_allclose(pi, memory.inclusion, rtol=1e-12)
        a, b = memory.design, scaled.design
        assert b.expected_half_width == pytest.approx(a.expected_half_width, rel=1e-9)
        assert b.worth_vs_ppi == pytest.approx(a.worth_vs_ppi, rel=1e-9)
        assert list(memory.design.frontier["recommended"]) == \
            list(scaled.frontier["recommended"])
