"""The ToolTalk demo (``core.demo.tooltalk``): ground truth copied as predictions in order,
and the demo conversations a function of their seed, each perturbation scoring as designed
(expected counts worked out by hand in ``tests/core/tooltalk_support.py``)."""

from __future__ import annotations

import json

from core import tooltalk as tt
from core.demo import tooltalk as tt_demo
from tests.core.tooltalk_support import ALARM_7, DEMO_EXPECTED, EMAIL, conversation, score


def test_ground_truth_as_predictions_copies_calls_in_order():
    obj = conversation(([ALARM_7, EMAIL], None), ([], None))
    out = tt_demo.ground_truth_as_predictions(obj)
    assert "predictions" not in obj["conversation"][1]  # input untouched
    preds = out["conversation"][1]["predictions"]
    assert [p["role"] for p in preds] == ["api", "api", "assistant"]
    assert preds[0]["request"] == ALARM_7["request"] and out["conversation"][3]["predictions"][0]["role"] == "assistant"
    s = score(out)
    assert (s.precision, s.recall, s.success) == (1.0, 1.0, True)


def test_demo_is_deterministic_and_each_perturbation_scores_as_designed():
    demo = tt_demo.demo_conversations(seed=0)
    assert demo == tt_demo.demo_conversations(seed=0) and demo != tt_demo.demo_conversations(seed=1)
    assert len(demo) == len(DEMO_EXPECTED) == len(tt_demo.DEMO_PERTURBATIONS)
    for obj, (mode, expected) in zip(demo, DEMO_EXPECTED.items()):
        assert obj["scenario"] == f"demo: {tt_demo.DEMO_PERTURBATIONS[mode]}"
        s = score(json.loads(json.dumps(obj)), sim=tt.exact_similarity)
        assert (s.predictions, s.matches, s.actions, s.bad_actions, s.success) == expected, mode


def test_with_ground_truth_predictions_is_the_parsed_counterpart():
    from core.demo.tooltalk import with_ground_truth_predictions

    obj = conversation(([ALARM_7, EMAIL], None))
    parsed = tt.parse_conversation(obj)
    perfect = with_ground_truth_predictions(parsed)
    assert perfect.has_predictions and perfect.predictions == parsed.ground_truths
    s = tt.evaluate_conversation(perfect, similarity=tt.exact_similarity)
    assert (s.precision, s.recall, s.success) == (1.0, 1.0, True)
