"""Reading an evaluation table for ``hmceval agreement`` (``core.rsm.io``): JSON lines flattened
as ``rsmtool.reader.read_jsonlines`` does (nested keys named by the key alone at two levels,
dotted below), full dotted paths resolved to their column, lists kept as JSON text, and every
bad file a DataError naming the file and line."""

from __future__ import annotations

import json

import pytest

from core.errors import DataError
from core.rsm.io import JSONLINES_EXTENSIONS, load_evaluation_table, read_jsonlines, resolve_column


# ------------------------------------------------------------------------------------------
# JSON lines, as rsmtool.reader.read_jsonlines reads them
# ------------------------------------------------------------------------------------------
def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_jsonlines_nested_objects_flattened_as_rsmtool(tmp_path):
    path = _write(tmp_path / "p.jsonlines", [
        {"id": "R1", "y": 3.9, "metadata": {"h1": 4.0, "h2": 4.0}},
        {"id": "R2", "y": 2.1, "metadata": {"h1": 2.0, "h2": None}},
    ])
    df = read_jsonlines(path)
    # RSMTool's test data: the nested keys become columns named by the key alone
    assert sorted(df.columns) == ["h1", "h2", "id", "y"]
    assert df["h1"].tolist() == [4.0, 2.0]
    assert resolve_column(df, "metadata.h1") == "h1" and resolve_column(df, "y") == "y"
    deeper = read_jsonlines(_write(tmp_path / "d.jsonl", [{"values": {"id": "1", "features": {"f1": 1, "f2": 1.5}}}]))
    # rsmtool's test_read_jsonlines_more_than_2_levels: id, features.f1, features.f2
    assert sorted(deeper.columns) == ["features.f1", "features.f2", "id"]


def test_jsonlines_file_is_not_read_as_csv(tmp_path):
    path = _write(tmp_path / "p.jsonlines", [{"h": 1, "m": 1}, {"h": 2, "m": 3}])
    df = load_evaluation_table(path)
    assert list(df.columns) == ["h", "m"] and df["m"].tolist() == [1, 3]


def test_jsonlines_errors(tmp_path):
    bad = tmp_path / "bad.jsonlines"
    bad.write_text('{"h": 1}\n[1, 2]\n')
    with pytest.raises(DataError, match="line 2 is not a JSON object"):
        read_jsonlines(bad)
    bad.write_text('{"h": 1}\n{"h": \n')
    with pytest.raises(DataError, match="line 2 is not valid JSON"):
        read_jsonlines(bad)
    bad.write_text('{"h1": 1, "meta": {"h1": 2}}\n')
    with pytest.raises(DataError, match="nested key 'h1'"):
        read_jsonlines(bad)
    bad.write_text("\n\n")
    with pytest.raises(DataError, match="is empty"):
        read_jsonlines(bad)
    bad.write_text('{"a": ' * 5000 + "1" + "}" * 5000 + "\n")
    with pytest.raises(DataError, match="nested too deeply"):
        read_jsonlines(bad)


def test_bytes_with_a_bom_blank_lines_and_list_cells():
    data = '\ufeff{"id": 1, "tags": [2, 1], "m": {}}\n\n{"id": 2, "tags": [], "m": {}}\n'.encode()
    df = read_jsonlines(data, name="t.jsonl")
    assert df["id"].tolist() == [1, 2]
    assert df["tags"].tolist() == ["[2, 1]", "[]"]  # lists as their JSON text
    assert df["m"].tolist() == ["{}", "{}"]  # an empty object is a cell, not columns


def test_a_key_clashing_with_an_earlier_nested_key_is_named():
    data = b'{"meta": {"h1": 2}, "h1": 1}\n'
    with pytest.raises(DataError, match=r"^x: line 1: key 'h1' gives a column name that a nested key"):
        read_jsonlines(data, name="x")


def test_size_limit_missing_file_and_undecodable_bytes(tmp_path):
    with pytest.raises(DataError, match=r"^big is 0\.0 MiB; the limit is 0 MiB$"):
        read_jsonlines(b'{"a": 1}\n', name="big", max_bytes=4)
    with pytest.raises(DataError, match="^file not found: "):
        read_jsonlines(tmp_path / "nope.jsonl")
    with pytest.raises(DataError, match=r"not UTF-8 JSON lines \(undecodable byte at offset 7\)"):
        read_jsonlines(b'{"a": "\xff"}\n', name="u")


def test_load_evaluation_table_picks_the_reader_by_extension(tmp_path):
    assert JSONLINES_EXTENSIONS == (".jsonlines", ".jsonl")
    csv = tmp_path / "t.csv"
    csv.write_text("h,m\n1,2\n3,4\n")
    assert load_evaluation_table(csv)["m"].tolist() == [2, 4]
    upper = _write(tmp_path / "T.JSONL", [{"h": 1, "m": {"a": 5}}])
    assert load_evaluation_table(upper)["a"].tolist() == [5]


def test_resolve_column_without_json_paths():
    import pandas as pd

    df = pd.DataFrame({"a": [1]})
    assert resolve_column(df, "a") == "a"
    assert resolve_column(df, "x.y") == "x.y"  # unchanged: the report then names it as absent
    assert resolve_column(df, None) is None
