"""Reading a table file (``core.data.load``): CSV, TSV, JSON, JSON lines and Parquet, from a
path or from bytes; what is not a table, too large, too wide, nested too deeply or has a
duplicate column refused naming the file and what is wrong; cells kept as read."""

from __future__ import annotations

import io
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from core.data.load import MAX_COLUMNS, MAX_FILE_BYTES, load_table
from core.errors import DataError


GOOD = "machine_predict,machine_confidence,target\n1,0.9,1\n0,0.2,1\n0,0.7,0\n"


@pytest.mark.parametrize("text, name", [
    (GOOD, "x.csv"),
    ("\ufeff" + GOOD.replace("\n", "\r\n"), "x.csv"),  # BOM + CRLF
    (GOOD.replace(",", "\t"), "x.tsv"),
    (GOOD.replace(",", "\t"), "x.txt"),  # sniffed
])
def test_text_formats(text, name):
    df = load_table(text.encode("utf-8"), name=name)
    assert list(df.columns) == ["machine_predict", "machine_confidence", "target"]
    assert len(df) == 3


def test_parquet_and_json(tmp_path):
    df = pd.DataFrame({"machine_label": ["a", "b"], "machine_confidence": [0.1, 0.9]})
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    assert load_table(path).equals(df)
    js = b'[{"machine_label": "a", "machine_confidence": 0.1}, {"machine_label": "b", "machine_confidence": 0.9}]'
    assert load_table(js, name="t.json")["machine_label"].tolist() == ["a", "b"]


@pytest.mark.parametrize("name", ["t.jsonl", "t.jsonlines", "t.ndjson", "t.JSONLINES"])
def test_json_lines_by_any_of_their_names(name):
    # RSMTool writes .jsonlines; read as CSV it would give one garbled column per key fragment
    lines = b'{"machine_label": "a", "machine_confidence": 0.1}\n{"machine_label": "b", "machine_confidence": 0.9}\n'
    df = load_table(lines, name=name)
    assert list(df.columns) == ["machine_label", "machine_confidence"]
    assert df["machine_confidence"].tolist() == [0.1, 0.9]


@pytest.mark.parametrize("content, name, match", [
    (b"", "e.csv", "empty"),
    (b"   \n", "e.csv", "empty"),
    (b"a,b\n", "h.csv", "no data rows"),
    (b'[{"a": 1}, 3]', "m.json", "item"),
    (b'{"a": [1, 2', "m.json", "not valid JSON"),
    (b"[]", "m.json", "empty JSON list"),
    (b"\xff\xfe\x00a,b\n1,2\n", "bad.csv", "UTF-8"),
    (b"PAR1garbage", "bad.parquet", "Parquet"),
    (b'a,b\n1,2\n3,4,5,6\n', "ragged.csv", "not a valid CSV"),
])
def test_bad_files(content, name, match):
    with pytest.raises(DataError, match=match):
        load_table(content, name=name)


def test_too_large(tmp_path):
    with pytest.raises(DataError, match="limit"):
        load_table(b"a,b\n1,2\n", name="x.csv", max_bytes=4)


def test_duplicate_columns():
    with pytest.raises(DataError, match="duplicate column name.*: a"):
        load_table(b"a,b,a\n1,2,3\n", name="d.csv")


@pytest.mark.parametrize("content, columns, first", [
    (b"a,b\n1,x\n2,y\n", ["a", "b"], [1, "x"]),  # ASCII: read without decoding
    ("\ufeffé,b\r\n1,ü\r\n2,y\r\n".encode(), ["é", "b"], [1, "ü"]),  # BOM, UTF-8, CRLF
    (b'"a\nb",c\n1,2\n', ["a\nb", "c"], [1, 2]),  # a header field over two lines
])
def test_text_tables_are_read_from_their_bytes(content, columns, first):
    df = load_table(content, name="t.csv")
    assert list(df.columns) == columns and df.iloc[0].tolist() == first and len(df) == (
        1 if columns == ["a\nb", "c"] else 2)


def test_duplicate_header_after_a_bom_and_undecodable_bytes_are_named():
    with pytest.raises(DataError, match="duplicate column name"):
        load_table("\ufeffé,é\n1,2\n".encode(), name="d.csv")
    with pytest.raises(DataError, match=r"u.csv is not UTF-8 text \(undecodable byte at offset 6\)"):
        load_table(b"a,b\n1,\xff\n", name="u.csv")
    with pytest.raises(DataError, match="w.csv is empty"):
        load_table(b" \n\t\r\n ", name="w.csv")


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
    n = 50_000
    data = (",".join(f"c{i}" for i in range(n)) + "\n" + ",".join("1" for _ in range(n)) + "\n").encode()
    with pytest.raises(DataError, match=r"^wide\.csv has 50,000 columns; at most 2,000 are read"):
        load_table(data, name="wide.csv")
    ok = MAX_COLUMNS
    data = (",".join(f"c{i}" for i in range(ok)) + "\n" + ",".join("1" for _ in range(ok)) + "\n").encode()
    assert load_table(data, name="ok.csv").shape == (1, ok)


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


def test_a_path_a_file_object_and_bytes_read_alike(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(GOOD.encode())
    by_path = load_table(path)
    with open(path, "rb") as fh:
        by_handle = load_table(fh)  # the name comes from the file object
    by_bytes = load_table(GOOD.encode(), name="t.csv")
    pd.testing.assert_frame_equal(by_path, by_bytes)
    pd.testing.assert_frame_equal(by_handle, by_bytes)
    assert by_bytes["machine_confidence"].tolist() == [0.9, 0.2, 0.7]


def test_unknown_extensions_are_sniffed():
    js = json.dumps([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]).encode()
    assert load_table(js)["b"].tolist() == ["x", "y"]  # no name: JSON by its first byte
    pq_bytes = _parquet(pa.table({"a": [1, 2]}))
    assert load_table(pq_bytes, name="upload.dat")["a"].tolist() == [1, 2]  # Parquet magic
    assert list(load_table(b"a\tb\n1\t2\n", name="upload.dat").columns) == ["a", "b"]


def test_the_size_limit_names_the_file_and_both_sizes(tmp_path):
    assert MAX_FILE_BYTES == 200 * 2**20
    data = b"a,b\n" + b"1,2\n" * (2**20 // 4 + 1)  # a little over 1 MiB
    with pytest.raises(DataError, match=r"^big\.csv is 1\.0 MiB; the limit is 1 MiB$"):
        load_table(data, name="big.csv", max_bytes=2**20)
    path = tmp_path / "big.csv"
    path.write_bytes(data)
    with pytest.raises(DataError, match="big.csv"):
        load_table(path, max_bytes=2**20)


def test_column_names_are_stripped_and_a_headerless_table_refused():
    assert list(load_table(b" a , b\n1,2\n", name="s.csv").columns) == ["a", "b"]
    with pytest.raises(DataError, match="no column has a name; the first line must be a header"):
        load_table(b'[{"": 1}]', name="n.json")


def test_a_formula_guard_quote_comes_off_again():
    """core.csv_safe writes a formula-like cell behind a quote; it reads back as written."""
    df = load_table(b"label,n\n'+,1\n'=SUM(A1),2\nplain,3\n", name="f.csv")
    assert df["label"].tolist() == ["+", "=SUM(A1)", "plain"]


@pytest.mark.parametrize("name", ["upload.bin", "export.dat", "table"])
def test_json_under_an_unknown_extension_is_sniffed(tmp_path, name):
    rows = [{"id": "a", "label": "safe"}, {"id": "b", "label": "unsafe"}]
    path = tmp_path / name
    path.write_text("\n  " + json.dumps(rows))
    df = load_table(path)
    assert list(df.columns) == ["id", "label"] and df["label"].tolist() == ["safe", "unsafe"]


def test_a_csv_whose_first_cell_starts_with_a_bracket_stays_csv():
    df = load_table(b"[note],label\nx,safe\n", name="t.csv")
    assert list(df.columns) == ["[note]", "label"]
