"""``core.data.keys``: ids, labels and group values as text; a missing cell; values in a message."""

import io

import numpy as np
import pandas as pd
import pytest

from core.data.keys import is_missing, label_key, some_values


def test_label_key_writes_ids_and_labels_as_a_user_does():
    assert label_key(2.0) == "2" and label_key(np.float32(7.0)) == "7"
    assert label_key(2.5) == "2.5" and label_key(float("inf")) == "inf"
    assert label_key(float("nan")) == "nan"
    assert label_key(np.int64(3)) == "3" and label_key(np.True_) == "True"
    assert label_key(" yes ") == "yes" and label_key(" yes ", strip=False) == " yes "


def test_label_key_makes_a_csv_float_id_match_an_integer_id():
    """CSV readers turn an integer column with gaps into floats: both read as the same key."""
    as_read = pd.read_csv(io.StringIO("id\n1\n\n3\n"))["id"].dropna()
    assert [label_key(v) for v in as_read] == [label_key(1), label_key(3)] == ["1", "3"]
    assert label_key(False) == "False" and label_key(-0.0) == "0"


@pytest.mark.parametrize("v,missing", [
    (None, True), (pd.NA, True), (pd.NaT, True), (float("nan"), True), (np.float32("nan"), True),
    ("", True), ("   \t", True), (" x ", False), (0, False), (0.0, False), ("nan", False),
    (False, False),
])
def test_is_missing(v, missing):
    assert is_missing(v) is missing


def test_some_values_quotes_strings_and_counts_the_rest():
    assert some_values(["a", 2, "c"]) == "'a', 2, 'c'"
    assert some_values(range(8), limit=3) == "0, 1, 2 and 5 more"
    assert some_values([]) == ""


def test_missing_cells_are_the_empty_ones_only():
    for v in (None, pd.NA, pd.NaT, float("nan"), np.float32("nan"), "", "   ", "\t"):
        assert is_missing(v), repr(v)
    for v in (0, 0.0, "0", "nan", False, "x", np.int64(0), float("inf")):
        assert not is_missing(v), repr(v)  # "nan" typed by a user is a value, not an empty cell
