"""Label Studio tasks on a user's own table (issue 13): a free-text column is detected by its
name or its values and travels in every task; a task without text is said in one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.data import detect_columns
from core.data.roles import is_text
from core.evaluation import labelstudio
from core.evaluation.sampling.design import load_design, plan_queue

# short free-text answers, as in the tester's CSV: 8 to 14 characters, all distinct
ANSWERS = ["sure, why not", "no thanks", "I love it", "not really", "maybe later", "ok fine",
           "never again", "sounds good", "hate that", "yes please"]
GOLD = ["ok", "ok", "bad", "bad", "ok", "ok", "bad", "ok", "bad", "ok"]
PRED = ["ok", "bad", "bad", "ok", "ok", "ok", "bad", "ok", "ok", "ok"]
PROB = [0.9, 0.55, 0.8, 0.6, 0.95, 0.7, 0.85, 0.9, 0.52, 0.75]


def table(text_name: str = "text", values: list | None = None) -> pd.DataFrame:
    return pd.DataFrame({"sample_id": [f"r{i}" for i in range(1, 11)],
                         text_name: ANSWERS if values is None else values,
                         "gold": GOLD, "model_pred": PRED, "model_prob": PROB,
                         "system": ["a", "b"] * 5})


@pytest.mark.parametrize("name", ["text", "response", "utterance", "context", "message",
                                  "prompt", "output", "answer", "reply", "user_text",
                                  "Responses"])
def test_a_text_word_in_the_name_and_distinct_strings_make_free_text(name):
    det = detect_columns(table(name))
    assert det.roles["text"] == [name]
    assert name not in det.subgroup_options
    assert det.roles["machine_label"] == "model_pred"


def test_short_answers_repeated_are_still_free_text():
    # ten answers, each three times: a third distinct, 10 characters on average, with spaces
    assert is_text("text", pd.Series(ANSWERS * 3))
    assert is_text("reply", pd.Series(ANSWERS * 3))
    # the same values under a name that says nothing: not free text (a category of 10 values)
    assert not is_text("col_7", pd.Series(ANSWERS * 3))
    # a named column of few multi-word categories stays a category
    assert not is_text("context", pd.Series(["small talk", "advice", "chit chat"] * 10))


def test_free_text_by_its_values_whatever_its_name():
    sentences = [f"the bot said something odd about topic {i}" for i in range(10)]
    assert detect_columns(table("col_7", sentences)).roles["text"] == ["col_7"]
    # 20+ characters, all distinct, with spaces: free text even below 40 characters
    short_sentences = [f"I would say no {i} times" for i in range(10)]
    assert is_text("notes", pd.Series(short_sentences))


@pytest.mark.parametrize("name,values", [
    ("text", ["yes", "no"] * 5),                       # two values: a category, not free text
    ("response_id", [f"r{i}" for i in range(10)]),     # an identifier
    ("answer_label", ["ok", "bad"] * 5),               # a label
    ("reviewer", ["ann", "bob", "cid", "dan", "eve"] * 2),  # people: a subgroup
    ("text", [str(i * 1.5) for i in range(10)]),       # numbers written as text
    ("code", [f"X{i:03d}" for i in range(10)]),        # short distinct codes, no text word
])
def test_not_free_text(name, values):
    assert not is_text(name, pd.Series(values))


def test_tasks_carry_the_text_of_a_users_table():
    d = load_design(table())
    assert d.data.text_columns == ["text"]
    plan = plan_queue(d, lam=0.0, n_human=3, audit=1, seed=0)
    tasks = labelstudio.tasks(d, plan.queue_rank)
    assert len(tasks) == 4
    by_id = dict(zip(table()["sample_id"], ANSWERS))
    for t in tasks:
        assert set(t["data"]) == {"sample_id", "queue_rank", "text"}
        assert t["data"]["text"] == by_id[t["data"]["sample_id"]]
    config = labelstudio.labelling_config(d.data.labels, d.data.text_columns)
    assert 'value="$text"' in config and "$sample_id" not in config
    assert labelstudio.text_warning(tasks, d.data.text_columns) is None
    json.loads(labelstudio.task_json(tasks))
    # rows already labelled get no task; the others keep their queue rank
    first = int(np.flatnonzero(plan.queue_rank == 1)[0])
    done = np.zeros(d.M, dtype=bool)
    done[first] = True
    rest = labelstudio.tasks(d, plan.queue_rank, done=done)
    assert [t["data"]["queue_rank"] for t in rest] == [2, 3, 4]


def test_a_warning_when_tasks_carry_no_text():
    df = table().drop(columns="text")
    d = load_design(df)
    assert d.data.text_columns == []
    plan = plan_queue(d, lam=0.0, n_human=3, audit=0, seed=0)
    tasks = labelstudio.tasks(d, plan.queue_rank)
    msg = labelstudio.text_warning(tasks, d.data.text_columns)
    assert msg is not None and "\n" not in msg
    assert msg.startswith("Label Studio tasks carry no text: no column is mapped as free text")
    assert labelstudio.text_warning([], []) is None


def test_a_warning_names_the_tasks_whose_text_is_empty():
    tasks = [{"data": {"sample_id": 1, "queue_rank": 1, "text": "hello there"}},
             {"data": {"sample_id": 2, "queue_rank": 2, "text": None}},
             {"data": {"sample_id": 3, "queue_rank": 3, "text": "   "}}]
    assert labelstudio.text_warning(tasks, ["text"]) == (
        "2 of 3 Label Studio tasks carry no text: their 'text' is empty.")
    two = [{"data": {"a": None, "b_c": "x"}}, {"data": {"a": None, "b_c": None}}]
    assert labelstudio.text_warning(two, ["a", "b c"]) == (
        "1 of 2 Label Studio tasks carry no text: their 'a', 'b c' are empty.")


def test_config_shows_class_names_and_stores_the_class_as_alias():
    """Issue 23: annotators see "safe"/"unsafe", not bare 0/1; the export holds the alias."""
    import xml.etree.ElementTree as ET

    config = labelstudio.labelling_config([0, 1, 2], ["response"], names={0: "safe", "1": "unsafe"},
                                          instruction="Is the reply <unsafe>?")
    root = ET.fromstring(config)
    choices = [(c.get("value"), c.get("alias")) for c in root.iter("Choice")]
    assert choices == [("safe", "0"), ("unsafe", "1"), ("2", None)]
    assert [h.get("value") for h in root.iter("Header")][-1] == "Is the reply <unsafe>?"
    plain = ET.fromstring(labelstudio.labelling_config([0, 1], ["response"]))
    assert [(c.get("value"), c.get("alias")) for c in plain.iter("Choice")] == [("0", None),
                                                                                ("1", None)]
