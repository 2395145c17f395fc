"""What the Effort page shows of its models: settings used, predictions, notes once (issue 13)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from core.hee import cross_validate_effort, effort_notices, effort_predictions, effort_settings, split_effort

X = np.arange(20.0).reshape(10, 2)
T = np.arange(10.0)


def test_settings_are_read_from_the_results_as_integers():
    cv = cross_validate_effort(X, T, n_splits=3, n_estimators=7, random_state=11)
    sp = split_effort(X, T, np.array(["train"] * 6 + ["test"] * 4), split_name="part", max_features=1)
    s = effort_settings({"D": cv, "mine": sp})
    assert list(s.index) == ["D", "mine"]
    assert list(s.columns) == ["features", "evaluation", "folds", "trees", "max_features", "seed"]
    assert s.loc["D"].tolist() == [2, "3-fold shuffled CV", 3, 7, 2, 11]
    assert s.loc["mine", "evaluation"] == "split on part" and pd.isna(s.loc["mine", "folds"])
    assert s.loc["mine", "max_features"] == 1 and s.loc["mine", "trees"] == 100
    for c in ("features", "folds", "trees", "max_features", "seed"):
        assert str(s[c].dtype) == "Int64", c  # counts print as 7, not 7.0000


def test_predictions_of_every_set_in_one_table():
    cv = cross_validate_effort(X, T, n_splits=2)
    p = effort_predictions({"D": cv, "D+W": cv})
    assert list(p.columns[:3]) == ["feature_set", "row", "fold"]
    assert p["feature_set"].tolist() == ["D"] * 10 + ["D+W"] * 10
    assert p["time"].tolist() == list(T) * 2
    assert effort_predictions({}).columns.tolist() == ["feature_set"]


def test_notes_are_said_once():
    cv = cross_validate_effort(X, T, n_splits=2)
    extraction = ["no first-submission column: first submission was not computed",
                  "no masked language model chosen: the perplexity feature was skipped (D uses the other "
                  "dialogue features)"]
    d = replace(cv, notices=[
        "feature first_submission (first submission) has no column: D is used without it",
        "feature perplexity (BERT-perplexity) has no column: D is used without it",
        "feature readability_dc (readability (DC)) has no column: D is used without it",
        "no dialogue id column: dialogues are numbered by row (1..n)"])
    dw = replace(cv, notices=[
        "feature perplexity (BERT-perplexity) has no column: D+W is used without it",
        "feature readability_dc (readability (DC)) has no column: D+W is used without it",
        "no dialogue id column: dialogues are numbered by row (1..n)"])
    assert effort_notices(extraction, {"D": d, "D+W": dw}) == [
        *extraction,
        "feature readability_dc (readability (DC)) has no column: D and D+W are used without it",
        "no dialogue id column: dialogues are numbered by row (1..n)",
    ]
    assert effort_notices([], {"D": d}) == d.notices
