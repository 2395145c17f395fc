"""clembench's results-table figures (% played, quality score, clemscore) over episodes, and the JSON report."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from core.clembench.model import ABORTED, CLEMSCORE, EpisodeScores, MAIN_SCORE, PLAYED, QUALITY_SCORE
from core.clembench.score import compare_scores
from core.errors import DataError


def _scores_of(item: EpisodeScores | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(item, EpisodeScores):
        return item.episode_scores
    if isinstance(item, Mapping) and "episode scores" in item:
        return item["episode scores"]
    return item


def aggregate_scores(scores: Sequence[EpisodeScores | Mapping[str, Any]]) -> dict[str, Any]:
    """clembench's results-table figures over a set of episodes.

    ``% Played`` = 100 * mean(1 - Aborted); ``Quality Score`` = mean of ``Main Score`` over the
    episodes where it is not NaN (pandas' ``mean`` skips NaN; here computed as ``math.fsum /
    count``); ``clemscore`` = ``% Played / 100 * Quality Score``. clembench's table then rounds
    each figure to 2 decimals; these values are unrounded.

    Parameters
    ----------
    scores : sequence of EpisodeScores or mapping, length n_episodes
        Scored episodes, or their ``episode scores`` dicts (``Aborted`` and ``Main Score``
        are read).

    Returns
    -------
    dict
        ``episodes`` (count), ``played`` (count of non-aborted), ``% Played``,
        ``Quality Score`` (NaN when no episode has a main score) and ``clemscore`` (NaN then too).
    """
    items = [_scores_of(s) for s in scores]
    if not items:
        raise DataError("no episodes to aggregate")
    played = []
    mains = []
    for i, es in enumerate(items):
        if ABORTED not in es or MAIN_SCORE not in es:
            raise DataError(f"episode {i + 1} has no '{ABORTED}' or '{MAIN_SCORE}' score")
        played.append(1 - int(es[ABORTED]))
        m = float(es[MAIN_SCORE])
        if not math.isnan(m):
            mains.append(m)
    pct_played = sum(played) / len(played) * 100
    quality = math.fsum(mains) / len(mains) if mains else math.nan
    return {
        "episodes": len(items),
        "played": int(sum(played)),
        PLAYED: pct_played,
        QUALITY_SCORE: quality,
        CLEMSCORE: pct_played / 100 * quality,
    }


def aggregate_by(scores: Sequence[EpisodeScores], *, by: str = "model") -> dict[str, dict[str, Any]]:
    """:func:`aggregate_scores` per group of episodes (``by`` = ``"model"`` or ``"experiment"``).

    Episodes whose attribute is unknown are grouped under ``"(unknown)"``.
    """
    if by not in ("model", "experiment"):
        raise DataError(f"cannot group episodes by {by!r}: use 'model' or 'experiment'")
    groups: dict[str, list[EpisodeScores]] = {}
    for s in scores:
        key = getattr(s.episode, by) or "(unknown)"
        groups.setdefault(key, []).append(s)
    return {k: aggregate_scores(v) for k, v in groups.items()}


def scores_report(scores: Sequence[EpisodeScores], *, ignored: Sequence[str] = ()) -> dict[str, Any]:
    """The full report printed by ``hmceval scorekeeping --json`` and offered by the dashboard.

    Parameters
    ----------
    scores : sequence of EpisodeScores
        Scored episodes.
    ignored : sequence of str, optional
        Files that were seen but are not episode logs (see :class:`LoadedEpisodes`).

    Returns
    -------
    dict
        ``episodes`` (per episode: ``episode``, ``source``, ``model``, ``experiment``,
        ``n_slots``, ``n_slots_from`` (``"n_slots"`` given, ``"instance.json"``,
        ``"realised_slots"`` or ``"probes"``), ``played_probe_rounds``, ``turn_scores``, ``episode_scores`` with
        clembench's key names, ``matches_recorded`` (None without a recorded ``scores.json``)
        and ``differences``), then ``aggregate``, ``aggregate_by_model`` and ``ignored_files``.
    """
    episodes = []
    for s in scores:
        e = s.episode
        diffs = compare_scores(s, e.recorded) if e.recorded is not None else []
        episodes.append({
            "episode": e.name,
            "source": e.source,
            "model": e.model,
            "experiment": e.experiment,
            "n_slots": e.n_slots,
            "n_slots_from": e.slots_from,
            "played_probe_rounds": e.played_rounds,
            "turn_scores": s.turn_scores,
            "episode_scores": s.episode_scores,
            "matches_recorded": None if e.recorded is None else not diffs,
            "differences": diffs,
        })
    return {
        "episodes": episodes,
        "aggregate": aggregate_scores(scores),
        "aggregate_by_model": aggregate_by(scores, by="model"),
        "ignored_files": list(ignored),
    }
