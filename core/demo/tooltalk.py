"""ToolTalk's demo: ground truth as predictions, and the deterministic demo conversations.

The ToolTalk page's built-in example (:func:`demo_conversations`) and what a perfect model would
predict (:func:`ground_truth_as_predictions` on a raw conversation, used by the tests and the
benchmark on ToolTalk's files; :func:`with_ground_truth_predictions` on a parsed one, behind
``hmceval tooltalk --ground-truth-as-predictions``). This module is their one home.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from core.tooltalk.model import ACTION_TOOLS, Conversation, RESULT_IDS

__all__ = ["ground_truth_as_predictions", "with_ground_truth_predictions", "DEMO_PERTURBATIONS",
           "demo_conversations"]


def ground_truth_as_predictions(conversation: Mapping[str, Any]) -> dict:
    """A copy of a ToolTalk conversation whose predictions are its own ground truth.

    Every assistant turn gets ``predictions`` = its ``apis`` (as ``role: "api"`` items, in
    order) followed by the assistant's text, which is what a perfect model would produce.
    Any existing predictions are replaced.
    """
    out = copy.deepcopy(dict(conversation))
    for turn in out.get("conversation", []):
        if not isinstance(turn, dict) or turn.get("role") != "assistant":
            continue
        preds = [{"request": copy.deepcopy(api.get("request")), "response": copy.deepcopy(api.get("response")),
                  "exception": api.get("exception"), "metadata": None, "role": "api"}
                 for api in turn.get("apis", [])]
        preds.append({"role": "assistant", "text": turn.get("text", ""), "metadata": None})
        turn["predictions"] = preds
    return out


_DEMO_USER = {"username": "ada_l", "email": "ada@example.org", "phone": "555-010-0199", "name": "Ada L.",
              "password": "analytical-engine", "session_token": "d3m0-5e55-10n0"}
_DEMO_CONTACTS = [("grace_h", "grace@example.org"), ("alan_t", "alan@example.org"),
                  ("edsger_d", "edsger@example.org"), ("barbara_l", "barbara@example.org")]
_DEMO_CITIES = ["Lisbon", "Osaka", "Nairobi", "Toronto"]
_DEMO_TOPICS = [
    ("the budget review", "Budget review", "Hi, can we go over the budget figures before Friday's meeting?",
     "Can we go over the budget figures before the meeting on Friday?"),
    ("the launch party", "Launch party", "Please join us for the product launch party on Thursday evening.",
     "Join us for the product launch party Thursday evening, please."),
    ("the reading group", "Reading group", "This week we discuss chapter four of the book.",
     "This week we will discuss chapter 4 of the book."),
]


def _api(name: str, params: dict, response: Any, exception: str | None = None) -> dict:
    return {"request": {"api_name": name, "parameters": params}, "response": response, "exception": exception}


def _demo_id(rng: random.Random, n: int = 8) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _demo_ground_truth(kind: str, rng: random.Random, day: str) -> tuple[str, str, list[dict]]:
    """One exchange: (user text, assistant text, ground-truth calls)."""
    tok = _DEMO_USER["session_token"]
    if kind == "alarm":
        hour = rng.choice([6, 7, 8])
        time = f"{hour:02d}:{rng.choice([0, 15, 30, 45]):02d}:00"
        return (f"Please set an alarm for {time[:5]}.", f"Your alarm is set for {time[:5]}.",
                [_api("AddAlarm", {"session_token": tok, "time": time}, {"alarm_id": f"{_demo_id(rng, 4)}-0001"})])
    if kind == "find_alarms":
        alarms = [{"alarm_id": f"{_demo_id(rng, 4)}-{i:04d}", "time": f"{6 + i:02d}:30:00"} for i in range(3)]
        return ("Which alarms do I have?", "You have three alarms.",
                [_api("FindAlarms", {"session_token": tok}, {"alarms": alarms})])
    if kind == "email":
        topic = rng.choice(_DEMO_TOPICS)
        people = rng.sample(_DEMO_CONTACTS, 2)
        return (f"Email {people[0][0]} and {people[1][0]} about {topic[0]}.", "The email has been sent.",
                [_api("SendEmail", {"session_token": tok, "to": [p[1] for p in people], "subject": topic[1],
                                    "body": topic[2]}, {"email_id": f"{_demo_id(rng, 2)}-{_demo_id(rng, 4)}"})])
    if kind == "message":
        topic = rng.choice(_DEMO_TOPICS)
        who = rng.choice(_DEMO_CONTACTS)
        return (f"Message {who[0]} about {topic[0]}.", "Message sent.",
                [_api("SendMessage", {"session_token": tok, "receiver": who[0], "message": topic[2]},
                      {"message_id": f"{_demo_id(rng)}-{_demo_id(rng)}"})])
    if kind == "reminder":
        topic = rng.choice(_DEMO_TOPICS)
        due = f"{day} {rng.choice([17, 18, 20]):02d}:00:00"
        return (f"Remind me to prepare {topic[0]} by tonight.", "Reminder added.",
                [_api("AddReminder", {"session_token": tok, "task": f"Prepare {topic[0]}", "due_date": due},
                      {"reminder_id": f"{_demo_id(rng, 2)}-{_demo_id(rng, 4)}"})])
    if kind == "reminders":
        rems = [{"reminder_id": f"{_demo_id(rng, 2)}-{_demo_id(rng, 4)}", "task": t[1], "due_date": None,
                 "status": "pending"} for t in _DEMO_TOPICS[:2]]
        return ("What is on my todo list?", "You have two pending reminders.",
                [_api("GetReminders", {"session_token": tok}, {"reminders": rems})])
    if kind == "calendar":
        events = [{"event_id": f"{_demo_id(rng)}-{_demo_id(rng, 4)}", "name": t[1], "event_type": "event",
                   "start_time": f"{day} {10 + 2 * i:02d}:00:00", "end_time": f"{day} {11 + 2 * i:02d}:00:00",
                   "location": None, "description": None, "attendees": None} for i, t in enumerate(_DEMO_TOPICS)]
        return ("What is on my calendar today?", "You have three events today.",
                [_api("QueryCalendar", {"session_token": tok, "start_time": f"{day} 00:00:00",
                                        "end_time": f"{day} 23:59:59"}, {"events": events})])
    if kind == "event":
        topic = rng.choice(_DEMO_TOPICS)
        who = rng.choice(_DEMO_CONTACTS)
        start = rng.choice([14, 15, 16])
        return (f"Set up a meeting with {who[0]} about {topic[0]} at {start}:00.", "The meeting is booked.",
                [_api("CreateEvent", {"session_token": tok, "name": topic[1], "event_type": "meeting",
                                      "start_time": f"{day} {start:02d}:00:00",
                                      "end_time": f"{day} {start + 1:02d}:00:00", "attendees": [who[0]]}, {"event_id": f"{_demo_id(rng)}-{_demo_id(rng, 4)}"})])
    if kind == "weather":
        city = rng.choice(_DEMO_CITIES)
        return (f"What's the weather in {city}?", f"It is sunny in {city}.",
                [_api("CurrentWeather", {"location": city},
                      {"weather": {"location": city, "temperature": rng.randint(12, 30), "condition": "sunny"}})])
    raise ValueError(kind)  # pragma: no cover


#: (ground-truth exchanges, perturbation) of the demo conversations, in order.
_DEMO_PLAN: list[tuple[tuple[str, ...], str]] = [
    (("calendar", "event"), "exact"),
    (("alarm", "weather"), "missing_call"),
    (("reminders", "reminder"), "duplicate_action"),
    (("find_alarms", "alarm"), "wrong_argument"),
    (("message", "weather"), "failed_then_fixed"),
    (("calendar", "email"), "search_missing_result"),
    (("email", "reminder"), "reordered_recipients_and_same_day"),
    (("message", "event"), "paraphrase"),
    (("weather", "reminders"), "extra_lookup"),
    (("alarm", "message"), "no_predictions"),
    (("event", "weather"), "unknown_tool"),
    (("email",), "wrong_recipient"),
]

#: What each demo perturbation does (also written into the conversation's ``scenario``).
DEMO_PERTURBATIONS: dict[str, str] = {
    "exact": "predictions equal the ground truth",
    "missing_call": "the first ground-truth call is never predicted (recall < 1)",
    "duplicate_action": "the action call is predicted twice (the copy is an incorrect action)",
    "wrong_argument": "the action is called with a wrong argument (incorrect action, recall < 1)",
    "failed_then_fixed": "a first attempt fails with an exception (not an incorrect action), then the right call",
    "search_missing_result": "the search returns fewer results than the ground truth (non-action mismatch)",
    "reordered_recipients_and_same_day": "recipients reordered and reminder due at another hour of the same day "
                                         "(both still match)",
    "paraphrase": "the message is reworded and the event name lengthened (whether each still matches depends "
                  "on the text similarity)",
    "extra_lookup": "an extra, unneeded weather lookup (precision < 1, still a success)",
    "no_predictions": "the model made no tool call at all (precision 0, recall 0)",
    "unknown_tool": "an extra call to a tool that does not exist (failed, non-action)",
    "wrong_recipient": "the e-mail goes to a wrong address (incorrect action)",
}


def _as_prediction(api: dict, **changes: Any) -> dict:
    pred = copy.deepcopy(api)
    pred.update(changes)
    pred["role"] = "api"
    pred["metadata"] = None
    return pred


def _perturb(mode: str, turn_calls: list[list[dict]], rng: random.Random) -> list[list[dict]]:
    """Predicted calls per assistant turn for one perturbation mode."""
    preds = [[_as_prediction(a) for a in calls] for calls in turn_calls]
    flat = [(t, k) for t, calls in enumerate(preds) for k in range(len(calls))]

    def find(tools: Iterable[str]) -> tuple[int, int]:
        tools = set(tools)
        return next((t, k) for t, k in flat if preds[t][k]["request"]["api_name"] in tools)

    if mode == "exact":
        return preds
    if mode == "missing_call":
        t, k = flat[0]
        del preds[t][k]
    elif mode == "duplicate_action":
        t, k = find(ACTION_TOOLS)
        dup = copy.deepcopy(preds[t][k])
        if isinstance(dup["response"], dict):
            dup["response"] = {key: f"{_demo_id(rng, 2)}-{_demo_id(rng, 4)}" for key in dup["response"]}
        preds[t].insert(k + 1, dup)
    elif mode == "wrong_argument":
        t, k = find({"AddAlarm"})
        p = preds[t][k]["request"]["parameters"]
        hour = int(p["time"][:2])
        p["time"] = f"{(hour + 12) % 24:02d}{p['time'][2:]}"
    elif mode == "failed_then_fixed":
        t, k = find({"SendMessage"})
        bad = copy.deepcopy(preds[t][k])
        bad["request"]["parameters"]["session_token"] = "not-a-token"
        bad["response"], bad["exception"] = None, "Invalid session_token."
        preds[t].insert(k, bad)
    elif mode == "search_missing_result":
        t, k = find(RESULT_IDS)
        resp = preds[t][k]["response"]
        list_key = RESULT_IDS[preds[t][k]["request"]["api_name"]][0]
        resp[list_key] = resp[list_key][:-1]
        params = preds[t][k]["request"]["parameters"]
        params["end_time"] = params["start_time"][:11] + "12:59:59"
    elif mode == "reordered_recipients_and_same_day":
        t, k = find({"SendEmail"})
        p = preds[t][k]["request"]["parameters"]
        p["to"] = list(reversed(p["to"]))
        preds[t][k]["response"] = {"email_id": f"{_demo_id(rng, 2)}-{_demo_id(rng, 4)}"}
        t, k = find({"AddReminder"})
        p = preds[t][k]["request"]["parameters"]
        p["due_date"] = p["due_date"][:11] + "23:30:00"
    elif mode == "paraphrase":
        t, k = find({"SendMessage"})
        p = preds[t][k]["request"]["parameters"]
        for topic in _DEMO_TOPICS:
            if p["message"] == topic[2]:
                p["message"] = topic[3]
        t, k = find({"CreateEvent"})
        p = preds[t][k]["request"]["parameters"]
        p["name"] = p["name"].lower() + " meeting"
    elif mode == "extra_lookup":
        t, k = find({"CurrentWeather"})
        extra = copy.deepcopy(preds[t][k])
        city = next(c for c in _DEMO_CITIES if c != extra["request"]["parameters"]["location"])
        extra["request"]["parameters"]["location"] = city
        extra["response"] = {"weather": {"location": city, "temperature": 9, "condition": "rain"}}
        preds[t].insert(k, extra)
    elif mode == "no_predictions":
        preds = [[] for _ in preds]
    elif mode == "unknown_tool":
        t, _ = flat[-1]
        preds[t].append({"request": {"api_name": "BookFlight", "parameters": {"destination": "Osaka"}},
                         "response": None, "exception": "API BookFlight not found", "metadata": None, "role": "api"})
    elif mode == "wrong_recipient":
        t, k = find({"SendEmail"})
        p = preds[t][k]["request"]["parameters"]
        p["to"] = [p["to"][0], "someone.else@example.org"]
    else:  # pragma: no cover
        raise ValueError(mode)
    return preds


def with_ground_truth_predictions(conversation: Conversation) -> Conversation:
    """The same conversation with its ground-truth calls as predictions (a perfect model);
    the parsed counterpart of :func:`ground_truth_as_predictions`."""
    return replace(conversation, predictions=conversation.ground_truths, has_predictions=True)


def demo_conversations(*, seed: int = 0) -> list[dict]:
    """Built-in demo: synthetic ToolTalk-format conversations with model predictions.

    The conversations are generated here (a fictitious user, contacts and events; nothing is
    taken from the ToolTalk data) and each one's predictions are a deterministic perturbation
    of its ground truth, one per entry of :data:`DEMO_PERTURBATIONS` (exact copy, missing
    call, duplicated action, wrong argument, failed call followed by the right one, search with
    a missing result, reordered recipients and same-day due date, paraphrased text, extra
    lookup, no predictions, unknown tool, wrong recipient). The perturbation is written in
    each conversation's ``scenario``.

    Parameters
    ----------
    seed : int, default=0
        Seed of the generator (ids, times, topics).

    Returns
    -------
    list of dict
        12 conversations in ToolTalk's format with ``predictions`` in every assistant turn.
    """
    rng = random.Random(seed)
    out = []
    for n, (kinds, mode) in enumerate(_DEMO_PLAN):
        day = f"2024-03-{4 + n:02d}"
        turns: list[dict] = []
        gt_calls: list[list[dict]] = []
        for kind in kinds:
            user_text, reply, calls = _demo_ground_truth(kind, rng, day)
            turns.append({"index": len(turns), "role": "user", "text": user_text})
            turns.append({"index": len(turns), "role": "assistant", "text": reply, "apis": calls})
            gt_calls.append(calls)
        turns.append({"index": len(turns), "role": "user", "text": "Thanks!"})
        pred_calls = _perturb(mode, gt_calls, rng)
        assistant_turns = [t for t in turns if t["role"] == "assistant"]
        for turn, calls in zip(assistant_turns, pred_calls):
            turn["predictions"] = calls + [{"role": "assistant", "text": turn["text"], "metadata": None}]
        apis_used = sorted({c["request"]["api_name"] for calls in gt_calls for c in calls})
        out.append({
            "name": f"demo-{n + 1:02d}-{mode.replace('_', '-')}",
            "conversation_id": f"demo-{seed}-{n + 1}",
            "apis_used": apis_used,
            "scenario": f"demo: {DEMO_PERTURBATIONS[mode]}",
            "user": dict(_DEMO_USER),
            "metadata": {"location": "Lisbon", "timestamp": f"{day} 09:00:00",
                         "session_token": _DEMO_USER["session_token"], "username": _DEMO_USER["username"]},
            "conversation": turns,
        })
    return out
