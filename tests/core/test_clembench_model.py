"""core.clembench.model, split from tests/core/test_clembench.py (tests named after the module they test)."""

from __future__ import annotations

import io
import json
import math
import warnings
import zipfile
from fractions import Fraction
from pathlib import Path
import numpy as np
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score
import core.clembench as sk
import core.demo.clembench as sk_demo
from core.errors import DataError
from core.figures.scorekeeping import accuracy_curves_figure, main_score_figure


# ---------------------------------------------------------------------------------------------
# a hand-built log, written the way clembench's game master logs it
# ---------------------------------------------------------------------------------------------
def gold_round(r: int, n: int = 5) -> list[int]:
    """Slot i is asked at turn i (0-based), so it is shared (1) from probing round i + 1 on."""
    return [1 if r > i else 0 for i in range(n)]


def make_log(preds, *, n=5, aborted=False, played=None, filled=None, counts=None, extra_round=None):
    """An interactions.json dict; ``preds[r]`` are the answers of scored round r."""
    played = len(preds) if played is None else played
    probes = []
    for r, pr in enumerate(preds):
        g = gold_round(r, n)
        probes.append([{"target": f"S{i}", "question": "ME: ?", "gt": g[i], "answer": "ASIDE: x",
                        "value": pr[i], "tries": 1} for i in range(n)])
    if extra_round is not None:  # the round whose probing was aborted: logged, not scored
        probes.append(extra_round)
    if filled is None:
        filled = [True] * max(0, len(preds) - 1)
    if counts is None:
        req = [n] + [n + 1] * (len(preds) - 1) + [0] * (n + 1 - len(preds))
        counts = (req, list(req), [0] * (n + 1))
    return {
        "players": {"GM": "Game master for privateshared", "Player 1": "Answerer: hand-model",
                    "Player 2": "Questioner: Programmatic"},
        "turns": [],
        "probes": probes,
        "realised_slots": {f"s{i}": i for i in range(n)},
        "Request Count": counts[0],
        "Parsed Request Count": counts[1],
        "Violated Request Count": counts[2],
        "Filled Slots": filled,
        "Aborted": aborted,
        "Played Probe Rounds": played,
    }


def score(log, **kw):
    return sk.score_episode(sk.parse_episode(log, source="hand/interactions.json", **kw))


def perfect(n=5):
    return [gold_round(r, n) for r in range(n + 1)]


# ---------------------------------------------------------------------------------------------
# hand-built episodes: each rule and edge case
# ---------------------------------------------------------------------------------------------
def test_perfect_episode():
    s = score(make_log(perfect()))
    es = s.episode_scores
    assert list(es) == list(sk.EPISODE_KEYS)
    assert es["Middle-Accuracy"] == 1.0 and es["Accuracy"] == 1.0
    assert es["Kappa"] == 1.0 and es["Truncated Kappa"] == 1.0
    assert es["Slot-Filling-Accuracy"] == 1.0 and es["Main Score"] == 100.0
    assert (es["Aborted"], es["Lose"], es["Success"]) == (0, 0, 1)
    assert es["Request Count"] == 5 + 5 * 6 and es["Request Success Ratio"] == 1.0
    assert list(s.turn_scores) == ["0", "1", "2", "3", "4", "5"]
    assert "Slot Filled?" not in s.turn_scores["0"]
    assert all(s.turn_scores[str(t)]["Slot Filled?"] == 1 for t in range(1, 6))


def test_aborted_at_round_zero():
    failed_round = [{"target": "S0", "question": "ME: ?", "gt": 0, "answer": "No", "value": -1, "tries": 6},
                    {"target": "S1", "question": "ME: ?", "gt": 0}]
    log = make_log([], played=0, aborted=True, filled=[], extra_round=failed_round,
                   counts=([5, 0, 0, 0, 0, 0], [0] * 6, [5, 0, 0, 0, 0, 0]))
    s = score(log)
    assert s.turn_scores == {}
    es = s.episode_scores
    assert "Middle-Accuracy" not in es
    assert list(es) == list(sk.EPISODE_KEYS[1:])
    for k in ("Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy", "Main Score"):
        assert math.isnan(es[k]), k
    assert (es["Aborted"], es["Lose"], es["Success"]) == (1, 0, 0)
    assert (es["Request Count"], es["Parsed Request Count"], es["Violated Request Count"]) == (5, 0, 5)
    assert es["Request Success Ratio"] == 0.0
    assert s.episode.logged_rounds == 1 and s.episode.played_rounds == 0
