"""Scorekeeping (clembench privateshared) scorer: hand-built episodes and clembench's records."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

import core.clembench as sk
import core.demo.clembench as sk_demo
from core.errors import DataError
from core.figures.scorekeeping import accuracy_curves_figure, main_score_figure
from tests.core.clembench_support import (
    _failed_round,
    gold_round,
    make_log,
    NAN,
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


def test_recorded_aggregate(shared_data: Path):
    loaded = sk.load_paths([shared_data / "clembench"])
    agg = sk.aggregate_scores(sk.score_episodes(loaded.episodes))
    mains = [69.56521739130436, 42.10526315789475, 92.85714285714286, 99.15966386554621]
    assert agg["episodes"] == 5 and agg["played"] == 4
    assert agg["% Played"] == 80.0
    assert agg["Quality Score"] == math.fsum(mains) / 4
    assert agg["Quality Score"] == pytest.approx(75.92182181797205, abs=1e-12)
    assert agg["clemscore"] == 0.8 * agg["Quality Score"]
    by_model = sk.aggregate_by(sk.score_episodes(loaded.episodes))
    assert by_model["mistral-large-2411"]["% Played"] == 0.0
    assert math.isnan(by_model["mistral-large-2411"]["Quality Score"])
    assert math.isnan(by_model["mistral-large-2411"]["clemscore"])
    assert by_model["Mistral-Small-24B-Instruct-2501"]["Quality Score"] == pytest.approx(
        (69.56521739130436 + 42.10526315789475 + 92.85714285714286) / 3, abs=1e-12)


def test_always_yes():
    s = score(make_log([[1] * 5 for _ in range(6)]))
    # round r has r shared slots out of 5
    assert [ts["Accuracy"] for ts in s.turn_scores.values()] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    es = s.episode_scores
    assert es["Middle-Accuracy"] == 0.4
    assert es["Accuracy"] == 0.5  # 15 of 30 probes have gt == 1
    assert es["Kappa"] == 0.0 and type(es["Kappa"]) is float  # po == pe
    assert es["Truncated Kappa"] == 0 and type(es["Truncated Kappa"]) is int
    assert es["Main Score"] == 0.0 and type(es["Main Score"]) is float  # sf + tk = 1 != 0
    assert (es["Lose"], es["Success"]) == (1, 0)


def test_inverted_answers_negative_kappa_truncated():
    preds = [[1 - g for g in gold_round(r)] for r in range(6)]
    es = score(make_log(preds)).episode_scores
    assert es["Accuracy"] == 0.0 and es["Middle-Accuracy"] == 0.0
    assert es["Kappa"] == -1.0  # po = 0, pe = 1/2
    assert es["Truncated Kappa"] == 0 and type(es["Truncated Kappa"]) is int
    assert es["Main Score"] == 0.0 and type(es["Main Score"]) is float


def test_sf_plus_tk_zero_gives_int_zero():
    preds = [[1 - g for g in gold_round(r)] for r in range(6)]
    es = score(make_log(preds, filled=[False] * 5)).episode_scores
    assert es["Slot-Filling-Accuracy"] == 0.0
    assert es["Main Score"] == 0 and type(es["Main Score"]) is int
    assert (es["Lose"], es["Success"]) == (1, 0)


def test_partial_slot_filling_and_turn_flags():
    es_s = score(make_log(perfect(), filled=[True, False, True, True, False]))
    es = es_s.episode_scores
    assert es["Slot-Filling-Accuracy"] == 3 / 5
    # 100 * (2 * 0.6 * 1.0 / 1.6) = 75
    assert es["Main Score"] == pytest.approx(75.0, abs=1e-12)
    assert es["Success"] == 0 and es["Lose"] == 1  # accuracy 1 but slot filling < 1
    assert [es_s.turn_scores[str(t)]["Slot Filled?"] for t in range(1, 6)] == [1, 0, 1, 1, 0]


def test_kappa_hand_computed_episode():
    # round 0 all "yes" (5 wrong), rounds 1-4 correct, round 5 all "no" (5 wrong)
    preds = [[1] * 5] + [gold_round(r) for r in range(1, 5)] + [[0] * 5]
    es = score(make_log(preds)).episode_scores
    # confusion: gt 0 -> answered 0: 10, 1: 5; gt 1 -> answered 0: 5, 1: 10; po = 2/3, pe = 1/2
    assert es["Accuracy"] == 20 / 30
    assert es["Kappa"] == pytest.approx(1 / 3, abs=1e-15)
    assert es["Truncated Kappa"] == es["Kappa"]
    # harmonic mean with sf = 1: 100 * 2 * (1/3) / (4/3) = 50
    assert es["Main Score"] == pytest.approx(50.0, abs=1e-12)
    preds = [[1] * 5, [1] * 5, gold_round(2), gold_round(3), [0] * 5, [0] * 5]
    es = score(make_log(preds)).episode_scores
    g = [x for r in range(6) for x in gold_round(r)]
    p = [x for pr in preds for x in pr]
    po = Fraction(sum(a == b for a, b in zip(g, p)), 30)
    pe = Fraction(sum(g), 30) * Fraction(sum(p), 30) + Fraction(30 - sum(g), 30) * Fraction(30 - sum(p), 30)
    assert es["Kappa"] == pytest.approx(float((po - pe) / (1 - pe)), abs=1e-15)


def test_kappa_tie_zero_with_non_constant_answers():
    # "yes" to the 5 private probes of round 0 and to the 5 shared probes of round 5, "no"
    # elsewhere: P(yes | private) = P(yes | shared) = 1/3, so po = pe = 1/2 and kappa = 0
    preds = [[1] * 5] + [[0] * 5] * 4 + [[1] * 5]
    s = score(make_log(preds))
    es = s.episode_scores
    assert es["Accuracy"] == 0.5
    assert es["Kappa"] == 0.0 and type(es["Kappa"]) is float
    assert es["Truncated Kappa"] == 0 and type(es["Truncated Kappa"]) is int  # max(0, 0.0) keeps 0
    assert es["Main Score"] == 0.0 and type(es["Main Score"]) is float
    assert es["Middle-Accuracy"] == 0.6  # round 2: gt [1, 1, 0, 0, 0], all "no"
    assert [ts["Accuracy"] for ts in s.turn_scores.values()] == [0.0, 0.8, 0.6, 0.4, 0.2, 1.0]


def test_kappa_undefined_in_non_aborted_log():
    # a hand-made, non-aborted log with only round 0 scored, all "no": gt and answers all 0
    log = make_log([[0, 0]], n=2, filled=[True])
    es = score(log).episode_scores
    assert es["Middle-Accuracy"] == 1.0  # middle round of 2 slots is round 0
    assert math.isnan(es["Kappa"])
    assert es["Truncated Kappa"] == 0 and type(es["Truncated Kappa"]) is int  # max(0, nan) == 0
    assert es["Main Score"] == 0.0
    assert es["Success"] == 1  # clembench: accuracy 1 and slot filling 1


def test_aborted_before_middle_round_has_no_middle_accuracy():
    log = make_log(perfect()[:2], aborted=True, filled=[True, True],
                   counts=([6, 6, 2, 0, 0, 0], [5, 6, 1, 0, 0, 0], [1, 0, 1, 0, 0, 0]))
    s = score(log)
    assert list(s.turn_scores) == ["0", "1"]
    assert "Middle-Accuracy" not in s.episode_scores
    assert s.turn_scores["1"]["Slot Filled?"] == 1
    assert s.episode_scores["Request Success Ratio"] == 12 / 14


def test_aborted_after_middle_round_has_nan_middle_accuracy():
    preds = perfect()[:4]
    preds[2] = [0] * 5  # round 2 accuracy 3/5, still reported per turn
    s = score(make_log(preds, aborted=True, filled=[True, False, True]))
    es = s.episode_scores
    assert list(es)[0] == "Middle-Accuracy" and math.isnan(es["Middle-Accuracy"])
    assert s.turn_scores["2"]["Accuracy"] == 0.6
    assert s.turn_scores["2"]["Slot Filled?"] == 0
    assert math.isnan(es["Slot-Filling-Accuracy"]) and math.isnan(es["Main Score"])


def test_aborted_probing_round_is_logged_not_scored():
    # round 3's probing failed after 2 probes; the wrong answer in it must not count
    failed = [{"target": "S0", "question": "q", "gt": 1, "answer": "ASIDE: No", "value": 0, "tries": 1},
              {"target": "S1", "question": "q", "gt": 1, "answer": "maybe", "value": -1, "tries": 6}]
    s = score(make_log(perfect()[:3], aborted=True, filled=[True, True, True], extra_round=failed))
    assert list(s.turn_scores) == ["0", "1", "2"]
    assert s.episode.logged_rounds == 4
    assert math.isnan(s.episode_scores["Middle-Accuracy"])


def test_middle_accuracy_for_15_slots_uses_round_7():
    preds = perfect(15)
    preds[7] = [1 - g for g in gold_round(7, 15)]
    preds[2] = [1 - g for g in gold_round(2, 15)]
    es = score(make_log(preds, n=15)).episode_scores
    assert es["Middle-Accuracy"] == 0.0


# ---------------------------------------------------------------------------------------------
# aggregation and comparison
# ---------------------------------------------------------------------------------------------
def test_aggregate_hand():
    a = score(make_log(perfect()))                                  # main 100.0
    b = score(make_log([[1] * 5 for _ in range(6)]))                # main 0.0
    c = score(make_log(perfect()[:3], aborted=True, filled=[True, True]))  # aborted
    agg = sk.aggregate_scores([a, b, c])
    assert agg["episodes"] == 3 and agg["played"] == 2
    assert agg["% Played"] == 2 / 3 * 100
    assert agg["Quality Score"] == 50.0
    assert agg["clemscore"] == (2 / 3 * 100) / 100 * 50.0
    only_aborted = sk.aggregate_scores([c])
    assert only_aborted["% Played"] == 0.0
    assert math.isnan(only_aborted["Quality Score"]) and math.isnan(only_aborted["clemscore"])
    # plain episode-score dicts and scores.json layouts are accepted too
    assert sk.aggregate_scores([a.episode_scores, a.to_dict()])["Quality Score"] == 100.0
    with pytest.raises(DataError, match="no episodes"):
        sk.aggregate_scores([])
    with pytest.raises(DataError, match="cannot group"):
        sk.aggregate_by([a], by="colour")


def test_compare_scores_finds_every_difference():
    s = score(make_log(perfect()))
    rec = json.loads(json.dumps(s.to_dict()))  # JSON round trip keeps ints and floats apart
    assert sk.compare_scores(s, rec) == []
    rec["episode scores"]["Main Score"] = 100  # int instead of float
    rec["episode scores"]["Kappa"] = NAN
    del rec["turn scores"]["3"]["Accuracy"]
    rec["episode scores"]["Extra"] = 1
    diffs = sk.compare_scores(s, rec)
    assert len(diffs) == 4
    assert any("'Main Score'" in d for d in diffs) and any("'Kappa'" in d for d in diffs)
    assert any("'Accuracy'" in d and "3" in d for d in diffs) and any("'Extra'" in d for d in diffs)
    assert sk.same_score(NAN, NAN) and not sk.same_score(0, 0.0) and not sk.same_score(NAN, 1.0)
    assert not sk.same_score(True, 1)


# ---------------------------------------------------------------------------------------------
# loaders
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# tables, curves, figures
# ---------------------------------------------------------------------------------------------
def test_tables_and_curves(shared_data: Path):
    scored = sk.score_episodes(sk.load_paths([shared_data / "clembench"]).episodes)
    table = sk.episode_table(scored)
    assert len(table) == 5 and table["matches recorded"].tolist() == [True] * 5
    curves = sk.accuracy_curves(scored)
    assert len(curves) == 16 + 6 + 6 + 6 + 3
    mids = curves[curves["middle"]]
    # one middle point per episode that reached its middle round: round 7 (15 slots), round 2
    assert sorted(zip(mids["slots"], mids["round"])) == [(5, 2)] * 4 + [(15, 7)]
    fig = accuracy_curves_figure(curves)
    vlines = [s for s in fig.layout.shapes if s.type == "line"]
    assert sorted(v.x0 for v in vlines) == [2, 7]
    names = {t.name for t in fig.data}
    assert {"mean (5 slots)", "mean (15 slots)"} <= names
    bars = main_score_figure(table)
    texts = [t for tr in bars.data for t in tr.text]
    assert texts.count("aborted") == 1


def test_episode_table_middle_absent_vs_nan():
    a = score(make_log(perfect()[:2], aborted=True, filled=[True, True]))
    b = score(make_log(perfect()[:4], aborted=True, filled=[True] * 3))
    t = sk.episode_table([a, b])
    assert t.loc[0, "Middle-Accuracy"] is None
    assert math.isnan(t.loc[1, "Middle-Accuracy"])
    assert t["matches recorded"].tolist() == [None, None]
    with pytest.raises(DataError):
        accuracy_curves_figure(t)


# ---------------------------------------------------------------------------------------------
# demo simulator: deterministic and faithful to the game's mechanics
# ---------------------------------------------------------------------------------------------
def test_simulate_episode_deterministic_and_consistent():
    assert sk_demo.simulate_episode(seed=3) == sk_demo.simulate_episode(seed=3)
    assert sk_demo.simulate_episode(seed=3) != sk_demo.simulate_episode(seed=4)
    kinds = set()
    for profile in sk_demo.DEMO_PROFILES:
        for seed in range(15):
            log = sk_demo.simulate_episode(profile=profile, domain="job-interview", seed=seed)
            n = len(log["realised_slots"])
            played = log["Played Probe Rounds"]
            for r, rnd in enumerate(log["probes"]):
                for p in rnd:  # ground truth rule: shared once asked
                    slot = p["target"].lower()
                    assert p["gt"] == (1 if r > log["realised_slots"][slot] else 0)
            assert all(all(p["value"] in (0, 1) for p in rnd) and len(rnd) == n
                       for rnd in log["probes"][:played])
            assert [a + b for a, b in zip(log["Parsed Request Count"], log["Violated Request Count"])] \
                == log["Request Count"]
            if not log["Aborted"]:
                assert played == n + 1 and len(log["Filled Slots"]) == n
            else:
                kinds.add("round0" if played == 0 else ("probing" if len(log["probes"]) > played else "slot"))
            json.dumps(log)  # serialisable like a real interactions.json
    assert kinds == {"round0", "probing", "slot"}
    with pytest.raises(DataError, match="unknown demo profile"):
        sk_demo.simulate_episode(profile="nobody")


def test_demo_episodes():
    a, b = sk_demo.demo_episodes(), sk_demo.demo_episodes()
    assert a == b and len(a) == 6 * len(sk_demo.DEMO_PROFILES)
    scored = sk.score_episodes(a)
    assert any(s.episode.aborted for s in scored) and any(not s.episode.aborted for s in scored)
    assert sk_demo.demo_episodes(seed=1) != a


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
