"""The loader and the data contract: formats, auto-detection, validation messages."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

from core.data import detect_roles, load_table, prepare
from core.demo import make_demo
from core.errors import DataError

GOOD = "machine_predict,machine_confidence,target\n1,0.9,1\n0,0.2,1\n0,0.7,0\n"


def test_release_columns_are_detected(hmceval_tsv):
    df = load_table(hmceval_tsv)  # CRLF line ends, no final newline
    assert df.shape == (5673, 10)
    roles = detect_roles(df)
    assert roles["machine_label"] == "machine_predict"
    assert roles["machine_confidence"] == "machine_confidence"
    assert roles["human_label"] == "target"
    assert roles["human_effort"] == "human_effort_groundtruth"
    assert roles["predicted_effort"] == "human_effort_predicted_avg"
    assert roles["turn"] == "turn" and roles["n_turns"] == "turns"
    assert roles["human_confidence"] == "human_confidence"
    assert roles["machine_effort"] == "machine_effort"


def test_derived_dialogues_on_release(hmceval_data):
    f = hmceval_data.frame
    # a dialogue of `turns` rows starts at every turn 1
    assert f["dialogue_id"].nunique() == int((f["turn"] == 1).sum())
    sizes = f.groupby("dialogue_id")["n_turns"].agg(["size", "first"])
    assert (sizes["size"] == sizes["first"]).all()


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


def test_quoted_fields_with_separators_and_newlines():
    text = 'machine_label,confidence,response\n1,0.5,"hello, world"\n0,0.25,"two\nlines"\n'
    df = load_table(text.encode(), name="q.csv")
    assert df["response"].tolist() == ["hello, world", "two\nlines"]
    data = prepare(df)
    assert data.text_columns == [] or "response" in data.text_columns + data.subgroup_columns


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


def frame(**cols):
    base = {"machine_label": [1, 0, 1], "machine_confidence": [0.9, 0.2, 0.7],
            "human_label": [1, 1, 0]}
    base.update(cols)
    return pd.DataFrame({k: v for k, v in base.items() if v is not None})


@pytest.mark.parametrize("cols, match", [
    ({"machine_confidence": [0.9, 1.2, -0.1]}, r"machine_confidence.*\[0, 1\].*rows 2, 3"),
    ({"machine_confidence": [0.9, np.nan, 0.1]}, r"missing values \(NaN\) in row 2"),
    ({"machine_confidence": ["0.9", "high", "0.1"]}, r"numeric.*row 2.*'high'"),
    ({"machine_label": [1, None, 0]}, r"machine_label.*missing values in row 2"),
    ({"human_label": [1, 1, None]}, r"human_label.*row 3"),
    ({"machine_label": [1, 1, 1], "human_label": [1, 1, 1]}, "single value"),
    ({"machine_confidence": None}, "required role 'machine_confidence'"),
    ({"human_effort": [1.0, -2.0, 0.0]}, r"human_effort.*\[0, 1e\+12\].*row 2"),
    ({"turn": [1, 2.5, 3]}, "whole numbers"),
])
def test_validation_messages(cols, match):
    with pytest.raises(DataError, match=match):
        prepare(frame(**cols))


def test_unknown_mapped_column():
    with pytest.raises(DataError, match="'nope'.*not in the table"):
        prepare(frame(), {"human_label": "nope"})


def test_effort_fallbacks_and_notices():
    d = prepare(frame())
    assert d.effort_source == "uniform" and (d.frame["predicted_effort"] == 1).all()
    d = prepare(frame(human_effort=[1.0, 2.0, 3.0]))
    assert d.effort_source == "human_effort"
    assert d.frame["predicted_effort"].tolist() == [1.0, 2.0, 3.0]
    d = prepare(frame(human_effort=[1.0, 2.0, 3.0], predicted_effort=[3.0, 3.0, 3.0]))
    assert d.effort_source == "predicted_effort"
    assert any("effort" in n for n in prepare(frame()).notices)


def test_labels_numbers_or_strings():
    d = prepare(frame(machine_label=["yes", "no", "yes"], human_label=["yes", "yes", "no"]))
    assert d.labels == ("no", "yes")
    # numbers written as text are numbers
    d = prepare(frame(machine_label=[1, 0, 1], human_label=["1", "1", "0"]))
    assert d.frame["human_label"].tolist() == [1, 1, 0] and d.labels == (0, 1)
    # numbers in one column and words in the other are harmonised to text
    d = prepare(frame(machine_label=[1, 0, 1], human_label=["1", "1", "other"]))
    assert d.frame["machine_label"].tolist() == ["1", "0", "1"]
    assert d.labels == ("0", "1", "other")
    d = prepare(frame(machine_label=[1.0, 0.0, 1.0]))
    assert d.frame["machine_label"].dtype == np.int64


def test_no_gold_is_allowed():
    d = prepare(frame(human_label=None), {"human_label": None})
    assert not d.has_gold and d.labels == (0, 1)


def test_several_confidence_columns():
    df = frame(confidence_mcp=[0.5, 0.6, 0.7], confidence_tcp=[0.1, 0.2, 0.3])
    d = prepare(df)
    assert d.roles["machine_confidence"] == "machine_confidence"
    assert d.confidence_columns == ["machine_confidence", "confidence_mcp", "confidence_tcp"]
    d2 = d.with_confidence("confidence_tcp")
    assert d2.frame["machine_confidence"].tolist() == [0.1, 0.2, 0.3]


def test_demo_is_deterministic_and_valid():
    a, b = make_demo(), make_demo()
    pd.testing.assert_frame_equal(a, b)
    d = prepare(a)
    assert 3000 < d.M < 4500
    assert d.has_gold and d.has_effort and d.effort_source == "predicted_effort"
    assert set(d.subgroup_columns) >= {"system", "topic"}
    assert d.roles["human_label_2"] == "human_label_2"
    assert 0.2 < d.frame["human_label_2"].notna().mean() < 0.4
    acc = (d.frame["machine_label"] == d.frame["human_label"]).mean()
    assert 0.8 < acc < 0.95  # informative but imperfect
    assert len(d.confidence_columns) == 3


def test_prepare_keeps_text_and_id_columns_as_read():
    csv = ("machine_label,machine_confidence,dialogue_id,system,response\n"
           "1,0.9,d1,plato,hello there\n0,0.2,d1,,fine\n1,0.7,d2,blender,\n").encode()
    df = load_table(csv, name="t.csv")
    data = prepare(df, {"subgroups": ["system"], "text": ["response"]})
    f = data.frame
    assert f["dialogue_id"].tolist() == ["d1", "d1", "d2"]
    assert f["system"].iloc[0] == "plato" and pd.isna(f["system"].iloc[1])
    assert f["response"].iloc[1] == "fine" and pd.isna(f["response"].iloc[2])
    assert f["system"].dtype == df["system"].dtype == "str"


def test_prepare_with_the_callers_detection_is_the_same():
    from core.data import detect_columns

    df = load_table(GOOD.encode(), name="g.csv")
    det = detect_columns(df)
    a, b = prepare(df), prepare(df, detection=det)
    assert a.roles == b.roles and a.labels == b.labels == (0, 1)
    pd.testing.assert_frame_equal(a.frame, b.frame)
    assert b.frame["machine_confidence"].tolist() == [0.9, 0.2, 0.7]


def test_integer_efforts_and_confidences_are_checked_as_numbers():
    df = pd.DataFrame({"machine_label": [0, 1, 1], "machine_confidence": [0, 1, 1],
                       "human_effort": [3, 0, 7]})
    data = prepare(df)
    assert data.frame["human_effort"].tolist() == [3.0, 0.0, 7.0]
    assert data.frame["human_effort"].dtype == float
    with pytest.raises(DataError, match=r"column 'human_effort' \(human_effort\) must be in "
                                        r"\[0, .*row 2 is outside \(first value -1\)"):
        prepare(df.assign(human_effort=[3, -1, 7]))
    with pytest.raises(DataError, match=r"'machine_confidence' .* has infinite values in row 3"):
        prepare(df.assign(machine_confidence=[0.5, 1.0, np.inf]))


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
