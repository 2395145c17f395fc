"""Tests of core.hee: hand-computed values and the paper's numbers reproduced from ../shared/data."""

from __future__ import annotations


import pytest

from core import hee
from core.hee import (
    estimate_effort,
    feature_correlations,
    regression_metrics,
)
from tests.core.hee_support import (  # noqa: F401  (pytest fixtures)
    release,
)

# --------------------------------------------------------------------------------------------
# Readability: values worked out by hand from the formulas and textstat 0.7.8's counting rules
#   FRE   = 206.835 - 1.015 * W/S - 84.6 * Y/W
#   FKG   = 0.39 * W/S + 11.8 * Y/W - 15.59
#   DC    = 0.1579 * 100 * D/W + 0.0496 * W/S (+ 3.6365 when 100 * D/W > 5)
# W words, S sentences (pieces of <= 2 words not counted), Y syllables (first CMU
# pronunciation), D words not in textstat's easy-word list.
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Feature extraction from an annotation log
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Pseudo-perplexity with tiny masked LMs built from a config (no download)
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Column mapping
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# The HMCEval release
# --------------------------------------------------------------------------------------------


# Paper Table 5 (Pearson, Spearman). The paper's PDF text interleaves the two columns; each
# row's pair is the one the data reproduce (first submission 0.342 / 0.263 etc.).
TABLE5 = {
    "turns": (0.053, "**", 0.122, "**"),
    "Mal_number": (0.445, "**", 0.600, "**"),
    "Nonmal_number": (-0.236, "**", -0.292, "**"),
    "FirstSubmit": (0.342, "**", 0.263, "**"),
    "RewriteCount": (0.555, "**", 0.564, "**"),
    "DialogueLen": (0.046, "**", 0.100, "**"),
    "dia_dc_score": (0.042, "*", -0.001, ""),
    "dia_fk_score": (-0.026, "*", -0.053, "**"),
    "Mal_label": (0.432, "**", 0.603, "**"),
    "dialogue_bert_pp": (-0.008, "", 0.001, ""),
    "worker_score": (0.162, "**", 0.049, "**"),
    "lifetime_ranking": (0.840, "**", 0.849, "**"),
}


def test_table5_correlations_reproduced(release):
    cols = list(TABLE5)
    out = feature_correlations(release[cols], release["WorkTimeInSeconds"]).set_index("feature")
    for c, (p, pm, s, sm) in TABLE5.items():
        assert out.loc[c, "pearson"] == pytest.approx(p, abs=0.01), c
        assert out.loc[c, "spearman"] == pytest.approx(s, abs=0.01), c
        assert out.loc[c, "pearson_mark"] == pm, c
        assert out.loc[c, "spearman_mark"] == sm, c


@pytest.fixture(scope="module")
def cv_results(release):
    return {fs: estimate_effort(release, time_col="WorkTimeInSeconds", features=fs, n_splits=5,
                                n_jobs=2)
            for fs in ("D", "D+W")}


def test_table4_cross_validation_reproduced(cv_results):
    d, dw = cv_results["D"].metrics, cv_results["D+W"].metrics
    assert d["r2"] == pytest.approx(0.43, abs=0.01)
    assert d["rmse"] == pytest.approx(0.092, abs=0.002)
    assert d["mse"] == pytest.approx(0.009, abs=0.001)
    assert d["mae"] == pytest.approx(0.061, abs=0.002)
    assert dw["r2"] == pytest.approx(0.76, abs=0.01)
    assert dw["rmse"] == pytest.approx(0.059, abs=0.002)
    assert dw["mse"] == pytest.approx(0.004, abs=0.001)
    assert dw["mae"] == pytest.approx(0.033, abs=0.002)
    assert cv_results["D"].params["max_features"] == 8
    assert cv_results["D+W"].params["random_state"] == 397


def test_cross_validation_structure(cv_results, release):
    res = cv_results["D+W"]
    assert res.folds["n_test"].tolist() == [1200] * 5
    assert res.folds["n_train"].tolist() == [4800] * 5
    pr = res.predictions
    assert pr["fold"].notna().all() and (pr["subset"] == "test").all()
    assert sorted(pr["fold"].value_counts().tolist()) == [1200] * 5
    assert pr["dialogue_id"].tolist() == release["Number"].tolist()
    # fold metrics are recomputed from the out-of-fold predictions
    for k in range(1, 6):
        sub = pr[pr["fold"] == k]
        m = regression_metrics(sub["time_norm"], sub["predicted_norm"])
        assert res.folds.loc[k - 1, "r2"] == pytest.approx(m["r2"])
    assert res.metrics["rmse"] == pytest.approx(res.folds["rmse"].mean())
    # target min-max normalised over the whole table
    t = release["WorkTimeInSeconds"]
    assert pr["time_norm"].to_numpy() == pytest.approx(((t - t.min()) / (t.max() - t.min())).to_numpy())
    assert pr["predicted_effort"].to_numpy() == pytest.approx(
        (pr["predicted_norm"] / release["turns"]).to_numpy())
    imp = res.importances.set_index("feature")
    assert imp["impurity"].sum() == pytest.approx(1.0)
    # approval ranking is by far the strongest feature (Table 5: r = 0.84)
    assert imp["impurity"].idxmax() == "lifetime_ranking"


# --------------------------------------------------------------------------------------------
# The effort model on small synthetic data
# --------------------------------------------------------------------------------------------


def test_no_streamlit_in_core():
    import pathlib

    import core.figures.effort as fe

    for mod in (hee, fe):
        assert "streamlit" not in pathlib.Path(mod.__file__).read_text()
