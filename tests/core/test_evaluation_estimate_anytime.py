"""Confidence sequences of a labelling stream (``core.evaluation.estimate.anytime``): the boundary against
GLIDE 0.11's own code (a test-only oracle, unpacked by ``make glide``), the Des Raj-type terms
by hand and by exact enumeration of every draw, time-uniform coverage and decisions by
simulation on tables whose truth is known (rare class, overconfident judge, verbal ties, three
classes, a small group)."""

from __future__ import annotations

import itertools
import zlib

import numpy as np
import pytest

from core.errors import DataError
from core.evaluation.estimate.anytime import Target, anytime_estimate, parse_decision, sequence_terms
from core.evaluation.sampling.stream import draw_stream, stream_weights


def test_plain_random_stream_equals_glide_on_its_batch_estimates(glide_bounds):
    """A uniform stream's trace is GLIDE's sequence on the stream's per-label estimates and
    standard errors (each label a batch), and its decision is GLIDE's test."""
    compute, sequence = glide_bounds
    rng = np.random.default_rng(5)
    m, k = 1500, 2
    q = rng.choice([0.6, 0.7, 0.8, 0.9, 0.95], m)
    machine = rng.integers(0, k, m)
    right = rng.random(m) < q - 0.05
    gold = np.where(right, machine, 1 - machine)
    plan = draw_stream(stream_weights(np.c_[q, 1 - q], design="uniform"), 400, seed=3)
    targets = [Target("share", c, np.ones(m, dtype=bool)) for c in range(k)]
    terms, sds, _ = sequence_terms(targets, machine=machine, confidence=q, n_classes=k,
                                   order=plan.order, draw_probability=plan.draw_probability,
                                   human=gold[plan.order], weights=plan.weights)
    res = anytime_estimate(classes=[0, 1], machine=machine, confidence=q, order=plan.order,
                           draw_probability=plan.draw_probability, human=gold[plan.order],
                           weights=plan.weights, trace_every=1, tightest_at=150,
                           decide="share(1) <= 0.6")
    ref_mean, ref_low = compute(terms[:, 1], sds[:, 1], 0.025, 150)
    _, ref_neg = compute(-terms[:, 1], sds[:, 1], 0.025, 150)
    lows = np.array([t["class_shares"]["1"]["ci_low"] for t in res["trace"]])
    highs = np.array([t["class_shares"]["1"]["ci_high"] for t in res["trace"]])
    np.testing.assert_allclose(lows, np.clip(ref_low, 0, 1), atol=1e-12)
    np.testing.assert_allclose(highs, np.clip(-ref_neg, 0, 1), atol=1e-12)
    # the result carries those per-label estimates and errors: GLIDE needs nothing else
    np.testing.assert_array_equal(res["batches"]["class_shares"]["1"]["estimates"], terms[:, 1])
    np.testing.assert_array_equal(res["batches"]["class_shares"]["1"]["stds"], sds[:, 1])
    # GLIDE's one-sided test ('smaller': alarm where the upper bound is below the threshold)
    upper = sequence(running_mean_estimates=ref_mean, confidence_bounds=-ref_neg)
    alarms = upper.test_null_hypothesis(0.6, alternative="smaller")
    first = int(np.flatnonzero(alarms)[0]) + 1
    assert res["decision"]["labels"] == first and res["decision"]["answer"] is True


def test_terms_by_hand_uniform_three_rows():
    # M = 3, machine says class 0 with confidence 0.8 on every row, control f = P(class 1) = 0.2
    # order 2, 0 (uniform: p_1 = 1/3, p_2 = 1/2), human labels 1 then 0.
    # Z_1 = 0 + 3 * 0.2 + (1 - 0.2) * 3 = 3.0 ; Z_2 = 1 + 2 * 0.2 + (0 - 0.2) * 2 = 1.0
    machine = np.zeros(3, dtype=np.int64)
    q = np.full(3, 0.8)
    t = [Target("share", 1, np.ones(3, dtype=bool))]
    terms, _, hits = sequence_terms(t, machine=machine, confidence=q, n_classes=2,
                                    order=np.array([2, 0]), draw_probability=np.array([1 / 3, 1 / 2]),
                                    human=np.array([1, 0]), recalibrate=False)
    np.testing.assert_allclose(terms[:, 0] * 3, [3.0, 1.0])
    np.testing.assert_array_equal(hits[:, 0], [1, 0])


def test_terms_unbiased_at_every_draw_by_enumeration():
    """E[Z_t] is the total exactly, for unequal weights, enumerating every ordered draw."""
    w = np.array([0.5, 1.0, 2.0, 3.5])
    machine = np.array([0, 1, 0, 1])
    q = np.array([0.9, 0.6, 0.7, 0.55])
    gold = np.array([0, 0, 1, 1])
    targets = [Target("share", 0, np.ones(4, dtype=bool)), Target("share", 1, np.ones(4, dtype=bool)),
               Target("accuracy", -1, np.ones(4, dtype=bool)),
               Target("accuracy", -1, np.array([True, False, True, False]))]
    truth = np.array([2 / 4, 2 / 4, 2 / 4, 1 / 2])
    expect = np.zeros((3, 4))
    for order in itertools.permutations(range(4), 3):
        order = np.array(order)
        p = np.empty(3)
        left = w.sum()
        for t, i in enumerate(order):
            p[t] = w[i] / left
            left -= w[i]
        terms, _, _ = sequence_terms(targets, machine=machine, confidence=q, n_classes=2,
                                     order=order, draw_probability=p, human=gold[order],
                                     weights=w, recalibrate=False)
        expect += p.prod() * terms
    for t in range(3):
        np.testing.assert_allclose(expect[t], truth, atol=1e-12)


def test_parse_decision():
    d = parse_decision("share(unsafe) <= 0.05")
    assert (d.kind, d.label, d.op, d.threshold) == ("share", "unsafe", "<=", 0.05)
    d = parse_decision("accuracy >= 90%")
    assert (d.kind, d.label, d.op, d.threshold) == ("accuracy", None, ">=", 0.9)
    for bad in ("share(x) == 0.1", "share(x) <= 2", "precision >= 0.5", "share() < 0.1", ""):
        with pytest.raises(DataError):
            parse_decision(bad)


def test_unknown_class_in_decision_and_empty_prefix():
    m = 50
    with pytest.raises(DataError, match="not one of"):
        anytime_estimate(classes=["a", "b"], machine=np.zeros(m, int), confidence=np.full(m, .9),
                         order=np.arange(5), draw_probability=np.full(5, 0.1),
                         human=np.full(5, -1), decide="share(c) <= 0.5")
    res = anytime_estimate(classes=["a", "b"], machine=np.zeros(m, int),
                           confidence=np.full(m, .9), order=np.arange(5),
                           draw_probability=np.full(5, 0.1), human=np.array([-1, 0, 0, 0, 0]))
    assert res["labels"] == 0 and res["labels_after_gap"] == 4
    assert res["class_shares"]["a"]["ci_low"] == 0.0 and res["class_shares"]["a"]["ci_high"] == 1.0


def judge(regime: str, m: int, rng):
    """A judge table with known truth: machine codes, confidences, gold, a small group."""
    k = 3 if regime == "three" else 2
    if regime == "rare":
        gold = (rng.random(m) < 0.03).astype(int)
    else:
        gold = rng.integers(0, k, m)
    q = {"overconfident": rng.uniform(0.85, 1.0, m), "ties": rng.choice([0.6, 0.8, 0.95], m),
         "rare": rng.uniform(0.7, 1.0, m), "three": rng.uniform(0.4, 1.0, m)}[regime]
    acc = q - 0.2 if regime == "overconfident" else q
    right = rng.random(m) < acc
    other = (gold + rng.integers(1, k, m)) % k
    machine = np.where(right, gold, other)
    group = np.where(rng.random(m) < 0.06, "small", "big")
    return machine, q, gold, group, k


@pytest.mark.parametrize("regime,design", [("rare", "weighted"), ("overconfident", "weighted"),
                                           ("ties", "uniform"), ("three", "weighted")])
def test_time_uniform_coverage(regime, design):
    """Over 120 streams of 300 labels, looked at every 10 labels: the share of streams in which
    ANY interval (any class, the final labels' accuracy, each group's) misses its truth stays
    near 0.05 (at most 0.10 at this count: 0.05 + 2.3 standard errors)."""
    rng = np.random.default_rng(zlib.crc32(regime.encode()))
    m = 2000
    machine, q, gold, group, k = judge(regime, m, rng)
    truth = np.bincount(gold, minlength=k) / m
    correct = machine == gold
    p = np.full((m, k), 0.0)
    p[np.arange(m), machine] = q
    w = stream_weights(np.where(p == 0, (1 - q[:, None]) / (k - 1), p), design=design)
    streams, missed = 120, 0
    for s in range(streams):
        plan = draw_stream(w, 300, seed=s)
        res = anytime_estimate(classes=list(range(k)), machine=machine, confidence=q,
                               order=plan.order, draw_probability=plan.draw_probability,
                               human=gold[plan.order], weights=plan.weights,
                               groups={"g": group}, trace_every=10)
        bad = False
        for tr in res["trace"]:
            n = tr["labels"]
            lab = np.zeros(m, bool)
            lab[plan.order[:n]] = True
            final = (correct | lab).mean()
            bad |= not tr["accuracy"]["ci_low"] <= final <= tr["accuracy"]["ci_high"]
            for c in range(k):
                iv = tr["class_shares"][str(c)]
                bad |= not iv["ci_low"] <= truth[c] <= iv["ci_high"]
        lab = np.zeros(m, bool)
        lab[plan.order[:res["labels"]]] = True
        for value, g in res["by_group"]["g"].items():
            rows = group == value
            final = (correct | lab)[rows].mean()
            bad |= not g["accuracy"]["ci_low"] <= final <= g["accuracy"]["ci_high"]
        missed += bad
    assert missed / streams <= 0.10, (regime, missed / streams)


def test_decisions_rarely_wrong_near_the_threshold():
    """The truth just inside and just outside the threshold: a decided answer is wrong in at
    most about alpha of the streams (0.05 + 2.3 standard errors at 150 streams)."""
    rng = np.random.default_rng(11)
    m = 3000
    wrong = 0
    total = 0
    for share in (0.27, 0.33):
        gold = (rng.random(m) < share).astype(int)
        truth = gold.mean()
        q = rng.uniform(0.6, 1.0, m)
        machine = np.where(rng.random(m) < q, gold, 1 - gold)
        w = stream_weights(np.c_[np.where(machine == 0, q, 1 - q), np.where(machine == 1, q, 1 - q)])
        for s in range(75):
            plan = draw_stream(w, 600, seed=s)
            res = anytime_estimate(classes=[0, 1], machine=machine, confidence=q,
                                   order=plan.order, draw_probability=plan.draw_probability,
                                   human=gold[plan.order], weights=plan.weights,
                                   decide="share(1) <= 0.3")
            total += 1
            d = res["decision"]
            if d["decided"]:
                wrong += d["answer"] != (truth <= 0.3)
    assert wrong / total <= 0.09, wrong / total


def test_terms_unbiased_after_a_replan_that_depends_on_the_labels():
    """Weights for the draws after the first chosen from the first label (a re-plan): every
    term still has the total as its mean, enumerating every ordered draw of three rows."""
    w0 = np.array([1.0, 2.0, 3.0, 1.5])
    machine = np.array([0, 1, 0, 1])
    q = np.array([0.9, 0.6, 0.7, 0.55])
    gold = np.array([0, 0, 1, 1])
    targets = [Target("share", 1, np.ones(4, dtype=bool)), Target("accuracy", -1, np.ones(4, bool))]
    truth = np.array([0.5, 0.5])

    def weights_after(first_label: int) -> np.ndarray:  # any rule of the labels so far
        return np.array([4.0, 1.0, 0.5, 2.0]) if first_label == 1 else np.array([1, 3, 1, 3.0])

    expect = np.zeros((3, 2))
    for order in itertools.permutations(range(4), 3):
        order = np.array(order)
        w1 = weights_after(gold[order[0]])
        p = np.empty(3)
        p[0] = w0[order[0]] / w0.sum()
        left = w1.sum() - w1[order[0]]
        for t in (1, 2):
            p[t] = w1[order[t]] / left
            left -= w1[order[t]]
        terms, _, _ = sequence_terms(targets, machine=machine, confidence=q, n_classes=2,
                                     order=order, draw_probability=p, human=gold[order],
                                     weights=[(0, w0), (1, w1)], recalibrate=False)
        expect += p.prod() * terms
    for t in range(3):
        np.testing.assert_allclose(expect[t], truth, atol=1e-12)


def test_coverage_with_replans_on_an_overconfident_judge():
    """A weighted stream re-planned after 60 and 150 labels on the recalibrated confidences:
    time-uniform miscoverage over 100 streams stays near 0.05 (at most 0.11)."""
    from core.evaluation.sampling.forecast import calibrated_probabilities
    from core.evaluation.sampling.stream import replan_stream

    rng = np.random.default_rng(21)
    m = 2000
    machine, q, gold, _, k = judge("overconfident", m, rng)
    truth = np.bincount(gold, minlength=k) / m
    p0 = np.c_[np.where(machine == 0, q, 1 - q), np.where(machine == 1, q, 1 - q)]
    missed = 0
    for s in range(100):
        plan = draw_stream(stream_weights(p0), 300, seed=s)
        for at in (60, 150):
            prob = calibrated_probabilities(machine, q, k, rows=plan.order[:at],
                                            human_codes=gold[plan.order[:at]],
                                            weights=1 / plan.draw_probability[:at])
            plan = replan_stream(plan, at, stream_weights(prob), seed=1000 + s + at)
        res = anytime_estimate(classes=[0, 1], machine=machine, confidence=q, order=plan.order,
                               draw_probability=plan.draw_probability, human=gold[plan.order],
                               weights=plan.segments, trace_every=10)
        missed += any(not tr["class_shares"][str(c)]["ci_low"] <= truth[c]
                      <= tr["class_shares"][str(c)]["ci_high"]
                      for tr in res["trace"] for c in range(k))
    assert missed / 100 <= 0.11, missed / 100
