"""core.hee.model, split from tests/core/test_hee.py (tests named after the module they test)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from core.errors import DataError
from core.hee import (
    cross_validate_effort,
    estimate_effort,
    sample_effort_table,
    split_effort,
)
from tests.core.hee_support import (  # noqa: F401  (pytest fixtures)
    _synthetic,
    release,
)


# --------------------------------------------------------------------------------------------
# The HMCEval release
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# The effort model on small synthetic data
# --------------------------------------------------------------------------------------------


def test_split_mode_matches_release_sample_structure(release, shared_data):
    res = estimate_effort(release, time_col="WorkTimeInSeconds", features="D+W",
                          split_col="my_split", n_jobs=2)
    assert res.mode == "split"
    assert res.folds[["n_train", "n_test"]].iloc[0].tolist() == [4801, 1199]
    assert res.predictions["predicted_norm"].notna().sum() == 1199
    samples = sample_effort_table(res)
    ilp = pd.read_csv(shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv", sep="\t")
    # the release's sample table has one row per turn of every test dialogue, in file order
    assert len(samples) == len(ilp) == 5673
    assert samples["n_turns"].tolist() == ilp["turns"].tolist()
    assert samples["turn"].tolist() == ilp["turn"].tolist()
    assert 0.6 < res.metrics["r2"] < 0.9


def test_cross_validate_learns_signal_and_importances():
    X, t = _synthetic()
    res = cross_validate_effort(X, t, n_splits=4, n_estimators=30, permutation_repeats=3,
                                random_state=1)
    assert res.params["max_features"] == 3  # fewer than 8 features: all of them
    assert res.metrics["r2"] > 0.9
    imp = res.importances.set_index("feature")
    assert imp["permutation"].idxmax() == "signal" and imp["impurity"].idxmax() == "signal"
    assert imp.loc["signal", "permutation"] > 0.5
    assert abs(imp.loc["noise1", "permutation"]) < 0.1
    # deterministic under a seed
    again = cross_validate_effort(X, t, n_splits=4, n_estimators=30, random_state=1)
    assert again.metrics == res.metrics


def test_effort_model_bad_input():
    X, t = _synthetic(20)
    with pytest.raises(DataError, match="at least 2") as info:
        cross_validate_effort(X, t, n_splits=1)
    assert str(info.value).startswith("Folds ") and "--" not in str(info.value)  # the page's control
    with pytest.raises(DataError, match="needs at least 30 dialogues"):
        cross_validate_effort(X, t, n_splits=30)
    with pytest.raises(DataError, match="max_features=5.*3 feature"):
        cross_validate_effort(X, t, max_features=5)
    with pytest.raises(DataError, match="constant"):
        cross_validate_effort(X, np.full(20, 7.0))
    bad_t = t.copy()
    bad_t[3] = -1
    with pytest.raises(DataError, match=">= 0.*row 4"):
        cross_validate_effort(X, bad_t)
    with pytest.raises(DataError, match="'train' or 'test'.*row 3"):
        split_effort(X, t, ["train", "test", "dev"] + ["train"] * 17)


def test_estimate_effort_bad_table(release):
    small = release.head(50).copy()
    with pytest.raises(DataError, match="time column 'secs' is not in the table"):
        estimate_effort(small, time_col="secs")
    bad = small.copy()
    bad["dia_dc_score"] = bad["dia_dc_score"].astype(object)
    bad.loc[4, "dia_dc_score"] = "n/a"
    with pytest.raises(DataError, match="'dia_dc_score' must be numeric; row 5"):
        estimate_effort(bad, time_col="WorkTimeInSeconds")
    bad = small.copy()
    bad.loc[[2, 9], "turns"] = np.nan
    with pytest.raises(DataError, match="'turns' has missing values.*rows 3, 10"):
        estimate_effort(bad, time_col="WorkTimeInSeconds")
    with pytest.raises(DataError, match="cannot also be a feature"):
        estimate_effort(small, time_col="WorkTimeInSeconds", features="turns,WorkTimeInSeconds")


def test_effort_result_is_frozen_and_built_whole():
    import dataclasses

    table = pd.DataFrame({"turns": [2, 3, 4, 5, 6, 7], "length": [10, 30, 20, 50, 40, 60],
                          "secs": [10, 20, 30, 40, 50, 60]})
    res = estimate_effort(table, time_col="secs", features="turns,length", n_splits=2, n_estimators=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.notices = []
    # estimate_effort's additions are in the result it built
    assert res.params["time_column"] == "secs" and res.params["n_dialogues"] == 6
    assert res.params["turns_column"] == "turns"
    assert res.predictions["dialogue_id"].tolist() == [1, 2, 3, 4, 5, 6]  # numbered by row
    assert res.predictions["n_turns"].tolist() == [2, 3, 4, 5, 6, 7]
    assert any("numbered by row" in n for n in res.notices)
    assert list(res.correlations["feature"]) == ["turns", "length"]


def test_permutation_importances_are_scikit_learns():
    """The stacked computation (one prediction of every permuted copy, issue 33) gives
    scikit-learn's ``permutation_importance`` numbers exactly, for a fixed seed and for the
    global generator's state."""
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.inspection import permutation_importance

    from core.hee.model import _permutation  # noqa: PLC2701  (the function under test)

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    y = 2 * X[:, 0] + X[:, 1] ** 2 + rng.normal(scale=0.3, size=60)
    model = RandomForestRegressor(n_estimators=15, random_state=0).fit(X[:40], y[:40])
    for seed in (42, 7):
        want = permutation_importance(model, X[40:], y[40:], n_repeats=3, random_state=seed,
                                      scoring="r2").importances
        assert np.array_equal(_permutation(model, X[40:], y[40:], 3, seed), want)
    np.random.seed(5)
    want = permutation_importance(model, X[40:], y[40:], n_repeats=2, random_state=None,
                                  scoring="r2").importances
    np.random.seed(5)
    assert np.array_equal(_permutation(model, X[40:], y[40:], 2, None), want)
