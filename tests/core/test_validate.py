"""core.validate: the one numeric-column check, in the data contract's, the effort model's and
RSMTool's wording."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.validate import REPORT, TABLE, numeric_values


def test_values_and_bools():
    assert numeric_values(pd.Series(["1", 2, 3.5]), label="column 'x'").tolist() == [1.0, 2.0, 3.5]
    assert numeric_values(pd.Series([True, False]), label="column 'x'").tolist() == [1.0, 0.0]
    with pytest.raises(DataError, match="^column 'x' must be numeric; it holds true/false values$"):
        numeric_values(pd.Series([True, False]), label="column 'x'", bools="refuse")
    with pytest.raises(DataError, match="^column 'x' must be numeric; true/false in row 2$"):
        numeric_values(pd.Series([0.5, True], dtype=object), label="column 'x'", bools="refuse")
    got = numeric_values(pd.Series([1.0, None]), label="column 'x'", allow_missing=True)
    assert got[0] == 1.0 and np.isnan(got[1])


@pytest.mark.parametrize("values, wording, message", [
    (["1", "abc", None], TABLE, "column 'x' must be numeric; row 2 hold text such as 'abc'"),
    ([1, None, np.inf], TABLE, r"column 'x' has missing values \(NaN\) in row 2"),  # missing first
    ([1, 2, np.inf], TABLE, "column 'x' has infinite values in row 3"),
    (["1", "abc", None], REPORT, "column 'x': non-numeric value 'abc' in row 2"),
    ([1, None, np.inf], REPORT, "column 'x': infinite value in row 3"),  # infinite first
    ([1, None, 2], REPORT, "column 'x': missing value in row 2"),
])
def test_wordings_and_order(values, wording, message):
    with pytest.raises(DataError, match=f"^{message}$"):
        numeric_values(pd.Series(values, dtype=object), label="column 'x'", wording=wording)


def test_bounds():
    # the data contract's wording, kept as it was ("must be in >= 0")
    with pytest.raises(DataError,
                       match=r"^column 'c' \(effort\) must be in >= 0; rows 2, 3 are outside \(first value -1\)$"):
        numeric_values(pd.Series([0, -1, -2]), label="column 'c' (effort)", lo=0.0)
    with pytest.raises(DataError, match=r"must be in \[0, 1\]; row 1 is outside \(first value 1.5\)"):
        numeric_values(pd.Series([1.5, 0.5]), label="column 'c'", lo=0.0, hi=1.0)


# ---------------------------------------------------------------- labels: one typed rule (issue 24)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from core.validate import label_text, label_texts  # noqa: E402


@pytest.mark.parametrize("a, b", [(1, "1.0"), (1.0, " 1 "), (np.int64(2), "2.00"), (0.5, "0.50"),
                                  ("1e3", 1000), (" x ", "x"), (True, "True"),
                                  ("99999999999999999999", 99999999999999999999)])
def test_label_text_numbers_as_numbers(a, b):
    assert label_text(a) == label_text(b)


@pytest.mark.parametrize("a, b", [(1, "x"), ("1", "1.5"), ("nan", "inf"), ("99999999999999999999",
                                                                             "99999999999999999998")])
def test_label_text_tells_different_labels_apart(a, b):
    assert label_text(a) != label_text(b)


@pytest.mark.parametrize("v", [None, float("nan"), pd.NA, "", "   "])
def test_label_text_missing(v):
    assert label_text(v) is None


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=False, allow_infinity=False)))
def test_label_text_of_a_number_equals_that_of_its_written_forms(x):
    """A number read from a CSV as text (a column with one text cell) equals the number."""
    assert label_text(str(x)) == label_text(x) == label_text(f" {x} ")


def test_label_texts_per_distinct_value_and_unhashable_cells():
    s = pd.Series([1, "1.0", None, "a ", 2.5], dtype=object)
    assert label_texts(s).tolist() == ["1", "1", None, "a", "2.5"]
    assert label_texts(pd.Series([[1], "1"], dtype=object)).tolist() == ["[1]", "1"]
