"""ToolTalk figures (core.figures.tooltalk) and the readable call text of core.tooltalk.tables."""

from __future__ import annotations

import json

import pandas as pd

from core import tooltalk as tt
from core.figures.tooltalk import ACTION_MARK, action_figure, conversation_figure, tool_figure
from core.tooltalk.tables import format_call, format_value, ground_truth_table, prediction_table

TOKEN = "tok"


def _api(name, params, response=None, exception=None, role=None):
    out = {"request": {"api_name": name, "parameters": params}, "response": response, "exception": exception}
    if role:
        out["role"] = role
    return out


def _score(gts, preds, name="c"):
    obj = {"name": name, "conversation": [
        {"role": "user", "text": "u"},
        {"role": "assistant", "text": "a", "apis": gts, "predictions": preds + [{"role": "assistant", "text": "a"}]},
    ]}
    conv = tt.parse_conversation(obj, source=f"{name}.json")
    return tt.evaluate_conversation(conv, similarity=tt.exact_similarity)


ALARM = _api("AddAlarm", {"session_token": TOKEN, "time": "07:00:00"}, {"alarm_id": "a1"})
EMAIL = _api("SendEmail", {"session_token": TOKEN, "to": ["a@x.org", "b@x.org"], "subject": "Hi",
                           "body": 'Say "yes"\nthen go'}, {"status": "success"})
QUERY = _api("QueryCalendar", {"session_token": TOKEN, "start_time": "2024-01-01 00:00:00"}, {"events": []})


def _pred(api, **params):
    p = json.loads(json.dumps(api))
    p["request"]["parameters"].update(params)
    p["role"] = "api"
    return p


def test_format_value_and_call_by_hand():
    assert format_value("Hi") == '"Hi"'
    assert format_value('Say "yes"\nthen go') == '"Say \\"yes\\"\\nthen go"'
    assert format_value(["a@x.org", "b@x.org"]) == '["a@x.org", "b@x.org"]'
    assert format_value({"k": True, "n": None, "x": 1.5, "i": 3}) == "{k: True, n: None, x: 1.5, i: 3}"
    assert format_value("é") == '"é"'  # not \\u00e9
    assert format_call("AddAlarm", {"session_token": "tok", "time": "07:00:00"}) \
        == 'AddAlarm(session_token="tok", time="07:00:00")'
    assert format_call("SendEmail", None) == "SendEmail(?)"  # unparsed arguments
    assert format_call("LogoutUser", {}) == "LogoutUser()"
    assert format_call("AddAlarm", {"session_token": "tok", "time": "07:00:00"}, omit=("session_token",)) \
        == 'AddAlarm(time="07:00:00")'


def test_detail_tables_write_calls_readably():
    wrong = _pred(ALARM, time="08:00:00")
    s = _score([ALARM, EMAIL], [wrong, _pred(EMAIL)])
    pred = prediction_table(s)
    assert list(pred["#"]) == [1, 2] and list(pred["tool"]) == ["AddAlarm", "SendEmail"]
    assert pred["call"].iloc[0] == 'AddAlarm(session_token="tok", time="08:00:00")'
    assert pred["call"].iloc[1] == ('SendEmail(session_token="tok", to=["a@x.org", "b@x.org"], subject="Hi", '
                                    'body="Say \\"yes\\"\\nthen go")')
    assert list(pred["match"]) == [False, True] and list(pred["incorrect action"]) == [True, False]
    assert pred["ground truth #"].iloc[1] == 2 and pd.isna(pred["ground truth #"].iloc[0])
    assert json.loads(pred["arguments"].iloc[0]) == {"session_token": "tok", "time": "08:00:00"}
    assert "'time' differs" in pred["why unmatched"].iloc[0]
    truth = ground_truth_table(s)
    assert list(truth["matched"]) == [False, True]
    assert truth["call"].iloc[0] == 'AddAlarm(session_token="tok", time="07:00:00")'
    bad = tt.incorrect_actions([s])
    assert list(bad["call"]) == ['AddAlarm(session_token="tok", time="08:00:00")']
    # omit: left out of the call shown, kept in the JSON arguments
    bad = tt.incorrect_actions([s], omit=("session_token",))
    assert list(bad["call"]) == ['AddAlarm(time="08:00:00")'] and TOKEN in bad["arguments"].iloc[0]
    assert ground_truth_table(s, omit=("session_token",))["call"].iloc[0] == 'AddAlarm(time="07:00:00")'
    assert prediction_table(s, omit=("time",))["call"].iloc[0] == 'AddAlarm(session_token="tok")'
    assert json.loads(bad["arguments"].iloc[0])["time"] == "08:00:00"


def test_conversation_figure_layout():
    long_name = "a-conversation-name-that-is-far-too-long-for-an-axis"
    ok = _score([ALARM], [_pred(ALARM)], name="ok")
    none = _score([ALARM], [], name=long_name)
    fig = conversation_figure(tt.conversation_table([ok, none]))
    assert [t.name for t in fig.data] == ["precision", "recall", "soft success"]
    assert list(fig.data[0].y) == ["✓ ok", "✗ a-conversation-name-that-is-far…"]  # 31 characters + "…"
    assert list(fig.data[0].customdata) == ["ok", long_name]  # the full name in the hover
    # a 0 is written, so it is not mistaken for a missing bar
    assert list(fig.data[1].x) == [1.0, 0.0] and list(fig.data[1].text) == ["", "0"]
    assert fig.layout.title.text == "Scores per conversation"
    assert list(fig.layout.xaxis.tickvals) == [0, 0.2, 0.4, 0.6, 0.8, 1.0] and fig.layout.xaxis.range[1] > 1
    assert "0 to 1" in fig.layout.xaxis.title.text and "✓" in fig.layout.yaxis.title.text


def test_tool_figure_counts_and_action_mark():
    s = _score([ALARM, EMAIL, QUERY], [_pred(ALARM), _pred(QUERY)])
    fig = tool_figure(tt.tool_breakdown([s]))
    assert list(fig.data[0].x) == [f"AddAlarm{ACTION_MARK}", "QueryCalendar", f"SendEmail{ACTION_MARK}"]
    assert list(fig.data[1].y) == [0, 0, 1]  # SendEmail's ground truth was missed
    assert [t.name for t in fig.data] == ["ground truth matched", "ground truth missed",
                                          "failed predictions (exception)", "incorrect actions"]
    # whole-number ticks for counts, headroom above the tallest bar, the mark explained
    assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.tickformat == ",d"
    assert fig.layout.yaxis.range[1] > 1
    assert ACTION_MARK.strip() in fig.layout.xaxis.title.text and "count" in fig.layout.yaxis.title.text


def test_action_figure_na_written():
    s = _score([ALARM], [_pred(ALARM)])
    fig = action_figure(tt.action_breakdown([s]))
    assert list(fig.data[0].x) == ["action", "non-action"]
    assert list(fig.data[0].text) == ["1.00", "n/a"]  # no non-action call: no bar, "n/a"
    assert "n/a" in fig.layout.xaxis.title.text and fig.layout.yaxis.range[1] > 1
    assert len(fig.layout.title.text) <= 40
