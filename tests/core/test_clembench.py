"""Scorekeeping (clembench privateshared) scorer: hand-built episodes and clembench's records."""

from __future__ import annotations

import math
from pathlib import Path


import core.clembench as sk
from tests.core.clembench_support import (
    _failed_round,
    make_log,
    perfect,
    RECORDED,
    same,
    score,
)


# ---------------------------------------------------------------------------------------------
# a hand-built log, written the way clembench's game master logs it
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# recorded clembench episodes: every key equal to scores.json
# ---------------------------------------------------------------------------------------------


def test_recorded_published_values(shared_data: Path):
    """The README's table of recorded episode scores, loaded through the folder loader."""
    loaded = sk.load_paths([shared_data / "clembench"])
    assert len(loaded.episodes) == 5
    by_name = {s.episode.name: s for s in sk.score_episodes(loaded.episodes)}
    assert sorted(by_name) == sorted(RECORDED)
    ep1 = by_name["Mistral-Small-24B-Instruct-2501/1_job-interview/episode_1"].episode_scores
    assert ep1["Main Score"] == 69.56521739130436
    assert ep1["Kappa"] == 0.5333333333333333
    assert ep1["Accuracy"] == 0.7666666666666667
    llama = by_name["Llama-3.3-70B-Instruct/3_things-places/episode_4"]
    assert llama.episode.n_slots == 15
    assert llama.episode_scores["Main Score"] == 99.15966386554621
    assert (llama.episode_scores["Request Count"], llama.episode_scores["Parsed Request Count"],
            llama.episode_scores["Violated Request Count"]) == (255, 255, 0)
    ab = by_name["mistral-large-2411/0_travel-booking/episode_7"]
    assert ab.episode.played_rounds == 3 and ab.episode.aborted
    assert [ts["Accuracy"] for ts in ab.turn_scores.values()] == [1.0, 0.8, 0.8]
    assert math.isnan(ab.episode_scores["Middle-Accuracy"])
    assert (ab.episode_scores["Lose"], ab.episode_scores["Success"]) == (0, 0)
    for s in by_name.values():
        assert s.episode.recorded is not None
        assert sk.compare_scores(s, s.episode.recorded) == []


# ---------------------------------------------------------------------------------------------
# loaders
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# the number of slots without 'realised_slots': instance.json, n_slots, or inferred from probes
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# aborted episodes whose request count lists hold one entry per round begun (clemcore's
# recorder), not n_slots + 1: clembench's PrivateSharedScorer reads entry t for the played
# rounds t only and sums the lists, so it scores them; expected values worked from its code
# (privateshared/master.py, PrivateSharedScorer.compute_scores / _compute_episode_scores)
# ---------------------------------------------------------------------------------------------


def test_aborted_in_round_one_with_two_count_entries():
    # round 0 played perfectly (5 requests), slot 0 filled, round 1's probing failed
    log = make_log(perfect()[:1], aborted=True, filled=[True], extra_round=_failed_round(),
                   counts=([5, 6], [5, 3], [0, 3]))
    s = score(log)
    assert s.turn_scores == {"0": {"Request Count": 5, "Parsed Request Count": 5,
                                   "Violated Request Count": 0, "Accuracy": 1.0}}
    es = s.episode_scores
    assert "Middle-Accuracy" not in es and math.isnan(es["Main Score"])
    assert (es["Request Count"], es["Parsed Request Count"], es["Violated Request Count"]) == (11, 8, 3)
    assert same(es["Request Success Ratio"], 8 / 11)


def test_aborted_mid_game_with_a_count_entry_per_round_begun():
    # rounds 0-3 played, round 4's probing failed: 5 entries; the middle round (2) was played,
    # so Middle-Accuracy is logged, NaN because the episode was aborted
    log = make_log(perfect()[:4], aborted=True, filled=[True] * 4, extra_round=_failed_round(),
                   counts=([5, 6, 6, 6, 4], [5, 6, 6, 6, 1], [0, 0, 0, 0, 3]))
    s = score(log)
    assert list(s.turn_scores) == ["0", "1", "2", "3"]
    assert s.turn_scores["3"] == {"Request Count": 6, "Parsed Request Count": 6, "Violated Request Count": 0,
                                  "Accuracy": 1.0, "Slot Filled?": 1}
    es = s.episode_scores
    assert list(es)[0] == "Middle-Accuracy" and math.isnan(es["Middle-Accuracy"])
    assert (es["Aborted"], es["Lose"], es["Success"]) == (1, 0, 0)
    assert (es["Request Count"], es["Parsed Request Count"], es["Violated Request Count"]) == (27, 24, 3)
    assert same(es["Request Success Ratio"], 24 / 27)
