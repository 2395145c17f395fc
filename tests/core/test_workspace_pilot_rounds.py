"""core.workspace.pilot_rounds: two batches in the workspace. The first batch's settings are
``hmceval queue --design pilot``'s, the rest's budget is the whole budget less the labels the
first batch got (counted by hand), the rest is drawn independently of a first batch drawn with
the same seed, and where a pilot stands is said for the page."""

from __future__ import annotations

import numpy as np
import pytest

from core.data import prepare
from core.errors import DataError
from core.evaluation.sampling import DRAW_SALT
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.pilot_rounds import (is_pilot, pilot_rest, pilot_settings, pilot_state,
                                         rest_settings)
from tests.judge_table import judge_table


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


@pytest.fixture(scope="module")
def data():
    return prepare(judge_table(per_group=300, seed=4), name="judge")  # 1,200 rows


def test_pilot_settings_are_the_command_lines():
    # what hmceval queue DATA --design pilot --labels 500 --seed 3 stores (cmd_queue builds
    # design, seed, lam 0.0 and labels as a float)
    assert pilot_settings(500, seed=3).to_dict() == {"design": "pilot", "seed": 3, "lam": 0.0,
                                                     "labels": 500.0}
    assert is_pilot(pilot_settings(200)) and not is_pilot({"design": "active"})
    assert not is_pilot(None)


def test_the_rest_is_the_budget_less_the_labels_got(ws, data):
    pilot = R.plan_round(ws, data, kind="budget", settings=pilot_settings(400, seed=2))
    with pytest.raises(DataError, match="has no labels yet"):
        pilot_rest(ws, data, pilot)
    state = pilot_state(ws, data, pilot)
    assert state["rest"] is None and "has no labels yet" in state["why_not"]
    assert state["labelled"] == 0 and not state["complete"] and state["planned"] == []
    queued = int(np.isfinite(ws.round(pilot)["queue_rank"]).sum())
    R.simulate_annotators(ws, pilot, fraction=0.5)
    got = int(np.ceil(queued / 2))  # the first half of the queue, by hand
    assert pilot_rest(ws, data, pilot) == 400.0 - got
    state = pilot_state(ws, data, pilot)
    assert (state["budget"], state["queued"], state["labelled"]) == (400.0, queued, got)
    assert state["rest"] == 400.0 - got and not state["complete"]
    R.simulate_annotators(ws, pilot)
    assert pilot_state(ws, data, pilot)["complete"]
    settings = rest_settings(ws, data, pilot)
    assert settings.to_dict() == {"design": "active", "seed": 2, "lam": 0.0,
                                  "labels": 400.0 - queued, "calibrate_on": pilot}
    assert rest_settings(ws, data, pilot, seed=9, width_ratio=1.5).to_dict() == {
        "design": "active", "seed": 9, "lam": 0.0, "labels": 400.0 - queued,
        "calibrate_on": pilot, "width_ratio": 1.5}
    rest = R.plan_round(ws, data, kind="budget", settings=settings)
    assert pilot_state(ws, data, pilot)["planned"] == [rest]
    assert pilot_state(ws, data, rest) is None  # the rest is not a pilot
    with pytest.raises(DataError, match="is not one: give --labels"):
        pilot_rest(ws, data, rest)


def test_the_rest_is_drawn_independently_of_a_pilot_with_the_same_seed(ws, data):
    """Drawn from the pilot's own uniforms (the same seed), the rest would draw a row exactly
    where u < p2, and a row the pilot left out (u >= p1) with probability (p2 - p1) / (1 - p1),
    not p2. The rest has a stream of its own."""
    pilot = R.plan_round(ws, data, kind="budget", settings=pilot_settings(600, seed=0))
    R.simulate_annotators(ws, pilot)
    first = ws.round(pilot)
    p1 = first["inclusion"]
    rest = R.plan_round(ws, data, kind="budget", settings=rest_settings(ws, data, pilot))
    rnd = ws.round(rest)
    p2, sel = rnd["inclusion"], rnd["selection"]
    assert rnd["settings"]["seed"] == first["settings"]["seed"] == 0
    # the pilot's uniforms, as core.evaluation.sampling.draw makes them without a stage
    u = np.random.default_rng(np.random.SeedSequence([0, DRAW_SALT])).random(data.M)
    assert (((u < p1) | (p1 >= 1)) == np.isin(first["selection"], ("routed", "audit"))).all()
    free = p2 < 1
    assert not np.array_equal(sel[free] == "audit", (u < p2)[free])
    out = free & ~np.isin(first["selection"], ("routed", "audit"))
    expected = float(p2[out].sum())  # 302 on this table; (p2 - p1) / (1 - p1) gives 241
    assert abs(int((sel[out] == "audit").sum()) - expected) < 3 * np.sqrt(expected)
