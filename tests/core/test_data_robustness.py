"""Issue 12: hostile tables end in a correct result or a DataError naming the column/row."""

from __future__ import annotations

import io
import json

import numpy as np
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


def test_deeply_nested_json_is_a_data_error():
    data = ("[" * 100_000 + "]" * 100_000).encode()
    with pytest.raises(DataError, match="nested too deeply"):
        load_table(data, name="deep.json")


def test_deeply_nested_json_cell_is_a_data_error():
    data = ('[{"a": ' + "[" * 3000 + "]" * 3000 + ', "b": 1}]').encode()
    with pytest.raises(DataError, match="nested too deeply"):
        load_table(data, name="deep.json")


def test_parquet_non_utf8_binary_names_column_and_row():
    data = _parquet(pa.table({"machine_label": [0, 1, 1], "confidence": [0.1, 0.5, 0.9],
                              "blob": pa.array([b"ab", b"ok", b"\x80\xff"], pa.binary())}))
    with pytest.raises(DataError, match=r"column 'blob'.*row 3"):
        load_table(data, name="x.parquet")


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


def test_parquet_list_cells_become_text():
    data = _parquet(pa.table({"machine_label": [0, 1], "confidence": [0.1, 0.9],
                              "tags": [[1, 2], []]}))
    assert load_table(data, name="x.parquet")["tags"].tolist() == ["[1, 2]", "[]"]


def test_many_columns_with_a_duplicate_are_refused():
    n = 40_000
    header = ",".join(f"c{i}" for i in range(n)) + ",c7"
    data = (header + "\n" + ",".join("1" for _ in range(n + 1)) + "\n").encode()
    with pytest.raises(DataError, match="duplicate column name.*c7"):
        load_table(data, name="wide.csv")


def test_a_table_wider_than_max_columns_is_refused_with_the_count():
    from core.data import MAX_COLUMNS

    n = 50_000
    data = (",".join(f"c{i}" for i in range(n)) + "\n" + ",".join("1" for _ in range(n)) + "\n").encode()
    with pytest.raises(DataError, match=r"^wide\.csv has 50,000 columns; at most 2,000 are read"):
        load_table(data, name="wide.csv")
    ok = MAX_COLUMNS
    data = (",".join(f"c{i}" for i in range(ok)) + "\n" + ",".join("1" for _ in range(ok)) + "\n").encode()
    assert load_table(data, name="ok.csv").shape == (1, ok)


BIG_CSV = (b"machine_label,confidence,human_label\n"
           b"9007199254740993,0.5,9007199254740993\n"
           b"9007199254740992,0.5,9007199254740993\n"
           b"9007199254740993,0.4,9007199254740992\n")


def test_labels_beyond_2_53_stay_distinct():
    data = prepare(load_table(BIG_CSV, name="big.csv"))
    f = data.frame
    assert data.labels == ("9007199254740992", "9007199254740993")
    # machine right on row 1 only: accuracy 1/3, not 1.0 after a float merge
    assert (f["machine_label"] == f["human_label"]).tolist() == [True, False, False]


def test_labels_beyond_int64_stay_distinct():
    csv_ = (b"machine_label,confidence,human_label\n18446744073709551615,0.5,18446744073709551614\n"
            b"18446744073709551614,0.5,18446744073709551614\n")
    data = prepare(load_table(csv_, name="big.csv"))
    assert data.labels == ("18446744073709551614", "18446744073709551615")
    assert (data.frame["machine_label"] == data.frame["human_label"]).tolist() == [False, True]


def test_json_labels_beyond_2_53_stay_distinct_with_small_ones():
    rows = [{"machine_label": 9007199254740993, "confidence": 0.5, "human_label": 9007199254740992},
            {"machine_label": 1, "confidence": 0.5, "human_label": 1}]
    data = prepare(load_table(json.dumps(rows).encode(), name="x.json"))
    assert data.labels == ("1", "9007199254740992", "9007199254740993")
    assert (data.frame["machine_label"] == data.frame["human_label"]).tolist() == [False, True]


def test_small_integer_labels_stay_integers():
    data = prepare(pd.DataFrame({"machine_label": [0, 1], "confidence": [0.2, 0.8]}))
    assert data.labels == (0, 1)


@pytest.mark.parametrize("text", [b"machine_label,confidence\n0,true\n1,false\n",
                                  b"machine_label,confidence\n0,True\n1,False\n"])
def test_boolean_confidence_is_refused(text):
    with pytest.raises(DataError, match="column 'confidence'.*numeric.*true/false"):
        prepare(load_table(text, name="x.csv"))


def test_boolean_confidence_in_json_is_refused():
    rows = [{"machine_label": 0, "confidence": 0.5}, {"machine_label": 1, "confidence": True}]
    with pytest.raises(DataError, match=r"column 'confidence'.*true/false in row 2"):
        prepare(load_table(json.dumps(rows).encode(), name="x.json"))


def test_numeric_confidence_still_accepted():
    data = prepare(pd.DataFrame({"machine_label": [0, 1], "confidence": [0, 1]}))
    assert data.frame["machine_confidence"].tolist() == [0.0, 1.0]
    assert np.issubdtype(data.frame["machine_confidence"].dtype, np.floating)


@pytest.mark.parametrize("role_col", ["annot_seconds", "predicted_effort", "machine_effort"])
def test_absurd_effort_is_refused_naming_the_row(role_col):
    """An effort of 1e308 (a unit or typing error) made the Data page's histogram fail and the
    lambda range read 1e-309; it is refused by name, bound core.defaults.MAX_EFFORT."""
    df = pd.DataFrame({"machine_label": [0, 1, 0, 1], "machine_confidence": [0.9, 0.8, 0.7, 0.6],
                       "human_label": [0, 1, 1, 1], role_col: [1.0, 2.0, 3.0, 1e308]})
    with pytest.raises(DataError, match=rf"^column '{role_col}' \(\w+\) must be in \[0, 1e\+12\]; "
                                        r"row 4 is outside \(first value 1e\+308\)$"):
        prepare(df)
    df[role_col] = [1.0, 2.0, 3.0, 1e12]  # the bound itself is a valid effort
    assert prepare(df).frame.shape[0] == 4


def test_a_confidence_named_column_with_bad_values_is_named():
    """Detection skips a confidence-named column whose values are not in [0, 1]; the error then
    names that column and its rows (as the Data page does when it is mapped), not alias names."""
    df = pd.DataFrame({"model_pred": [0, 1, 1, 0, 1, 0], "model_prob": [0.9, 0.8, 0.7, 0.6, 0.9, 1e308]})
    with pytest.raises(DataError, match=r"^no usable column for the required role 'machine_confidence': "
                                        r"column 'model_prob' \(machine_confidence\) must be in \[0, 1\]; "
                                        r"row 6 is outside \(first value 1e\+308\)$"):
        prepare(df)
    with pytest.raises(DataError, match="no column for the required role 'machine_confidence'; recognised"):
        prepare(df.rename(columns={"model_prob": "weight"}))


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


def test_a_wide_table_is_refused_before_its_cells_are_parsed(monkeypatch):
    """Issue 32: a 40,002-column CSV cost seconds of CPU in pandas' parser before it was
    refused. The header (CSV) and the schema (Parquet) decide, so the cells are never parsed."""
    n = 40_002

    def no_parse(*a, **k):
        raise AssertionError("the cells were parsed")

    data = (",".join(f"c{i}" for i in range(n)) + "\n" + ",".join("1" for _ in range(n))
            + "\n").encode()
    table = _parquet(pa.table({f"c{i}": [1] for i in range(n)}))
    monkeypatch.setattr(pd, "read_csv", no_parse)
    monkeypatch.setattr(pd, "read_parquet", no_parse)
    with pytest.raises(DataError, match=r"^wide\.csv has 40,002 columns; at most 2,000"):
        load_table(data, name="wide.csv")
    with pytest.raises(DataError, match=r"^wide\.parquet has 40,002 columns; at most 2,000"):
        load_table(table, name="wide.parquet")
    rows = json.dumps([{f"c{i}": 1 for i in range(n)}] * 3).encode()
    with pytest.raises(DataError, match=r"^wide\.json: a JSON object has 40,002 columns"):
        load_table(rows, name="wide.json")
