"""Tables for the page and the CLI: per conversation, per tool, action/non-action, incorrect actions,
the calls of one conversation; tool calls written as ``Tool(arg="value", ...)``."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

import pandas as pd

from core.tooltalk.model import ConversationScore, METRIC_KEYS, is_action

__all__ = ["conversation_table", "tool_breakdown", "action_breakdown", "incorrect_actions",
           "format_value", "format_call", "prediction_table", "ground_truth_table"]


def format_value(value: Any) -> str:
    """One argument value as a reader writes it: text in double quotes, lists in ``[...]``,
    objects as ``{key: value}``, ``None``, ``True``/``False``, numbers as they are.

    Parameters
    ----------
    value : object
        A JSON value (str, int, float, bool, None, list, dict).

    Returns
    -------
    str
        E.g. ``["a@x.org", "b@x.org"]`` or ``"Launch party"`` (quotes and backslashes inside text
        escaped as in JSON, line breaks shown as ``\\n``).
    """
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {format_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False, default=str)


def format_call(api_name: str, parameters: dict | None, *, omit: Collection[str] = ()) -> str:
    """A tool call as ``Tool(arg=value, ...)``, arguments in their recorded order.

    Parameters
    ----------
    api_name : str
    parameters : dict or None
        ``None`` for a prediction whose arguments could not be parsed.
    omit : collection of str, default=()
        Argument names left out (e.g. ``("session_token",)``, the same in nearly every call).

    Returns
    -------
    str
        E.g. ``AddAlarm(session_token="tok", time="07:00:00")``; ``Tool(?)`` for unparsed
        arguments; ``Tool()`` for none.
    """
    if parameters is None:
        return f"{api_name}(?)"
    if not isinstance(parameters, dict):
        return f"{api_name}({format_value(parameters)})"
    return f"{api_name}(" + ", ".join(f"{k}={format_value(v)}" for k, v in parameters.items()
                                      if k not in omit) + ")"


def conversation_table(scores: Sequence[ConversationScore]) -> pd.DataFrame:
    """One row per conversation: ``conversation``, ``source``, the 12 metrics,
    ``has_predictions``."""
    rows = [{"conversation": s.name, "source": s.source, **s.metrics(), "has_predictions": s.has_predictions}
            for s in scores]
    return pd.DataFrame(rows, columns=["conversation", "source", *METRIC_KEYS, "has_predictions"])


_BREAKDOWN_COLUMNS = ["ground_truths", "matched_ground_truths", "recall", "predictions", "matched_predictions",
                      "precision", "failed_predictions", "bad_actions"]


def _breakdown(scores: Sequence[ConversationScore], key: Callable[[str], Any], name: str) -> pd.DataFrame:
    acc: dict[Any, dict[str, int]] = {}

    def slot(k: Any) -> dict[str, int]:
        return acc.setdefault(k, {"ground_truths": 0, "matched_ground_truths": 0, "predictions": 0,
                                  "matched_predictions": 0, "failed_predictions": 0, "bad_actions": 0})

    for s in scores:
        for gt, m in zip(s.ground_truth_calls, s.ground_truth_matched):
            d = slot(key(gt.api_name))
            d["ground_truths"] += 1
            d["matched_ground_truths"] += int(m)
        for o in s.outcomes:
            d = slot(key(o.call.api_name))
            d["predictions"] += 1
            d["matched_predictions"] += int(o.match)
            d["failed_predictions"] += int(o.call.exception is not None)
            d["bad_actions"] += int(o.bad_action)
    rows = []
    for k, d in acc.items():
        rows.append({name: k, **d,
                     "recall": d["matched_ground_truths"] / d["ground_truths"] if d["ground_truths"] else math.nan,
                     "precision": d["matched_predictions"] / d["predictions"] if d["predictions"] else math.nan})
    return pd.DataFrame(rows, columns=[name, *_BREAKDOWN_COLUMNS])


def tool_breakdown(scores: Sequence[ConversationScore]) -> pd.DataFrame:
    """Per tool, pooled over the conversations.

    Returns
    -------
    DataFrame
        Columns ``tool``, ``is_action``, ``ground_truths``, ``matched_ground_truths``,
        ``recall`` (matched / ground truths, NaN with none), ``predictions``,
        ``matched_predictions``, ``precision`` (NaN with no prediction of that tool),
        ``failed_predictions`` (exception not null), ``bad_actions``; sorted by tool.
    """
    df = _breakdown(scores, lambda n: n, "tool")
    df.insert(1, "is_action", df["tool"].map(is_action).astype(bool))
    return df.sort_values("tool", kind="stable").reset_index(drop=True)


def action_breakdown(scores: Sequence[ConversationScore]) -> pd.DataFrame:
    """The same counts as :func:`tool_breakdown`, for action vs non-action tools.

    Returns
    -------
    DataFrame
        Two rows, ``kind`` = ``"action"`` then ``"non-action"``.
    """
    df = _breakdown(scores, lambda n: "action" if is_action(n) else "non-action", "kind")
    df = df.set_index("kind").reindex(["action", "non-action"])
    counts = [c for c in _BREAKDOWN_COLUMNS if c not in ("recall", "precision")]
    df[counts] = df[counts].fillna(0).astype(int)
    return df.reset_index()


def incorrect_actions(scores: Sequence[ConversationScore], *, omit: Collection[str] = ()) -> pd.DataFrame:
    """Every incorrect action: conversation, source, turn, prediction #, tool, the call as
    ``Tool(arg=value, ...)`` (without the arguments named in ``omit``), its arguments as JSON
    (all of them), why it matched no ground-truth call."""
    rows = []
    for s in scores:
        for o in s.outcomes:
            if o.bad_action:
                rows.append({"conversation": s.name, "source": s.source, "turn": o.call.turn,
                             "prediction": o.index + 1, "tool": o.call.api_name,
                             "call": format_call(o.call.api_name, o.call.parameters, omit=omit),
                             "arguments": json.dumps(o.call.parameters, ensure_ascii=False, sort_keys=True),
                             "reason": o.reason})
    return pd.DataFrame(rows, columns=["conversation", "source", "turn", "prediction", "tool", "call", "arguments",
                                       "reason"])


_PREDICTION_COLUMNS = ["#", "turn", "tool", "call", "action", "match", "ground truth #", "incorrect action",
                       "exception", "why unmatched", "arguments"]


def prediction_table(score: ConversationScore, *, omit: Collection[str] = ()) -> pd.DataFrame:
    """The predicted calls of one conversation, in order, with how each was judged.

    ``omit`` names arguments left out of ``call`` (``arguments`` keeps them all).

    Returns
    -------
    DataFrame
        Columns ``#`` (1-based), ``turn``, ``tool``, ``call`` (:func:`format_call`), ``action``,
        ``match``, ``ground truth #`` (1-based, None when unmatched), ``incorrect action``,
        ``exception``, ``why unmatched``, ``arguments`` (JSON).
    """
    return pd.DataFrame([{
        "#": o.index + 1, "turn": o.call.turn, "tool": o.call.api_name,
        "call": format_call(o.call.api_name, o.call.parameters, omit=omit), "action": o.is_action,
        "match": o.match,
        "ground truth #": None if o.ground_truth_index is None else o.ground_truth_index + 1,
        "incorrect action": o.bad_action, "exception": o.call.exception, "why unmatched": o.reason,
        "arguments": json.dumps(o.call.parameters, ensure_ascii=False),
    } for o in score.outcomes], columns=_PREDICTION_COLUMNS)


def ground_truth_table(score: ConversationScore, *, omit: Collection[str] = ()) -> pd.DataFrame:
    """The ground-truth calls of one conversation and whether a prediction matched each.

    ``omit`` names arguments left out of ``call`` (``arguments`` keeps them all).

    Returns
    -------
    DataFrame
        Columns ``#`` (1-based), ``turn``, ``tool``, ``call`` (:func:`format_call`), ``matched``,
        ``arguments`` (JSON).
    """
    return pd.DataFrame([{
        "#": j + 1, "turn": g.turn, "tool": g.api_name, "call": format_call(g.api_name, g.parameters, omit=omit),
        "matched": m, "arguments": json.dumps(g.parameters, ensure_ascii=False),
    } for j, (g, m) in enumerate(zip(score.ground_truth_calls, score.ground_truth_matched))],
        columns=["#", "turn", "tool", "call", "matched", "arguments"])
