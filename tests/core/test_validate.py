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
