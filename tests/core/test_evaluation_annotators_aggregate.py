"""Majority and Dawid-Skene aggregation: hand-worked cases and crowd-kit as the oracle."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.annotators.aggregate import aggregate_labels

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")


def _campaign(seed, n=300, k=3, biased=True):
    """Five annotators, three per item; the last says class 0 half the time when biased."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    acc = [0.9, 0.85, 0.8, 0.75, 0.6]
    item, ann, lab = [], [], []
    for i in range(n):
        for a in rng.choice(5, 3, replace=False):
            if a == 4 and biased:
                v = truth[i] if rng.random() < 0.5 else 0
            else:
                v = truth[i] if rng.random() < acc[a] else rng.integers(0, k)
            item.append(i)
            ann.append(int(a))
            lab.append(int(v))
    return truth, np.array(item), np.array(ann), np.array(lab)


def test_majority_hand_worked_with_a_tie_and_gold():
    # item 0: 0,0,1 -> 0; item 1: 0,1 -> tie; item 2: no vote; item 3: 1 but gold says 0
    agg = aggregate_labels([0, 0, 0, 1, 1, 3], [0, 1, 2, 0, 1, 0], [0, 0, 1, 0, 1, 1],
                           n_items=4, n_annotators=3, n_classes=2,
                           gold=np.array([-1, -1, -1, 0]))
    assert agg.label.tolist() == [0, -1, -1, 0]
    assert agg.tie.tolist() == [False, True, False, False]
    assert agg.posterior[0].tolist() == pytest.approx([2 / 3, 1 / 3])


def test_gold_resolves_a_tie():
    agg = aggregate_labels([0, 0], [0, 1], [0, 1], n_items=1, n_annotators=2, n_classes=2,
                           gold=np.array([1]))
    assert agg.label.tolist() == [1] and not agg.tie[0]


@pytest.mark.parametrize("with_gold", [False, True])
def test_dawid_skene_equals_crowd_kit(with_gold):
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    same = total = 0
    for seed in range(4):
        truth, item, ann, lab = _campaign(seed)
        n = len(truth)
        gold = np.full(n, -1)
        true_labels = None
        if with_gold:
            gi = np.random.default_rng(seed + 100).choice(n, 20, replace=False)
            gold[gi] = truth[gi]
            true_labels = pd.Series(truth[gi], index=gi)
        df = pd.DataFrame({"task": item, "worker": ann, "label": lab})
        ref = crowdkit.DawidSkene(n_iter=100).fit_predict(df, true_labels).sort_index()
        ours = aggregate_labels(item, ann, lab, n_items=n, n_annotators=5, n_classes=3,
                                method="dawid-skene", gold=gold)
        same += int((ours.label == ref.to_numpy()).sum())
        total += n
    assert same / total >= 0.99


def test_dawid_skene_beats_majority_with_a_biased_annotator():
    ds_right = mv_right = 0
    for seed in range(5):
        truth, item, ann, lab = _campaign(seed)
        kw = dict(n_items=len(truth), n_annotators=5, n_classes=3)
        ds = aggregate_labels(item, ann, lab, method="dawid-skene", **kw)
        mv = aggregate_labels(item, ann, lab, **kw)
        ds_right += int((ds.label == truth).sum())
        mv_right += int((mv.label == truth).sum())  # a tie (-1) counts as wrong
    assert ds_right > mv_right


def test_confusion_recovers_the_biased_annotator():
    truth, item, ann, lab = _campaign(0, n=1500)
    ds = aggregate_labels(item, ann, lab, n_items=len(truth), n_annotators=5, n_classes=3,
                          method="dawid-skene")
    # annotator 4 says 0 for true class 1 about half the time (+ nothing else): e[4, 0, 1] ~ 0.5
    assert ds.confusion[4, 0, 1] == pytest.approx(0.5, abs=0.08)
    assert ds.confusion[0, 1, 1] == pytest.approx(0.9 + 0.1 / 3, abs=0.05)


def test_bad_codes_and_method():
    with pytest.raises(DataError, match="aggregation"):
        aggregate_labels([0], [0], [0], n_items=1, n_annotators=1, n_classes=2, method="mean")
    with pytest.raises(DataError, match="label code"):
        aggregate_labels([0], [0], [5], n_items=1, n_annotators=1, n_classes=2)


def test_dawid_skene_with_no_vote_outside_gold_items_keeps_gold_without_warnings():
    """Every item labelled by the gold annotator only (its votes passed as gold, none left):
    nothing to learn; the gold labels stand, the priors are the gold classes' shares, no NaN
    and no warning (an empty mean warned and gave NaN priors before)."""
    import warnings

    from core.evaluation.annotators.aggregate import aggregate_labels

    empty = np.array([], dtype=np.int64)
    gold = np.array([0, 1, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agg = aggregate_labels(empty, empty, empty, n_items=4, n_annotators=1, n_classes=3,
                               method="dawid-skene", gold=gold)
    assert agg.label.tolist() == [0, 1, 1, 2] and not agg.tie.any()
    assert agg.priors.tolist() == [0.25, 0.5, 0.25]
