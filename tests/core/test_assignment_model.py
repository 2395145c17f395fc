"""SAE: the fast exact path against brute force, hand-worked cases and the cvxpy/HiGHS ILP."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.assignment import (Constraints, SAEInputs, evaluate, gains, n_from_share, objective_value,
                      solve, solve_fast, solve_ilp, sweep)


def brute_force(inp: SAEInputs, lam: float, n: int, mode: str) -> float:
    """Best Eq. 3 value over every 0/1 assignment (small M only)."""
    best = -np.inf
    for bits in itertools.product([False, True], repeat=inp.M):
        h = np.array(bits)
        cnt = h.sum()
        if (mode == "at_most" and cnt > n) or (mode == "exactly" and cnt != n):
            continue
        best = max(best, objective_value(inp, h, lam))
    return best


def test_hand_worked_example():
    # a = machine confidence, l = human effort; b = 1, k = 0.
    # gains at lam = 1: (1 - l) - a = [0.6, -0.1, 0.3, 0.3]
    inp = SAEInputs.from_arrays([0.2, 0.9, 0.5, 0.5], [0.2, 0.2, 0.2, 0.2])
    np.testing.assert_allclose(gains(inp.a, inp.l, lam=1.0), [0.6, -0.1, 0.3, 0.3])
    a = solve_fast(inp, lam=1.0, n_human=2)
    # the two samples with tied gain 0.3: the earlier row (index 2) goes to a human first
    assert a.human.tolist() == [True, False, True, False]
    # objective: machine keeps rows 1, 3 -> 0.9 + 0.5; humans rows 0, 2 -> 1 + 1 - 1 * (0.2 + 0.2)
    assert a.objective == pytest.approx(0.9 + 0.5 + 2 - 0.4)
    # at most 3: only positive gains go to humans (3 of them)
    assert solve_fast(inp, lam=1.0, n_human=3).human.tolist() == [True, False, True, True]
    # at most 4: the negative-gain sample stays with the machine
    assert solve_fast(inp, lam=1.0, n_human=4).n_human == 3
    # exactly 4: everyone goes to a human even with a negative gain
    assert solve_fast(inp, lam=1.0, n_human=4, mode="exactly").n_human == 4


def test_zero_gain_stays_with_machine_in_at_most_mode():
    inp = SAEInputs.from_arrays([1.0, 0.4], [0.0, 0.0])  # lam * l = 0, a = b for row 0
    a = solve_fast(inp, lam=3.0, n_human=2)
    assert a.human.tolist() == [False, True]


def test_lambda_zero_sends_least_confident():
    rng = np.random.default_rng(0)
    inp = SAEInputs.from_arrays(rng.random(50), rng.random(50))
    a = solve_fast(inp, lam=0.0, n_human=10)
    assert set(np.flatnonzero(a.human)) == set(np.argsort(inp.a)[:10])


@pytest.mark.parametrize("seed", range(40))
def test_fast_path_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 10))
    # coarse values create many ties; b and k vary too
    a = rng.integers(0, 5, m) / 4
    l = rng.integers(0, 4, m) / 4
    b = rng.choice([1.0, 0.75], m)
    k = rng.choice([0.0, 0.25], m)
    inp = SAEInputs.from_arrays(a, l, b=b, k=k)
    lam = float(rng.choice([0.0, 0.5, 1.0, 2.0, 7.5]))
    n = int(rng.integers(0, m + 1))
    for mode in ("at_most", "exactly"):
        fast = solve_fast(inp, lam=lam, n_human=n, mode=mode)
        assert fast.objective == pytest.approx(brute_force(inp, lam, n, mode), abs=1e-12)
        if mode == "exactly":
            assert fast.n_human == n
        else:
            assert fast.n_human <= n


@pytest.mark.parametrize("seed", range(25))
def test_ilp_matches_fast_path_on_random_instances(seed):
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(5, 200))
    ties = seed % 2 == 0
    a = (rng.integers(0, 6, m) / 5) if ties else rng.random(m)
    l = (rng.integers(0, 3, m) / 10) if ties else rng.random(m) * 0.2
    inp = SAEInputs.from_arrays(a, l)
    lam = float(rng.choice([0.0, 0.3, 1.0, 4.6, 20.0]))
    n = int(rng.integers(0, m + 1))
    for mode in ("at_most", "exactly"):
        fast = solve_fast(inp, lam=lam, n_human=n, mode=mode)
        ilp = solve_ilp(inp, lam=lam, n_human=n, mode=mode)
        assert ilp.method == "ilp"
        assert ilp.objective == pytest.approx(fast.objective, abs=1e-7)


def test_ilp_matches_fast_path_on_shared_data(hmceval_inputs):
    inp = hmceval_inputs
    n = n_from_share(0.5, inp.M)
    for lam in (0.0, 4.6, 30.0):
        fast = solve_fast(inp, lam=lam, n_human=n)
        ilp = solve_ilp(inp, lam=lam, n_human=n)
        assert ilp.objective == pytest.approx(fast.objective, abs=1e-6)


def test_effort_budget_constraint():
    # gains at lam 0 are 1 - a = [0.9, 0.8, 0.7]; efforts [0.6, 0.3, 0.3]; budget 0.6
    inp = SAEInputs.from_arrays([0.1, 0.2, 0.3], [0.6, 0.3, 0.3])
    a = solve(inp, lam=0.0, n_human=3, constraints=Constraints(effort_budget=0.6))
    assert a.method == "ilp"
    # either row 0 alone (0.9) or rows 1 + 2 (0.8 + 0.7 = 1.5): the latter is optimal
    assert a.human.tolist() == [False, True, True]
    assert a.objective == pytest.approx(0.1 + 1 + 1)


def test_group_share_bounds():
    a_ = [0.1, 0.2, 0.3, 0.9, 0.95, 0.99]
    groups = np.array(["x", "x", "x", "y", "y", "y"])
    inp = SAEInputs.from_arrays(a_, np.zeros(6))
    # unconstrained, N = 2 picks rows 0, 1 (group x); a minimum share of 1/3 for y forces one y
    a = solve(inp, lam=0.0, n_human=2,
              constraints=Constraints(groups=groups, group_bounds={"y": (1 / 3, None)}))
    assert a.human.tolist() == [True, False, False, True, False, False]
    # a maximum share of 0 for x sends nobody from x
    b = solve(inp, lam=0.0, n_human=2,
              constraints=Constraints(groups=groups, group_bounds={"x": (None, 0.0)}))
    assert not b.human[:3].any() and b.n_human == 2


def test_infeasible_constraints_raise_data_error():
    inp = SAEInputs.from_arrays([0.1, 0.2], [1.0, 1.0])
    with pytest.raises(DataError, match="infeasible"):
        solve(inp, lam=0.0, n_human=2, mode="exactly", constraints=Constraints(effort_budget=0.5))


@pytest.mark.parametrize("kwargs, match", [
    ({"lam": -1.0, "n_human": 1}, "lambda"),
    ({"lam": float("nan"), "n_human": 1}, "lambda"),
    ({"lam": 1.0, "n_human": 5}, "between 0 and M"),
    ({"lam": 1.0, "n_human": 1, "mode": "some"}, "mode"),
])
def test_bad_parameters(kwargs, match):
    inp = SAEInputs.from_arrays([0.1, 0.2], [1.0, 1.0])
    with pytest.raises(DataError, match=match):
        solve(inp, **kwargs)


def test_n_from_share_truncates_like_the_paper():
    assert n_from_share(0.5, 5673) == 2836
    assert n_from_share(0.15, 100) == 15  # 0.15 * 100 = 15.000000000000002 or 14.999... in floats
    assert n_from_share(0.29, 100) == 29  # 0.29 * 100 = 28.999999999999996 in floats
    assert n_from_share(1.0, 7) == 7
    with pytest.raises(DataError):
        n_from_share(1.5, 7)


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_sweep_equals_point_solves(mode):
    rng = np.random.default_rng(3)
    m = 300
    gold = rng.integers(0, 3, m)
    machine = np.where(rng.random(m) < 0.7, gold, rng.integers(0, 3, m))
    inp = SAEInputs.from_arrays(np.round(rng.random(m), 2), rng.random(m) * 0.1,
                                machine_label=machine, human_label=gold,
                                human_effort=rng.random(m), labels=(0, 1, 2))
    lams = [0.0, 0.7, 3.0, 12.0]
    shares = [0.0, 0.1, 0.33, 0.5, 1.0]
    table = sweep(inp, lams=lams, shares=shares, mode=mode)
    assert len(table) == len(lams) * len(shares)
    for _, row in table.iterrows():
        res = evaluate(inp, solve_fast(inp, lam=row["lambda"], n_human=int(row["N"]), mode=mode))
        for key in ("n_human", "human_ratio", "time_cost", "time_cost_predicted", "precision",
                    "recall", "f1", "accuracy", "objective", "expected_reliability"):
            assert row[key] == pytest.approx(res[key], abs=1e-9), key


def test_sweep_without_gold_marks_reliability_unavailable():
    inp = SAEInputs.from_arrays([0.2, 0.8, 0.6], [1.0, 1.0, 1.0], machine_label=[0, 1, 1])
    t = sweep(inp, lams=[0.0], shares=[0.0, 1.0])
    assert t["accuracy"].isna().all()
    # expected reliability: all machine -> mean a; all human (b = 1) -> 1
    assert t["expected_reliability"].tolist() == pytest.approx([(0.2 + 0.8 + 0.6) / 3, 1.0])


def test_constraints_from_settings_by_hand_and_errors():
    import pandas as pd

    from core.data import prepare
    from core.assignment import constraints_from_settings

    df = pd.DataFrame({"machine_label": [1, 0, 1, 0], "machine_confidence": [0.1, 0.2, 0.9, 0.8],
                       "predicted_effort": [1.0, 2.0, 3.0, 4.0], "grp": ["x", "x", 7, 7]})
    data = prepare(df, {"predicted_effort": "predicted_effort"}, name="t")
    assert constraints_from_settings(data) is None
    assert constraints_from_settings(data, group_column="grp", group_bounds={}) is None
    # 0.3 of the total predicted effort 10
    c = constraints_from_settings(data, effort_budget_share=0.3, group_column="grp",
                                  group_bounds={"7": ["0.5", None]})
    assert c.effort_budget == pytest.approx(3.0)
    assert c.group_bounds == {7: (0.5, None)}  # the value keeps its type; the key is its text
    assert c.groups.tolist() == ["x", "x", 7, 7]
    for kwargs, match in [
        (dict(effort_budget=1.0, effort_budget_share=0.1), "not both"),
        (dict(effort_budget_share=1.5), r"share must be in \[0, 1\], got 1.5"),
        (dict(group_bounds={"x": (0.1, None)}), "need a subgroup column"),
        (dict(group_column="nope", group_bounds={"x": (0.1, None)}), "'nope' is not in the table"),
        (dict(group_column="grp", group_bounds={"z": (0.1, None)}),
         r"'z' does not occur in column 'grp' \(values: 7, x\)"),
        (dict(group_column="grp", group_bounds={"x": ("a", None)}), "'x': share bounds must be"),
    ]:
        with pytest.raises(DataError, match=match):
            constraints_from_settings(data, **kwargs)


def test_the_ilp_refuses_tables_beyond_its_size_and_a_nan_budget(monkeypatch):
    """The app and the CLI share the solver's limits (issue 12): checked before cvxpy runs."""
    import core.defaults
    from core.errors import DataError as _DataError
    from core.assignment import Constraints, SAEInputs, solve

    inp = SAEInputs.from_arrays(np.linspace(0, 1, 50), np.ones(50))
    monkeypatch.setattr(core.defaults, "MAX_ILP_SAMPLES", 40)
    with pytest.raises(_DataError, match="at most 40 samples; this table has 50"):
        solve(inp, lam=0.0, n_human=10, constraints=Constraints(effort_budget=5.0))
    monkeypatch.undo()
    with pytest.raises(_DataError, match="effort budget must be a finite number"):
        solve(inp, lam=0.0, n_human=10, constraints=Constraints(effort_budget=float("nan")))
    assert solve(inp, lam=0.0, n_human=10, constraints=Constraints(effort_budget=5.0)).n_human == 5


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_single_budget_sweep_equals_the_ranked_sweep_and_solve_fast(mode):
    """The one-budget path (gain cells) gives what the ranking path and solve_fast give, ties
    included (gains on a coarse grid repeat a lot)."""
    from core.assignment import sweep

    rng = np.random.default_rng(5)
    m = 400
    a = np.round(rng.uniform(0, 1, m), 1)  # many equal confidences: ties in the gains
    l = np.round(rng.uniform(0, 1, m), 1)
    gold = rng.integers(0, 3, m)
    mach = np.where(rng.random(m) < 0.3, (gold + 1) % 3, gold)
    inp = SAEInputs.from_arrays(a, l, machine_label=mach, human_label=gold,
                                human_effort=rng.uniform(0.5, 2, m), labels=(0, 1, 2))
    lams = [0.0, 0.5, 1.0, 2.0, 10.0]
    for n in (0, 1, 57, 200, 399, 400):
        single = sweep(inp, lams=lams, n_values=[n], mode=mode)
        ranked = sweep(inp, lams=lams, n_values=[n, min(n + 1, m)], mode=mode)
        ranked = ranked[ranked["N"] == n].drop_duplicates("lambda").reset_index(drop=True)
        pd.testing.assert_frame_equal(single.reset_index(drop=True), ranked, rtol=1e-12)
        for lam, row in zip(lams, single.itertuples()):
            fast = solve_fast(inp, lam=lam, n_human=n, mode=mode)
            assert row.n_human == fast.n_human
            assert row.objective == pytest.approx(fast.objective, abs=1e-9)
            assert row.accuracy == pytest.approx(evaluate(inp, fast)["accuracy"], abs=1e-12)


# ------------------------------------------------------------------------------- fast paths
def _reference_metrics(inp: SAEInputs, human: np.ndarray) -> dict:
    """The label-by-label metrics of core.assignment.reliability (the reference of the encoded paths)."""
    from core.assignment import assignment_metrics

    return assignment_metrics(human, machine_label=inp.machine_label, machine_confidence=inp.a,
                              human_label=inp.human_label, human_confidence=inp.b,
                              human_effort=inp.human_effort, predicted_effort=inp.l,
                              labels=inp.labels)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_single_budget_sweep_over_many_lambdas_picks_the_exact_top_n(seed, mode):
    """The one-budget path (only the gains of the cells a threshold crosses are computed,
    core.assignment.sweeps.budget_sums) picks at every lambda the set solve_fast picks, ties included: rounded
    confidences and efforts repeat a lot, lambdas come unsorted and repeated, and every
    sample's ground-truth effort is a distinct power of two, so the time cost names the set."""
    rng = np.random.default_rng(seed)
    m = 48
    a = np.round(rng.uniform(0, 1, m), 1)
    l = np.round(rng.uniform(0, 1, m), 1)
    gold = rng.integers(0, 3, m)
    mach = np.where(rng.random(m) < 0.3, (gold + 1) % 3, gold)
    he = 2.0 ** np.arange(m)  # a set's sum identifies the set
    inp = SAEInputs.from_arrays(a, l, machine_label=mach, human_label=gold, human_effort=he,
                                labels=(0, 1, 2))
    lams = np.r_[np.geomspace(0.01, 30, 70), [0.0, 1.0, 1.0, 0.5, 2.0]]
    rng.shuffle(lams)
    for n in (1, 5, 24, 47):
        table = sweep(inp, lams=lams, n_values=[n], mode=mode)
        assert table["lambda"].tolist() == lams.tolist()
        for lam, row in zip(lams, table.itertuples()):
            fast = solve_fast(inp, lam=float(lam), n_human=n, mode=mode)
            ref = _reference_metrics(inp, fast.human)
            assert row.n_human == fast.n_human
            assert row.time_cost * he.sum() == pytest.approx(he[fast.human].sum(), rel=1e-15)
            assert row.objective == pytest.approx(fast.objective, abs=1e-9)
            for key in ("accuracy", "f1", "precision", "recall", "expected_reliability"):
                assert getattr(row, key) == pytest.approx(ref[key], abs=1e-12), key


def test_single_budget_sweep_with_machine_effort_takes_the_plain_path():
    """With a machine effort k_i > 0 the gains need not fall with lambda: the per-lambda path
    is used and still agrees with solve_fast."""
    rng = np.random.default_rng(9)
    m = 60
    inp = SAEInputs.from_arrays(rng.uniform(0, 1, m), rng.uniform(0, 1, m),
                                k=rng.uniform(0, 0.5, m), human_effort=2.0 ** np.arange(m))
    lams = np.geomspace(0.01, 10, 30)
    for mode in ("at_most", "exactly"):
        table = sweep(inp, lams=lams, n_values=[20], mode=mode)
        for lam, row in zip(lams, table.itertuples()):
            fast = solve_fast(inp, lam=float(lam), n_human=20, mode=mode)
            assert row.n_human == fast.n_human
            assert row.time_cost * inp.human_effort.sum() == pytest.approx(
                inp.human_effort[fast.human].sum(), rel=1e-15)


@pytest.mark.parametrize("labels", [None, ("x", "y", "z", "w")])
def test_evaluate_from_encoded_labels_equals_the_label_by_label_metrics(labels):
    """evaluate encodes the labels once per dataset; its metrics equal core.assignment.reliability's
    label-by-label ones (text labels, a class only the machine uses, a class nobody uses)."""
    rng = np.random.default_rng(2)
    m = 200
    gold = rng.choice(["x", "y", "z"], m)
    mach = np.where(rng.random(m) < 0.25, "w", gold)
    inp = SAEInputs.from_arrays(rng.uniform(0, 1, m), rng.uniform(0, 1, m), machine_label=mach,
                                human_label=gold, human_effort=rng.uniform(1, 2, m),
                                labels=labels)
    assert inp.label_codes is not None
    for lam, n in ((0.0, 50), (0.5, 120), (3.0, 200)):
        a = solve_fast(inp, lam=lam, n_human=n)
        got, ref = evaluate(inp, a), _reference_metrics(inp, a.human)
        for key in ("n_human", "human_ratio", "time_cost", "time_cost_predicted", "precision",
                    "recall", "f1", "accuracy", "expected_reliability"):
            assert got[key] == pytest.approx(ref[key], abs=1e-15), key
        assert got["machine_only"] == pytest.approx(ref["machine_only"], abs=1e-15)


def test_evaluate_names_a_label_outside_the_classes():
    """A label outside ``labels`` leaves the encoded path: the DataError names it as before."""
    inp = SAEInputs.from_arrays([0.2, 0.9], [1.0, 1.0], machine_label=["a", "q"],
                                human_label=["a", "b"], labels=("a", "b"))
    assert inp.label_codes is None
    with pytest.raises(DataError, match="'q'"):
        evaluate(inp, solve_fast(inp, lam=0.0, n_human=1))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_many_budget_sweep_picks_the_stable_top_n_at_each_budget(seed, mode):
    """The many-budget path (one partial ordering per lambda at the budgets' places) gives, at
    every (lambda, N), the set solve_fast picks: efforts of distinct powers of two name the
    set, and rounded gains tie at the budgets' places."""
    rng = np.random.default_rng(10 + seed)
    m = 50
    a = np.round(rng.uniform(0, 1, m), 1)
    l = np.round(rng.uniform(0, 1, m), 1)
    gold = rng.integers(0, 3, m)
    mach = np.where(rng.random(m) < 0.3, (gold + 1) % 3, gold)
    he = 2.0 ** np.arange(m)
    inp = SAEInputs.from_arrays(a, l, machine_label=mach, human_label=gold, human_effort=he,
                                labels=(0, 1, 2))
    lams = [0.0, 0.3, 1.0, 2.5]
    ns = list(range(0, m + 1, 3)) + [m]
    table = sweep(inp, lams=lams, n_values=ns, mode=mode)
    for lam, row in zip(table["lambda"], table.itertuples()):
        fast = solve_fast(inp, lam=float(lam), n_human=row.N, mode=mode)
        ref = _reference_metrics(inp, fast.human)
        assert row.n_human == fast.n_human
        assert row.time_cost * he.sum() == pytest.approx(he[fast.human].sum(), rel=1e-15)
        assert row.objective == pytest.approx(fast.objective, abs=1e-9)
        for key in ("accuracy", "f1", "expected_reliability"):
            assert getattr(row, key) == pytest.approx(ref[key], abs=1e-12), key


@pytest.mark.parametrize("mode", ["at_most", "exactly"])
def test_solve_fast_is_the_head_of_the_stable_ranking(mode):
    """solve_fast selects without sorting; its set is the first n of a stable descending sort of
    the gains (the documented tie rule), on gains that tie a lot."""
    rng = np.random.default_rng(4)
    m = 300
    inp = SAEInputs.from_arrays(np.round(rng.uniform(0, 1, m), 1), np.round(rng.uniform(0, 1, m), 1))
    for lam in (0.0, 0.5, 1.0, 3.0):
        g = gains(inp.a, inp.l, lam=lam)
        order = np.argsort(-g, kind="stable")
        for n in (0, 1, 77, 150, 299, 300):
            k = n if mode == "exactly" else min(n, int((g > 0).sum()))
            want = np.zeros(m, dtype=bool)
            want[order[:k]] = True
            assert solve_fast(inp, lam=lam, n_human=n, mode=mode).human.tolist() == want.tolist()
