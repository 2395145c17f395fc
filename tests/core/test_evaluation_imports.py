"""Returned labels: CSV tables and Label Studio exports joined to a dataset (hand-built inputs,
hand-worked expected values)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.imports import (agreement, join_labels, labels_from_labelstudio,
                                     labels_from_table)


def choice(value, user, *, ann_id=None, cancelled=False):
    """One annotation as Label Studio 1.23 exports it (JSON export)."""
    a = {"id": ann_id, "completed_by": user, "was_cancelled": cancelled,
         "result": [] if cancelled else [{"from_name": "label", "to_name": "show_text",
                                          "type": "choices", "value": {"choices": [value]}}],
         "ground_truth": False, "lead_time": 3.2}
    return a


def task(tid, sample_id, *annotations):
    return {"id": tid, "data": {"sample_id": sample_id, "queue_rank": tid, "text": "..."},
            "annotations": list(annotations), "drafts": [], "predictions": [],
            "meta": {}, "total_annotations": len(annotations)}


# ---------------------------------------------------------------- CSV tables

def test_table_ids_as_strings_join_integer_dataset_ids_and_integer_classes():
    df = pd.DataFrame({"sample_id": ["3", "1", "5"], "human": ["1", "0", "1"]})
    imp = labels_from_table(df, label_col="human")
    j = join_labels(imp, sample_ids=np.array([1, 2, 3, 4, 5], dtype=object), classes=[0, 1])
    assert j.label.tolist() == [0, None, 1, None, 1]
    assert [type(v) for v in j.label if v is not None] == [int, int, int]
    assert j.state.tolist() == ["labelled", "", "labelled", "", "labelled"]
    assert j.n_annotators.tolist() == [1, 0, 1, 0, 1]
    assert j.counts["labelled"] == 3 and j.counts["labels"] == 3
    assert j.agreement is None
    assert any("3 of 5 rows" in n for n in j.notices)


def test_table_float_columns_from_a_csv_with_gaps():
    # pandas reads integer columns with empty cells as floats: 2.0 is sample 2, label 1.0 is 1
    df = pd.DataFrame({"sample_id": [2.0, 4.0, 1.0], "label": [1.0, np.nan, 0.0]})
    imp = labels_from_table(df, label_col="label")
    assert imp.sample_id == ("2", "1") and imp.label == ("1", "0")
    assert imp.where == ("row 1", "row 3")
    assert any("1 rows have no label" in n and "row 2" in n for n in imp.notices)
    j = join_labels(imp, sample_ids=[1, 2, 3, 4], classes=[0, 1])
    assert j.label.tolist() == [0, 1, None, None]


def test_table_several_annotators_majority_tie_and_cohen_kappa():
    # A and B on 10 samples; A: 1 1 1 1 1 1 0 0 0 0, B: 1 1 1 1 0 0 0 0 0 1
    # po = 7/10; A's shares (0.6, 0.4), B's (0.5, 0.5): pe = 0.6*0.5 + 0.4*0.5 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    a = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    b = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1]
    df = pd.DataFrame({"sample_id": list(range(1, 11)) * 2, "who": ["A"] * 10 + ["B"] * 10,
                       "y": a + b})
    imp = labels_from_table(df, label_col="y", annotator_col="who")
    j = join_labels(imp, sample_ids=list(range(1, 11)), classes=[0, 1])
    assert j.agreement.method == "cohen"
    assert j.agreement.n_items == 10 and j.agreement.n_annotators == 2
    assert j.agreement.percent_agreement == pytest.approx(0.7)
    assert j.agreement.kappa == pytest.approx(0.4)
    # two annotators who disagree tie: samples 5, 6 and 10 need adjudication
    assert j.adjudication == ("5", "6", "10")
    assert j.state.tolist() == ["labelled"] * 4 + ["tie", "tie"] + ["labelled"] * 3 + ["tie"]
    assert j.label.tolist() == [1, 1, 1, 1, None, None, 0, 0, 0, None]
    assert j.n_annotators.tolist() == [2] * 10
    assert j.counts["ties"] == 3 and j.counts["multi"] == 10 and j.counts["annotators"] == 2
    assert any("3 samples need adjudication" in n for n in j.notices)
    assert any("Cohen's kappa = 0.400" in n for n in j.notices)


def test_table_three_annotators_fleiss_kappa_and_majority():
    # 4 samples, raters A B C, classes a/b:
    #   s1 a a a -> P = (9 - 3) / 6 = 1;  s2 a a b -> (4 + 1 - 3) / 6 = 1/3
    #   s3 b b b -> 1;                    s4 a b b -> 1/3
    # P = (1 + 1/3 + 1 + 1/3) / 4 = 2/3; p_a = 6/12, p_b = 6/12, Pe = 1/2
    # kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    rows = [("s1", "A", "a"), ("s1", "B", "a"), ("s1", "C", "a"),
            ("s2", "A", "a"), ("s2", "B", "a"), ("s2", "C", "b"),
            ("s3", "A", "b"), ("s3", "B", "b"), ("s3", "C", "b"),
            ("s4", "A", "a"), ("s4", "B", "b"), ("s4", "C", "b")]
    df = pd.DataFrame(rows, columns=["id", "annotator", "label"])
    imp = labels_from_table(df, sample_id_col="id", label_col="label", annotator_col="annotator")
    j = join_labels(imp, sample_ids=["s1", "s2", "s3", "s4", "s5"], classes=["a", "b"])
    assert j.agreement.method == "fleiss" and j.agreement.n_annotators == 3
    assert j.agreement.percent_agreement == pytest.approx(2 / 3)
    assert j.agreement.kappa == pytest.approx(1 / 3)
    assert j.label.tolist() == ["a", "a", "b", "b", None]
    assert j.n_annotators.tolist() == [3, 3, 3, 3, 0]
    assert j.adjudication == ()
    assert len(j.votes) == 12 and j.votes["row"].tolist()[:3] == [0, 0, 0]


def test_fleiss_with_varying_raters_per_item():
    # s1: A,B agree (P = 1); s2: A,C disagree (P = 0); s3: A,B,C = x,x,y (P = (4+1-3)/6 = 1/3)
    # P = (1 + 0 + 1/3) / 3 = 4/9; counts x: 2+1+2 = 5, y: 0+1+1 = 2 of 7
    # Pe = (5/7)^2 + (2/7)^2 = 29/49; kappa = (4/9 - 29/49) / (20/49) = (196 - 261) / 180
    got = agreement([{"A": "x", "B": "x"}, {"A": "x", "C": "y"}, {"A": "x", "B": "x", "C": "y"},
                     {"A": "y"}])
    assert got.method == "fleiss" and got.n_items == 3 and got.n_annotators == 3
    assert got.percent_agreement == pytest.approx(4 / 9)
    assert got.kappa == pytest.approx((196 - 261) / 180)


def test_kappa_undefined_when_every_label_is_one_class():
    got = agreement([{"A": 1, "B": 1}, {"A": 1, "B": 1}])
    assert got.method == "cohen" and got.percent_agreement == 1.0 and math.isnan(got.kappa)
    assert "undefined" in got.describe()
    assert agreement([{"A": 1}, {"B": 0}]) is None


def test_table_missing_columns_are_named():
    df = pd.DataFrame({"id": [1], "y": [0]})
    with pytest.raises(DataError, match=r"'sample_id' \(sample id\).*available: id, y"):
        labels_from_table(df, label_col="y")
    with pytest.raises(DataError, match=r"'label' \(label\), 'coder' \(annotator\)"):
        labels_from_table(df, sample_id_col="id", label_col="label", annotator_col="coder")


def test_table_duplicate_rows_for_one_sample_and_annotator():
    df = pd.DataFrame({"sample_id": [1, 2, 1], "y": [0, 1, 0]})
    with pytest.raises(DataError, match=r"more than one row for sample_id '1': rows 1, 3.*"
                                        r"annotator column"):
        labels_from_table(df, label_col="y")
    df = pd.DataFrame({"sample_id": [1, 1, 2, 1], "who": ["A", "B", "A", "B"], "y": [0, 1, 1, 1]})
    with pytest.raises(DataError, match=r"sample_id '1' by annotator 'B': rows 2, 4"):
        labels_from_table(df, label_col="y", annotator_col="who")


def test_table_empty_sample_id_or_annotator_is_an_error():
    with pytest.raises(DataError, match=r"'sample_id' \(sample id\) is empty on row 2"):
        labels_from_table(pd.DataFrame({"sample_id": [1, None], "y": [0, 1]}), label_col="y")
    with pytest.raises(DataError, match=r"'who' \(annotator\) is empty on row 1"):
        labels_from_table(pd.DataFrame({"sample_id": [1], "who": [""], "y": [0]}),
                          label_col="y", annotator_col="who")


def test_unknown_sample_ids_are_named_with_where_they_were_read():
    imp = labels_from_table(pd.DataFrame({"sample_id": [1, 77, 2, 78], "y": [0, 1, 1, 0]}),
                            label_col="y")
    with pytest.raises(DataError, match=r"2 sample ids .* not in the dataset: '77' \(row 2\), "
                                        r"'78' \(row 4\)"):
        join_labels(imp, sample_ids=[1, 2, 3], classes=[0, 1])


def test_label_not_among_classes_names_label_and_classes():
    imp = labels_from_table(pd.DataFrame({"sample_id": [1, 2, 3], "y": ["safe", "unsafe",
                                                                          "maybe"]}),
                            label_col="y")
    with pytest.raises(DataError, match=r"'maybe' \(sample ids '3'\).*classes are 'safe', "
                                        r"'unsafe'"):
        join_labels(imp, sample_ids=[1, 2, 3], classes=["safe", "unsafe"])


def test_dataset_ids_must_be_unique_and_classes_distinct_as_text():
    imp = labels_from_table(pd.DataFrame({"sample_id": [1], "y": [0]}), label_col="y")
    with pytest.raises(DataError, match=r"sample ids repeat \(row 3 repeat"):
        join_labels(imp, sample_ids=[1, 2, 1], classes=[0, 1])
    with pytest.raises(DataError, match=r"read the same as text"):
        join_labels(imp, sample_ids=[1, 2], classes=[1, "1"])


# ---------------------------------------------------------------- Label Studio exports

EXPORT = [
    task(11, 1, choice("unsafe", 1, ann_id=1), choice("unsafe", 2, ann_id=2)),
    task(12, 2, choice(None, 2, ann_id=3, cancelled=True)),
    task(13, 3),
    task(14, "4", choice("safe", 1, ann_id=4), choice("unsafe", 2, ann_id=5)),
    task(15, 5, choice("safe", {"id": 2, "email": "b@x.org"}, ann_id=6),
         choice(None, 1, ann_id=7, cancelled=True)),
]


def test_labelstudio_export_labels_skips_and_unannotated():
    imp = labels_from_labelstudio(EXPORT)
    assert imp.source == "labelstudio" and imp.n_tasks == 5
    assert imp.sample_id == ("1", "1", "4", "4", "5")
    # user 2's e-mail is in the export (task 15): the same user wherever it appears
    assert imp.annotator == ("1", "b@x.org", "1", "b@x.org", "b@x.org")
    assert imp.label == ("unsafe", "unsafe", "safe", "unsafe", "safe")
    assert imp.where == ("task 11", "task 11", "task 14", "task 14", "task 15")
    assert imp.skipped == (("2", "b@x.org", "task 12"), ("5", "1", "task 15"))
    assert imp.unannotated == ("3",)


def test_labelstudio_join_majority_ties_skips_and_agreement():
    j = join_labels(labels_from_labelstudio(json.dumps(EXPORT)),
                    sample_ids=[1, 2, 3, 4, 5, 6], classes=["safe", "unsafe"])
    assert j.label.tolist() == ["unsafe", None, None, None, "safe", None]
    assert j.state.tolist() == ["labelled", "skipped", "", "tie", "labelled", ""]
    assert j.n_annotators.tolist() == [2, 0, 0, 2, 1, 0]
    assert j.n_skips.tolist() == [0, 1, 0, 0, 1, 0]
    assert j.adjudication == ("4",)
    assert j.counts == {"rows": 6, "labels": 5, "labelled": 2, "ties": 1, "skipped": 1,
                        "skips": 2, "multi": 2, "annotators": 2, "unannotated": 1, "gold": 0}
    # samples 1 (u, u) and 4 (s, u), annotators 1 and 2: po = 1/2;
    # annotator 1 (u, s), annotator 2 (u, u): pe = 1/2 * 2/2 + 1/2 * 0 = 1/2 -> kappa = 0
    assert j.agreement.method == "cohen"
    assert j.agreement.percent_agreement == pytest.approx(0.5)
    assert j.agreement.kappa == pytest.approx(0.0)
    text = " | ".join(j.notices)
    assert "1 samples were skipped or cancelled" in text and "'2'" in text
    assert "1 samples need adjudication" in text and "1 tasks have no annotation yet" in text


def test_labelstudio_same_annotator_twice_keeps_the_latest():
    exp = [task(1, 1, choice("1", 5, ann_id=9), choice("0", 5, ann_id=3))]
    imp = labels_from_labelstudio(exp)
    assert imp.label == ("1",) and imp.annotator == ("5",)
    assert any("latest one" in n for n in imp.notices)
    j = join_labels(imp, sample_ids=[1], classes=[0, 1])
    assert j.label.tolist() == [1]


def test_labelstudio_empty_result_is_left_out_and_reported():
    a = choice("x", 1, ann_id=1)
    a["result"] = []
    imp = labels_from_labelstudio([task(1, 1, a)])
    assert imp.n_labels == 0 and any("without a choice" in n for n in imp.notices)


def test_labelstudio_not_an_export():
    with pytest.raises(DataError, match="not a Label Studio JSON export: expected a list.*keys "
                                        "'label', 'sample_id'"):
        labels_from_labelstudio({"sample_id": 1, "label": "x"})
    with pytest.raises(DataError, match="not JSON"):
        labels_from_labelstudio(b"sample_id,label\n1,0\n")
    with pytest.raises(DataError, match=r"task 7 lacks 'annotations'.*JSON-MIN"):
        labels_from_labelstudio([{"id": 7, "data": {"sample_id": 1}, "label": "x"}])
    with pytest.raises(DataError, match=r"task 3 of the file lacks 'data' and 'annotations'"):
        labels_from_labelstudio([task(1, 1), task(2, 2), {"sample_id": 3}])
    with pytest.raises(DataError, match=r"task 8 has no data field 'sample_id'"):
        labels_from_labelstudio([{"id": 8, "data": {"text": "hi"}, "annotations": []}])


def test_labelstudio_several_choices_is_an_error():
    a = choice("0", 4, ann_id=1)
    a["result"][0]["value"]["choices"] = ["0", "1"]
    with pytest.raises(DataError, match=r"task 1 \(sample_id '1'\): annotator 4 chose 2 labels"):
        labels_from_labelstudio([task(1, 1, a)])


def test_labelstudio_unknown_sample_and_label():
    with pytest.raises(DataError, match=r"'9' \(task 2\)"):
        join_labels(labels_from_labelstudio([task(1, 1), task(2, 9, choice("0", 1))]),
                    sample_ids=[1, 2], classes=[0, 1])
    # a skipped task of another dataset is named too
    with pytest.raises(DataError, match=r"'9' \(task 2\)"):
        join_labels(labels_from_labelstudio([task(2, 9, choice(None, 1, cancelled=True))]),
                    sample_ids=[1, 2], classes=[0, 1])
    with pytest.raises(DataError, match=r"'2' \(sample ids '1'\); the classes are '0', '1'"):
        join_labels(labels_from_labelstudio([task(1, 1, choice("2", 1))]),
                    sample_ids=[1, 2], classes=[0, 1])


# ---------------------------------------------------------------- the parts and their one home

def test_label_key_writes_ids_and_labels_as_a_user_does():
    from core.evaluation.labels import label_key

    assert label_key(2.0) == "2" and label_key(np.float32(7.0)) == "7"
    assert label_key(2.5) == "2.5" and label_key(float("inf")) == "inf"
    assert label_key(float("nan")) == "nan"
    assert label_key(np.int64(3)) == "3" and label_key(np.True_) == "True"
    assert label_key(" yes ") == "yes" and label_key(" yes ", strip=False) == " yes "


def test_estimate_group_keys_keep_a_value_as_written():
    """An estimate's group keys are the values as written (" a" and "a" stay two groups) and
    integral floats lose their .0, as the import reads them."""
    from core.evaluation.design import load_design
    from core.evaluation.estimate import estimate

    df = pd.DataFrame({"sample_id": range(1, 7), "machine_label": [0, 1, 0, 1, 0, 1],
                       "confidence": [0.9] * 6, "human_label": [0, 1, 1, 1, 0, 1],
                       "selection": ["routed"] * 6, "g": ["a", "a", " a", " a", 2.0, 2.0]})
    res = estimate(load_design(df), groups=["g"])
    assert sorted(res["by_group"]["g"]) == [" a", "2", "a"]
    assert sorted(res["class_shares"]) == ["0", "1"]


def test_majority_vote_and_a_tie():
    from core.evaluation.agreement import majority_vote

    assert majority_vote(["b", "a", "b"]) == ("b", False)
    assert majority_vote([1]) == (1, False)
    assert majority_vote(["a", "b"]) == (None, True)
    assert majority_vote(["a", "b", "b", "a", "c"]) == (None, True)


def test_refuse_outside_queue_names_the_first_row_and_its_selection():
    from core.evaluation.imports import refuse_outside_queue

    sel = np.array(["routed", "machine", "audit", "", "calibration"], dtype=object)
    refuse_outside_queue(sel, [0, 2, 4])  # all in the queue: no error
    with pytest.raises(DataError, match=r"^2 labelled rows are not in the round's queue \(for "
                       r"example row 2, selection 'machine'\); nothing was written.$"):
        refuse_outside_queue(sel, [0, 1, 3])
    # none of the rows in the queue: likely another round's file, said; the id named
    ids = np.array(["s10", "s11", "s12", "s13", "s14"], dtype=object)
    with pytest.raises(DataError, match=r"example sample id 's13' \(row 4\), selection 'undecided'\); "
                                        r"nothing was imported. Is this file from another round\?"):
        refuse_outside_queue(sel, [3], nothing="imported", ids=ids)


def test_the_parts_export_the_same_objects_as_imports():
    import core.evaluation.agreement as agreement_part
    import core.evaluation.imports as imports
    import core.evaluation.labels as labels_part
    import core.evaluation.ls_export as ls_export
    from core.evaluation.labelstudio import CHOICES_NAME

    assert imports.labels_from_labelstudio is ls_export.labels_from_labelstudio
    assert imports.agreement is agreement_part.agreement
    assert imports.Agreement is agreement_part.Agreement
    assert imports.LabelImport is labels_part.LabelImport
    assert imports.CHOICES_NAME is CHOICES_NAME == "label"


def test_numbers_written_as_text_join_their_class_by_the_typed_rule():
    """Issue 24: a labels file whose column is text (one text cell) holds "1.0"; it is the class
    1, not an unknown label (labels are compared by one typed rule, numbers as numbers)."""
    df = pd.DataFrame({"sample_id": ["1", "2", "3"], "human": ["1.0", " 0.0", "spam"]})
    imp = labels_from_table(df, label_col="human")
    j = join_labels(imp, sample_ids=[1, 2, 3], classes=[0, 1, "spam"])
    assert j.label.tolist() == [1, 0, "spam"]
    with pytest.raises(DataError, match="'1.5'"):
        join_labels(labels_from_table(pd.DataFrame({"sample_id": ["1"], "human": ["1.5"]}),
                                      label_col="human"), sample_ids=[1], classes=[0, 1])


def test_annotators_are_named_by_their_e_mail():
    """Issue 33: Label Studio's export names annotators by user id; with the users' e-mails
    (LabelStudioClient.user_emails) they read as e-mails. A user object's own e-mail wins; an
    id without an e-mail stays the id."""
    export = [task(1, "a", choice("yes", 1, ann_id=1), choice("no", 2, ann_id=2),
                   choice("yes", {"id": 3, "email": "cy@x.org"}, ann_id=3),
                   choice("no", {"id": 4}, ann_id=4), choice("no", 5, ann_id=5))]
    users = {"1": "ann@x.org", "2": "bo@x.org", "4": "di@x.org"}
    imp = labels_from_labelstudio(export, users=users)
    assert imp.annotator == ("ann@x.org", "bo@x.org", "cy@x.org", "di@x.org", "5")
    assert labels_from_labelstudio(export).annotator == ("1", "2", "cy@x.org", "4", "5")
    # an object with only an e-mail, and a user's bare id before its object with the e-mail
    later = [task(1, "a", choice("yes", 7, ann_id=1)),
             task(2, "b", choice("no", {"id": 7, "email": "g@x.org"}, ann_id=2),
                  choice("no", {"email": "h@x.org"}, ann_id=3))]
    assert labels_from_labelstudio(later).annotator == ("g@x.org", "g@x.org", "h@x.org")
