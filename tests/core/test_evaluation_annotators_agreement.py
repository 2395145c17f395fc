"""Agreement between annotators and the majority vote (``core.evaluation.annotators.agreement``):
Fleiss' kappa against statsmodels, Cohen's kappa against scikit-learn, both by hand with a
varying number of raters, the undefined case, and the majority vote's ties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.evaluation.annotators.agreement import (Agreement, agreement, fleiss_kappa,
                                                  majority_vote, pair_kappa)


def test_fleiss_with_varying_raters_per_item():
    # s1: A,B agree (P = 1); s2: A,C disagree (P = 0); s3: A,B,C = x,x,y (P = (4+1-3)/6 = 1/3)
    # P = (1 + 0 + 1/3) / 3 = 4/9; counts x: 2+1+2 = 5, y: 0+1+1 = 2 of 7
    # Pe = (5/7)^2 + (2/7)^2 = 29/49; kappa = (4/9 - 29/49) / (20/49) = (196 - 261) / 180
    got = agreement([{"A": "x", "B": "x"}, {"A": "x", "C": "y"}, {"A": "x", "B": "x", "C": "y"},
                     {"A": "y"}])
    assert got.method == "fleiss" and got.n_items == 3 and got.n_annotators == 3
    assert got.percent_agreement == pytest.approx(4 / 9)
    assert got.kappa == pytest.approx((196 - 261) / 180)


def test_kappa_undefined_when_every_label_is_one_class():
    got = agreement([{"A": 1, "B": 1}, {"A": 1, "B": 1}])
    assert got.method == "cohen" and got.percent_agreement == 1.0 and math.isnan(got.kappa)
    assert "undefined" in got.describe()
    assert agreement([{"A": 1}, {"B": 0}]) is None


def test_majority_vote_and_a_tie():
    assert majority_vote(["b", "a", "b"]) == ("b", False)
    assert majority_vote([1]) == (1, False)
    assert majority_vote(["a", "b"]) == (None, True)
    assert majority_vote(["a", "b", "b", "a", "c"]) == (None, True)


def test_fleiss_equals_statsmodels_with_constant_raters():
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

    rng = np.random.default_rng(2)
    for _ in range(20):
        ratings = rng.integers(0, 3, size=(25, 4))
        table, _ = aggregate_raters(ratings)
        items = [dict(enumerate(r)) for r in ratings]
        assert fleiss_kappa(items)[1] == pytest.approx(statsmodels_fleiss(table, method="fleiss"),
                                                  abs=1e-12)


def test_pair_kappa_equals_scikit_learn_on_any_labels():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(4)
    words = np.array(["safe", "unsafe", "unsure"])
    for _ in range(20):
        a = words[rng.integers(0, 3, 40)]
        b = np.where(rng.random(40) < 0.6, a, words[rng.integers(0, 3, 40)])
        assert pair_kappa(list(a), list(b)) == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    # a label only one side uses is coded alike on both sides
    assert pair_kappa(["x", "y"], ["y", "x"]) == pytest.approx(cohen_kappa_score(["x", "y"], ["y", "x"]))


def test_pair_kappa_edges():
    assert math.isnan(pair_kappa([], []))
    assert math.isnan(pair_kappa(["a", "a"], ["a", "a"]))
    with pytest.raises(ValueError, match="3 and 2 labels"):
        pair_kappa([1, 2, 3], [1, 2])


def test_two_annotators_read_as_cohen_by_hand():
    # A: x x y y, B: x y y y -> po 3/4; pA = (1/2, 1/2), pB = (1/4, 3/4): pe = 1/8 + 3/8 = 1/2
    # kappa = (3/4 - 1/2) / (1/2) = 1/2
    items = [{"A": "x", "B": "x"}, {"A": "x", "B": "y"}, {"A": "y", "B": "y"},
             {"A": "y", "B": "y"}, {"B": "x"}]
    got = agreement(items)
    assert got == Agreement("cohen", 4, 2, 0.75, pytest.approx(0.5))
    assert got.method_name == "Cohen's kappa"
    assert got.describe() == ("2 annotators agree on 75.0% of 4 samples labelled more than "
                              "once; Cohen's kappa = 0.500")


def test_two_pairs_of_annotators_read_as_fleiss():
    # the same two raters on every item is Cohen; pairs that vary are Fleiss
    got = agreement([{"A": 1, "B": 1}, {"B": 0, "C": 0}])
    assert got.method == "fleiss" and got.method_name == "Fleiss' kappa"
    # P = 1; counts 1: 2, 0: 2 -> Pe = 1/2 -> kappa 1
    assert got.percent_agreement == 1.0 and got.kappa == pytest.approx(1.0)


def test_fleiss_kappa_without_an_item_of_two_labels():
    p, k = fleiss_kappa([{"A": 1}, {}])
    assert math.isnan(p) and math.isnan(k)
