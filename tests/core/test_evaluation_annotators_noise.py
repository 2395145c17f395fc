"""core.evaluation.annotators.noise: the annotators' error rate and estimates corrected for it.

Hand-worked corrections (2x2 and 3x3 confusion matrices), the pair formula against its
defining equation, the exact intervals against scipy's binomial test, zero noise giving the
uncorrected answer, and a seeded coverage simulation against the truth at 5 % noise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from core.errors import DataError
from core.evaluation.annotators.noise import (correct_estimate, corrected_shares, corrected_value,
                                   draw_labels, error_from_gold, error_from_pairs,
                                   eta_from_disagreement, given_error, pairs_from_votes,
                                   relative_to, simulate_noise, symmetric_confusion)

Z95 = 1.959963984540054


def test_rogan_gladen_two_classes_by_hand():
    # sensitivity 0.9, specificity 0.95, observed positive share 0.7:
    # p = (0.7 + 0.95 - 1) / (0.9 + 0.95 - 1) = 0.65 / 0.85 = 13/17
    p = corrected_shares([0.3, 0.7], [[0.95, 0.05], [0.10, 0.90]])
    assert p == pytest.approx([4 / 17, 13 / 17], abs=1e-12)


def test_three_by_three_confusion_by_hand():
    # truth p = (0.5, 0.3, 0.2) seen through C gives q = C^T p = (0.48, 0.305, 0.215):
    # q0 = .5*.9 + .3*.1 + .2*0 ; q1 = .5*.05 + .3*.8 + .2*.2 ; q2 = .5*.05 + .3*.1 + .2*.8
    c = [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.0, 0.2, 0.8]]
    assert corrected_shares([0.48, 0.305, 0.215], c) == pytest.approx([0.5, 0.3, 0.2],
                                                                       abs=1e-12)


def test_symmetric_three_classes_by_hand():
    # eta 0.06, r = 0.03, 1 - 3*0.06/2 = 0.91: q = 0.4 -> 0.37 / 0.91
    assert corrected_value(0.4, 0.06, 3) == pytest.approx(0.37 / 0.91, abs=1e-12)
    c = symmetric_confusion(0.06, 3)
    assert np.allclose(c, [[0.94, 0.03, 0.03], [0.03, 0.94, 0.03], [0.03, 0.03, 0.94]])
    q = np.array([0.4, 0.35, 0.25])
    assert corrected_shares(q, c) == pytest.approx((q - 0.03) / 0.91, abs=1e-12)


def test_bad_confusion_matrix():
    with pytest.raises(DataError, match="sum"):
        corrected_shares([0.5, 0.5], [[0.9, 0.2], [0.1, 0.9]])
    with pytest.raises(DataError, match="singular"):
        corrected_shares([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]])


def test_eta_from_disagreement_inverts_the_pair_probability():
    # two classes: D = 2 eta (1 - eta); three: D = 2 eta - 3 eta^2 / 2
    assert eta_from_disagreement(2 * 0.04 * 0.96, 2) == pytest.approx(0.04, abs=1e-12)
    assert eta_from_disagreement(0.2 - 0.015, 3) == pytest.approx(0.1, abs=1e-12)
    assert eta_from_disagreement(0.0, 2) == 0.0


def test_pairs_interval_is_the_exact_binomial_interval_mapped():
    first = [0] * 100
    second = [1] * 8 + [0] * 92
    e = error_from_pairs(first, second, n_classes=2)
    ci = binomtest(8, 100).proportion_ci(0.95, method="exact")
    assert e.eta == pytest.approx((1 - math.sqrt(1 - 2 * 0.08)) / 2, abs=1e-12)
    assert e.ci_low == pytest.approx((1 - math.sqrt(1 - 2 * ci.low)) / 2, abs=1e-9)
    assert e.ci_high == pytest.approx((1 - math.sqrt(1 - 2 * ci.high)) / 2, abs=1e-9)
    assert (e.source, e.n_items, e.n_disagree) == ("double", 100, 8)


def test_gold_interval_is_clopper_pearson():
    labels = ["a"] * 57 + ["b"] * 3
    gold = ["a"] * 60
    e = error_from_gold(labels, gold, n_classes=2)
    ci = binomtest(3, 60).proportion_ci(0.95, method="exact")
    assert e.eta == pytest.approx(0.05)
    assert (e.ci_low, e.ci_high) == pytest.approx((ci.low, ci.high), abs=1e-9)


def _result(share1=0.30, lo1=0.28, hi1=0.32, acc=(0.94, 0.92, 0.96)):
    return {"M": 1000, "n_labelled": 400, "n_machine": 600, "confidence": 0.95,
            "class_shares": {"0": {"estimate": 1 - share1, "ci_low": 1 - hi1, "ci_high": 1 - lo1},
                             "1": {"estimate": share1, "ci_low": lo1, "ci_high": hi1}},
            "accuracy": {"estimate": acc[0], "ci_low": acc[1], "ci_high": acc[2]},
            "by_group": {}, "notes": []}


def test_zero_noise_gives_the_uncorrected_answer():
    res = _result()
    out = correct_estimate(res, given_error(0.0, n_classes=2))
    for key in ("0", "1"):
        for f in ("estimate", "ci_low", "ci_high"):
            assert out["class_shares"][key][f] == pytest.approx(res["class_shares"][key][f],
                                                                 abs=1e-12)
    for f in ("estimate", "ci_low", "ci_high"):
        assert out["accuracy"][f] == pytest.approx(res["accuracy"][f], abs=1e-12)
    assert out["relative_to"].startswith("truth")
    assert relative_to(None) == "annotators"


def test_known_eta_correction_by_hand():
    out = correct_estimate(_result(), given_error(0.05, n_classes=2))
    s = out["class_shares"]["1"]
    point = (0.30 - 0.05) / 0.9                       # 0.277778
    design_lo = point - (0.28 - 0.05) / 0.9          # 0.022222
    design_hi = (0.32 - 0.05) / 0.9 - point
    noise = Z95 * math.sqrt(0.05 * 0.95 / 1000) / 0.9  # p eta(1-eta) + (1-p) r(1-r), r = eta
    assert s["estimate"] == pytest.approx(point, abs=1e-12)
    assert s["ci_low"] == pytest.approx(point - math.hypot(design_lo, noise), abs=1e-12)
    assert s["ci_high"] == pytest.approx(point + math.hypot(design_hi, noise), abs=1e-12)
    assert s["estimate_annotators"] == 0.30
    # accuracy: g = (0.94*1000 - 400)/600 = 0.9 -> (0.9 - 0.05)/0.9 on the 600 machine rows,
    # 0.95 on the 400 labelled rows
    a_true = 0.85 / 0.9
    acc = out["accuracy"]
    assert acc["estimate"] == pytest.approx((400 * 0.95 + 600 * a_true) / 1000, abs=1e-12)
    var = (400 * 0.05 * 0.95 + 600 * (a_true * 0.0475 + (1 - a_true) * 0.0475) / 0.81) / 1e6
    g_lo = (0.92 * 1000 - 400) / 600
    d_lo = acc["estimate"] - (380 + 600 * (g_lo - 0.05) / 0.9) / 1000
    assert acc["ci_low"] == pytest.approx(acc["estimate"] - math.hypot(d_lo, Z95 * math.sqrt(var)),
                                          abs=1e-12)


def test_eta_uncertainty_widens_the_interval_towards_the_correction():
    # eta in [0, 0.1], estimated 0: a share below 1/2 can only fall; its upper end is unmoved
    from core.evaluation.annotators.noise import AnnotatorError

    eta = AnnotatorError(0.0, 0.0, 0.1, "double", 50, 0, 2, 0.95)
    out = correct_estimate(_result(), eta)
    s = out["class_shares"]["1"]
    assert s["estimate"] == pytest.approx(0.30)
    assert s["ci_high"] == pytest.approx(0.32)
    lower_eta = 0.30 - (0.30 - 0.1) / 0.8
    assert s["ci_low"] == pytest.approx(0.30 - math.hypot(0.02, lower_eta), abs=1e-12)


def test_bad_eta_and_missing_pairs_name_the_field():
    for bad in (0.5, -0.01, float("nan"), 1.2):
        with pytest.raises(DataError, match="--annotator-error"):
            given_error(bad, n_classes=2)
    with pytest.raises(DataError, match="auto.*two annotators"):
        error_from_pairs([], [], n_classes=2)


def test_pairs_from_votes_takes_rows_with_two_annotators():
    import pandas as pd

    votes = pd.DataFrame({"row": [1, 1, 2, 3, 3, 3], "annotator": ["b", "a", "a", "a", "c", "b"],
                          "label": ["x", "y", "x", "x", "y", "x"]})
    rows, first, second = pairs_from_votes(votes)
    assert rows.tolist() == [1, 3]
    assert first.tolist() == ["y", "x"] and second.tolist() == ["x", "x"]


def test_draw_labels_follows_the_confusion_rows():
    rng = np.random.default_rng(0)
    truth = np.repeat([0, 1, 2], 20000)
    c = np.array([[0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.2, 0.3, 0.5]])
    h = draw_labels(truth, c, rng)
    for t in range(3):
        freq = np.bincount(h[truth == t], minlength=3) / 20000
        assert freq == pytest.approx(c[t], abs=0.01)


def test_coverage_against_the_truth_at_five_percent_noise():
    """Seeded simulation with known truth: 5 % symmetric annotator noise, routing half of
    3,000 rows, audit 200, 200 double-labelled rows. The uncorrected class-share interval
    misses the truth far more than 5 % of the time; the corrected one covers >= 0.94."""
    rng = np.random.default_rng(11)
    m = 3000
    truth = (rng.random(m) < 0.25).astype(np.int64)
    conf = rng.uniform(0.5, 1.0, m)
    wrong = rng.random(m) < (1 - conf) * 0.5
    machine = np.where(wrong, 1 - truth, truth)
    routed = conf < np.quantile(conf, 0.5)
    df = simulate_noise(machine, truth, routed, confusion=symmetric_confusion(0.05, 2),
                        audit=200, double=200, rounds=400, seed=3)
    by = df.groupby("method").mean(numeric_only=True)
    assert by.loc["auto", "cover_1"] >= 0.94
    assert by.loc["auto", "cover_accuracy"] >= 0.94
    assert by.loc["plain", "cover_1"] < 0.94


def test_symmetry_p_is_bowkers_test():
    """Against statsmodels' SquareTable.symmetry (Bowker; McNemar for two classes)."""
    from statsmodels.stats.contingency_tables import SquareTable

    for table in (np.array([[50, 3], [9, 138]]), np.array([[50, 3, 2], [9, 60, 1], [4, 5, 30]])):
        k = len(table)
        first = [i for i in range(k) for j in range(k) for _ in range(table[i, j])]
        second = [j for i in range(k) for j in range(k) for _ in range(table[i, j])]
        want = SquareTable(table, shift_zeros=False).symmetry().pvalue
        from core.evaluation.annotators.noise import symmetry_p

        assert symmetry_p(first, second, n_classes=k) == pytest.approx(want, rel=1e-12)
        assert error_from_pairs(first, second, n_classes=k).symmetry_p == pytest.approx(want)
    assert error_from_pairs([0, 1], [0, 1], n_classes=2).symmetry_p is None


def test_a_one_sided_annotator_is_named_in_the_notes():
    first = [1] * 20 + [0] * 180
    second = [0] * 20 + [0] * 180  # the second annotator always says 0 where they differ
    eta = error_from_pairs(first, second, n_classes=2)
    assert eta.symmetry_p < 0.05
    out = correct_estimate(_result(), eta)
    assert any("one direction" in n for n in out["notes"])
    balanced = error_from_pairs([1] * 10 + [0] * 190, [0] * 10 + [1] * 10 + [0] * 180,
                                n_classes=2)
    assert not any("one direction" in n for n in correct_estimate(_result(), balanced)["notes"])
