"""What annotators see (``core.evaluation.sampling.blind``): an allow-list, issue 32 item 5."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation import labelstudio
from core.evaluation.sampling.blind import shown_columns
from core.evaluation.sampling.design import annotator_table, load_design

GOLD_NAMES = ["human_verdict", "reviewer_decision", "y", "answer_key"]


def _table(gold: str) -> pd.DataFrame:
    """Five rows; the gold column under ``gold``, a time and a topic column."""
    return pd.DataFrame({"sample_id": ["a", "b", "c", "d", "e"],
                         "response": ["first reply", "second reply", "third reply",
                                      "fourth reply", "fifth reply"],
                         "machine_label": ["ok", "bad", "ok", "ok", "bad"],
                         "machine_confidence": [0.9, 0.6, 0.7, 0.55, 0.8],
                         gold: ["ok", "bad", "bad", "ok", "bad"],
                         "seconds_spent": [3.0, 4.0, 5.0, 6.0, 7.0],
                         "topic": ["x", "y", "x", "y", "x"]})


SEL = np.array(["routed", "machine", "audit", "routed", "machine"], dtype=object)
RANK = np.array([2.0, np.nan, 1.0, 3.0, np.nan])


@pytest.mark.parametrize("mapped", [True, False])
@pytest.mark.parametrize("gold", GOLD_NAMES)
def test_gold_never_reaches_annotators_whatever_its_name(gold, mapped):
    """A gold column named as no alias knows (``human_verdict``, ``y``...) reached the page's
    queue download; mapped or not, annotators get the id, the rank and the text only: rows c,
    a, d (ranks 1, 2, 3) with their replies."""
    roles = {"text": ["response"], **({"human_label": gold} if mapped else {})}
    d = load_design(_table(gold), roles)
    out = annotator_table(d, SEL, RANK)
    assert list(out.columns) == ["sample_id", "queue_rank", "response"]
    assert out["sample_id"].tolist() == ["c", "a", "d"]
    assert out["response"].tolist() == ["third reply", "first reply", "fourth reply"]
    tasks = labelstudio.tasks(d, RANK)
    assert [t["data"] for t in tasks] == [
        {"sample_id": "c", "queue_rank": 1, "response": "third reply"},
        {"sample_id": "a", "queue_rank": 2, "response": "first reply"},
        {"sample_id": "d", "queue_rank": 3, "response": "fourth reply"}]


def test_a_chosen_context_column_is_shown():
    d = load_design(_table("y"), {"text": ["response"]})
    assert shown_columns(d.data, ["topic"]) == ["response", "topic"]
    tasks = labelstudio.tasks(d, RANK, show=["topic"])
    assert [t["data"]["topic"] for t in tasks] == ["x", "x", "y"]


@pytest.mark.parametrize("column,role", [("human_verdict", "human_label"),
                                         ("seconds_spent", "human_effort"),
                                         ("machine_confidence", "machine_confidence")])
def test_a_column_mapped_to_a_role_is_refused_even_when_asked(column, role):
    d = load_design(_table("human_verdict"), {"text": ["response"], "human_label": "human_verdict",
                                              "human_effort": "seconds_spent"})
    with pytest.raises(DataError, match=f"'{column}' is mapped to the role {role}"):
        annotator_table(d, SEL, RANK, show=[column])
    with pytest.raises(DataError, match=f"'{column}' is mapped to the role {role}"):
        labelstudio.tasks(d, RANK, show=[column])


@pytest.mark.parametrize("column,message", [("selection", "tells audit rows apart"),
                                            ("nope", "not in the table"),
                                            ("final_predict", "named as an answer")])
def test_other_columns_annotators_may_not_see(column, message):
    t = _table("y").assign(selection=SEL, final_predict="ok")
    d = load_design(t, {"text": ["response"]})
    with pytest.raises(DataError, match=f"'{column}'.*{message}"):
        shown_columns(d.data, [column], selection_column=d.selection_column)
