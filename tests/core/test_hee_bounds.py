"""Numeric bounds of core.hee: values the random forest (32-bit floats) or a sum cannot hold end in
a DataError naming the column and row, for the CLI and the Effort page alike (issue 12)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.hee import cross_validate_effort, estimate_effort, features_from_samples, split_effort
from core.hee.columns import MAX_FEATURE_MAGNITUDE, MAX_TURNS, check_feature_range

F32_MAX = 3.4028234663852886e38  # numpy.finfo(numpy.float32).max written out


def table(n: int = 12) -> pd.DataFrame:
    return pd.DataFrame({
        "dialogue_id": np.arange(1, n + 1),
        "total_turns": np.arange(n) % 4 + 2,
        "n_words": np.arange(n) * 3.0 + 1.0,
        "time": np.arange(n) * 2.0 + 5.0,
    })


def test_bound_is_the_float32_maximum():
    assert MAX_FEATURE_MAGNITUDE == F32_MAX
    assert MAX_TURNS == 2_147_483_647


@pytest.mark.parametrize("value", [1e39, -1e39, 1e200, np.finfo(float).max])
def test_estimate_effort_refuses_a_feature_beyond_float32_naming_column_and_row(value):
    df = table().astype({"n_words": object})
    df.loc[6, "n_words"] = value
    with pytest.raises(DataError) as err:
        estimate_effort(df, time_col="time", features=["total_turns", "n_words"], n_splits=2)
    msg = str(err.value)
    assert "feature column 'n_words'" in msg and "row 7" in msg and "32-bit" in msg
    assert f"{value:g}" in msg


def test_value_at_the_bound_is_accepted():
    df = table()
    df.loc[6, "n_words"] = F32_MAX
    df.loc[7, "n_words"] = -F32_MAX
    res = estimate_effort(df, time_col="time", features=["total_turns", "n_words"], n_splits=2)
    assert res.predictions["predicted_norm"].notna().all()


def test_array_paths_refuse_too_large_features():
    X = np.ones((6, 2))
    X[2, 1] = 5e38
    with pytest.raises(DataError, match=r"feature column 'b' .* row 3 \(first value 5e\+38\)"):
        cross_validate_effort(X, np.arange(6.0), n_splits=2, features=["a", "b"])
    with pytest.raises(DataError, match="feature column 'x1'"):
        split_effort(X, np.arange(6.0), np.array(["train"] * 3 + ["test"] * 3))


def test_check_feature_range_names_the_first_bad_column_and_all_its_rows():
    X = np.zeros((4, 3))
    X[[1, 3], 2] = [-4e38, 4e38]
    with pytest.raises(DataError, match="feature column 'c' .* rows 2, 4"):
        check_feature_range(X, ["a", "b", "c"])
    check_feature_range(np.full((2, 1), 3.0e38), ["a"])  # inside: no error


def test_turn_count_beyond_int32_is_refused():
    df = table().astype({"total_turns": object})
    df.loc[2, "total_turns"] = 1e39
    with pytest.raises(DataError, match=r"'total_turns' \(number of turns\) .* >= 1 and <= 2147483647; row 3"):
        estimate_effort(df, time_col="time", features=["n_words"], n_splits=2)


def test_effort_sum_that_overflows_names_the_dialogue():
    s = pd.DataFrame({"dlg": [1, 1, 2], "text": ["hi there", "go away", "why"],
                      "eff": [1e308, 1e308, 1.0]})
    with pytest.raises(DataError, match="effort column 'eff': the total effort of dialogue 1 exceeds"):
        features_from_samples(s, dialogue_col="dlg", text_col="text", effort_col="eff")


@pytest.mark.parametrize("setting, value, message", [
    ("random_state", 2**32, "the seed must be a whole number from 0 to 4,294,967,295, got 4294967296"),
    ("random_state", -1, "the seed must be"),
    ("n_estimators", 0, "the number of trees must be a whole number from 1 to 10,000, got 0"),
    ("n_estimators", 10_001, "the number of trees must be"),
    ("n_jobs", 0, "the parallel jobs must be -1 (every processor) or a whole number from 1 to 256, got 0"),
    ("permutation_repeats", -1, "the permutation-importance repeats must be a whole number from 0 to 1,000"),
    ("n_estimators", 5.0, "the number of trees must be"),
])
def test_forest_settings_out_of_bounds_are_refused_by_name(setting, value, message):
    X = np.arange(20.0).reshape(10, 2)
    for fit in (lambda **kw: cross_validate_effort(X, np.arange(10.0), n_splits=2, **kw),
                lambda **kw: split_effort(X, np.arange(10.0), np.array(["train"] * 6 + ["test"] * 4), **kw)):
        with pytest.raises(DataError) as err:
            fit(**{setting: value})
        assert message in str(err.value)


def test_forest_settings_at_their_bounds_are_accepted():
    X = np.arange(20.0).reshape(10, 2)
    res = cross_validate_effort(X, np.arange(10.0), n_splits=2, random_state=2**32 - 1, n_estimators=1,
                                n_jobs=-1, permutation_repeats=0)
    assert res.params["random_state"] == 2**32 - 1 and res.params["n_estimators"] == 1
