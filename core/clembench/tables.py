"""Tables for the page and the CLI: one row per episode, per-round accuracy curves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from core.clembench.metrics import middle_round
from core.clembench.model import ACCURACY, EPISODE_KEYS, EpisodeScores, MIDDLE_ACCURACY
from core.clembench.score import compare_scores


def episode_table(scores: Sequence[EpisodeScores]) -> pd.DataFrame:
    """One row per episode: identity, rounds, clembench's episode scores, recorded check.

    ``Middle-Accuracy`` is ``None`` when clembench does not log it (episode ended before the
    middle round) and NaN when it logs NaN (aborted later).

    Returns
    -------
    pandas.DataFrame, shape (n_episodes, 7 + len(EPISODE_KEYS))
    """
    rows = []
    for s in scores:
        e = s.episode
        row: dict[str, Any] = {
            "episode": e.name,
            "model": e.model,
            "experiment": e.experiment,
            "slots": e.n_slots,
            "scored rounds": e.played_rounds,
            "logged rounds": e.logged_rounds,
        }
        for k in EPISODE_KEYS:
            row[k] = s.episode_scores.get(k, None)
        if e.recorded is None:
            row["matches recorded"] = None
        else:
            row["matches recorded"] = not compare_scores(s, e.recorded)
        rows.append(row)
    cols = ["episode", "model", "experiment", "slots", "scored rounds", "logged rounds",
            *EPISODE_KEYS, "matches recorded"]
    table = pd.DataFrame(rows, columns=cols)
    # keep "absent" (None) and NaN apart: pandas would turn None into NaN in a float column
    table[MIDDLE_ACCURACY] = pd.Series([r[MIDDLE_ACCURACY] for r in rows], index=table.index, dtype=object)
    table["matches recorded"] = pd.Series([r["matches recorded"] for r in rows], index=table.index,
                                          dtype=object)
    return table


def accuracy_curves(scores: Sequence[EpisodeScores]) -> pd.DataFrame:
    """Per-round probing accuracy of every episode, in long format.

    Returns
    -------
    pandas.DataFrame, shape (sum of scored rounds, 7)
        Columns ``episode``, ``model``, ``slots``, ``round``, ``accuracy``, ``middle`` (True at
        the episode's middle round) and ``aborted``.
    """
    rows = []
    for s in scores:
        e = s.episode
        mid = middle_round(e.n_slots)
        for key, ts in s.turn_scores.items():
            r = int(key)
            rows.append({"episode": e.name, "model": e.model or "(unknown)", "slots": e.n_slots,
                         "round": r, "accuracy": float(ts[ACCURACY]), "middle": r == mid,
                         "aborted": e.aborted})
    return pd.DataFrame(rows, columns=["episode", "model", "slots", "round", "accuracy", "middle", "aborted"])
