"""core.clembench.model, split from tests/core/test_clembench.py (tests named after the module they test)."""

from __future__ import annotations

import math
import core.clembench as sk
from tests.core.clembench_support import (
    make_log,
    perfect,
    score,
)


# ---------------------------------------------------------------------------------------------
# a hand-built log, written the way clembench's game master logs it
# ---------------------------------------------------------------------------------------------


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
