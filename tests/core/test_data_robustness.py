"""Issue 12: hostile tables end in a correct result or a DataError naming the column/row."""

from __future__ import annotations

import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.data import detect_roles, load_table, prepare
from core.errors import DataError


def _parquet(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def test_parquet_utf8_binary_is_decoded_and_detect_roles_works():
    data = _parquet(pa.table({"machine_label": [0, 1, 1], "confidence": [0.1, 0.5, 0.9],
                              "system": pa.array([b"a", b"b", b"a"], pa.binary())}))
    df = load_table(data, name="x.parquet")
    assert df["system"].tolist() == ["a", "b", "a"]
    assert detect_roles(df)["subgroups"] == ["system"]


def test_json_object_and_list_cells_become_canonical_text():
    rows = [{"machine_label": i % 2, "confidence": 0.5, "meta": {"y": [1, 2], "x": i}}
            for i in range(3)]
    df = load_table(json.dumps(rows).encode(), name="x.json")
    assert df["meta"].tolist() == [f'{{"x": {i}, "y": [1, 2]}}' for i in range(3)]
    data = prepare(df, {"subgroups": ["meta"]})
    pd.util.hash_pandas_object(data.raw, index=False)  # hashable: the app's fingerprint works
    # an object used as a numeric role is refused naming the column
    rows = [{"machine_label": i % 2, "confidence": {"p": 0.5}} for i in range(3)]
    with pytest.raises(DataError, match="column 'confidence'"):
        prepare(load_table(json.dumps(rows).encode(), name="x.json"))


@pytest.mark.parametrize("name, data", [
    ("x.csv", b"sample_id,machine_label,human_label,machine_confidence\n"
              b"99999999999999999999,1,0,0.5\n2,0,0,0.7\n3,1,1,0.9\n"),
    ("x.json", b'[{"sample_id": 99999999999999999999, "machine_label": 1, "human_label": 0, '
               b'"machine_confidence": 0.5}, {"sample_id": 2, "machine_label": 0, '
               b'"human_label": 1, "machine_confidence": 0.7}]'),
])
def test_integers_beyond_64_bits_are_read_as_exact_text(name, data):
    """Issue 24: two uploads with integers beyond 64 bits were made active and then broke the
    Data page (StreamlitDataframeConversionError: Arrow cannot hold them)."""
    import pyarrow as pa

    from core.data import load_table, prepare

    raw = load_table(data, name=name)
    assert raw["sample_id"].tolist()[0] == "99999999999999999999"
    pa.Table.from_pandas(raw)  # what st.dataframe converts
    pa.Table.from_pandas(prepare(raw).frame)
