"""RSMTool's rsmeval tables beyond eval/consistency: second scores of 0 kept, degradation and the
disattenuated correlations (whole set and by subgroup).

Expected values are either worked out by hand in the comment beside them from RSMTool's code
(``rsmtool.analyzer.Analyzer.compute_degradation_and_disattenuated_correlations``,
``compute_disattenuated_correlations``, ``run_prediction_analyses``;
``rsmtool.preprocessor.FeaturePreprocessor.process_data_rsmeval``) or copied from RSMTool's own
expected output of its test experiment ``lr-eval-with-scaling-and-h2-keep-zeros``
(``tests/data/experiments/lr-eval-with-scaling-and-h2-keep-zeros/output/`` in
EducationalTestingService/rsmtool, commit a844f716), file named beside each number.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.rsm import agreement_report
from core.rsm.degradation import (
    ALL_DATA, DEGRADATION_COLUMNS,
)


def _keep_zeros_table() -> pd.DataFrame:
    # h1 has no 0; the second rater gave 0 to the first response
    return pd.DataFrame({"h1": [1, 2, 3, 4], "h2": [0, 2, 3, 4], "m": [1.0, 2.0, 3.0, 4.0]})


def test_second_score_zeros_kept_when_zero_scores_are_kept():
    # lr-eval-with-scaling-and-h2-keep-zeros: exclude_zero_scores false keeps the second rater's
    # zeros (RSMTool: N 200, h2_min 0.0, not N 196 and h2_min 1.0)
    rep = agreement_report(_keep_zeros_table(), human="h1", system="m", human2="h2", exclude_zero_scores=False)
    cons = rep["consistency"]
    # both rated 4 responses; h2 = [0, 2, 3, 4]: mean 9/4, min 0
    assert cons["N"] == 4 and cons["h2_min"] == 0.0 and cons["h2_mean"] == 2.25
    # exact agreement: 3 of 4 equal; adjacent: |1 - 0| = 1 -> all 4
    assert cons["exact_agr"] == 75.0 and cons["adj_agr"] == 100.0
    ts = rep["true_score"]
    # every response double-scored; error variance: ((1 - 0)^2 / 2 + 0 + 0 + 0) / 4 = 1/8
    assert ts["N raters"] == 2 and ts["N_single"] == 0 and ts["N_multiple"] == 4
    assert ts["variance_of_errors"] == pytest.approx(0.125, abs=1e-15)
    assert rep["responses"]["human2_set_missing"] == {"non_numeric": 0, "zero": 0}


def test_second_score_zeros_absent_when_zero_scores_are_excluded():
    rep = agreement_report(_keep_zeros_table(), human="h1", system="m", human2="h2", exclude_zero_scores=True)
    # the first response stays (its h1 is 1) but single-scored: 3 double-scored, h2 from 2
    assert rep["eval"]["N"] == 4
    assert rep["consistency"]["N"] == 3 and rep["consistency"]["h2_min"] == 2.0
    assert rep["true_score"]["N_single"] == 1 and rep["true_score"]["N_multiple"] == 3
    assert rep["true_score"]["variance_of_errors"] == 0.0
    assert rep["responses"]["human2_set_missing"] == {"non_numeric": 0, "zero": 1}


def _group_table() -> pd.DataFrame:
    # group a double-scored with h2 = h1; group b single-scored; m follows h in a, reverses it in b
    return pd.DataFrame({
        "g": ["a", "a", "a", "b", "b", "b"],
        "h": [1, 2, 3, 1, 2, 3],
        "h2": [1, 2, 3, None, None, None],
        "m": [1, 2, 3, 3, 2, 1],
    })


def test_degradation_and_disattenuated_correlations_in_the_report_by_hand():
    rep = agreement_report(_group_table(), human="h", system="m", human2="h2", groups=["g"])
    # whole set: dh = [-1, 0, 1, -1, 0, 1], dm = [-1, 0, 1, 1, 0, -1], dot 0 -> r_HM = 0;
    # double-scored: h2 = h -> r_HH = 1, kappa 1, QWK 1, agreement 100/100, pooled SMD 0.
    # human-system: exact 4/6 (rows 1, 2, 3, 5), adjacent 4/6 (|m - h| = 2 twice);
    # kappa: p_o = 2/3, both margins uniform over 1..3 -> p_e = 1/3, (2/3 - 1/3) / (2/3) = 1/2;
    # QWK: ddof-0 covariance 0 -> 0; SMD: equal means -> 0.
    deg = rep["degradation"]
    expected = {"corr": -1.0, "kappa": -0.5, "wtkappa": -1.0, "exact_agr": -100 / 3, "adj_agr": -100 / 3,
                "SMD": 0.0}
    assert list(deg) == list(DEGRADATION_COLUMNS)
    for c, v in expected.items():
        assert deg[c] == pytest.approx(v, abs=1e-12), c
    dis = rep["disattenuated_correlations"]
    assert dis["corr_HM"] == pytest.approx(0.0, abs=1e-15) and dis["corr_HH"] == pytest.approx(1.0)
    assert dis["sqrt_HH"] == pytest.approx(1.0) and dis["corr_disattenuated"] == pytest.approx(0.0, abs=1e-15)
    by = rep["disattenuated_correlations_by_g"]
    # RSMTool's rows: "All data" first, then the groups
    assert list(by) == [ALL_DATA, "a", "b"]
    assert by[ALL_DATA]["corr_HH"] == pytest.approx(1.0)
    # a: m = h = h2 -> 1, 1, 1, 1; b: r_HM = -1, no double-scored response -> r_HH NaN
    assert by["a"] == pytest.approx({"corr_HM": 1.0, "corr_HH": 1.0, "sqrt_HH": 1.0, "corr_disattenuated": 1.0})
    assert by["b"]["corr_HM"] == pytest.approx(-1.0)
    assert all(math.isnan(by["b"][c]) for c in ("corr_HH", "sqrt_HH", "corr_disattenuated"))


def test_group_errors_report_mode_gives_the_same_disattenuated_tables():
    table = _group_table()
    table["bad"] = ["x", None, "y", "x", "y", "x"]
    rep = agreement_report(table, human="h", system="m", human2="h2", groups=["g", "bad"], group_errors="report")
    assert "error_by_bad" in rep and "disattenuated_correlations_by_bad" not in rep
    assert list(rep["disattenuated_correlations_by_g"]) == [ALL_DATA, "a", "b"]
    assert rep["disattenuated_correlations_by_g"]["a"]["corr_disattenuated"] == pytest.approx(1.0)


def test_no_second_rating_no_degradation_tables():
    rep = agreement_report(_group_table(), human="h", system="m", groups=["g"])
    assert "degradation" not in rep and "disattenuated_correlations" not in rep
    assert "disattenuated_correlations_by_g" not in rep
    # a second-score column without any double-scored response: the tables are missing (None)
    none2 = _group_table().assign(h2=np.nan)
    rep = agreement_report(none2, human="h", system="m", human2="h2")
    assert rep["consistency"] is None and rep["degradation"] is None
    assert rep["disattenuated_correlations"] is None


def test_raters_mode_has_no_degradation():
    rep = agreement_report(_group_table(), human="h", system="m", human2="h2", groups=["g"], raters=True)
    assert not [k for k in rep if k.startswith(("degradation", "disattenuated"))]


def test_by_group_tables_have_the_whole_set_first_as_rsmeval_writes_them():
    # rsmeval's eval_by_<group> and consistency_by_<group> start with an "All data" row: the
    # whole evaluation set as one group, its DSM against its own means and sds (0)
    rep = agreement_report(_group_table(), human="h", system="m", human2="h2", groups=["g"])
    ev = rep["eval_by_g"]
    assert list(ev) == [ALL_DATA, "a", "b"]
    assert ev[ALL_DATA]["N"] == 6 and ev[ALL_DATA]["exact_agr"] == pytest.approx(400 / 6)
    assert ev[ALL_DATA]["DSM"] == pytest.approx(0.0, abs=1e-12)
    for c in ("corr", "kappa", "wtkappa", "RMSE", "SMD", "R2"):
        assert ev[ALL_DATA][c] == pytest.approx(rep["eval"][c], abs=1e-12), c
    cons = rep["consistency_by_g"]
    assert list(cons) == [ALL_DATA, "a", "b"]
    # double-scored: the three responses of a, h2 = h: N 3, agreement 100, DSM 0
    assert cons[ALL_DATA]["N"] == 3 and cons[ALL_DATA]["exact_agr"] == 100.0
    assert cons[ALL_DATA]["DSM"] == pytest.approx(0.0, abs=1e-12)
    assert cons["b"]["N"] == 0
    raters = agreement_report(_group_table(), human="h", system="m", groups=["g"], raters=True)
    assert list(raters["consistency_by_g"]) == [ALL_DATA, "a", "b"]
    assert raters["consistency_by_g"][ALL_DATA]["N"] == 6


def test_a_group_named_like_the_whole_set_row_is_refused():
    table = _group_table()
    table["g"] = ["All data", "All data", "All data", "b", "b", "b"]
    with pytest.raises(DataError, match="group column 'g': a group is named 'All data'"):
        agreement_report(table, human="h", system="m", groups=["g"])
    rep = agreement_report(table, human="h", system="m", groups=["g"], group_errors="report")
    assert "All data" in rep["error_by_g"] and "eval_by_g" not in rep


def test_by_group_rows_in_rsmevals_order_not_by_size():
    """Issue 32: the report (JSON, the Fairness page) lists groups as rsmeval's tables do, by
    their text with "All data" among them; the fairness models keep the largest group as base."""
    from core.rsm import assignment_by_group

    # sizes: "b" 3, "Zed" 2, "1" 1 (by size: b, Zed, 1; by text: 1, All data, Zed, b)
    df = pd.DataFrame({"h": [1, 2, 3, 2, 3, 4], "s": [1.2, 2.1, 2.9, 2.2, 3.1, 3.8],
                       "h2": [1, 2, 3, 3, None, 4], "g": ["b", "b", "b", "Zed", "Zed", "1"]})
    rep = agreement_report(df, human="h", system="s", human2="h2", groups=["g"])
    for key in ("eval_by_g", "consistency_by_g", "disattenuated_correlations_by_g"):
        assert list(rep[key]) == ["1", "All data", "Zed", "b"], key
    assert rep["eval_by_g"]["b"]["N"] == 3 and rep["eval_by_g"]["All data"]["N"] == 6
    assert rep["consistency_by_g"]["Zed"]["N"] == 1  # one of Zed's two rows has H2
    assert rep["fairness_by_g"]["base_category"] == "b"
    rates = assignment_by_group(np.array([1, 0, 0, 1, 0, 0], dtype=bool), df["g"].to_numpy(),
                                machine_label=np.ones(6), human_label=df["h"].to_numpy())
    assert list(rates.index) == ["1", "Zed", "b"]
    assert list(rates["N"]) == [1, 2, 3] and list(rates["n_human"]) == [0, 1, 1]
