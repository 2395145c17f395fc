"""Input checks of the agreement, true-score and fairness statistics (``core.rsm.checks``):
score arrays, pairs, group labels and their order, magnitudes and numeric columns, each bad
input a DataError naming what and which rows (1-based)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.defaults import MAX_SCORE
from core.errors import DataError
from core.rsm.checks import (MAX_GROUPS, as_scores, by_label, check_groups, check_level_count,
                             check_magnitude, check_pair, group_codes, group_levels,
                             group_order, is_constant, numeric_column, one_blas_thread,
                             optional_scores, sample_sd)


def test_group_codes_follow_group_order():
    # b: 3, a: 3 (tie, by label), c: 1; missing labels get -1; labels keep their type
    codes, levels = group_codes(np.array(["b", "a", "c", "b", None, "a", "a", "b"], dtype=object))
    assert levels == ["a", "b", "c"]
    assert codes.tolist() == [1, 0, 2, 1, -1, 0, 0, 1]
    codes, levels = group_codes(np.array([2.0, 1.0, 1.0]))
    assert levels == [1.0, 2.0] and codes.tolist() == [1, 0, 0]
    # mixed types: ties ordered by their text, 1 and "1" stay distinct
    assert group_codes(np.array([1, "1", 2, 2], dtype=object))[1] == [2, 1, "1"]


def test_as_scores_reads_lists_series_and_missing_values():
    assert as_scores([1, 2, 3], "h").tolist() == [1.0, 2.0, 3.0]
    assert as_scores(pd.Series([True, False]), "h").tolist() == [1.0, 0.0]
    with pytest.raises(DataError, match=r"^h: missing or non-finite score in rows 2, 4$"):
        as_scores(pd.Series([1.0, None, 2.0, np.inf]), "h")
    with pytest.raises(DataError, match=r"^h: missing or non-finite score in row 1$"):
        as_scores(pd.array([pd.NA, 1], dtype="Int64"), "h")
    with pytest.raises(DataError, match="^h: scores must be numeric"):
        as_scores(["1", "high"], "h")
    with pytest.raises(DataError, match=r"expected a 1-D array of scores, got shape \(2, 2\)"):
        as_scores([[1, 2], [3, 4]], "h")


def test_optional_scores_keep_missing_ratings():
    out = optional_scores([1, None, 3], 3, "h2")
    assert out[0] == 1 and math.isnan(out[1]) and out[2] == 3
    with pytest.raises(DataError, match="^h2: expected 3 ratings, got 2$"):
        optional_scores([1, 2], 3, "h2")
    with pytest.raises(DataError, match=r"^h2: infinite rating in row 2$"):
        optional_scores([1, -np.inf], 2, "h2")


def test_check_pair():
    h, m = check_pair([1, 2], (2.0, 3.5))
    assert h.tolist() == [1.0, 2.0] and m.tolist() == [2.0, 3.5]
    with pytest.raises(DataError, match=r"differ in length \(2 vs 3\)"):
        check_pair([1, 2], [1, 2, 3])
    with pytest.raises(DataError, match="no responses to evaluate"):
        check_pair([], [])
    assert check_pair([], [], allow_empty=True)[0].shape == (0,)
    with pytest.raises(DataError, match="^y_pred: missing"):
        check_pair([1, 2], [1, np.nan])


def test_sample_sd_and_is_constant_by_hand():
    # 2, 4, 4, 4, 5, 5, 7, 9: population sd 2, sample sd sqrt(32 / 7)
    x = np.array([2, 4, 4, 4, 5, 5, 7, 9], dtype=float)
    assert sample_sd(x, ddof=0) == pytest.approx(2.0)
    assert sample_sd(x) == pytest.approx(math.sqrt(32 / 7))
    assert math.isnan(sample_sd(np.array([3.0])))
    assert is_constant(np.array([2.0, 2.0])) and not is_constant(np.array([2.0, 2.5]))


def test_group_order_is_by_size_then_label():
    assert group_order(pd.Series(["x", "y", "y", "z", "z", "z"])) == ["z", "y", "x"]
    assert group_order(["b", "a"]) == ["a", "b"]
    assert group_levels(np.array(["m", "f", "f"], dtype=object), "sex") == ["f", "m"]


def test_check_groups_names_the_column_and_rows():
    assert check_groups(pd.Series(["a", "b"]), 2).tolist() == ["a", "b"]
    with pytest.raises(DataError, match="^L1: 3 group labels for 2 responses$"):
        check_groups(["a", "b", "c"], 2, "L1")
    with pytest.raises(DataError, match=r"^L1: missing group label in row 2$"):
        check_groups(["a", None], 2, "L1")


def test_more_than_max_groups_is_refused_as_an_id_column():
    assert MAX_GROUPS == 100
    check_level_count(list(range(MAX_GROUPS)), "g")
    with pytest.raises(DataError, match=r"^id: 101 distinct labels; .* at most 100 \(is it an id column\?\)$"):
        group_levels(np.arange(101).astype(object), "id")


def test_check_magnitude_names_the_row():
    check_magnitude(np.array([MAX_SCORE, -MAX_SCORE, np.nan, np.inf]), "s")  # bound and non-finite pass
    with pytest.raises(DataError, match=r"^s: score 2e\+15 in row 2 is beyond 1e\+15"):
        check_magnitude(np.array([1.0, 2e15]), "s")
    with pytest.raises(DataError, match=r"in row 11 "):
        check_magnitude(np.array([1.0, 2e15]), "s", rows=[4, 10])


def test_numeric_column():
    df = pd.DataFrame({"sc": [1, 2, None], "t": ["a", "b", "c"]})
    out = numeric_column(df, "sc", allow_missing=True)
    assert out[:2].tolist() == [1.0, 2.0] and math.isnan(out[2])
    with pytest.raises(DataError, match="column 'sc'"):
        numeric_column(df, "sc", allow_missing=False)
    with pytest.raises(DataError, match=r"^column 'x' not found \(columns: sc, t\)$"):
        numeric_column(df, "x", allow_missing=True)
    with pytest.raises(DataError, match="column 't'"):
        numeric_column(df, "t", allow_missing=True)
    with pytest.raises(DataError, match=r"column 'sc': score -1e\+16 in row 1"):
        numeric_column(pd.DataFrame({"sc": [-1e16]}), "sc", allow_missing=False)


def test_one_blas_thread_limits_blas_inside_only():
    from threadpoolctl import threadpool_info

    with one_blas_thread():
        inside = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
        assert all(n == 1 for n in inside)


def test_by_label_is_rsmevals_row_order():
    # by the labels' text (code points: digits, then capitals, then small letters), "All data"
    # among them, numbers by their text; not by size and not as numbers (10 before 9)
    assert by_label(["b", "Zed", "All data", "1", 9, "a b", 10]) == ["1", 10, 9, "All data", "Zed", "a b", "b"]
    assert by_label(["QUESTION_2", "All data", "QUESTION_1"]) == ["All data", "QUESTION_1", "QUESTION_2"]
    assert by_label([]) == []
