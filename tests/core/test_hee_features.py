"""core.hee.features, split from tests/core/test_hee.py (tests named after the module they test)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from core.errors import DataError
from core import hee
from core.hee import (
    approval_rate_ranking,
    extract_dialogue_features,
    worker_features,
)
from tests.core.hee_support import (
    _fre,
    _log,
)


# --------------------------------------------------------------------------------------------
# Feature extraction from an annotation log
# --------------------------------------------------------------------------------------------


def test_extract_dialogue_features_counts_and_readability():
    out = extract_dialogue_features(_log(), dialogue_col="dlg", text_col="text", label_col="mal",
                                    paraphrased_col="para", first_submission_col="first",
                                    turn_col="turn", keep_cols=["secs"])
    f = out.features.set_index("dialogue_id")
    assert list(f.index) == ["a", "b"]
    assert f.loc["a", "total_turns"] == 2 and f.loc["b", "total_turns"] == 3
    assert f.loc["a", "malevolent_turns"] == 0 and f.loc["b", "malevolent_turns"] == 2
    assert f.loc["a", "non_malevolent_turns"] == 2 and f.loc["b", "non_malevolent_turns"] == 1
    assert f.loc["a", "contains_malevolent"] == 0 and f.loc["b", "contains_malevolent"] == 1
    assert f.loc["a", "paraphrased_turns"] == 1 and f.loc["b", "paraphrased_turns"] == 1
    assert f.loc["a", "first_submission"] == 1 and f.loc["b", "first_submission"] == 0
    assert f.loc["a", "total_length"] == 12 and f.loc["b", "total_length"] == 8
    assert f.loc["b", "secs"] == 75
    # dialogue a in turn order: "The cat sat on the mat. The happy dog ran away quickly."
    # W = 12, S = 2, Y = 6 + 9 = 15, every word easy.
    assert f.loc["a", "readability_fk"] == pytest.approx(_fre(12, 2, 15), abs=1e-9)
    assert f.loc["a", "readability_fk"] == pytest.approx(94.995, abs=1e-9)
    assert f.loc["a", "readability_dc"] == pytest.approx(0.0496 * 6, abs=1e-9)
    assert "perplexity" not in f.columns
    assert any("perplexity" in n for n in out.notices)


def test_extract_without_optional_columns_says_what_is_missing():
    out = extract_dialogue_features(_log(), dialogue_col="dlg", text_col="text")
    assert set(out.features.columns) == {"dialogue_id", "total_turns", "total_length",
                                         "readability_dc", "readability_fk"}
    text = " ".join(out.notices)
    for word in ("malevolent", "paraphrased", "first submission", "perplexity"):
        assert word in text


@pytest.mark.parametrize("change,match", [
    (lambda d: d.assign(text=["x", None, "y", "z", "w"]), r"'text'.*row 2"),
    (lambda d: d.assign(mal=[0, 2, 0, 0, 1]), r"'mal'.*0/1.*row 2"),
    (lambda d: d.assign(first=[1, 0, 0, 0, 0]), r"'first'.*varies within dialogue 'a'"),
    (lambda d: d.assign(secs=[40, 41, 75, 75, 75]), r"'secs'.*constant.*'a'"),
    (lambda d: d.drop(columns=["mal"]), r"'mal'.*not in the annotation log"),
])
def test_extract_bad_input(change, match):
    with pytest.raises(DataError, match=match):
        extract_dialogue_features(change(_log()), dialogue_col="dlg", text_col="text",
                                  label_col="mal", first_submission_col="first",
                                  keep_cols=["secs"])


# --------------------------------------------------------------------------------------------
# Worker features
# --------------------------------------------------------------------------------------------
def test_approval_rate_ranking_ascending_ties_share_smallest_index():
    assert approval_rate_ranking([0.9, 0.5, 0.7, 0.7]).tolist() == [4, 1, 2, 2]
    with pytest.raises(DataError, match="row 2"):
        approval_rate_ranking([0.9, np.nan])


def test_worker_features_table():
    w = pd.DataFrame({"wid": ["x", "y", "z"], "score": [100, 90, 95], "rate": [0.99, 0.95, 0.97]})
    out = worker_features(w, worker_col="wid", score_col="score", approval_col="rate")
    assert out["approval_ranking"].tolist() == [3, 1, 2]
    assert out["worker_score"].tolist() == [100, 90, 95]
    d = pd.DataFrame({"dlg": [1, 2, 3], "worker": ["z", "x", "z"]})
    joined = hee.join_worker_features(d, out, worker_col="worker")
    assert joined["worker_score"].tolist() == [95, 100, 95]
    assert joined["approval_ranking"].tolist() == [2, 3, 2]
    with pytest.raises(DataError, match="dialogue row 2.*'q'"):
        hee.join_worker_features(d.assign(worker=["z", "q", "x"]), out, worker_col="worker")
    with pytest.raises(DataError, match="'wid'.*repeats"):
        worker_features(pd.concat([w, w.iloc[:1]]), worker_col="wid", score_col="score",
                        approval_col="rate")
