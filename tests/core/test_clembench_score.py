"""Scoring one clembench episode (``core.clembench.score``): accuracy, kappa, truncated kappa,
slot filling and the main score worked out by hand from clembench's rules on hand-built logs
(types kept: an int 0 is not a float 0.0), aborted episodes, and comparing with recorded
scores."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

import core.clembench as sk
from tests.core.clembench_support import NAN, gold_round, make_log, perfect, score


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


def test_score_episodes_scores_each_and_perfect_answers_score_100():
    from core.clembench.score import score_episodes

    logs = [make_log(perfect()), make_log([[1] * 5 for _ in range(6)])]
    eps = [sk.parse_episode(log, source=f"hand/{i}/interactions.json") for i, log in enumerate(logs)]
    got = score_episodes(eps)
    assert [s.episode_scores["Main Score"] for s in got] == [100.0, 0.0]
    es = got[0].episode_scores
    # every probe right, every slot filled: accuracy 1, kappa 1, success
    assert (es["Accuracy"], es["Kappa"], es["Success"], es["Lose"]) == (1.0, 1.0, 1, 0)


def test_compare_scores_messages_name_the_key_and_both_values():
    from core.clembench.score import compare_scores

    s = score(make_log(perfect()))
    rec = json.loads(json.dumps(s.to_dict()))
    rec["episode scores"]["Accuracy"] = 0.5
    del rec["episode scores"]["Kappa"]
    diffs = compare_scores(s, rec)
    assert "episode scores: 'Accuracy' computed 1.0, recorded 0.5" in diffs
    assert "episode scores: 'Kappa' computed as 1.0 but not recorded" in diffs
    assert len(diffs) == 2
