"""core.clembench.metrics, split from tests/core/test_clembench.py (tests named after the module they test)."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction
from pathlib import Path
import numpy as np
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score
import core.clembench as sk
from core.errors import DataError
from tests.core.clembench_support import (
    NAN,
    RECORDED,
)


# ---------------------------------------------------------------------------------------------
# recorded clembench episodes: every key equal to scores.json
# ---------------------------------------------------------------------------------------------


def test_kappa_agrees_with_sklearn_on_recorded_probes(shared_data: Path):
    for rel in RECORDED[:4]:
        log = json.loads((shared_data / "clembench" / rel / "interactions.json").read_text())
        gold = [p["gt"] for rnd in log["probes"] for p in rnd]
        pred = [p["value"] for rnd in log["probes"] for p in rnd]
        assert sk.cohen_kappa(gold, pred) == cohen_kappa_score(gold, pred)


# ---------------------------------------------------------------------------------------------
# metric functions, hand-computed
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, expected", [(1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2), (15, 7)])
def test_middle_round(n, expected):
    assert sk.middle_round(n) == expected


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "5"])
def test_middle_round_rejects(bad):
    with pytest.raises(DataError):
        sk.middle_round(bad)


def test_probe_accuracy_hand_and_sklearn():
    assert sk.probe_accuracy([0, 0, 1, 1, 1], [0, 1, 1, 1, 0]) == 3 / 5
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        t, p = rng.integers(0, 2, n).tolist(), rng.integers(0, 2, n).tolist()
        assert sk.probe_accuracy(t, p) == accuracy_score(t, p)
    with pytest.raises(DataError, match="empty"):
        sk.probe_accuracy([], [])
    with pytest.raises(DataError, match="y_pred has 2"):
        sk.probe_accuracy([0, 1, 1], [0, 1])
    with pytest.raises(DataError, match="position 1"):
        sk.probe_accuracy([0, 2], [0, 1])


def test_cohen_kappa_hand_computed():
    # gt [0,0,0,1,1,1], answers [0,0,1,1,1,0]: po = 4/6, pe = 0.5*0.5 + 0.5*0.5 = 1/2
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    assert sk.cohen_kappa([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 0]) == pytest.approx(1 / 3, abs=1e-15)
    # 2x2 table (a=8 agree-0, b=2, c=1, d=4): po = 12/15, pe = (10*9 + 5*6)/225 = 120/225
    gold = [0] * 10 + [1] * 5
    pred = [0] * 8 + [1] * 2 + [0] * 1 + [1] * 4
    po, pe = Fraction(12, 15), Fraction(10 * 9 + 5 * 6, 225)
    assert sk.cohen_kappa(gold, pred) == pytest.approx(float((po - pe) / (1 - pe)), abs=1e-15)
    # tie: po == pe gives exactly 0.0; inverted answers give -1
    assert sk.cohen_kappa([0, 0, 1, 1], [0, 1, 0, 1]) == 0.0
    assert sk.cohen_kappa([0, 0, 1, 1], [1, 1, 0, 0]) == -1.0
    # one common label only: undefined
    assert math.isnan(sk.cohen_kappa([0, 0, 0], [0, 0, 0]))
    assert math.isnan(sk.cohen_kappa([1, 1], [1, 1]))


def test_cohen_kappa_matches_sklearn_to_the_last_digit():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(2, 80))
        t, p = rng.integers(0, 2, n).tolist(), rng.integers(0, 2, n).tolist()
        ours = sk.cohen_kappa(t, p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = cohen_kappa_score(t, p)
        assert (math.isnan(ours) and math.isnan(ref)) or ours == ref


def test_truncated_kappa_python_max_semantics():
    assert sk.truncated_kappa(0.25) == 0.25
    for v in (-0.4, 0.0, -0.0, NAN):
        out = sk.truncated_kappa(v)
        assert out == 0 and type(out) is int


def test_main_score_rules():
    assert math.isnan(sk.main_score(NAN, NAN))
    assert math.isnan(sk.main_score(1.0, NAN))
    out = sk.main_score(0.0, 0)
    assert out == 0 and type(out) is int  # sf + tk == 0
    assert sk.main_score(1.0, 0) == 0.0 and type(sk.main_score(1.0, 0)) is float
    # clembench's recorded values (order of operations matters to the last bit)
    assert sk.main_score(1.0, 0.5333333333333333) == 69.56521739130436
    assert sk.main_score(1.0, 0.2666666666666667) == 42.10526315789475
    assert sk.main_score(1.0, 0.8666666666666667) == 92.85714285714286
    assert sk.main_score(1.0, 0.9833333333333333) == 99.15966386554621
    # harmonic mean by hand: 2 * 0.5 * 0.5 / 1.0 = 0.5
    assert sk.main_score(0.5, 0.5) == 50.0
