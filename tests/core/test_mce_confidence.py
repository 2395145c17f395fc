"""MCP, trust score (hand-built 2-D point sets) and the TCP confidence network."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest

from core.errors import DataError
from core.mce.confidence import MCP, TCP, TrainingStopped, TrustScore, true_class_probability

# ------------------------------------------------------------------------------------ MCP


def test_mcp_is_probability_of_predicted_class():
    proba = [[0.2, 0.8], [0.6, 0.4]]
    assert MCP().fit().predict(proba).tolist() == [0.8, 0.6]
    assert MCP().predict([[0.1, 0.3, 0.6], [0.5, 0.25, 0.25]]).tolist() == [0.6, 0.5]


def test_mcp_rejects_non_probabilities():
    with pytest.raises(DataError, match="row 2"):
        MCP().predict([[0.2, 0.8], [0.7, 0.7]])
    with pytest.raises(DataError, match="2-D"):
        MCP().predict([0.2, 0.8])


def test_true_class_probability():
    p = [[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]]
    assert true_class_probability([0, 0, 1], p).tolist() == [0.2, 0.6, 0.5]
    with pytest.raises(DataError, match="row 2"):
        true_class_probability([0, 2, 1], p)


# ---------------------------------------------------------------------------- trust score
# Square set: class 0 = A(0,0), B(2,0); class 1 = C(0,4), D(3,4); alpha = 0 keeps every point.
SQ_X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0], [3.0, 4.0]])
SQ_Y = np.array([0, 0, 1, 1])


def test_trust_score_raw_ratio_by_hand():
    ts = TrustScore(k=2, alpha=0.0).fit(SQ_X, SQ_Y)
    # x = (1, 1): to class 0 min(|(1,1)|, |(-1,1)|) = sqrt 2; to class 1 min(sqrt 10, sqrt 13)
    raw = ts.predict([[1.0, 1.0], [1.0, 1.0]], [0, 1], normalize=False)
    assert raw[0] == pytest.approx(math.sqrt(10) / math.sqrt(2))
    assert raw[1] == pytest.approx(math.sqrt(2) / math.sqrt(10))


def test_trust_score_training_range_leave_one_out():
    ts = TrustScore(k=2, alpha=0.0).fit(SQ_X, SQ_Y)
    # leave-one-out training ratios: A 4/2, B sqrt17/2, C 4/3, D sqrt17/3
    assert ts.train_min_ == pytest.approx(4 / 3)
    assert ts.train_max_ == pytest.approx(math.sqrt(17) / 2)


def test_trust_score_normalised_by_hand():
    ts = TrustScore(k=2, alpha=0.0).fit(SQ_X, SQ_Y)
    # x = (1.5, 3) predicted 1: to class 1 sqrt(3.25) (C and D), to class 0 min(sqrt 11.25, sqrt 9.25)
    raw = math.sqrt(9.25) / math.sqrt(3.25)
    expected = (raw - 4 / 3) / (math.sqrt(17) / 2 - 4 / 3)
    got = ts.predict([[1.5, 3.0]], [1])
    assert got[0] == pytest.approx(expected)
    assert 0.48 < got[0] < 0.49
    # outside the training range: clipped (sqrt 5 above the max, 1/sqrt 5 below the min)
    assert ts.predict([[1.0, 1.0], [1.0, 1.0]], [0, 1]).tolist() == [1.0, 0.0]


def test_trust_score_on_a_set_point_is_infinite_then_one():
    ts = TrustScore(k=2).fit(SQ_X, SQ_Y)
    assert math.isinf(ts.predict([[2.0, 0.0]], [0], normalize=False)[0])
    assert ts.predict([[2.0, 0.0]], [0])[0] == 1.0
    assert ts.predict([[2.0, 0.0]], [1], normalize=False)[0] == 0.0


def test_alpha_drops_the_low_density_points():
    # class 0: three points around the origin and an outlier; class 1 likewise around (5, 0)
    X = np.array([[0, 0], [1, 0], [0, 1], [10, 10], [5, 0], [6, 0], [5, 1], [20, 20]], dtype=float)
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    ts = TrustScore(k=2, alpha=0.25).fit(X, y)
    # k-NN radii (k = 2, the point itself counted): 1, 1, 1, sqrt 181 -> the outlier goes
    assert sorted(map(tuple, ts.high_density_sets_[0].tolist())) == [(0, 0), (0, 1), (1, 0)]
    assert sorted(map(tuple, ts.high_density_sets_[1].tolist())) == [(5, 0), (5, 1), (6, 0)]
    # x = (10, 9) predicted 0: nearest kept class-0 point (1, 0) at sqrt 162; class 1 (5, 1) at sqrt 89
    raw = ts.predict([[10.0, 9.0]], [0], normalize=False)[0]
    assert raw == pytest.approx(math.sqrt(89) / math.sqrt(162))
    # without filtering the outlier (10, 10) would be at distance 1
    raw0 = TrustScore(k=2, alpha=0.0).fit(X, y).predict([[10.0, 9.0]], [0], normalize=False)[0]
    assert raw0 == pytest.approx(math.sqrt(89) / 1.0)


def test_knn_radius_counts_the_point_itself():
    # 1-D points 0, 1, 3, 10 (class 0). With k = 2 and the point itself counted the radii are
    # 1, 1, 2, 7, so alpha = 0.5 keeps {0, 1}; counting only other points they would be
    # 3, 2, 2, 7 and {1, 3} would be kept.
    X = np.array([[0, 0], [1, 0], [3, 0], [10, 0], [100, 0], [101, 0]], dtype=float)
    y = np.array([0, 0, 0, 0, 1, 1])
    ts = TrustScore(k=2, alpha=0.5).fit(X, y)
    assert sorted(ts.high_density_sets_[0][:, 0].tolist()) == [0.0, 1.0]


def test_ties_at_the_threshold_are_kept():
    # unit square: every radius (k = 2) is 1, so alpha = 0.25 drops nothing (ties at eps)
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [5, 5], [6, 5]], dtype=float)
    y = np.array([0, 0, 0, 0, 1, 1])
    ts = TrustScore(k=2, alpha=0.25).fit(X, y)
    assert len(ts.high_density_sets_[0]) == 4
    # k = 1: every radius is 0, nothing is ever dropped
    assert len(TrustScore(k=1, alpha=0.5).fit(X, y).high_density_sets_[0]) == 4


def test_k_larger_than_a_class_is_clipped():
    ts = TrustScore(k=10, alpha=0.5).fit(SQ_X, SQ_Y)
    assert ts.k_per_class_.tolist() == [2, 2]
    # radii equal within each two-point class: both points kept
    assert [len(h) for h in ts.high_density_sets_] == [2, 2]


def test_training_range_uses_given_predictions():
    # predicting A as class 1 gives A the ratio d(A, class 0 w/o A) / d(A, class 1) = 2 / 4
    ts = TrustScore(k=2).fit(SQ_X, SQ_Y, y_pred=[1, 0, 1, 1])
    assert ts.train_min_ == pytest.approx(0.5)


@pytest.mark.parametrize(
    "kwargs, X, y, match",
    [
        ({"alpha": 1.0}, SQ_X, SQ_Y, "alpha"),
        ({"k": 0}, SQ_X, SQ_Y, "k must"),
        ({}, SQ_X, [0, 0, 0, 0], "2 classes"),
        ({}, SQ_X, [0, 0, 2, 2], "missing classes: \\[1\\]"),
        ({}, SQ_X, [0, 1, 0], "rows"),
        ({}, [[0, 0], [1, np.nan], [2, 2], [3, 3]], SQ_Y, "row 2"),
    ],
)
def test_trust_score_bad_input(kwargs, X, y, match):
    with pytest.raises(DataError, match=match):
        TrustScore(**kwargs).fit(X, y)


def test_trust_score_predict_checks():
    ts = TrustScore(k=2).fit(SQ_X, SQ_Y)
    with pytest.raises(DataError, match="features"):
        ts.predict([[1.0, 2.0, 3.0]], [0])
    with pytest.raises(DataError, match="y_pred"):
        ts.predict([[1.0, 2.0]], [2])
    with pytest.raises(DataError, match="not fitted"):
        TrustScore().predict([[1.0, 2.0]], [0])


# -------------------------------------------------------------------------------------- TCP
def _synthetic(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    target = 1 / (1 + np.exp(-2 * X[:, 0] + X[:, 1]))
    return X, target


def test_tcp_architecture():
    X, t = _synthetic(60)
    tcp = TCP(hidden=8, max_epochs=1).fit(X, t)
    import torch.nn as nn

    linear = [m for m in tcp.net_ if isinstance(m, nn.Linear)]
    assert len(linear) == 5
    assert (linear[0].in_features, linear[-1].out_features) == (6, 1)
    assert isinstance(tcp.net_[-1], nn.Sigmoid)


def test_tcp_learns_the_true_class_probability():
    X, t = _synthetic(600)
    Xte, tte = _synthetic(300, seed=1)
    tcp = TCP(hidden=32, learning_rate=3e-3, batch_size=32, max_epochs=15, patience=10).fit(X[:500], t[:500], X_val=X[500:],
                                                                             target_val=t[500:])
    pred = tcp.predict(Xte)
    assert pred.shape == (300,) and pred.min() >= 0 and pred.max() <= 1
    mse = float(np.mean((pred - tte) ** 2))
    assert mse < 0.2 * float(np.var(tte))


def test_tcp_early_stopping_and_best_weights():
    X, t = _synthetic(200)
    # learning rate 0: the validation loss never improves after epoch 1 -> 1 + patience epochs
    tcp = TCP(hidden=8, learning_rate=0.0, max_epochs=30, patience=3).fit(X, t)
    assert tcp.n_epochs_ == 4 and tcp.best_epoch_ == 1 and len(tcp.history_) == 4
    # patience beyond max_epochs: runs every epoch; the kept weights are the best epoch's
    Xv, tv = _synthetic(100, seed=2)
    tcp2 = TCP(hidden=8, learning_rate=1e-2, max_epochs=6, patience=10).fit(X, t, X_val=Xv, target_val=tv)
    assert tcp2.n_epochs_ == 6
    best = min(h["val_loss"] for h in tcp2.history_)
    assert tcp2.best_val_loss_ == pytest.approx(best)
    assert float(np.mean((tcp2.predict(Xv) - tv) ** 2)) == pytest.approx(best, rel=1e-5)


def test_tcp_is_seeded():
    X, t = _synthetic(120)
    a = TCP(hidden=8, max_epochs=3, seed=5).fit(X, t).predict(X)
    b = TCP(hidden=8, max_epochs=3, seed=5).fit(X, t).predict(X)
    c = TCP(hidden=8, max_epochs=3, seed=6).fit(X, t).predict(X)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_tcp_stop_and_progress():
    X, t = _synthetic(120)
    ev = threading.Event()
    ev.set()
    with pytest.raises(TrainingStopped):
        TCP(hidden=8).fit(X, t, should_stop=ev)
    calls = []
    TCP(hidden=8, max_epochs=3, patience=5).fit(X, t, progress=lambda d, n, m: calls.append((d, n)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_tcp_bad_input():
    X, t = _synthetic(20)
    with pytest.raises(DataError, match="row 3"):
        TCP().fit(X, np.r_[t[:2], 1.5, t[3:]])
    with pytest.raises(DataError, match="patience"):
        TCP(patience=0).fit(X, t)
    with pytest.raises(DataError, match="not fitted"):
        TCP().predict(X)
    tcp = TCP(hidden=4, max_epochs=1).fit(X, t)
    with pytest.raises(DataError, match="features"):
        tcp.predict(X[:, :3])


def test_trust_score_all_duplicates_is_an_error():
    X = np.array([[0, 0], [0, 0], [5, 5], [5, 5]], dtype=float)
    with pytest.raises(DataError, match="duplicate"):
        TrustScore(k=1).fit(X, [0, 0, 1, 1])


def test_trust_score_constant_training_range():
    # two mirrored pairs: every leave-one-out training ratio is 3 / 1, so lo == hi == 3
    X = np.array([[0, 0], [1, 0], [0, 3], [1, 3]], dtype=float)
    ts = TrustScore(k=2).fit(X, [0, 0, 1, 1])
    assert ts.train_min_ == pytest.approx(3.0) and ts.train_max_ == pytest.approx(3.0)
    # (0.5, 0) predicted 0: sqrt(9.25) / 0.5 > 3 -> 1; (0.5, 1.5) predicted 0: ratio 1 < 3 -> 0
    assert ts.predict([[0.5, 0.0], [0.5, 1.5]], [0, 0]).tolist() == [1.0, 0.0]
    assert ts.normalize([3.0, 2.0, 4.0, np.inf]).tolist() == [0.5, 0.0, 1.0, 1.0]
