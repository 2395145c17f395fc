"""Reading and writing large Parquet tables batch by batch (core.scale.parquet)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.errors import DataError
from core.scale.parquet import (class_codes, detect_parquet_roles, read_columns, round_meta,
                                write_round_parquet)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.parquet"
    df = pd.DataFrame({"sample_id": np.arange(1, 11), "machine_label": list("ababababab"),
                       "confidence": np.linspace(0.5, 0.95, 10),
                       "selection": [None] * 9 + ["Audit "]})
    df.to_parquet(path, row_group_size=3)  # several row groups
    return path, df


def test_roles_classes_and_compact_columns(table):
    path, df = table
    roles = detect_parquet_roles(path)
    assert (roles["machine_label"], roles["machine_confidence"]) == ("machine_label",
                                                                     "confidence")
    classes = class_codes(path, ["machine_label"])
    assert classes == ["a", "b"]
    cols = read_columns(path, {"code": ("codes", "machine_label", classes, False),
                               "q": ("float", "confidence", 0.0, 1.0),
                               "s": ("selection", "selection")}.copy())
    np.testing.assert_array_equal(cols["code"], [0, 1] * 5)
    np.testing.assert_array_equal(cols["q"], df["confidence"].to_numpy())
    # "" (undecided) is the code after the four words; " Audit " is read as audit
    np.testing.assert_array_equal(cols["s"], [4] * 9 + [2])


def test_bad_values_name_the_row(tmp_path):
    path = tmp_path / "bad.parquet"
    pd.DataFrame({"machine_label": ["a", "b", "a"], "confidence": [0.5, 1.5, 0.7]}).to_parquet(
        path)
    with pytest.raises(DataError, match=r"'confidence' must hold numbers in \[0, 1\]; row 2 "
                                        r"holds 1\.5"):
        read_columns(path, {"q": ("float", "confidence", 0.0, 1.0)})
    one = tmp_path / "one.parquet"
    pd.DataFrame({"machine_label": ["a", "a"]}).to_parquet(one)
    with pytest.raises(DataError, match="at least two classes"):
        class_codes(one, ["machine_label"])


def test_round_table_written_in_row_order_with_its_record(table, tmp_path):
    path, df = table
    out = tmp_path / "out.parquet"
    starts = []

    def per_batch(b, start):
        starts.append(start)
        return {"selection": pa.array(["machine"] * b.num_rows),
                "row": pa.array(np.arange(start, start + b.num_rows))}

    write_round_parquet(path, out, per_batch, meta={"design": "active", "M": 10})
    back = pq.read_table(out).to_pandas()
    assert list(back["row"]) == list(range(10))
    assert list(back["sample_id"]) == list(df["sample_id"])
    assert set(back["selection"]) == {"machine"}  # the old column replaced
    assert round_meta(out) == {"design": "active", "M": 10}
    assert round_meta(path) is None
    assert starts == sorted(starts) and starts[0] == 0
