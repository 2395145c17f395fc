"""Reading Label Studio's JSON export (``core.evaluation.labelstudio.export``): labels, skips,
unannotated tasks, repeated and empty annotations, lead times and annotators' ids by hand on
exports built as Label Studio 1.23 writes them, and what is not an export refused naming the
task."""

from __future__ import annotations

import json
import math

import pytest

from core.errors import DataError
from core.evaluation.labels.imports import join_labels
from core.evaluation.labelstudio.export import labels_from_labelstudio
from tests.core.labelstudio_support import EXPORT, choice, task


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


def test_text_and_parsed_json_read_alike_with_lead_times_as_seconds():
    from_text = labels_from_labelstudio(json.dumps(EXPORT))
    assert from_text == labels_from_labelstudio(EXPORT)
    # every kept annotation's lead_time (3.2 s in the builder) becomes its seconds
    assert from_text.seconds == (3.2,) * 5
    a = choice("safe", 1, ann_id=1)
    del a["lead_time"]
    b = choice("safe", 2, ann_id=2)
    b["lead_time"] = "41.5"
    imp = labels_from_labelstudio([task(1, 1, a, b)])
    assert math.isnan(imp.seconds[0]) and imp.seconds[1] == 41.5


def test_a_lead_time_that_is_not_seconds_is_refused_naming_the_task():
    a = choice("safe", 7, ann_id=1)
    a["lead_time"] = "slow"
    with pytest.raises(DataError, match=r"task 3: annotator 7's lead_time 'slow'"):
        labels_from_labelstudio([task(3, 1, a)])
    a["lead_time"] = -5
    with pytest.raises(DataError, match=r"task 3 \(lead_time\) \(-5\)"):
        labels_from_labelstudio([task(3, 1, a)])


def test_annotator_from_a_user_object_or_unknown():
    by_mail = choice("x", {"email": "a@b.org", "id": None}, ann_id=1)
    by_name = choice("x", {"username": "ann"}, ann_id=2)
    nobody = choice("x", None, ann_id=3)
    imp = labels_from_labelstudio([task(1, 1, by_mail), task(2, 2, by_name), task(3, 3, nobody)])
    assert imp.annotator == ("a@b.org", "ann", "")


def test_one_choices_control_under_another_name_is_read():
    a = choice("yes", 1, ann_id=1)
    a["result"][0]["from_name"] = "verdict"
    a["result"].append({"from_name": "notes", "type": "textarea", "value": {"text": ["hm"]}})
    assert labels_from_labelstudio([task(1, 1, a)]).label == ("yes",)
    # two choices controls, neither named 'label': no choice read, reported as empty
    b = choice("yes", 1, ann_id=1)
    b["result"] = [{**b["result"][0], "from_name": "x"}, {**b["result"][0], "from_name": "y"}]
    imp = labels_from_labelstudio([task(1, 1, b)])
    assert imp.n_labels == 0 and any("without a choice" in n for n in imp.notices)


def test_repeated_annotations_without_ids_keep_the_last_read():
    exp = [task(1, 1, choice("a", 5), choice("b", 5))]
    assert labels_from_labelstudio(exp).label == ("b",)


@pytest.mark.parametrize("export,word", [
    ([7], "item 1 of the list is not a task object"),
    ([{"id": 2, "data": {"sample_id": 1}, "annotations": {"a": 1}}], "task 2's 'annotations' is not a list"),
    ([{"id": 2, "data": {"sample_id": 1}, "annotations": [{"id": 1}]}], "an annotation of task 2 has no 'result'"),
    ([{"id": 2, "data": {"sample_id": 1}, "annotations": [{"result": "x"}]}], "task 2: the annotation's 'result' is not a list"),
    ([{"id": 2, "data": {"sample_id": 1}, "annotations": [
        {"result": [{"type": "choices", "from_name": "label", "value": "x"}]}]}], "without 'value.choices'"),
    ([{"id": 4, "data": {"sample_id": "  "}, "annotations": []}], "task 4 has no data field 'sample_id'"),
])
def test_malformed_exports_are_refused_naming_the_task(export, word):
    with pytest.raises(DataError, match=word.replace("(", r"\(").replace(")", r"\)")):
        labels_from_labelstudio(export)


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
