"""Per-turn analysis: hand-computed values and the paper's Figure 6 data."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import DataError
from core.assignment import solve
from core.assignment import TURN_KEYS, bootstrap_scores, per_turn, per_turn_for


def test_hand_computed_two_turns():
    turn = np.array([1, 1, 1, 2, 2])
    human = np.array([True, False, False, False, True])
    machine = np.array([0, 1, 0, 1, 1])
    gold = np.array([1, 1, 1, 0, 0])
    conf = np.array([0.2, 0.9, 0.6, 0.7, 0.4])
    effort = np.array([1.0, 1.0, 2.0, 3.0, 1.0])
    t = per_turn(turn, human, machine_label=machine, machine_confidence=conf, human_label=gold,
                 human_effort=effort, n_boot=0)
    assert list(t.columns[:len(TURN_KEYS)]) == list(TURN_KEYS)
    r1, r2 = t.iloc[0], t.iloc[1]
    # turn 1: final labels 1 1 0 vs gold 1 1 1 -> accuracy 2/3; machine 0 1 0 -> 1/3
    assert r1["n"] == 3 and r1["accuracy"] == pytest.approx(2 / 3)
    assert r1["machine_accuracy"] == pytest.approx(1 / 3)
    # classes present: 1 (gold) and 0 (predicted): P = (0 + 1) / 2, R = (0 + 2/3) / 2
    assert r1["precision"] == pytest.approx(0.5)
    assert r1["recall"] == pytest.approx(1 / 3)
    assert r1["f1"] == pytest.approx((0 + 2 * 2 / (4 + 1)) / 2)
    assert r1["human_ratio"] == pytest.approx(1 / 3)
    assert r1["time_cost"] == pytest.approx(1 / 4)
    assert r1["mean_confidence"] == pytest.approx((0.2 + 0.9 + 0.6) / 3)
    # turn 2: final 1 0 vs gold 0 0 -> 1/2; time cost 1 / 4
    assert r2["accuracy"] == pytest.approx(0.5) and r2["time_cost"] == pytest.approx(0.25)
    assert not t["small"].any()


def test_small_turns_flagged_and_no_gold():
    turn = np.array([1] * 30 + [2])
    t = per_turn(turn, np.zeros(31, bool), machine_label=np.zeros(31), machine_confidence=np.ones(31),
                 n_boot=50)
    assert t["small"].tolist() == [False, True]
    assert t["accuracy"].isna().all() and t["time_cost"].isna().all()
    assert t["human_ratio_lo"].notna().all()


def test_bootstrap_interval_contains_the_point_and_is_seeded():
    rng = np.random.default_rng(0)
    gold = rng.integers(0, 2, 400)
    pred = np.where(rng.random(400) < 0.8, gold, 1 - gold)
    a = bootstrap_scores(gold, pred, 2, n_boot=500, rng=np.random.default_rng(1))
    b = bootstrap_scores(gold, pred, 2, n_boot=500, rng=np.random.default_rng(1))
    assert np.array_equal(a["accuracy"], b["accuracy"])
    lo, hi = np.percentile(a["accuracy"], [2.5, 97.5])
    point = (gold == pred).mean()
    assert lo < point < hi and hi - lo < 0.1
    # a bootstrap resample of all-correct data is always all-correct
    c = bootstrap_scores(gold, gold, 2, n_boot=20, rng=np.random.default_rng(2))
    assert (c["accuracy"] == 1).all() and (c["f1"] == 1).all()


def test_figure6_numbers(hmceval_data, hmceval_inputs):
    a = solve(hmceval_inputs, lam=4.6, n_human=2836)
    t = per_turn_for(hmceval_data, a.human, n_boot=200)
    r1 = t[t["turn"] == 1].iloc[0]
    r3 = t[t["turn"] == 3].iloc[0]
    assert r1["n"] == 1199 and round(r1["accuracy"], 4) == 0.9775
    assert round(r3["accuracy"], 4) == 0.9875
    assert t["n"].sum() == 5673
    assert r1["accuracy_lo"] <= r1["accuracy"] <= r1["accuracy_hi"]


def test_no_turn_column(hmceval_data):
    from core.data import prepare
    d = prepare(hmceval_data.raw, {"turn": None, "n_turns": None})
    with pytest.raises(DataError, match="turn"):
        per_turn_for(d, np.zeros(d.M, bool))


def _index_bootstrap(gold, pred, n_classes, n_boot, rng):
    """The index-resampling bootstrap (n indices drawn with replacement per resample)."""
    from core.assignment import scores_from_confusion

    n, c2 = len(gold), n_classes * n_classes
    idx = rng.integers(0, n, size=(n_boot, n))
    pair = gold[idx] * n_classes + pred[idx] + (np.arange(n_boot) * c2)[:, None]
    cms = np.bincount(pair.ravel(), minlength=n_boot * c2).reshape(n_boot, n_classes, n_classes)
    return scores_from_confusion(cms)


def test_count_bootstrap_matches_index_bootstrap():
    # fixed example: 300 pairs over 3 classes, about 75% right
    rng = np.random.default_rng(5)
    gold = rng.integers(0, 3, 300)
    pred = np.where(rng.random(300) < 0.75, gold, rng.integers(0, 3, 300))
    b = 20000
    fast = bootstrap_scores(gold, pred, 3, n_boot=b, rng=np.random.default_rng(11))
    ref = _index_bootstrap(gold, pred, 3, b, np.random.default_rng(12))
    for key in ("accuracy", "precision", "recall", "f1"):
        sd = ref[key].std()
        # means within 5 standard errors of the difference, sds within 5%, 2.5/97.5% within sd/4
        assert abs(fast[key].mean() - ref[key].mean()) < 5 * sd * np.sqrt(2 / b), key
        assert fast[key].std() == pytest.approx(sd, rel=0.05), key
        assert np.allclose(np.percentile(fast[key], [2.5, 97.5]),
                           np.percentile(ref[key], [2.5, 97.5]), atol=sd / 4), key
    # the accuracy's bootstrap law is exact: (number right) ~ Binomial(n, observed accuracy)
    p = (gold == pred).mean()
    assert fast["accuracy"].mean() == pytest.approx(p, abs=5 * np.sqrt(p * (1 - p) / 300 / b))
    assert fast["accuracy"].std() == pytest.approx(np.sqrt(p * (1 - p) / 300), rel=0.03)


def test_per_turn_unchanged_point_values_and_intervals_independent_of_other_turns(hmceval_data):
    # point values do not depend on the bootstrap; a turn's intervals depend only on that turn
    human = np.zeros(hmceval_data.M, bool)
    human[::3] = True
    a = per_turn_for(hmceval_data, human, n_boot=300, seed=4)
    b = per_turn_for(hmceval_data, human, n_boot=0)
    keys = list(TURN_KEYS) + ["small"]
    assert a[keys].equals(b[keys])
    turn = hmceval_data.frame["turn"].to_numpy()
    keep = turn <= 2
    f = hmceval_data.frame
    c = per_turn(turn[keep], human[keep], machine_label=f["machine_label"].to_numpy()[keep],
                 machine_confidence=f["machine_confidence"].to_numpy()[keep],
                 human_label=f["human_label"].to_numpy()[keep],
                 human_effort=f["human_effort"].to_numpy()[keep], labels=list(hmceval_data.labels),
                 n_boot=300, seed=4)
    lohi = [k for k in a.columns if k.endswith(("_lo", "_hi"))]
    assert a.loc[a["turn"] <= 2, lohi].reset_index(drop=True).equals(c[lohi])
