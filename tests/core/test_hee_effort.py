"""core.hee.effort, split from tests/core/test_hee.py (tests named after the module they test)."""

from __future__ import annotations

import pandas as pd
import pytest
from core.errors import DataError
from core import hee
from core.hee import (
    dialogue_table_from_samples,
    features_from_samples,
    per_sample_effort,
    resolve_feature_set,
)


# --------------------------------------------------------------------------------------------
# Per-sample effort
# --------------------------------------------------------------------------------------------
def test_per_sample_effort_join():
    out = per_sample_effort(["7", 3, 3, 7, 7.0], [3, 7], [0.2, 0.9], [2, 3])
    assert out == pytest.approx([0.3, 0.1, 0.1, 0.3, 0.3])
    with pytest.raises(DataError, match="sample row 2.*dialogue id 9"):
        per_sample_effort([3, 9], [3, 7], [0.2, 0.9], [2, 3])
    with pytest.raises(DataError, match="repeat"):
        per_sample_effort([3], [3, 3], [0.2, 0.9], [2, 3])
    with pytest.raises(DataError, match=">= 1"):
        per_sample_effort([3], [3, 7], [0.2, 0.9], [0, 3])


def test_dialogue_table_from_samples():
    s = pd.DataFrame({"d": [1, 1, 2], "turns": [2, 2, 1], "score": [90, 90, 100], "conf": [.1, .2, .3]})
    out = dialogue_table_from_samples(s, dialogue_col="d", columns=["turns", "score"])
    assert out.to_dict(orient="list") == {"d": [1, 2], "turns": [2, 1], "score": [90, 100]}
    with pytest.raises(DataError, match="'conf' varies within dialogue 1"):
        dialogue_table_from_samples(s, dialogue_col="d", columns=["conf"])


def test_features_from_samples_time_and_workers():
    s = pd.DataFrame({
        "dlg": [1, 1, 2, 2, 2],
        "text": ["The cat sat on the mat", "The happy dog ran away quickly", "Go away.",
                 "You are an idiot!", "Why?"],
        "label": [0, 0, 0, 1, 1],
        "eff": [0.1, 0.1, 0.05, 0.05, 0.05],
        "ws": [100, 100, 90, 90, 90],
        "rank": [3, 3, 1, 1, 1],
    })
    out = features_from_samples(s, dialogue_col="dlg", text_col="text", effort_col="eff",
                                label_col="label", worker_score_col="ws", approval_ranking_col="rank")
    f = out.features.set_index("dialogue_id")
    assert f["time"].to_numpy() == pytest.approx([0.2, 0.15])  # effort per turn summed
    assert f["worker_score"].tolist() == [100, 90] and f["approval_ranking"].tolist() == [3, 1]
    assert f["malevolent_turns"].tolist() == [0, 2]
    fs = resolve_feature_set("D+W", out.features.columns, optional=hee.DIALOGUE_FEATURES)
    assert fs.columns == ["total_turns", "malevolent_turns", "non_malevolent_turns", "total_length",
                          "readability_dc", "readability_fk", "contains_malevolent",
                          "worker_score", "approval_ranking"]
    assert len(fs.notices) == 3  # first submission, paraphrased turns, perplexity
    with pytest.raises(DataError, match="first_submission"):
        resolve_feature_set("D", out.features.columns)  # strict by default
    bad = s.assign(eff=[0.1, -0.1, 0.05, 0.05, 0.05])
    with pytest.raises(DataError, match="'eff' must be >= 0; row 2"):
        features_from_samples(bad, dialogue_col="dlg", text_col="text", effort_col="eff")
    no_w = features_from_samples(s, dialogue_col="dlg", text_col="text")
    assert any("worker features W are unavailable" in n for n in no_w.notices)


def test_features_from_samples_dialogue_time_column():
    s = pd.DataFrame({"dlg": ["b", "b", "a", "a", "a"], "text": ["Hi there you.", "Go away now.", "Why?",
                                                                   "You are rude!", "Sorry."],
                      "secs": [30, 30, 12, 12, 12]})
    out = features_from_samples(s, dialogue_col="dlg", text_col="text", time_col="secs")
    # one time per dialogue, in order of first appearance
    assert out.features[["dialogue_id", "time"]].values.tolist() == [["b", 30], ["a", 12]]
    with pytest.raises(DataError, match=r"'secs' varies within dialogue 'a' \(rows 3, 4, 5\)"):
        features_from_samples(s.assign(secs=[30, 30, 12, 13, 12]), dialogue_col="dlg", text_col="text",
                              time_col="secs")
    with pytest.raises(DataError, match="not both"):
        features_from_samples(s, dialogue_col="dlg", text_col="text", time_col="secs", effort_col="secs")


def test_effort_samples_of_a_dataset():
    from core.data import prepare
    from core.hee import effort_data_problems, effort_samples

    raw = pd.DataFrame({"dialogue_id": [7, 7, 8], "turn": [1, 2, 1], "response": ["a b", "c", "d e f"],
                        "machine_label": [0, 1, 0], "machine_confidence": [0.9, 0.6, 0.8],
                        "human_label": [0, 1, 1], "human_effort": [1.0, 2.0, 3.0],
                        "FirstSubmit": [1, 1, 0], "worker_score": [90, 90, 80]})
    data = prepare(raw, {"text": ["response"]}, name="t")
    assert effort_data_problems(data) == []
    prepared = effort_samples(data, text_col="response", label_col="human_label")
    assert list(prepared.samples.columns) == ["dialogue_id", "text", "label", "turn", "effort",
                                              "first_submission", "worker_score"]
    assert prepared.samples["label"].tolist() == [0, 1, 1]
    assert prepared.samples["effort"].tolist() == [1.0, 2.0, 3.0]
    assert prepared.sources == {"first_submission": "FirstSubmit", "worker_score": "worker_score"}
    assert prepared.columns == {"dialogue_col": "dialogue_id", "text_col": "text", "effort_col": "effort",
                                "label_col": "label", "turn_col": "turn",
                                "first_submission_col": "first_submission", "paraphrased_col": None,
                                "worker_score_col": "worker_score", "approval_ranking_col": None}
    fx = features_from_samples(prepared.samples, **prepared.columns)
    assert fx.features["time"].tolist() == [3.0, 3.0]  # effort summed per dialogue
    no_text = prepare(raw.drop(columns=["response"]), name="t")
    assert any("no free-text column" in p for p in effort_data_problems(no_text))
    with pytest.raises(DataError, match="cannot train the effort model: no free-text column"):
        effort_samples(no_text, text_col="response")
