"""ToolTalk's data model: the tool lists, thresholds, a tool call, a conversation, scores."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.errors import DataError


#: Tools whose execution changes the outside world (``is_action = True`` in ToolTalk).
ACTION_TOOLS: frozenset[str] = frozenset(
    {
        # AccountTools
        "ChangePassword", "DeleteAccount", "LogoutUser", "RegisterUser", "ResetPassword",
        "SendVerificationCode", "UpdateAccountInformation", "UserLogin",
        # Alarm
        "AddAlarm", "DeleteAlarm",
        # Calendar
        "CreateEvent", "DeleteEvent", "ModifyEvent",
        # Email, Messages
        "SendEmail", "SendMessage",
        # Reminder
        "AddReminder", "CompleteReminder", "DeleteReminder",
    }
)
#: Tools that only read the world (``is_action = False`` in ToolTalk).
NON_ACTION_TOOLS: frozenset[str] = frozenset(
    {
        "GetAccountInformation", "QueryUser", "FindAlarms", "QueryCalendar", "SearchInbox",
        "SearchMessages", "GetReminders", "CurrentWeather", "ForecastWeather", "HistoricWeather",
    }
)
#: The 28 ToolTalk tools. A tool name outside this set counts as non-action and is compared
#: with the default comparator.
ALL_TOOLS: frozenset[str] = ACTION_TOOLS | NON_ACTION_TOOLS

#: Free-text arguments compared by similarity, with ToolTalk's thresholds (a value passes when
#: ``similarity >= threshold``).
TEXT_THRESHOLDS: dict[str, dict[str, float]] = {
    "CreateEvent": {"name": 0.9, "description": 0.9, "location": 0.9},
    "ModifyEvent": {"new_name": 0.9, "new_description": 0.9, "new_location": 0.9},
    "SendEmail": {"subject": 0.9, "body": 0.8},
    "SendMessage": {"message": 0.8},
    "AddReminder": {"task": 0.9},
}

#: Search-like tools compared by their results: tool -> (list key in the response, id key).
RESULT_IDS: dict[str, tuple[str, str]] = {
    "FindAlarms": ("alarms", "alarm_id"),
    "QueryCalendar": ("events", "event_id"),
    "SearchInbox": ("emails", "email_id"),
    "SearchMessages": ("messages", "message_id"),
    "GetReminders": ("reminders", "reminder_id"),
}

#: Keys of the per-conversation metrics, in ToolTalk's order.
METRIC_KEYS: tuple[str, ...] = (
    "predictions", "ground_truths", "matches", "actions", "valid_actions", "bad_actions",
    "precision", "recall", "action_precision", "bad_action_rate", "success", "soft_success",
)


TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"

#: A free-text similarity: ``similarity(prediction_text, ground_truth_text) -> float``.
Similarity = Callable[[str, str], float]


@dataclass(frozen=True)
class ToolCall:
    """One tool call, either from the ground truth or from the predictions.

    Attributes
    ----------
    api_name : str
        Tool name (``request.api_name``).
    parameters : dict or None
        ``request.parameters``; ``None`` for a prediction whose arguments could not be parsed.
    response : object
        The recorded response (a dict, or ``None`` when the call failed).
    exception : str or None
        The recorded exception message, ``None`` when the call executed without error.
    request : dict
        The whole ``request`` object as recorded (GetReminders compares whole requests).
    turn : int
        0-based position of the turn in the conversation's ``conversation`` list.
    field : str
        Where the call is in the file, e.g. ``"conversation[3].predictions[0]"``.
    """

    api_name: str
    parameters: dict | None
    response: Any
    exception: str | None
    request: dict
    turn: int = 0
    field: str = ""

    @property
    def params(self) -> dict:
        """``parameters``, or an empty dict when they are ``None``."""
        return self.parameters if self.parameters is not None else {}

    @property
    def is_action(self) -> bool:
        """Whether the tool is an action tool."""
        return is_action(self.api_name)

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any], *, turn: int = 0, field: str = "") -> "ToolCall":
        """Build a call from a ToolTalk ``{"request", "response", "exception"}`` object.

        Parameters
        ----------
        obj : mapping
            The call as stored in ToolTalk files. ``response`` and ``exception`` default
            to ``None`` here (the file loaders require them).
        turn, field
            Position information, see the class attributes.
        """
        request = obj.get("request")
        if not isinstance(request, Mapping):
            raise DataError(f"{field or 'call'}.request: expected an object, got {type_name(request)}")
        api_name = request.get("api_name")
        if not isinstance(api_name, str) or not api_name:
            raise DataError(f"{field or 'call'}.request.api_name: expected a non-empty string, got {api_name!r}")
        params = request.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            raise DataError(
                f"{field or 'call'}.request.parameters: expected an object or null, got {type_name(params)}"
            )
        exception = obj.get("exception")
        if exception is not None and not isinstance(exception, str):
            raise DataError(f"{field or 'call'}.exception: expected a string or null, got {type_name(exception)}")
        return cls(
            api_name=api_name,
            parameters=dict(params) if params is not None else None,
            response=obj.get("response"),
            exception=exception,
            request=dict(request),
            turn=turn,
            field=field,
        )


@dataclass(frozen=True)
class Conversation:
    """A conversation in ToolTalk format, reduced to what the evaluation needs.

    Attributes
    ----------
    name : str
        ``name`` of the conversation (the file stem when absent).
    source : str
        Where it was read from (file name, or ``archive.zip:member.json``).
    ground_truths : tuple of ToolCall
        All ground-truth calls (``apis`` of every turn), in order.
    predictions : tuple of ToolCall
        All predicted calls (``role: "api"`` items of every turn's ``predictions``), in order.
    n_turns : int
        Number of turns.
    has_predictions : bool
        Whether any turn carries a ``predictions`` list (False for a bare ground-truth file).
    scenario : str
        The ``scenario`` text ("" when absent).
    """

    name: str
    source: str
    ground_truths: tuple[ToolCall, ...]
    predictions: tuple[ToolCall, ...]
    n_turns: int
    has_predictions: bool
    scenario: str = ""


@dataclass(frozen=True)
class Verdict:
    """Outcome of one comparator call: ``ok`` and, when not ok, the first failed check."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:  # pragma: no cover - convenience
        return self.ok


@dataclass(frozen=True)
class PredictionOutcome:
    """How one predicted call was scored.

    Attributes
    ----------
    index : int
        Position of the prediction in the conversation's pooled predictions.
    call : ToolCall
        The prediction.
    is_action : bool
        Whether its tool is an action tool.
    match : bool
        Whether it matched a ground-truth call.
    ground_truth_index : int or None
        Position of the matched ground-truth call in the pooled ground truths.
    bad_action : bool
        Unmatched action call that executed without exception (an incorrect action).
    reason : str
        Why it did not match ("" when it matched).
    """

    index: int
    call: ToolCall
    is_action: bool
    match: bool
    ground_truth_index: int | None
    bad_action: bool
    reason: str = ""


@dataclass(frozen=True)
class ConversationScore:
    """ToolTalk metrics of one conversation (see :func:`tooltalk_metrics`) plus the details."""

    name: str
    source: str
    predictions: int
    ground_truths: int
    matches: int
    actions: int
    valid_actions: int
    bad_actions: int
    precision: float
    recall: float
    action_precision: float
    bad_action_rate: float
    success: bool
    soft_success: float
    outcomes: tuple[PredictionOutcome, ...] = field(default=(), repr=False)
    ground_truth_matched: tuple[bool, ...] = field(default=(), repr=False)
    ground_truth_calls: tuple[ToolCall, ...] = field(default=(), repr=False)
    has_predictions: bool = True
    scenario: str = ""

    def metrics(self) -> dict[str, Any]:
        """The 12 ToolTalk metrics under ToolTalk's key names, in ToolTalk's order."""
        return {k: getattr(self, k) for k in METRIC_KEYS}


def is_action(api_name: str) -> bool:
    """Whether ``api_name`` is one of ToolTalk's action tools (unknown tools are non-action)."""
    return api_name in ACTION_TOOLS


def shorten(value: Any, limit: int = 60) -> str:
    """``value`` as short text for messages (JSON or repr, cut at ``limit`` characters)."""
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def type_name(value: Any) -> str:
    """The JSON type of ``value`` for messages ("an object", "a list", "null", ...)."""
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def parse_timestamp(value: Any) -> datetime | None:
    """``value`` as a datetime when it is a string in :data:`TIMESTAMP_FORMAT`, else None."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, TIMESTAMP_FORMAT)
    except ValueError:
        return None
