"""ToolTalk's per-tool comparators: is a predicted call as good as a ground-truth call?"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from core.tooltalk.model import (
    RESULT_IDS, Similarity, TEXT_THRESHOLDS, ToolCall, Verdict, parse_timestamp, shorten,
)
from core.tooltalk.similarity import resolve_similarity


_OK = Verdict(True)


def _fail(reason: str) -> Verdict:
    return Verdict(False, reason)


def _same_exception(pred: ToolCall, gt: ToolCall) -> Verdict:
    if pred.exception != gt.exception:
        return _fail(f"exception differs ({shorten(pred.exception)} vs {shorten(gt.exception)})")
    return _OK


def _text_check(key: str, pred_value: Any, gt_value: Any, threshold: float, similarity: Similarity) -> Verdict:
    if not isinstance(pred_value, str):
        return _fail(f"'{key}' is not a string ({shorten(pred_value)})")
    score = float(similarity(pred_value, gt_value))
    # NaN counts as below the threshold
    if not score >= threshold:
        return _fail(f"'{key}' similarity {score:.3f} < {threshold}")
    return _OK


def _ground_truth_arguments(pred: ToolCall, gt: ToolCall, *, similarity: Similarity, texts: Mapping[str, float],
                            none_fails: bool, date_keys: frozenset[str] = frozenset()) -> Verdict:
    """Every ground-truth argument must be present in the prediction and agree."""
    pp = pred.params
    for key, value in gt.params.items():
        if key not in pp:
            return _fail(f"argument '{key}' missing")
        pv = pp[key]
        if none_fails and pv is None:
            return _fail(f"argument '{key}' is null")
        if key in texts:
            verdict = _text_check(key, pv, value, texts[key], similarity)
            if not verdict.ok:
                return verdict
        elif key in date_keys:
            pd_ = parse_timestamp(pv)
            if pd_ is None:
                return _fail(f"'{key}' is not a '%Y-%m-%d %H:%M:%S' timestamp ({shorten(pv)})")
            if pd_.date() != parse_timestamp(value).date():
                return _fail(f"'{key}' date differs ({pd_.date()} vs {parse_timestamp(value).date()})")
        elif pv != value:
            return _fail(f"argument '{key}' differs ({shorten(pv)} vs {shorten(value)})")
    return _OK


def _compare_default(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """Same response, same exception, every ground-truth argument equal (extra ones allowed)."""
    if pred.response != gt.response:
        return _fail("response differs")
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    return _ground_truth_arguments(pred, gt, similarity=similarity, texts={}, none_fails=False)


def _compare_ignore_response(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """AddAlarm: as the default but the response (a fresh id) is ignored."""
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    return _ground_truth_arguments(pred, gt, similarity=similarity, texts={}, none_fails=False)


def _result_ids(call: ToolCall) -> set | None:
    list_key, id_key = RESULT_IDS[call.api_name]
    if call.response is None:
        return set()
    items = call.response.get(list_key) if isinstance(call.response, Mapping) else None
    if not isinstance(items, list):
        return None
    ids = set()
    for item in items:
        if not isinstance(item, Mapping) or id_key not in item:
            return None
        try:
            ids.add(item[id_key])
        except TypeError:
            return None
    return ids


def _compare_results(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """Search-like tools: same exception and session token, ground-truth result ids a subset
    of the predicted result ids (arguments are otherwise not compared)."""
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    if pred.params.get("session_token") != gt.params.get("session_token"):
        return _fail("session_token differs")
    pred_ids = _result_ids(pred)
    if pred_ids is None:
        list_key, id_key = RESULT_IDS[pred.api_name]
        return _fail(f"response has no '{list_key}' list of objects with '{id_key}'")
    missing = [i for i in _ordered_ids(gt) if i not in pred_ids]
    if missing:
        return _fail(f"{len(missing)} ground-truth result(s) missing, e.g. {shorten(missing[0])}")
    return _OK


def _ordered_ids(call: ToolCall) -> list:
    list_key, id_key = RESULT_IDS[call.api_name]
    if not isinstance(call.response, Mapping):
        return []
    return [item[id_key] for item in call.response.get(list_key, [])]


def _compare_get_reminders(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """GetReminders: identical request, same exception, ground-truth reminder ids a subset."""
    if pred.request != gt.request:
        return _fail("request differs")
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    pred_ids = _result_ids(pred)
    if pred_ids is None:
        return _fail("response has no 'reminders' list of objects with 'reminder_id'")
    missing = [i for i in _ordered_ids(gt) if i not in pred_ids]
    if missing:
        return _fail(f"{len(missing)} ground-truth result(s) missing, e.g. {shorten(missing[0])}")
    return _OK


def _compare_create_event(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """CreateEvent: response ignored; name/description/location by similarity >= 0.9, other
    ground-truth arguments exactly; a null predicted argument fails."""
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    return _ground_truth_arguments(pred, gt, similarity=similarity, texts=TEXT_THRESHOLDS["CreateEvent"],
                                   none_fails=True)


def _compare_modify_event(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """ModifyEvent: same response and exception; new_name/new_description/new_location by
    similarity >= 0.9, other ground-truth arguments exactly; a null predicted argument fails."""
    if pred.response != gt.response:
        return _fail("response differs")
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    return _ground_truth_arguments(pred, gt, similarity=similarity, texts=TEXT_THRESHOLDS["ModifyEvent"],
                                   none_fails=True)


def _compare_send_email(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """SendEmail: same exception and session token, same set of ``to`` addresses (order and
    repeats ignored), subject similarity >= 0.9 and body similarity >= 0.8; response ignored."""
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    pp, gp = pred.params, gt.params
    if pp.get("session_token") != gp.get("session_token"):
        return _fail("session_token differs")
    to = pp.get("to")
    if not isinstance(to, list):
        return _fail(f"'to' is not a list ({shorten(to)})")
    try:
        pred_to = set(to)
    except TypeError:
        return _fail("'to' holds non-string items")
    if pred_to != set(gp["to"]):
        return _fail(f"recipients differ ({shorten(sorted(map(str, pred_to)))} vs {shorten(sorted(gp['to']))})")
    for key in ("subject", "body"):
        if key not in pp:
            return _fail(f"argument '{key}' missing")
        verdict = _text_check(key, pp[key], gp[key], TEXT_THRESHOLDS["SendEmail"][key], similarity)
        if not verdict.ok:
            return verdict
    return _OK


def _make_send_message(strict_receiver: bool) -> Callable[[ToolCall, ToolCall, Similarity], Verdict]:
    def _compare_send_message(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
        """SendMessage: same exception and session token, message similarity >= 0.8; response
        ignored. ToolTalk's receiver check compares the prediction's receiver with itself, so
        the receiver is not checked unless ``strict_receiver`` is set."""
        verdict = _same_exception(pred, gt)
        if not verdict.ok:
            return verdict
        pp, gp = pred.params, gt.params
        if pp.get("session_token") != gp.get("session_token"):
            return _fail("session_token differs")
        if strict_receiver and pp.get("receiver") != gp.get("receiver"):
            return _fail(f"receiver differs ({shorten(pp.get('receiver'))} vs {shorten(gp.get('receiver'))})")
        if "message" not in pp:
            return _fail("argument 'message' missing")
        return _text_check("message", pp["message"], gp["message"], TEXT_THRESHOLDS["SendMessage"]["message"],
                           similarity)

    return _compare_send_message


def _compare_add_reminder(pred: ToolCall, gt: ToolCall, similarity: Similarity) -> Verdict:
    """AddReminder: response ignored; ``due_date`` compared by calendar date only, ``task`` by
    similarity >= 0.9, other ground-truth arguments exactly."""
    verdict = _same_exception(pred, gt)
    if not verdict.ok:
        return verdict
    return _ground_truth_arguments(pred, gt, similarity=similarity, texts=TEXT_THRESHOLDS["AddReminder"],
                                   none_fails=False, date_keys=frozenset({"due_date"}))


#: Comparator of each tool with a rule of its own; every other tool uses the default
#: (same response, same exception, every ground-truth argument equal).
COMPARATORS: dict[str, Callable[[ToolCall, ToolCall, Similarity], Verdict]] = {
    "AddAlarm": _compare_ignore_response,
    "FindAlarms": _compare_results,
    "QueryCalendar": _compare_results,
    "SearchInbox": _compare_results,
    "SearchMessages": _compare_results,
    "GetReminders": _compare_get_reminders,
    "CreateEvent": _compare_create_event,
    "ModifyEvent": _compare_modify_event,
    "SendEmail": _compare_send_email,
    "SendMessage": _make_send_message(False),
    "AddReminder": _compare_add_reminder,
}
_STRICT_SEND_MESSAGE = _make_send_message(True)


def compare_tool_call(prediction: ToolCall, ground_truth: ToolCall, *, similarity: Similarity | None = None,
                      strict_receiver: bool = False) -> Verdict:
    """Whether a predicted call is equivalent to a ground-truth call (ToolTalk's ``f_tool``).

    Parameters
    ----------
    prediction, ground_truth : ToolCall
        The two calls.
    similarity : callable, optional
        ``similarity(prediction_text, ground_truth_text) -> float`` for free-text arguments;
        default :func:`default_similarity` (MiniLM; ToolTalk used DistilBERT).
    strict_receiver : bool, default=False
        Also require the same SendMessage ``receiver`` (ToolTalk does not check it).

    Returns
    -------
    Verdict
        ``ok`` and, when not ok, the first failed check.
    """
    if prediction.api_name != ground_truth.api_name:
        return _fail(f"different tool ({prediction.api_name} vs {ground_truth.api_name})")
    name = ground_truth.api_name
    if strict_receiver and name == "SendMessage":
        comparator = _STRICT_SEND_MESSAGE
    else:
        comparator = COMPARATORS.get(name, _compare_default)
    return comparator(prediction, ground_truth, resolve_similarity(similarity))
