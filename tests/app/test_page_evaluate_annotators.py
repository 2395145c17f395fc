"""Evaluate page, the annotators' part (AppTest): shown from two annotators on, the numbers of
core.workspace.round_annotators (hand-worked in tests/core/test_workspace_round_annotators.py:
alpha 0.62, Fleiss' and Cohen's kappa 0.6, median seconds 5.5 and 16.5), the aggregate chosen
on the page."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.evaluation.sampling.design import LABELLED
from core.evaluation.labels.imports import labels_from_table
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.round_annotators import round_annotators
from tests.app.conftest import shown_cells
from tests.app.test_page_evaluate import PAGE, click, fresh_workspace  # noqa: F401

ANN = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
BOB = [0, 0, 0, 0, 1, 1, 1, 1, 1, 0]


def _import(ws: Workspace, names: list[str]) -> list:
    _, design = R.round_design(ws, 1)
    ids = list(design.sample_ids()[np.flatnonzero(np.isin(design.selection, LABELLED))[:10]])
    table = pd.DataFrame({"sample_id": ids * len(names),
                          "annotator": [n for n in names for _ in range(10)],
                          "label": (ANN + BOB)[:10 * len(names)],
                          "seconds": ([float(t) for t in range(1, 11)]
                                      + [3.0] * 5 + [30.0] * 5)[:10 * len(names)]})
    R.import_joined(ws, 1, labels_from_table(table, label_col="label", annotator_col="annotator",
                                             time_col="seconds"))
    return ids


def _annotators_shown(at) -> bool:
    return any(h.value == "Annotators" for h in at.subheader)


def test_annotators_shown_from_two_annotators(run_page, fresh_workspace):
    at = run_page(PAGE)
    click(at, "Plan the round")
    assert not _annotators_shown(at)  # no vote yet
    ws = Workspace(str(fresh_workspace))
    ids = _import(ws, ["ann", "bob"])
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _annotators_shown(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Krippendorff's alpha"] == "0.620"
    assert metrics["Fleiss' kappa"] == "0.600"
    assert metrics["Observed agreement"] == "80.0%"
    captions = " ".join(c.value for c in at.caption)
    assert "20 labels by 2 annotators on 10 rows, 10 labelled twice or more" in captions
    assert "Compared with the majority vote" in captions
    assert f"2 rows tie under this aggregate: {ids[4]}, {ids[9]}" in captions
    frames = [d for d in at.dataframe if "annotator" in d.value.columns]
    per = frames[0].value.set_index("annotator")
    assert per.loc["ann", "median seconds"] == 5.5 and per.loc["bob", "median seconds"] == 16.5
    assert per.loc["ann", "labels"] == 10 and per.loc["bob", "rows compared"] == 8
    assert per["agrees with aggregate"].tolist() == [1.0, 1.0]
    config = json.loads(frames[0].proto.columns)
    assert config["agrees with aggregate"]["type_config"]["format"] == "percent"
    assert shown_cells(frames[0])["agrees with gold"].tolist() == ["—", "—"]  # no gold row
    pairs = [d for d in at.dataframe if "Cohen's kappa" in d.value.columns][0].value
    assert pairs["Cohen's kappa"].iloc[0] == pytest.approx(0.6)
    # the page shows what the core gives (one function for the page, the report and the CLI)
    core = round_annotators(ws, 1)
    assert metrics["Krippendorff's alpha"] == f"{core['krippendorff_alpha']['estimate']:.3f}"

    # Dawid-Skene as the aggregate: said plainly, and kept in the session state
    at.radio(key="_w_ev_ann_aggregate").set_value("dawid-skene").run()
    assert not at.exception and not at.error
    assert at.session_state["ev_ann_aggregate"] == "dawid-skene"
    captions = " ".join(c.value for c in at.caption)
    assert "Compared with the Dawid-Skene" in captions
    ds = round_annotators(ws, 1, aggregate="dawid-skene")
    per = [d for d in at.dataframe if "annotator" in d.value.columns][0].value
    assert per.set_index("annotator").loc["bob", "rows compared"] == \
        {p["annotator"]: p for p in ds["per_annotator"]}["bob"]["n_compared"]


def test_one_annotator_shows_no_agreement(run_page, fresh_workspace):
    at = run_page(PAGE)
    click(at, "Plan the round")
    _import(Workspace(str(fresh_workspace)), ["ann"])
    at.run()
    assert not at.exception and not at.error
    assert not _annotators_shown(at)
    assert "Krippendorff's alpha" not in [m.label for m in at.metric]
