"""The OLS fairness analyses (osa, osd, csd) against values worked out by hand.

Data: a balanced 2 x 3 design, one response per (group, human score) cell::

    group  H  M  error = M - H  squared error
    y.1    1  1  0              0
    y.1    2  2  0              0
    y.1    3  5  2              4
    x.2    1  2  1              1
    x.2    2  3  1              1
    x.2    3  4  1              1

Both groups have 3 responses, so the reference group is the first by name: "x.2" (labels with
dots on purpose). The three human scores occur twice each, so the human-score reference level
is the smallest, 1. With one response per cell, OLS on indicator columns gives group-mean
differences and the usual one-way / additive two-way ANOVA sums of squares.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

from core.errors import DataError
from core.rsm import ESTIMATE_COLUMNS, estimates_frame, fairness_analyses

GROUPS = ["y.1", "y.1", "y.1", "x.2", "x.2", "x.2"]
H = [1, 2, 3, 1, 2, 3]
M = [1, 2, 5, 2, 3, 4]


@pytest.fixture(scope="module")
def result():
    return fairness_analyses(H, M, GROUPS)


def test_reference_group_ties_by_name(result):
    assert result["base_category"] == "x.2"
    assert result["groups"] == ["x.2", "y.1"]
    for key in ("osa", "osd", "csd"):
        assert list(result[key]["estimates"]) == ["Intercept (x.2)", "y.1"]
        assert result[key]["note"] is None


def test_osa_by_hand(result):
    # squared error: y.1 [0, 0, 4] mean 4/3; x.2 [1, 1, 1] mean 1; grand mean 7/6
    # SS_tot = 2 (7/6)^2 + (17/6)^2 + 3 (1/6)^2 = 390/36 = 65/6
    # SS_between = 3 ((1/6)^2 + (1/6)^2) = 1/6 ; SS_within = 64/6
    # R2 = 1/65; adjusted = 1 - (64/65)(5/4) = -3/13; F = (1/6) / ((64/6)/4) = 1/16 on (1, 4)
    osa = result["osa"]
    assert osa["R2"] == pytest.approx(-3 / 13, abs=1e-12)
    assert osa["sig"] == pytest.approx(stats.f.sf(1 / 16, 1, 4), abs=1e-12)
    est = osa["estimates"]
    # intercept = mean of x.2 = 1, y.1 coefficient = 4/3 - 1 = 1/3
    # se: MSW = (64/6)/4 = 8/3; se(intercept) = sqrt(MSW/3); se(diff) = sqrt(MSW (1/3 + 1/3))
    msw = 8 / 3
    _check_row(est["Intercept (x.2)"], 1.0, math.sqrt(msw / 3), df=4)
    _check_row(est["y.1"], 1 / 3, math.sqrt(msw * 2 / 3), df=4)


def test_osd_by_hand(result):
    # error: y.1 [0, 0, 2] mean 2/3; x.2 [1, 1, 1] mean 1; grand mean 5/6
    # SS_tot = 2 (5/6)^2 + (7/6)^2 + 3 (1/6)^2 = 102/36 = 17/6 ; SS_between = 3 (2/36) = 1/6
    # R2 = 1/17; adjusted = 1 - (16/17)(5/4) = -3/17; F = (1/6) / ((16/6)/4) = 1/4 on (1, 4)
    osd = result["osd"]
    assert osd["R2"] == pytest.approx(-3 / 17, abs=1e-12)
    assert osd["sig"] == pytest.approx(stats.f.sf(1 / 4, 1, 4), abs=1e-12)
    msw = (16 / 6) / 4
    _check_row(osd["estimates"]["Intercept (x.2)"], 1.0, math.sqrt(msw / 3), df=4)
    _check_row(osd["estimates"]["y.1"], -1 / 3, math.sqrt(msw * 2 / 3), df=4)


def test_csd_by_hand(result):
    # null model error ~ score: score means s1 (0+1)/2 = 1/2, s2 1/2, s3 (2+1)/2 = 3/2
    #   SS_score = 2 ((1/2 - 5/6)^2 + (1/2 - 5/6)^2 + (3/2 - 5/6)^2) = 4/3
    #   R2_null = (4/3)/(17/6) = 8/17; adjusted = 1 - (9/17)(5/3) = 2/17
    # full model error ~ group + score (balanced, additive): SS_group = 1/6 as in osd
    #   SSR_full = 17/6 - 4/3 - 1/6 = 4/3 on 6 - 4 = 2 df
    #   R2_full = 9/17; adjusted = 1 - (8/17)(5/2) = -3/17 ; R2 = -3/17 - 2/17 = -5/17
    #   nested F = ((3/2 - 4/3)/1) / ((4/3)/2) = 1/4 on (1, 2)
    csd = result["csd"]
    assert csd["R2"] == pytest.approx(-5 / 17, abs=1e-12)
    assert csd["sig"] == pytest.approx(stats.f.sf(1 / 4, 1, 2), abs=1e-12)
    # intercept = fitted at (x.2, score 1) = grand + (x.2 - grand) + (s1 - grand) = 1 + 1/2 - 5/6
    # y.1 coefficient = 2/3 - 1 = -1/3 with se sqrt(sigma^2 (1/3 + 1/3)), sigma^2 = (4/3)/2
    sigma2 = (4 / 3) / 2
    _check_row(csd["estimates"]["y.1"], -1 / 3, math.sqrt(sigma2 * 2 / 3), df=2)
    assert csd["estimates"]["Intercept (x.2)"]["estimate"] == pytest.approx(1 + 1 / 2 - 5 / 6, abs=1e-12)


def _check_row(row, estimate, se, *, df):
    assert list(row) == list(ESTIMATE_COLUMNS)
    assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
    t = estimate / se
    assert row["P>[t]"] == pytest.approx(2 * stats.t.sf(abs(t), df), abs=1e-12)
    q = stats.t.ppf(0.975, df)
    assert row["[0.025"] == pytest.approx(estimate - q * se, abs=1e-12)
    assert row["0.975]"] == pytest.approx(estimate + q * se, abs=1e-12)


def test_largest_group_is_reference_over_name():
    # "z" has 4 responses, "a" 2: z is the reference; coefficient of a = mean error a - mean error z
    # errors: z [0, 1, 0, 1] mean 1/2; a [2, 2] mean 2 -> a: 3/2
    res = fairness_analyses([1, 1, 1, 1, 1, 1], [1, 2, 1, 2, 3, 3], ["z", "z", "z", "z", "a", "a"])
    assert res["base_category"] == "z"
    assert res["osd"]["estimates"]["Intercept (z)"]["estimate"] == pytest.approx(0.5)
    assert res["osd"]["estimates"]["a"]["estimate"] == pytest.approx(1.5)
    explicit = fairness_analyses([1, 1, 1, 1, 1, 1], [1, 2, 1, 2, 3, 3], ["z"] * 4 + ["a"] * 2, base_group="a")
    assert explicit["base_category"] == "a"
    assert explicit["osd"]["estimates"]["z"]["estimate"] == pytest.approx(-1.5)


def test_human_score_reference_is_most_frequent():
    # error = 0.5 [group b] + effect(score), exactly, with effects {1: 0.2, 2: -0.1, 3: 0.4};
    # score 3 is the most frequent (4 of 8), so the csd intercept is the error of (a, 3) = 0.4
    # (with score 1 as reference it would be 0.2); the b coefficient is 0.5.
    effect = {1: 0.2, 2: -0.1, 3: 0.4}
    h = [1, 2, 3, 3, 1, 2, 3, 3]
    g = ["a", "a", "a", "a", "b", "b", "b", "b"]
    m = [hi + effect[hi] + (0.5 if gi == "b" else 0.0) for hi, gi in zip(h, g)]
    res = fairness_analyses(h, m, g)
    assert res["csd"]["estimates"]["Intercept (a)"]["estimate"] == pytest.approx(0.4, abs=1e-12)
    assert res["csd"]["estimates"]["b"]["estimate"] == pytest.approx(0.5, abs=1e-12)


def test_confounded_group_has_no_estimate():
    # every member of "b" has human score 3 and only "b" has it: the b coefficient of csd is
    # confounded with the score-3 indicator; osd still has one (mean error b - mean error a)
    res = fairness_analyses([1, 2, 1, 2, 3, 3], [1, 3, 2, 2, 4, 3], ["a", "a", "a", "a", "b", "b"])
    assert all(math.isnan(v) for v in res["csd"]["estimates"]["b"].values())
    assert math.isnan(res["csd"]["sig"])  # the group adds nothing to the null model
    # osd: a errors [0, 1, 1, 0] mean 1/2, b errors [1, 0] mean 1/2 -> 0
    assert res["osd"]["estimates"]["b"]["estimate"] == pytest.approx(0.0, abs=1e-12)


def test_perfect_system_gives_nan_not_numbers():
    # error identically 0: no variance to explain -> R2 and sig NaN
    res = fairness_analyses([1, 2, 3, 4], [1, 2, 3, 4], ["a", "a", "b", "b"])
    for key in ("osa", "osd", "csd"):
        assert math.isnan(res[key]["R2"]) and math.isnan(res[key]["sig"])


def test_many_human_score_levels_skip_csd_with_a_note():
    rng = np.random.default_rng(3)
    h = rng.normal(size=300)
    res = fairness_analyses(h, h + rng.normal(size=300), ["a", "b", "c"] * 100)
    assert "300 distinct values" in res["csd"]["note"]
    assert math.isnan(res["csd"]["R2"]) and math.isnan(res["csd"]["sig"])
    assert not math.isnan(res["osd"]["R2"])


def test_bad_groups():
    with pytest.raises(DataError, match="at least two groups"):
        fairness_analyses([1, 2], [1, 2], ["a", "a"], name="lang")
    with pytest.raises(DataError, match="reference group 'q'"):
        fairness_analyses([1, 2], [1, 2], ["a", "b"], base_group="q")
    with pytest.raises(DataError, match="print the same"):
        fairness_analyses([1, 2, 3], [1, 2, 3], np.array([1, "1", 2], dtype=object))


def test_estimates_frame(result):
    frame = estimates_frame(result, "osd")
    assert list(frame.columns) == list(ESTIMATE_COLUMNS)
    assert list(frame.index) == ["Intercept (x.2)", "y.1"]
    assert frame.loc["y.1", "estimate"] == pytest.approx(-1 / 3)


# ------------------------------------------------------------------------------------------
# per-subgroup view of a human/machine assignment
# ------------------------------------------------------------------------------------------
def test_assignment_by_group_by_hand():
    from core.rsm import ASSIGNMENT_GROUP_COLUMNS, assignment_by_group

    # rows:   0    1    2    3    4
    # group   a    a    b    b    b
    # human   T    F    T    F    F
    # machine 1    0    0    1    1
    # gold    0    0    1    1    0
    # effort  1    1    2    0    2
    # final (gold where human): a [0, 0], b [1, 1, 1]
    t = assignment_by_group(
        [True, False, True, False, False], ["a", "a", "b", "b", "b"],
        machine_label=[1, 0, 0, 1, 1], human_label=[0, 0, 1, 1, 0], human_effort=[1, 1, 2, 0, 2],
    )
    assert list(t.columns) == list(ASSIGNMENT_GROUP_COLUMNS)
    assert list(t.index) == ["a", "b"]  # by label, as rsmeval's tables (b, the largest, is not first)
    b, a = t.loc["b"], t.loc["a"]
    assert (b["N"], b["n_human"], a["N"], a["n_human"]) == (3, 1, 2, 1)
    assert b["human_ratio"] == pytest.approx(1 / 3) and a["human_ratio"] == 0.5
    assert b["time_cost"] == pytest.approx(2 / 4) and a["time_cost"] == pytest.approx(1 / 2)
    # b: final [1, 1, 1] vs gold [1, 1, 0] -> 2/3; machine [0, 1, 1] -> 1/3
    # macro F1 over classes {0, 1}: class 1 2*2/(2*2+1+0) = 4/5, class 0: 0 -> 2/5
    assert b["accuracy"] == pytest.approx(2 / 3) and b["machine_accuracy"] == pytest.approx(1 / 3)
    assert b["f1"] == pytest.approx(0.4)
    assert a["accuracy"] == 1.0 and a["machine_accuracy"] == 0.5


def test_assignment_by_group_without_gold_or_effort_is_unavailable():
    from core.rsm import assignment_by_group

    t = assignment_by_group([True, False], ["a", "b"], machine_label=[1, 0])
    assert t.loc["a", "accuracy"] is None and t.loc["a", "time_cost"] is None
    # zero total effort in a group: time cost undefined (NaN), not 0
    t = assignment_by_group([True, False], ["a", "b"], machine_label=[1, 0], human_effort=[0, 1])
    assert math.isnan(t.loc["a", "time_cost"]) and t.loc["b", "time_cost"] == 0.0


# ------------------------------------------------------------------------------------------
# the comparison table of the Fairness page
# ------------------------------------------------------------------------------------------
def test_label_scores():
    from core.rsm import label_scores

    scores, mapping = label_scores([1, None, 3], (1, 2, 3))
    assert mapping is None and scores[0] == 1 and math.isnan(scores[1]) and scores[2] == 3
    scores, mapping = label_scores(["unsafe", "safe", None], ("safe", "unsafe"))
    assert mapping == {"safe": 0, "unsafe": 1}
    assert scores[:2].tolist() == [1.0, 0.0] and math.isnan(scores[2])
    with pytest.raises(DataError, match="'maybe' is not one of the classes .* row 2"):
        label_scores(["safe", "maybe"], ("safe", "unsafe"), name="rater")
    # numeric arrays are taken as numbers (NaN missing), whatever their dtype
    scores, mapping = label_scores(np.array([2, 0, 1], dtype=np.uint8), (0, 1, 2))
    assert mapping is None and scores.dtype == float and scores.tolist() == [2.0, 0.0, 1.0]
    scores, _ = label_scores(np.array([1.0, np.nan]), (0, 1))
    assert scores[0] == 1.0 and math.isnan(scores[1])


def test_comparison_frame():
    import pandas as pd

    from core.data import prepare
    from core.rsm import GOLD, SECOND, SYSTEM, comparison_frame

    data = prepare(pd.DataFrame({
        "machine_label": [0, 1, 1, 0], "confidence": [0.9, 0.8, 0.7, 0.6],
        "human_label": [0, 0, 1, 1], "grp": ["a", "a", "b", "b"],
    }), {"subgroups": ["grp"]})
    second = [0, None, 1, None]
    fr, info = comparison_frame(data, compare="machine", groups=["grp"], second=second)
    assert fr[SYSTEM].tolist() == [0, 1, 1, 0] and fr[GOLD].tolist() == [0, 0, 1, 1]
    assert fr[SECOND].isna().tolist() == [False, True, False, True]
    assert info["binary"] and info["n_rows"] == 4 and info["n_dropped"] == 0
    # collaborative: gold where a human evaluates (rows 2 and 4), the machine's label elsewhere
    fr, _ = comparison_frame(data, compare="collaborative", human=[False, True, False, True])
    assert fr[SYSTEM].tolist() == [0, 0, 1, 1]
    # raters: the double-scored rows only
    fr, info = comparison_frame(data, compare="raters", groups=["grp"], second=second)
    assert fr[SYSTEM].tolist() == [0, 1] and fr["grp"].tolist() == ["a", "b"]
    assert SECOND not in fr and info["n_dropped"] == 2
    with pytest.raises(DataError, match="needs a second human rating"):
        comparison_frame(data, compare="raters")
    with pytest.raises(DataError, match="needs an assignment"):
        comparison_frame(data, compare="collaborative")


def test_subgroup_choices_leave_out_mapped_and_label_like_columns():
    import dataclasses

    import pandas as pd

    from core.data import prepare
    from core.rsm import subgroup_choices

    data = prepare(pd.DataFrame({
        "model_pred": [0, 1, 1, 0], "confidence": [0.9, 0.8, 0.7, 0.6], "human_label": [0, 0, 1, 1],
        "judge_verdict": ["a", "b", "a", "b"], "lang": ["x", "y", "x", "y"], "site": ["s", "s", "t", "t"],
    }), {"machine_label": "model_pred", "subgroups": ["judge_verdict", "lang", "site"]})
    assert subgroup_choices(data) == ["lang", "site"]  # judge_verdict: a prediction by its name
    stale = dataclasses.replace(data, roles=dict(data.roles, subgroups=["model_pred", "lang"]))
    assert subgroup_choices(stale) == ["lang"]  # mapped to machine_label: never a subgroup


# ----------------------------------------------------------------------------- fast path vs statsmodels
# The analyses are computed from per-cell counts and sums (exact OLS algebra); these tests fit the
# same models with statsmodels on the full indicator design, built here independently.


def _order(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return sorted(counts, key=lambda v: (-counts[v], v))


def _statsmodels_analyses(h, m, g):
    import statsmodels.api as sm

    h, m, g = np.asarray(h, float), np.asarray(m, float), np.asarray(g, dtype=object)
    levels, scores = _order(g.tolist()), _order(h.tolist())
    one = np.ones((h.size, 1))
    xg = np.column_stack([one] + [(g == lv).astype(float) for lv in levels[1:]])
    xs = np.column_stack([(h == s).astype(float) for s in scores[1:]])
    e = m - h

    def fit(y, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rank-deficient designs: statsmodels' pinv solution
            return sm.OLS(y, x, hasconst=True).fit()

    def rows(res, k):
        ci = res.conf_int(0.05)
        return [(res.params[j], res.pvalues[j], ci[j, 0], ci[j, 1]) for j in range(k)]

    osa, osd = fit(e**2, xg), fit(e, xg)
    full, null = fit(e, np.hstack([xg, xs])), fit(e, np.column_stack([one, xs]))
    k = len(levels)
    return {
        "osa": (osa.rsquared_adj, osa.f_pvalue, rows(osa, k)),
        "osd": (osd.rsquared_adj, osd.f_pvalue, rows(osd, k)),
        "csd": (full.rsquared_adj - null.rsquared_adj, full.compare_f_test(null)[1], rows(full, k)),
    }


def _unbalanced(seed, n, shares, n_scores=4, binary=False):
    rng = np.random.default_rng(seed)
    labels = np.array([f"g{i}" for i in range(len(shares))], dtype=object)
    g = rng.choice(labels, n - 1, p=shares)
    g = np.append(g, "solo")  # a group of one response
    h = rng.integers(1, n_scores + 1, n).astype(float)
    if binary:
        h = h % 2
        m = np.where(rng.random(n) < 0.8 - 0.1 * (g == "g2"), h, 1 - h)
    else:
        m = h + 0.3 * (g == "g1") - 0.2 * (h == 2) + rng.normal(0, 1, n)
    return h, m, g


@pytest.mark.parametrize("case", [
    dict(seed=1, n=2000, shares=[0.6, 0.25, 0.1, 0.05]),
    dict(seed=2, n=500, shares=[0.5, 0.5], n_scores=6),
    dict(seed=3, n=3000, shares=[0.4, 0.3, 0.2, 0.1], binary=True),
    dict(seed=4, n=40, shares=[0.9, 0.1], n_scores=2),
])
def test_fast_path_equals_statsmodels(case, monkeypatch):
    import core.rsm.fairness as fairness

    h, m, g = _unbalanced(**case)
    # full-rank designs never reach statsmodels
    monkeypatch.setattr(fairness, "_fit", lambda *a: pytest.fail("statsmodels path taken"))
    res = fairness_analyses(h, m, g)
    ref = _statsmodels_analyses(h, m, g)
    assert res["groups"][-1] == "solo"
    for key, (r2, sig, rows) in ref.items():
        assert res[key]["R2"] == pytest.approx(r2, rel=1e-9, abs=1e-12)
        assert res[key]["sig"] == pytest.approx(sig, rel=1e-9, abs=1e-12)
        for name, want in zip(res[key]["estimates"], rows):
            got = [res[key]["estimates"][name][c] for c in ESTIMATE_COLUMNS]
            assert got == pytest.approx(list(want), rel=1e-9, abs=1e-12), (key, name)


def test_collinear_design_matches_statsmodels():
    # group "c" only has human score 9 and no other group has it: in csd its coefficient is
    # confounded (NaN) and the others are statsmodels' (pinv); osa/osd are full rank
    h, m, g = _unbalanced(seed=5, n=300, shares=[0.7, 0.3])
    g[:20], h[:20] = "c", 9.0
    res = fairness_analyses(h, m, g)
    ref = _statsmodels_analyses(h, m, g)
    assert res["groups"] == ["g0", "g1", "c", "solo"]
    assert all(math.isnan(v) for v in res["csd"]["estimates"]["c"].values())
    for key, (r2, sig, rows) in ref.items():
        assert res[key]["R2"] == pytest.approx(r2, rel=1e-9, abs=1e-12)
        for name, want in zip(res[key]["estimates"], rows):
            if name != "c" or key != "csd":
                got = [res[key]["estimates"][name][c] for c in ESTIMATE_COLUMNS]
                assert got == pytest.approx(list(want), rel=1e-9, abs=1e-12), (key, name)
    # two groups with disjoint human scores: the group is the score, no csd group estimate
    res = fairness_analyses([1, 2, 1, 2, 3, 4, 3, 4], [1, 3, 2, 2, 3, 5, 4, 4], list("aaaabbbb"))
    assert all(math.isnan(v) for v in res["csd"]["estimates"]["b"].values())
    assert res["osd"]["estimates"]["b"]["estimate"] == pytest.approx(0.5 - 0.5, abs=1e-12)


def test_f_test_exact_at_scale():
    # 0/1 errors at 10^4 rows with a weak group effect: the F-test p-value against the exact
    # one-way ANOVA (rational arithmetic), the explained sum of squares not cancelling
    from fractions import Fraction

    rng = np.random.default_rng(6)
    n = 10_000
    g = rng.choice(np.array(["a", "b", "c"], dtype=object), n, p=[0.5, 0.3, 0.2])
    h = rng.integers(0, 2, n).astype(float)
    m = np.where(rng.random(n) < 0.8, h, 1 - h)
    e = (m - h).astype(int).tolist()
    cnt, tot = {}, {}
    for gi, ei in zip(g.tolist(), e):
        cnt[gi] = cnt.get(gi, 0) + 1
        tot[gi] = tot.get(gi, 0) + ei
    ss, s = sum(v * v for v in e), sum(e)
    ctss = Fraction(ss) - Fraction(s * s, n)
    ssr = ss - sum(Fraction(tot[k] ** 2, cnt[k]) for k in cnt)
    f = float(((ctss - ssr) / 2) / (ssr / (n - 3)))
    r2 = float(1 - Fraction(n - 1, n - 3) * ssr / ctss)
    res = fairness_analyses(h, m, g)
    assert res["osd"]["sig"] == pytest.approx(stats.f.sf(f, 2, n - 3), rel=1e-12)
    assert res["osd"]["R2"] == pytest.approx(r2, rel=1e-10)
