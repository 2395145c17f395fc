"""Greedy matching of predicted to ground-truth calls and ToolTalk's per-conversation metrics."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from core.errors import DataError
from core.tooltalk.compare import compare_tool_call
from core.tooltalk.io import check_semantics
from core.tooltalk.model import (
    Conversation, ConversationScore, PredictionOutcome, Similarity, TEXT_THRESHOLDS, ToolCall, is_action,
)
from core.tooltalk.similarity import EncoderUnavailableError, resolve_similarity


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
        check_semantics(gt, is_prediction=False, where=gt.field or "ground truth")
    for pred in predictions:
        check_semantics(pred, is_prediction=True, where=pred.field or "prediction")
    sim = resolve_similarity(similarity) if _needs_similarity(ground_truths, predictions) else _no_similarity
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


def rates_from_counts(n_pred: int, n_gt: int, n_match: int, n_act: int, n_valid: int, n_bad: int) -> dict[str, float]:
    """ToolTalk's four rates from the counts: precision, recall, action precision, bad-action rate."""
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
    rates = rates_from_counts(n_pred, n_gt, n_match, n_act, n_valid, n_bad)
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
        except EncoderUnavailableError:
            raise  # no conversation can be scored: not a per-conversation error
        except DataError as exc:
            errors.append(str(exc))
    return scores, errors
