"""Dataset metrics pooled over conversations, and the JSON report."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.tooltalk.model import ConversationScore, METRIC_KEYS
from core.tooltalk.score import rates_from_counts


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
    rates = rates_from_counts(sums["predictions"], sums["ground_truths"], sums["matches"], sums["actions"],
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
