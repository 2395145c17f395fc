"""The one error type for bad user input (``core.errors``): what it is, how rows are named in
messages (1-based, the first five, then a count) and plain values for messages."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import DataError, describe_rows, plain_value


def test_data_error_is_a_value_error_carrying_its_message_unchanged():
    assert issubclass(DataError, ValueError)
    with pytest.raises(ValueError) as info:
        raise DataError("column 'x': row 3")
    assert str(info.value) == "column 'x': row 3"


@pytest.mark.parametrize("rows,text", [
    ([0], "row 1"),
    ([2, 6], "rows 3, 7"),
    (np.array([4, 0, 9]), "rows 5, 1, 10"),  # as given, not sorted
    (range(5), "rows 1, 2, 3, 4, 5"),
    (range(7), "rows 1, 2, 3, 4, 5 and 2 more"),
    ([np.int64(41)], "row 42"),
])
def test_describe_rows_is_one_based_and_counts_the_rest(rows, text):
    assert describe_rows(rows) == text


def test_describe_rows_limit():
    assert describe_rows(range(4), limit=2) == "rows 1, 2 and 2 more"


def test_plain_value_unwraps_numpy_scalars_only():
    for v, want in [(np.int64(1), 1), (np.float32(0.5), 0.5), (np.bool_(True), True),
                    (np.str_("a"), "a")]:
        got = plain_value(v)
        assert got == want and type(got) is type(want)
    arr = np.array([1, 2])
    assert plain_value(arr) is arr and plain_value("x") == "x" and plain_value(None) is None
    assert repr(plain_value(np.int64(7))) == "7"
