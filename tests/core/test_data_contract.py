"""The data contract (``core.data.contract``): a table and its role mapping validated into an
:class:`EvalData`: validation messages naming the column and rows, labels as numbers or text
(exact beyond 2^53), effort fallbacks, confidence columns, the caller's detection."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.data import load_table
from core.data.contract import EvalData, prepare
from core.errors import DataError

GOOD = "machine_predict,machine_confidence,target\n1,0.9,1\n0,0.2,1\n0,0.7,0\n"


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


def test_eval_data_properties_by_hand():
    d = prepare(frame(system=["a", "b", "a"]), {"subgroups": ["system"]}, name="tiny")
    assert isinstance(d, EvalData) and d.name == "tiny"
    assert d.M == 3 and d.has_gold and not d.has_effort
    assert d.subgroup_columns == ["system"] and d.text_columns == []
    assert list(d.frame.index) == [0, 1, 2]
    # the raw table is kept as given
    pd.testing.assert_frame_equal(d.raw, frame(system=["a", "b", "a"]))
    # content_id: the same table gives the same id, an edited one another
    assert d.content_id == prepare(frame(system=["a", "b", "a"])).content_id
    assert d.content_id != prepare(frame(system=["a", "b", "b"])).content_id


def test_with_predicted_effort_maps_a_new_column():
    d = prepare(frame())
    e = d.with_predicted_effort([5.0, 6.0, 7.0])
    assert e.roles["predicted_effort"] == "predicted_effort_hee"
    assert e.effort_source == "predicted_effort"
    assert e.frame["predicted_effort"].tolist() == [5.0, 6.0, 7.0]
    assert "predicted_effort_hee" not in d.raw.columns  # the original is not changed
    with pytest.raises(DataError, match="predicted_effort_hee"):
        d.with_predicted_effort([5.0, -1.0, 7.0])


def test_a_mapped_role_on_a_column_with_text_is_named():
    with pytest.raises(DataError, match=r"column 'conf'.*row 3"):
        prepare(pd.DataFrame({"machine_label": [0, 1, 1], "conf": [0.2, 0.4, "x"]}),
                {"machine_confidence": "conf"})


def test_json_round_trip_of_a_prepared_table_keeps_its_labels():
    rows = [{"machine_label": "yes", "machine_confidence": 0.9, "human_label": "no"},
            {"machine_label": "no", "machine_confidence": 0.6, "human_label": "no"}]
    d = prepare(load_table(json.dumps(rows).encode(), name="r.json"))
    assert d.labels == ("no", "yes")
    assert (d.frame["machine_label"] == d.frame["human_label"]).tolist() == [False, True]
