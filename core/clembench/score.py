"""Scoring episodes exactly like clembench's ``PrivateSharedScorer``, and comparison with recorded scores."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from core.clembench.metrics import cohen_kappa, main_score, middle_round, probe_accuracy, truncated_kappa
from core.clembench.model import (
    ABORTED, ACCURACY, Episode, EpisodeScores, KAPPA, LOSE, MAIN_SCORE, MIDDLE_ACCURACY,
    PARSED_REQUEST_COUNT, REQUEST_COUNT, REQUEST_SUCCESS_RATIO, SLOT_FILLED, SLOT_FILLING_ACCURACY,
    SUCCESS, TRUNCATED_KAPPA, VIOLATED_REQUEST_COUNT,
)


def score_episode(episode: Episode) -> EpisodeScores:
    """Score one episode exactly like clembench's ``PrivateSharedScorer``.

    Parameters
    ----------
    episode : Episode
        A validated episode (see :func:`parse_episode`).

    Returns
    -------
    EpisodeScores
        ``turn_scores`` (one dict per scored round) and ``episode_scores`` with clembench's
        key names, order and value types.
    """
    aborted = episode.aborted
    mid = middle_round(episode.n_slots)
    turn_scores: dict[str, dict[str, Any]] = {}
    episode_scores: dict[str, Any] = {}
    gold: list[int] = []
    pred: list[int] = []
    for t in range(episode.played_rounds):
        g, p = episode.gold[t], episode.pred[t]
        acc = probe_accuracy(g, p)
        ts: dict[str, Any] = {
            REQUEST_COUNT: episode.request_counts[t],
            PARSED_REQUEST_COUNT: episode.parsed_request_counts[t],
            VIOLATED_REQUEST_COUNT: episode.violated_request_counts[t],
            ACCURACY: acc,
        }
        if t != 0:
            # no slot is asked before the first probing round; round t follows slot t - 1
            ts[SLOT_FILLED] = int(episode.filled_slots[t - 1])
        turn_scores[str(t)] = ts
        gold.extend(g)
        pred.extend(p)
        if t == mid:
            episode_scores[MIDDLE_ACCURACY] = acc if not aborted else math.nan

    if aborted:
        acc = kappa = trunc = sf_acc = math.nan
    else:
        acc = probe_accuracy(gold, pred)
        kappa = cohen_kappa(gold, pred)
        trunc = truncated_kappa(kappa)
        sf_acc = sum(episode.filled_slots) / len(episode.filled_slots)
    score = main_score(sf_acc, trunc)

    episode_scores[ACCURACY] = acc
    episode_scores[KAPPA] = kappa
    episode_scores[TRUNCATED_KAPPA] = trunc
    episode_scores[SLOT_FILLING_ACCURACY] = sf_acc
    episode_scores[MAIN_SCORE] = score

    success = int(acc == 1.0 and sf_acc == 1.0) if not aborted else 0
    lose = int(not success) if not aborted else 0
    reqs = sum(episode.request_counts)
    parsed = sum(episode.parsed_request_counts)
    violated = sum(episode.violated_request_counts)
    episode_scores[ABORTED] = int(aborted)
    episode_scores[LOSE] = lose
    episode_scores[SUCCESS] = success
    episode_scores[REQUEST_COUNT] = reqs
    episode_scores[PARSED_REQUEST_COUNT] = parsed
    episode_scores[VIOLATED_REQUEST_COUNT] = violated
    episode_scores[REQUEST_SUCCESS_RATIO] = parsed / reqs
    return EpisodeScores(episode=episode, turn_scores=turn_scores, episode_scores=episode_scores)


def score_episodes(episodes: Iterable[Episode]) -> list[EpisodeScores]:
    """Score several episodes (see :func:`score_episode`)."""
    return [score_episode(e) for e in episodes]


def same_score(a: Any, b: Any) -> bool:
    """Exact equality of two score values, with NaN equal to NaN and int/float kept apart.

    ``0`` (int) and ``0.0`` (float) differ, as they do in clembench's JSON output.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    a_float, b_float = isinstance(a, float), isinstance(b, float)
    if a_float != b_float:
        return False
    if a_float and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def compare_scores(computed: EpisodeScores | Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    """List every difference between computed scores and a recorded ``scores.json``.

    Every turn and episode key is compared with :func:`same_score`; missing and extra keys
    count as differences.

    Returns
    -------
    list of str
        Empty when everything agrees.
    """
    comp = computed.to_dict() if isinstance(computed, EpisodeScores) else computed
    diffs: list[str] = []

    def cmp(a: Mapping, b: Mapping, where: str) -> None:
        for k in b:
            if k not in a:
                diffs.append(f"{where}: '{k}' recorded as {b[k]!r} but not computed")
        for k in a:
            if k not in b:
                diffs.append(f"{where}: '{k}' computed as {a[k]!r} but not recorded")
            elif isinstance(a[k], Mapping) and isinstance(b[k], Mapping):
                cmp(a[k], b[k], f"{where} {k}")
            elif not same_score(a[k], b[k]):
                diffs.append(f"{where}: '{k}' computed {a[k]!r}, recorded {b[k]!r}")

    cmp({"turn scores": comp.get("turn scores", {})}, {"turn scores": recorded.get("turn scores", {})}, "")
    cmp({"episode scores": comp.get("episode scores", {})},
        {"episode scores": recorded.get("episode scores", {})}, "")
    return [d.lstrip(" ") for d in diffs]
