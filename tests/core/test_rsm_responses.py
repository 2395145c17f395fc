"""Which responses the agreement report evaluates (rsmeval's rules), trimming, JSON lines reading.

Every expected value is worked out by hand from the tables below and from RSMTool's documented
rules (``rsmtool.preprocessor.FeaturePreprocessor.process_data_rsmeval``, ``trim``,
``filter_on_flag_columns``, ``select_candidates``; ``rsmtool.reader.read_jsonlines``).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.rsm import TRIM_TOLERANCE, agreement_report, select_responses, trim_scores


def _frame() -> pd.DataFrame:
    # row 1 ok; row 2 human missing; row 3 human text; row 4 human 0; row 5 system text; row 6 ok
    return pd.DataFrame({
        "h": [3, None, "x", 0, 4, 2],
        "m": [3, 1, 1, 2, "y", 2],
        "h2": [3, 2, 2, 2, 2, "bad"],
    })


def test_unusable_scores_are_dropped_and_counted():
    frame, summary = select_responses(_frame(), human="h", system="m", human2="h2")
    assert summary["N_total"] == 6 and summary["N"] == 2
    assert summary["excluded"] == {"flag": 0, "human_missing": 2, "human_zero": 1, "system_missing": 1,
                                   "system_zero": 0, "candidate": 0}
    assert list(frame.index) == [0, 5]  # the rows of the table
    assert frame["h"].tolist() == [3.0, 2.0] and frame["m"].tolist() == [3.0, 2.0]
    # a non-numeric second score counts as "not double-scored"
    assert summary["human2_set_missing"] == {"non_numeric": 1, "zero": 0}
    assert frame["h2"].iloc[0] == 3.0 and math.isnan(frame["h2"].iloc[1])


def test_zero_scores_kept_when_asked():
    frame, summary = select_responses(_frame(), human="h", system="m", exclude_zero_scores=False)
    assert summary["N"] == 3 and summary["excluded"]["human_zero"] == 0
    assert frame["h"].tolist() == [3.0, 0.0, 2.0]


def test_second_score_zero_is_absent_with_exclude_zero_scores():
    df = pd.DataFrame({"h": [1, 2, 3], "m": [1, 2, 3], "h2": [0, 2, 0]})
    frame, summary = select_responses(df, human="h", system="m", human2="h2")
    assert summary["human2_set_missing"] == {"non_numeric": 0, "zero": 2}
    assert np.isnan(frame["h2"].to_numpy()).tolist() == [True, False, True]


def test_report_on_the_kept_responses():
    rep = agreement_report(_frame(), human="h", system="m")
    # kept: H = [3, 2], M = [3, 2]
    assert rep["eval"]["N"] == 2 and rep["eval"]["exact_agr"] == 100.0
    assert list(rep)[0] == "responses" and rep["responses"]["N"] == 2
    rep = agreement_report(_frame(), human="h", system="m", exclude_zero_scores=False)
    # kept: H = [3, 0, 2], M = [3, 2, 2]: 2 of 3 exact
    assert rep["eval"]["N"] == 3 and rep["eval"]["exact_agr"] == pytest.approx(200 / 3)


def test_trim_scores_by_hand():
    assert TRIM_TOLERANCE == 0.4998
    out = trim_scores([-3.0, 9.0, 2.5, 1.0], trim_min=1, trim_max=6)
    assert out.tolist() == [1 - 0.4998, 6 + 0.4998, 2.5, 1.0]
    assert trim_scores([0.0, 7.0], trim_min=1, trim_max=6, tolerance=0).tolist() == [1.0, 6.0]
    with pytest.raises(DataError, match="trim_min .* larger than trim_max"):
        trim_scores([1.0], trim_min=3, trim_max=2)
    with pytest.raises(DataError, match="trim_tolerance must be at least 0"):
        trim_scores([1.0], trim_min=1, trim_max=2, tolerance=-0.1)
    with pytest.raises(DataError, match="trim_max must be a finite number"):
        trim_scores([1.0], trim_min=1, trim_max=float("inf"))


def test_report_trims_then_rounds():
    df = pd.DataFrame({"h": [1, 4, 2, 3], "m": [-3.0, 9.0, 2.5, 3.4]})
    rep = agreement_report(df, human="h", system="m", trim_min=1, trim_max=4)
    # raw_trim: [0.5002, 4.4998, 2.5, 3.4]
    assert rep["eval"]["sys_min"] == pytest.approx(0.5002) and rep["eval"]["sys_max"] == pytest.approx(4.4998)
    assert rep["responses"]["trim"] == {"trim_min": 1.0, "trim_max": 4.0, "trim_tolerance": 0.4998}
    rep = agreement_report(df, human="h", system="m", trim_min=1, trim_max=4, rounded=True)
    # raw_trim_round: rint -> [1, 4, 2, 3] (2.5 to even): all four exact
    assert rep["eval"]["exact_agr"] == 100.0 and rep["eval"]["sys_mean"] == 2.5


def test_flag_column_numbers_match_as_numbers():
    df = pd.DataFrame({"h": [1, 2, 3, 4, 5, 1, 2], "m": [1, 2, 3, 4, 5, 1, 2],
                       "ok": [1, "1", 1.0, "1.0", 0, "yes", None]})
    frame, summary = select_responses(df, human="h", system="m", flag_column={"ok": [1]})
    assert list(frame.index) == [0, 1, 2, 3] and summary["excluded"]["flag"] == 3
    frame, summary = select_responses(df, human="h", system="m", flag_column={"ok": ["yes", 0]})
    assert list(frame.index) == [4, 5]
    # a single value is taken as a one-value list (RSMTool's check_flag_column)
    frame, _ = select_responses(df, human="h", system="m", flag_column={"ok": "1"})
    assert len(frame) == 4
    with pytest.raises(DataError, match="no responses left after filtering on the flag columns"):
        select_responses(df, human="h", system="m", flag_column={"ok": [7]})
    with pytest.raises(DataError, match="flag column 'nope' not found"):
        select_responses(df, human="h", system="m", flag_column={"nope": [1]})


def test_candidates_counted_after_the_score_filters():
    # candidate a has 3 responses, one with a missing human score -> 2 left; b 1; c 3
    df = pd.DataFrame({"h": [1, 2, None, 3, 1, 2, 3], "m": [1, 2, 3, 3, 1, 2, 3],
                       "cand": ["a", "a", "a", "b", "c", "c", "c"]})
    frame, summary = select_responses(df, human="h", system="m", candidate_column="cand",
                                      min_items_per_candidate=3)
    assert list(frame.index) == [4, 5, 6] and summary["excluded"]["candidate"] == 3
    assert summary["excluded"]["human_missing"] == 1
    frame, summary = select_responses(df, human="h", system="m", candidate_column="cand",
                                      min_items_per_candidate=2)
    assert list(frame.index) == [0, 1, 4, 5, 6] and summary["excluded"]["candidate"] == 1
    with pytest.raises(DataError, match="between 1 and"):
        select_responses(df, human="h", system="m", candidate_column="cand", min_items_per_candidate=0)


def test_huge_scores_are_a_clear_error_naming_the_row():
    # row 1 is dropped (zero human score); the message still names the table's row 3
    df = pd.DataFrame({"h": [0, 2, 1e308], "m": [1, 2, 3]})
    with pytest.raises(DataError, match=r"column 'h': score 1e\+308 in row 3 is beyond 1e\+15"):
        agreement_report(df, human="h", system="m")
    df = pd.DataFrame({"h": [1, 2, 3], "m": [1, 2, -1e200]})
    with pytest.raises(DataError, match=r"column 'm': score -1e\+200 in row 3"):
        agreement_report(df, human="h", system="m")
    # the page path: the comparison frame goes through the same report
    from core.rsm.report import evaluation_report

    with pytest.raises(DataError, match=r"column 'm': score"):
        evaluation_report(pd.DataFrame({"h": [1, 2], "m": [1, 1e16]}), human="h", system="m")


def test_missing_group_label_names_the_table_row():
    df = pd.DataFrame({"h": [0, 1, 2, 3], "m": [1, 1, 2, 3], "g": ["a", "a", None, "b"]})
    with pytest.raises(DataError, match="group column 'g': missing group label in row 3"):
        agreement_report(df, human="h", system="m", groups=["g"])
    rep = agreement_report(df, human="h", system="m", groups=["g"], group_errors="report")
    assert rep["error_by_g"] == "group column 'g': missing group label in row 3"


def test_blank_group_label_is_no_info():
    df = pd.DataFrame({"h": [1, 2, 3, 4], "m": [1, 2, 3, 4], "g": ["a", " ", "", "a"]})
    rep = agreement_report(df, human="h", system="m", groups=["g"])
    assert set(rep["eval_by_g"]) == {"All data", "a", "No info"} and rep["eval_by_g"]["No info"]["N"] == 2


def test_raters_mode_excludes_zero_ratings_of_the_second_rater():
    df = pd.DataFrame({"h1": [1, 2, 3, 2], "h2": [1, 0, 3, 3]})
    rep = agreement_report(df, human="h1", system="h2", raters=True)
    assert rep["responses"]["excluded"]["system_zero"] == 1
    # kept pairs (1, 1), (3, 3), (2, 3): 2 of 3 exact
    assert rep["consistency"]["N"] == 3 and rep["consistency"]["exact_agr"] == pytest.approx(200 / 3)


def test_true_score_n_raters():
    df = pd.DataFrame({"h": [1, 2, 3], "m": [1, 2, 3], "h2": [None, None, None]})
    assert agreement_report(df, human="h", system="m", human2="h2")["true_score"]["N raters"] == 1
    df["h2"] = [2, None, 3]
    ts = agreement_report(df, human="h", system="m", human2="h2")["true_score"]
    assert ts["N raters"] == 2 and ts["N_single"] == 1 and ts["N_multiple"] == 2


# ------------------------------------------------------------------------------------------
# any table: a report or a DataError, never another exception; counts always add up
# ------------------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_cells = st.one_of(
    st.none(), st.integers(-3, 5), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", " ", "x", "1", "2.5", "0", "1e308", "-inf"]), st.booleans(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_cells, _cells, _cells, st.sampled_from(["a", "b", "", None]), _cells),
                     min_size=1, max_size=25),
       exclude_zero=st.booleans(), raters=st.booleans(), trim=st.booleans(),
       min_items=st.one_of(st.none(), st.integers(1, 4)))
def test_any_table_gives_a_report_or_a_data_error(rows, exclude_zero, raters, trim, min_items):
    df = pd.DataFrame(rows, columns=["h", "m", "h2", "g", "c"])
    kwargs = dict(human="h", system="m", human2=None if raters else "h2", groups=["g"], raters=raters,
                  exclude_zero_scores=exclude_zero, group_errors="report")
    if trim:
        kwargs.update(trim_min=1, trim_max=4)
    if min_items is not None:
        kwargs.update(candidate_column="c", min_items_per_candidate=min_items)
    try:
        rep = agreement_report(df, **kwargs)
    except DataError:
        return
    resp = rep["responses"]
    assert resp["N_total"] == len(df)
    assert resp["N"] + sum(resp["excluded"].values()) == len(df)
    assert rep["eval"]["N"] == resp["N"]
    # the one infinity RSMTool gives: corr_HM / sqrt(corr_HH) with corr_HH exactly 0
    # (its numpy division; core.rsm.degradation.disattenuated_correlation), found by this test
    for key in [k for k in rep if k.startswith("disattenuated_correlations")]:
        rows = rep[key] if key != "disattenuated_correlations" else {"": rep[key]}
        for row in (rows or {}).values():
            if row is not None and math.isinf(row["corr_disattenuated"]):
                assert row["sqrt_HH"] == 0.0 and row["corr_HM"] != 0.0
                row["corr_disattenuated"] = None
    text = json.dumps(rep, default=str)
    assert "Infinity" not in text
