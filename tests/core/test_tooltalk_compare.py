"""ToolTalk's per-tool comparators (``core.tooltalk.compare``): is a predicted call as good as
a ground-truth call? Expected verdicts worked out by hand from ToolTalk's rules (the reference
text in ``../shared/reference/tooltalk-evaluation.txt`` and the data README), with a cheap
table-driven text similarity."""

from __future__ import annotations

import math

import pytest

from core import tooltalk as tt
from core.tooltalk.compare import compare_tool_call
from tests.core.tooltalk_support import TOKEN, TableSimilarity, api, call


def same(pred, gt, sim=None, **kw):
    return tt.compare_tool_call(pred, gt, similarity=sim or TableSimilarity(), **kw).ok


def pred(name, params, response=None, exception=None):
    return {**api(name, params, response, exception), "role": "api", "metadata": None}


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


def test_a_failed_verdict_says_which_check_failed():
    gt = call("DeleteAlarm", {"session_token": TOKEN, "alarm_id": "a"}, {"status": "success"})
    v = compare_tool_call(call("DeleteEvent", {"session_token": TOKEN}, None), gt,
                          similarity=TableSimilarity())
    assert not v.ok and v.reason == "different tool (DeleteEvent vs DeleteAlarm)"
    ok = compare_tool_call(gt, gt, similarity=TableSimilarity())
    assert ok.ok and bool(ok)


def test_free_text_is_compared_only_through_the_similarity_given():
    p = {"session_token": TOKEN, "receiver": "bob", "message": "hello"}
    gt = call("SendMessage", p, {"message_id": "m1"})
    sim = TableSimilarity({("hi", "hello"): 0.85})
    assert compare_tool_call(call("SendMessage", {**p, "message": "hi"}, None), gt,
                             similarity=sim).ok
    assert ("hi", "hello") in sim.calls
    below = TableSimilarity({("hi", "hello"): 0.5})
    assert not compare_tool_call(call("SendMessage", {**p, "message": "hi"}, None), gt,
                                 similarity=below).ok
    nan = TableSimilarity({("hi", "hello"): math.nan})
    assert not compare_tool_call(call("SendMessage", {**p, "message": "hi"}, None), gt,
                                 similarity=nan).ok
