"""Effort page, the refit on the campaign's own times (AppTest, issue 23 item 5): the active
dataset's round with stored seconds, the held-out comparison (the numbers of
core.hee.campaign.refit_campaign_effort, the function hmceval effort --campaign-times calls),
and the refitted effort made the active dataset's effort column for the next round."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from core.data import prepare
from core.demo import make_demo
from core.evaluation.sampling.design import LABELLED
from core.evaluation.labels.imports import labels_from_table
from core.hee.campaign import CAMPAIGN_COLUMN, refit_campaign_effort
from core.workspace import Workspace
from core.workspace import rounds as R

PAGE = "4_Effort.py"
STATE = {"eff_source": "upload"}  # no log uploaded: the page stops after this part


def _round_with_times(n_rows: int) -> tuple[Workspace, int]:
    """A round of the demo whose first ``n_rows`` queued rows were labelled by two annotators
    whose times grow with the machine's doubt and with class 1, not with the demo's effort."""
    ws = Workspace(os.environ["HMCEVAL_WORKSPACE"])
    data = prepare(make_demo(), name="demo")
    rid = R.plan_round(ws, data, kind="budget", settings={"lam": 0.0, "share": 0.1,
                                                          "mode": "at_most", "audit": 20,
                                                          "seed": 0})
    _, design = R.round_design(ws, rid)
    rows = np.flatnonzero(np.isin(design.selection, LABELLED))[:n_rows]
    f = data.frame
    rng = np.random.default_rng(0)
    mu = 5 + 80 * (1 - f["machine_confidence"].to_numpy()[rows]) ** 2 \
        + 15 * f["human_label"].to_numpy()[rows]
    ids = design.sample_ids()[rows]
    table = pd.DataFrame({
        "sample_id": np.concatenate([ids, ids]), "annotator": ["a"] * len(rows) + ["b"] * len(rows),
        "label": np.concatenate([f["human_label"].to_numpy()[rows]] * 2),
        "seconds": np.concatenate([mu * rng.lognormal(0, 0.2, len(rows)),
                                   1.3 * mu * rng.lognormal(0, 0.2, len(rows))]).round(2)})
    R.import_joined(ws, rid, labels_from_table(table, label_col="label", annotator_col="annotator",
                                               time_col="seconds"))
    return ws, rid


def _click(at, label: str):
    [b for b in at.button if b.label == label][0].click()
    at.run()
    assert not at.exception, at.exception
    return at


def test_refit_on_the_rounds_times_and_use_it(run_page):
    ws, rid = _round_with_times(150)
    at = run_page(PAGE, state=STATE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any(h.value == "Refit on the campaign's own times" for h in at.subheader)
    assert any(c.value.startswith(f"Round #{rid}: 300 labels with a time on 150 samples")
               for c in at.caption), [c.value for c in at.caption]
    _click(at, f"Refit the effort on round #{rid}'s times")
    shown = next(d.value for d in at.dataframe if "MAE (s)" in d.value.columns)
    core = refit_campaign_effort(prepare(make_demo(), name="demo"),
                                 R.stored_votes(ws, rid, R.round_design(ws, rid)[1])).heldout
    assert shown["MAE (s)"].tolist() == pytest.approx([core["prior"]["mae"], core["refit"]["mae"]])
    assert shown["Spearman"].tolist() == pytest.approx([core["prior"]["spearman"],
                                                        core["refit"]["spearman"]])
    # the simulated times follow the machine's doubt, not the demo's effort: the refit wins
    assert core["refit"]["mae"] < core["prior"]["mae"]
    assert any("The refit predicts the held-out times better." in c.value for c in at.caption)

    _click(at, "Use the refitted effort for the next round")
    assert any("now uses the refitted effort" in s.value for s in at.success)
    data = at.session_state["data"]
    assert data.roles["predicted_effort"] == CAMPAIGN_COLUMN
    assert data.effort_source == "predicted_effort"
    expected = refit_campaign_effort(prepare(make_demo(), name="demo"),
                                     R.stored_votes(ws, rid, R.round_design(ws, rid)[1]))
    np.testing.assert_allclose(data.frame["predicted_effort"], expected.predicted, rtol=1e-12)
    # the next visit does not compare the refit with itself
    at.run()
    assert not at.exception and not at.error
    assert any(c.value.startswith("The active dataset's effort is the refit on a campaign's "
                                  "times") for c in at.caption)
    assert not [b for b in at.button if b.label.startswith("Refit the effort")]


def test_no_round_or_too_few_times(run_page):
    at = run_page(PAGE, state=STATE)
    assert not at.exception and not at.error
    assert any(c.value.startswith("No evaluation round of this dataset yet") for c in at.caption)
    _round_with_times(4)
    at = run_page(PAGE, state=STATE)
    assert not at.exception and not at.error
    assert any("needs times on at least 10 samples" in i.value for i in at.info)
    assert not [b for b in at.button if b.label.startswith("Refit the effort")]
