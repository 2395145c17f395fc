"""Checks shared by every metric of the registry (``tests/core/metrics_registry.py``), modelled on
scikit-learn's ``sklearn/metrics/tests/test_common.py``: input types, sample order, symmetry,
bad input, plus hand-worked values and property-based tests where a metric has an invariant."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.assignment import reliability
from core.clembench import metrics as clem_metrics
from core.errors import DataError
from core.hee import metrics as hee_metrics
from core.mce import metrics as mce_metrics
from core.rsm import metrics as rsm_metrics
from core.rsm import true_score
from tests.core.metrics_registry import METRICS, MetricSpec, metric

# Bounded, reproducible property tests: the suite stays fast and never flaky.
PROPERTY = settings(max_examples=60, deadline=None, derandomize=True)

IDS = [s.name for s in METRICS]

# --------------------------------------------------------------------------------------------
# One example per kind of metric. Confidences are distinct (order invariance of top-k/AURC).

SCORES_TRUE = [1.0, 2.0, 3.0, 4.0, 2.0, 3.0]
SCORES_PRED = [1.0, 3.0, 3.0, 2.0, 2.0, 5.0]
LABELS_TRUE = [1, 0, 1, 1, 0, 0, 2]
LABELS_PRED = [1, 0, 0, 1, 1, 0, 1]
BINARY_TRUE = [1, 0, 1, 1, 0, 0]
BINARY_PRED = [1, 0, 0, 1, 1, 0]
CONF_TRUE = [1, 0, 1, 1, 0, 1]
CONF_PRED = [1, 1, 1, 0, 0, 1]
CONFIDENCE = [0.9, 0.8, 0.3, 0.6, 0.2, 0.45]
RATINGS = [[1.0, 2.0], [2.0, 2.0], [3.0, 4.0], [4.0, 4.0], [2.0, np.nan]]
RATINGS_PRED = [2.0, 2.0, 3.0, 5.0, 1.0]


def example(spec: MetricSpec) -> list:
    """The positional arguments of ``spec`` on its kind's example, as lists."""
    if spec.kind == "scores":
        return [list(SCORES_TRUE), list(SCORES_PRED)]
    if spec.kind == "labels":
        if spec.binary_only:
            return [list(BINARY_TRUE), list(BINARY_PRED)]
        return [list(LABELS_TRUE), list(LABELS_PRED)]
    if spec.kind == "confidence":
        return [list(CONF_TRUE), list(CONF_PRED), list(CONFIDENCE)]
    return [[list(r) for r in RATINGS], list(RATINGS_PRED)]


def as_type(arg: list, kind: str):
    if kind == "list":
        return arg
    if kind == "ndarray":
        return np.asarray(arg)
    if isinstance(arg[0], list):  # a ratings matrix
        return pd.DataFrame(arg)
    return pd.Series(arg, index=np.arange(100, 100 + len(arg)))  # an index that is not 0..n-1


def assert_same(a, b, *, rel: float = 1e-12) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k], rel=rel)
        return
    if a is None or b is None:
        assert a is b
        return
    if math.isnan(a):
        assert math.isnan(b)
        return
    assert b == pytest.approx(a, rel=rel, abs=1e-12)


def call(spec: MetricSpec, args: list):
    return spec.func(*args)


# --------------------------------------------------------------------------------------------
# The registry itself

REGISTERED_MODULES = [rsm_metrics, true_score, hee_metrics, mce_metrics, reliability, clem_metrics]
# Public functions with a metric's signature that are deliberately not in the registry.
NOT_REGISTERED = {
    "agreement": "general tolerance; registered as exact_agreement and adjacent_agreement",
    "difference_of_standardized_means": "needs the population's means and sds",
    "dsm_by_group": "one value per subgroup",
    "correctness": "a per-sample array, not a score",
    "confidence_roc_curve": "a curve",
    "risk_coverage_curve": "a curve",
    "reliability_bins": "a table",
    "confidence_report": "a report of the registered confidence metrics",
    "confusion_counts": "a matrix",
    "per_class_table": "a table",
}


def test_registry_covers_every_metric_function():
    registered = {s.func for s in METRICS}
    missing = []
    for module in REGISTERED_MODULES:
        for name, func in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or func.__module__ != module.__name__:
                continue
            params = list(inspect.signature(func).parameters)[:2]
            if params in (["y_true", "y_pred"], ["human_scores", "y_pred"]):
                if func not in registered and name not in NOT_REGISTERED:
                    missing.append(f"{module.__name__}.{name}")
    assert missing == []
    assert len({s.name for s in METRICS}) == len(METRICS)
    assert metric("rsm.cohen_kappa").func is rsm_metrics.cohen_kappa
    with pytest.raises(KeyError):
        metric("no.such_metric")


# --------------------------------------------------------------------------------------------
# Hand-worked values on the examples above (worked in the comments).

def test_hand_worked_scores():
    h, m = [1, 2, 3, 4], [1, 3, 3, 2]
    # differences 0, 1, 0, -2: exact 2/4, adjacent 3/4
    assert rsm_metrics.exact_agreement(h, m) == 50.0
    assert rsm_metrics.adjacent_agreement(h, m) == 75.0
    # labels 1..4; disagreement 2/4; marginals p = (1/4,)*4, q = (1/4, 1/4, 1/2, 0): p.q = 1/4
    # kappa = 1 - (1/2) / (3/4) = 1/3
    assert rsm_metrics.cohen_kappa(h, m) == pytest.approx(1 / 3)
    # means 2.5, 2.25; cov 1.5/4, var_h 5/4, var_m 2.75/4, (diff)^2 1/16: QWK = 0.75 / 2
    assert rsm_metrics.quadratic_weighted_kappa(h, m) == pytest.approx(0.375)
    assert rsm_metrics.pearson_r(h, m) == pytest.approx(1.5 / math.sqrt(5 * 2.75))
    # (2.25 - 2.5) / sd_h with sd_h = sqrt(5/3)
    assert rsm_metrics.standardized_mean_difference(h, m) == pytest.approx(-0.25 / math.sqrt(5 / 3))
    # squared errors 0, 1, 0, 4
    assert rsm_metrics.mean_squared_error(h, m) == pytest.approx(1.25)
    assert rsm_metrics.root_mean_squared_error(h, m) == pytest.approx(math.sqrt(1.25))
    # SS_res 5, SS_tot(h) 5: R2 0; swapped, SS_tot(m) 2.75: 1 - 5/2.75
    assert rsm_metrics.r2_score(h, m) == pytest.approx(0.0)
    assert rsm_metrics.r2_score(m, h) == pytest.approx(1 - 5 / 2.75)
    reg = hee_metrics.regression_metrics(h, m)
    assert reg == pytest.approx({"mse": 1.25, "rmse": math.sqrt(1.25), "mae": 0.75, "r2": 0.0})


def test_hand_worked_labels():
    # gold 1 2 3 4 against 1 3 3 2: per class (p, r): 1 (1, 1), 2 (0, 0), 3 (1/2, 1), 4 (0, 0)
    # F1: 1, 0, 2/3, 0; accuracy 2/4
    s = reliability.classification_scores([1, 2, 3, 4], [1, 3, 3, 2])
    assert s == pytest.approx({"precision": 1.5 / 4, "recall": 2 / 4, "f1": (1 + 2 / 3) / 4, "accuracy": 0.5})
    # 4 matches of 6; marginals 1/2, 1/2 on both sides: p_e 1/2, kappa (2/3 - 1/2) / (1/2) = 1/3
    assert clem_metrics.probe_accuracy(BINARY_TRUE, BINARY_PRED) == pytest.approx(4 / 6)
    assert clem_metrics.cohen_kappa(BINARY_TRUE, BINARY_PRED) == pytest.approx(1 / 3)


def test_hand_worked_confidence():
    t, p, c = [1, 0, 1, 1, 0], [1, 1, 1, 0, 0], [0.9, 0.8, 0.3, 0.6, 0.2]
    # correct: T F T F T; correct confidences .9 .3 .2 vs wrong .8 .6: 2 of 6 pairs ranked right
    assert mce_metrics.confidence_auc(t, p, c) == pytest.approx(1 / 3)
    # top 2 by confidence: .9 (T), .8 (F)
    assert mce_metrics.top_k_accuracy(t, p, c, top=0.5) == 0.5
    # by confidence T F F T T: risks 0, 1/2, 2/3, 2/4, 2/5; mean 31/75
    assert mce_metrics.aurc(t, p, c) == pytest.approx(31 / 75)
    # one sample per bin: mean |correct - confidence| = (.1 + .8 + .6 + .7 + .8) / 5
    assert mce_metrics.expected_calibration_error(t, p, c) == pytest.approx(0.6)


# --------------------------------------------------------------------------------------------
# Shared checks over the registry

@pytest.mark.parametrize("spec", METRICS, ids=IDS)
@pytest.mark.parametrize("kind", ["ndarray", "series"])
def test_list_array_series_alike(spec, kind):
    args = example(spec)
    assert_same(call(spec, args), call(spec, [as_type(a, kind) for a in args]))


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_sample_order_invariance(spec):
    args = example(spec)
    n = len(args[0])
    perm = np.random.default_rng(0).permutation(n)
    assert not np.array_equal(perm, np.arange(n))
    shuffled = [[a[i] for i in perm] for a in args]
    if spec.order_invariant == "no":  # pragma: no cover - no such metric registered
        pytest.skip("order matters by definition")
    if spec.order_invariant == "distinct_confidence":
        assert len(set(args[2])) == n
    assert_same(call(spec, args), call(spec, shuffled))


@pytest.mark.parametrize("spec", [s for s in METRICS if s.kind in ("scores", "labels")], ids=lambda s: s.name)
def test_symmetry(spec):
    a, b = example(spec)
    forward, backward = call(spec, [a, b]), call(spec, [b, a])
    if spec.symmetric:
        assert_same(forward, backward)
    else:  # sklearn's test_not_symmetric_metric: the example tells the two orders apart
        with pytest.raises(AssertionError):
            assert_same(forward, backward)


def test_classification_scores_swap_precision_and_recall():
    a, b = LABELS_TRUE, LABELS_PRED
    f, r = reliability.classification_scores(a, b), reliability.classification_scores(b, a)
    assert f["precision"] == pytest.approx(r["recall"])
    assert f["recall"] == pytest.approx(r["precision"])
    assert f["f1"] == pytest.approx(r["f1"])
    assert f["accuracy"] == pytest.approx(r["accuracy"])


def bad_inputs(spec: MetricSpec):
    """(description, arguments) pairs that must raise DataError."""
    args = example(spec)
    out = []
    for i in range(len(args)):
        for bad, what in ((np.nan, "nan"), (np.inf, "inf"), (None, "none")):
            if spec.kind in ("labels", "confidence") and i < 2 and what == "inf":
                continue  # inf is a valid (if odd) class label
            if spec.kind == "ratings" and i == 0 and what != "inf":
                continue  # NaN marks a missing rating; tested below
            changed = [list(a) for a in args]
            if spec.kind == "ratings" and i == 0:
                changed[0][1] = [changed[0][1][0], bad]
            else:
                changed[i][1] = bad
            out.append((f"arg{i}-{what}", changed))
    shorter = [list(a) for a in args]
    shorter[-1] = shorter[-1][:-1]
    out.append(("length", shorter))
    return out


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_bad_values_and_lengths_raise_data_error(spec):
    for what, args in bad_inputs(spec):
        with pytest.raises(DataError):
            call(spec, args)
            pytest.fail(f"{spec.name}: no DataError for {what}")


def test_ratings_without_any_rating_raise_data_error():
    with pytest.raises(DataError, match="no rating at all in row 2"):
        true_score.prmse_true([[1, 2], [np.nan, np.nan]], [1, 2])


@pytest.mark.parametrize("spec", METRICS, ids=IDS)
def test_empty_input(spec):
    args = [[] for _ in example(spec)]
    if spec.empty == "error":
        with pytest.raises(DataError):
            call(spec, args)
    else:
        value = call(spec, args)
        assert isinstance(value, dict) and value and all(math.isnan(v) for v in value.values())


# --------------------------------------------------------------------------------------------
# Property-based tests where a metric has an invariant

def int_pairs(lo: int, hi: int, min_size: int = 2, max_size: int = 30):
    return st.integers(min_size, max_size).flatmap(
        lambda n: st.tuples(st.lists(st.integers(lo, hi), min_size=n, max_size=n),
                            st.lists(st.integers(lo, hi), min_size=n, max_size=n)))


@PROPERTY
@given(int_pairs(0, 4))
def test_rsm_kappa_is_sklearns_on_integer_labels(pair):
    from sklearn.metrics import cohen_kappa_score

    a, b = pair
    value = rsm_metrics.cohen_kappa(a, b)
    if len(set(a) | set(b)) == 1:
        assert value == 1.0  # SKLL: a single label overall
    else:
        assert value == cohen_kappa_score(a, b)  # scikit-learn's arithmetic, to the last bit
    assert -1.0 - 1e-12 <= value <= 1.0 + 1e-12


@PROPERTY
@given(int_pairs(0, 1))
def test_two_kappas_agree_when_both_labels_occur(pair):
    a, b = pair
    if len(set(a) | set(b)) < 2:
        # the references' one disagreement: SKLL's 1 against scikit-learn's NaN
        assert rsm_metrics.cohen_kappa(a, b) == 1.0 and math.isnan(clem_metrics.cohen_kappa(a, b))
        assert math.isnan(rsm_metrics.cohen_kappa(a, b, single_label=math.nan))
    else:
        assert clem_metrics.cohen_kappa(a, b) == rsm_metrics.cohen_kappa(a, b)


@PROPERTY
@given(int_pairs(-5, 5), st.integers(1, 4), st.integers(-10, 10))
def test_pearson_is_invariant_to_affine_maps(pair, scale, shift):
    a, b = pair
    r = rsm_metrics.pearson_r(a, b)
    moved = [scale * v + shift for v in b]
    flipped = [-scale * v + shift for v in b]
    if math.isnan(r):
        assert len(set(a)) == 1 or len(set(b)) == 1
        assert math.isnan(rsm_metrics.pearson_r(a, moved))
    else:
        assert -1.0 <= r <= 1.0
        assert rsm_metrics.pearson_r(a, moved) == pytest.approx(r, abs=1e-9)
        assert rsm_metrics.pearson_r(a, flipped) == pytest.approx(-r, abs=1e-9)
        assert rsm_metrics.pearson_r(b, a) == pytest.approx(r, abs=1e-12)


@PROPERTY
@given(int_pairs(-5, 5, min_size=1), st.integers(-10, 10))
def test_squared_errors(pair, shift):
    a, b = pair
    mse = rsm_metrics.mean_squared_error(a, b)
    assert mse >= 0
    assert rsm_metrics.root_mean_squared_error(a, b) ** 2 == pytest.approx(mse)
    assert rsm_metrics.mean_squared_error([v + shift for v in a], [v + shift for v in b]) == pytest.approx(mse)
    reg = hee_metrics.regression_metrics(a, b)
    assert reg["mse"] == pytest.approx(mse)
    assert reg["mae"] <= reg["rmse"] + 1e-12
    if len(set(a)) > 1:  # both R2 conventions agree unless the gold is constant
        assert reg["r2"] == pytest.approx(rsm_metrics.r2_score(a, b))
        assert reg["r2"] <= 1.0


@PROPERTY
@given(int_pairs(0, 4, min_size=1))
def test_agreement_and_accuracy(pair):
    a, b = pair
    exact, adjacent = rsm_metrics.exact_agreement(a, b), rsm_metrics.adjacent_agreement(a, b)
    assert 0 <= exact <= adjacent <= 100
    s = reliability.classification_scores(a, b)
    assert s["accuracy"] * 100 == pytest.approx(exact)
    r = reliability.classification_scores(b, a)
    assert (s["precision"], s["recall"], s["f1"]) == pytest.approx((r["recall"], r["precision"], r["f1"]))
    qwk = rsm_metrics.quadratic_weighted_kappa(a, b)
    if not math.isnan(qwk):
        assert -1 - 1e-12 <= qwk <= 1 + 1e-12
        assert rsm_metrics.quadratic_weighted_kappa(b, a) == pytest.approx(qwk)


@PROPERTY
@given(st.integers(2, 25).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n),
    st.lists(st.integers(0, 20), min_size=n, max_size=n))))
def test_confidence_auc_depends_on_the_order_only(case):
    correct, conf = case
    t = [1] * len(correct)
    p = [1 if c else 0 for c in correct]
    c = [v / 20 for v in conf]
    auc = mce_metrics.confidence_auc(t, p, c)
    if all(correct) or not any(correct):
        assert math.isnan(auc)
        return
    assert 0.0 <= auc <= 1.0
    assert mce_metrics.confidence_auc(t, p, [-v for v in c]) == pytest.approx(1.0 - auc)
    assert mce_metrics.confidence_auc(t, p, [math.exp(3 * v) for v in c]) == pytest.approx(auc)
    ece = mce_metrics.expected_calibration_error(t, p, c)
    assert 0.0 <= ece <= 1.0
    assert mce_metrics.expected_calibration_error(t, p, [float(x) for x in correct]) == 0.0
