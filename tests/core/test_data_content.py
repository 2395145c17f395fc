"""The content id of a table (``core.data.content``): the same for the same table whatever its
file format or dtype spelling, different for any change of a value, name or order, and
SHA-256 of the documented canonical form (rebuilt here with hashlib and pandas' hashing)."""

from __future__ import annotations

import hashlib
import io

import numpy as np
import pandas as pd

from core.data.content import CONTENT_ID_VERSION, content_id
from core.demo import make_demo


def test_content_id_is_the_same_whatever_the_file_format():
    df = make_demo()
    buf = io.BytesIO()
    df.to_parquet(buf, index=False)
    from_parquet = pd.read_parquet(io.BytesIO(buf.getvalue()))
    from_csv = pd.read_csv(io.StringIO(df.to_csv(index=False)))
    assert content_id(df) == content_id(from_parquet) == content_id(from_csv)
    assert content_id(df.astype({"human_label": "float64", "system": object})) == content_id(df)
    assert len(content_id(df)) == 64


def test_content_id_tells_tables_apart():
    df = pd.DataFrame({"x": [1.0, 2.0, np.nan], "t": ["a", None, "b"]})
    base = content_id(df)
    assert content_id(df.assign(x=[1.0, 2.0 + 1e-12, np.nan])) != base  # the last digit
    assert content_id(df.assign(t=["a", "", "b"])) != base  # missing is not empty text
    assert content_id(df.rename(columns={"x": "y"})) != base
    assert content_id(df[["t", "x"]]) != base  # column order
    assert content_id(df.iloc[::-1].reset_index(drop=True)) != base  # row order
    assert content_id(df.set_axis([5, 6, 7])) == base  # the index is not content


def test_missing_spellings_and_integer_dtypes_read_alike():
    a = pd.DataFrame({"n": [1, 2, None], "t": ["a", None, "c"]})
    b = pd.DataFrame({"n": pd.array([1, 2, pd.NA], dtype="Int64"),
                      "t": pd.array(["a", pd.NA, "c"], dtype="string")})
    c = pd.DataFrame({"n": [1.0, 2.0, np.nan], "t": ["a", np.nan, "c"]})
    assert content_id(a) == content_id(b) == content_id(c)
    # a boolean column is not the numbers 0 and 1
    assert content_id(pd.DataFrame({"b": [True, False]})) != \
        content_id(pd.DataFrame({"b": [1.0, 0.0]}))


def test_the_id_is_sha256_of_the_documented_canonical_form():
    df = pd.DataFrame({"x": [1, 2], "t": ["a", None]})
    h = hashlib.sha256(CONTENT_ID_VERSION)
    h.update(b"2x2")
    # x: numbers as float64, hashed without the index, then the packed missing mask
    xs = pd.util.hash_pandas_object(pd.Series([1.0, 2.0]), index=False).to_numpy()
    h.update(b"\0x\0")
    h.update(hashlib.sha256(xs.tobytes() + np.packbits([False, False]).tobytes()).digest())
    # t: text, a missing value as "" plus its bit in the mask
    ts = pd.util.hash_pandas_object(pd.Series(["a", ""], dtype=object), index=False).to_numpy()
    h.update(b"\0t\0")
    h.update(hashlib.sha256(ts.tobytes() + np.packbits([False, True]).tobytes()).digest())
    assert content_id(df) == h.hexdigest()
    assert CONTENT_ID_VERSION == b"hmceval-content-1"


def test_an_empty_table_has_an_id_and_shape_counts():
    assert content_id(pd.DataFrame()) != content_id(pd.DataFrame({"a": []}))
    assert content_id(pd.DataFrame({"a": [1]})) != content_id(pd.DataFrame({"a": [1, 1]}))
