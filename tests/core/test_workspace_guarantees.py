"""The guarantee round's two guarantees before any label is read (core.workspace.guarantees)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.assignment import SAEInputs
from core.data import prepare
from core.errors import DataError
from core.evaluation.certify.simulate import simulate_certify
from core.workspace.guarantees import GUARANTEES, certify_preview, guarantee_level, guarantee_previews


def _data(m: int, wrong: np.ndarray, seed: int = 0):
    rng = np.random.default_rng(seed)
    conf = np.round(rng.uniform(0.5, 1.0, m), 3)
    machine = rng.integers(0, 2, m)
    gold = np.where(wrong, 1 - machine, machine)
    frame = pd.DataFrame({"sample_id": np.arange(m), "machine_label": machine,
                          "human_label": gold, "confidence": conf})
    return prepare(frame, name="t")


def _settings(**kw):
    return {"calibration": 200, "alpha": 0.05, "overall_error": 0.05, "delta": 0.1,
            "lam": 0.0, "seed": 0, **kw}


def test_guarantee_level_names_exactly_one_level():
    assert guarantee_level(_settings()) == {"alpha": 0.05, "overall_error": None}
    assert guarantee_level(_settings(guarantee="overall", overall_error=0.02)) == {
        "alpha": None, "overall_error": 0.02}
    with pytest.raises(DataError, match="guarantee must be one of"):
        guarantee_level(_settings(guarantee="both"))


def test_a_machine_that_is_never_wrong_keeps_every_other_row_under_both():
    """No machine error: the overall guarantee keeps every row outside the calibration
    sample in every round ((M - n) / M saved, exactly); the selective one too (0 errors in
    200 rows passes a Clopper-Pearson test at alpha 0.05, delta 0.1 wherever it starts)."""
    data = _data(1000, np.zeros(1000, bool))
    table = guarantee_previews(data, _settings(), rounds=20)
    assert list(table["guarantee"]) == list(GUARANTEES.values())
    assert table["median_kept"].tolist() == [800, 800]
    assert table["median_saving"].tolist() == [0.8, 0.8]
    assert table["violation_rate"].tolist() == [0.0, 0.0]
    assert table["certified_rate"].tolist() == [1.0, 1.0]
    assert table["basis"].iloc[0] == "the gold labels"


def test_an_error_budget_above_the_machines_whole_error_keeps_everything():
    """epsilon 0.1 with 5 % of rows wrong: no kept set can break it (c + 1 > M - n), so every
    row outside the calibration sample is kept and nothing fails."""
    wrong = np.zeros(1000, bool)
    wrong[::20] = True
    sim = certify_preview(_data(1000, wrong), _settings(guarantee="overall", overall_error=0.1),
                          rounds=10)
    assert sim["median_machine_share"] == 1.0 and sim["violation_rate"] == 0.0


def test_overall_error_violations_stay_within_delta_on_known_truth():
    """Errors concentrated on the least confident rows plus a few confident ones: over 400
    calibration samples the share of rounds where the kept rows hold more than epsilon * M
    machine errors is at most delta + 2 points, and something is kept."""
    rng = np.random.default_rng(3)
    m = 2000
    conf = rng.uniform(0.5, 1.0, m)
    wrong = rng.random(m) < (1 - conf) * 0.5
    inp = SAEInputs(a=conf, l=np.ones(m), b=np.ones(m), k=np.zeros(m))
    sim = simulate_certify(inp, errors=wrong, epsilon=0.05, delta=0.1, calibration=300,
                           rounds=400, seed=1)
    assert sim.summary["violation_rate"] <= 0.12
    assert sim.summary["median_machine_share"] > 0.2
    # a kept set's machine errors, recounted from the truth in each failed round, exceed 5 % of M
    failed = sim.rounds[sim.rounds["violation"]]
    assert (failed["true_error"] * failed["machine_share"] * (m - 300) > 0.05 * m - 1e-9).all()


def test_one_level_exactly():
    inp = SAEInputs(a=np.full(10, 0.9), l=np.ones(10), b=np.ones(10), k=np.zeros(10))
    with pytest.raises(DataError, match="exactly one of alpha"):
        simulate_certify(inp, errors=np.zeros(10, bool), alpha=0.1, epsilon=0.1, delta=0.1,
                         calibration=5, rounds=1)
    with pytest.raises(DataError, match="exactly one of alpha"):
        simulate_certify(inp, errors=np.zeros(10, bool), delta=0.1, calibration=5, rounds=1)
