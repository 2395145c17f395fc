"""core.workspace.round_annotators and the report's annotator section (issue 23), against a
hand-worked campaign: two annotators on ten rows who disagree on two.

ann: 0 0 0 0 0 1 1 1 1 1 (seconds 1..10, median 5.5)
bob: 0 0 0 0 1 1 1 1 1 0 (seconds 3 x5, 30 x5, median 16.5)

Observed agreement 8/10; both annotators say 0 on half the rows, so chance agreement is 0.5
and Cohen's kappa = Fleiss' kappa = (0.8 - 0.5) / 0.5 = 0.6. Krippendorff's alpha (nominal):
coincidences o00 = o11 = 8, o01 = o10 = 2, n = 20; D_o = 4/20, D_e = 2*10*10/(20*19), alpha =
1 - 0.2 * 380 / 200 = 0.62. Majority ties on the two disputed rows; on the eight others each
annotator agrees with the aggregate (confusion [[4, 0], [0, 4]]).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from core.demo import make_demo
from core.data import prepare
from core.evaluation.sampling.design import LABELLED
from core.evaluation.labels.imports import labels_from_table
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.report import annotators_html, round_report_html
from core.workspace.round_annotators import round_annotators, several_annotators

ANN = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
BOB = [0, 0, 0, 0, 1, 1, 1, 1, 1, 0]
ANN_S = [float(t) for t in range(1, 11)]
BOB_S = [3.0] * 5 + [30.0] * 5


def campaign(tmp_path, *, gold: bool = False):
    ws = Workspace(tmp_path / "ws")
    data = prepare(make_demo(), name="demo")
    rid = R.plan_round(ws, data, kind="budget", settings={"lam": 0.0, "share": 0.01,
                                                          "mode": "at_most", "audit": 5,
                                                          "seed": 1})
    rnd, design = R.round_design(ws, rid)
    rows = np.flatnonzero(np.isin(design.selection, LABELLED))[:10]
    ids = design.sample_ids()[rows]
    table = pd.DataFrame({"sample_id": list(ids) * 2, "annotator": ["ann"] * 10 + ["bob"] * 10,
                          "label": ANN + BOB, "seconds": ANN_S + BOB_S})
    if gold:  # an expert settles the two disputed rows as ann labelled them
        table = pd.concat([table, pd.DataFrame({"sample_id": [ids[4], ids[9]],
                                                "annotator": ["expert"] * 2, "label": [0, 1],
                                                "seconds": [60.0, 60.0]})])
    R.import_joined(ws, rid, labels_from_table(table, label_col="label",
                                               annotator_col="annotator", time_col="seconds"))
    return ws, rid, ids


def test_round_annotators_hand_worked(tmp_path):
    ws, rid, ids = campaign(tmp_path)
    rep = round_annotators(ws, rid, n_boot=200)
    assert several_annotators(rep)
    assert rep["n_annotators"] == 2 and rep["n_labels"] == 20 and rep["n_multi"] == 10
    assert rep["krippendorff_alpha"]["estimate"] == pytest.approx(0.62, abs=1e-12)
    lo, hi = rep["krippendorff_alpha"]["ci_low"], rep["krippendorff_alpha"]["ci_high"]
    assert lo < 0.62 < hi
    assert rep["fleiss_kappa"] == pytest.approx(0.6) and rep["percent_agreement"] == 0.8
    [pair] = rep["pairwise"]
    assert pair["annotators"] == ["ann", "bob"] and pair["cohen_kappa"] == pytest.approx(0.6)
    assert sorted(rep["adjudication"]) == sorted(str(ids[i]) for i in (4, 9))
    per = {p["annotator"]: p for p in rep["per_annotator"]}
    assert per["ann"]["median_seconds"] == 5.5 and per["bob"]["median_seconds"] == 16.5
    assert per["ann"]["agreement_with_aggregate"] == 1.0 and per["ann"]["n_compared"] == 8
    assert per["bob"]["confusion"]["matrix"] == [[4, 0], [0, 4]]


def test_gold_annotator_and_dawid_skene(tmp_path):
    ws, rid, ids = campaign(tmp_path, gold=True)
    rep = round_annotators(ws, rid, gold_annotator="expert", n_boot=0)
    assert rep["n_annotators"] == 2 and rep["n_gold"] == 2 and rep["adjudication"] == []
    per = {p["annotator"]: p for p in rep["per_annotator"]}
    # the expert settles rows 4 and 9 as ann labelled them: ann 2 of 2 with gold, bob 0 of 2
    assert (per["ann"]["agreement_with_gold"], per["ann"]["n_gold"]) == (1.0, 2)
    assert (per["bob"]["agreement_with_gold"], per["bob"]["n_gold"]) == (0.0, 2)
    # every row now has an aggregate: bob agrees with it on 8 of 10
    assert per["bob"]["agreement_with_aggregate"] == pytest.approx(0.8)
    ds = round_annotators(ws, rid, aggregate="dawid-skene", gold_annotator="expert", n_boot=0)
    assert ds["aggregate"] == "dawid-skene" and ds["adjudication"] == []


def test_one_annotator_or_none_is_not_several(tmp_path):
    ws = Workspace(tmp_path / "ws")
    data = prepare(make_demo(), name="demo")
    rid = R.plan_round(ws, data, kind="budget", settings={"lam": 0.0, "share": 0.01,
                                                          "mode": "at_most", "audit": 5,
                                                          "seed": 1})
    assert round_annotators(ws, rid) is None and not several_annotators(None)
    assert annotators_html(ws, rid) == ""
    R.simulate_annotators(ws, rid, fraction=0.5)
    rep = round_annotators(ws, rid, n_boot=0)
    assert rep is None or not several_annotators(rep)
    assert annotators_html(ws, rid) == ""


def _text(page: str) -> str:
    import html

    return html.unescape(re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", re.sub(
        "<script.*?</script>", "", page, flags=re.S))))


def test_report_has_the_annotator_section(tmp_path):
    ws, rid, _ = campaign(tmp_path)
    page = round_report_html(ws, rid)
    text = _text(page[page.index("<body>"):])
    assert "The annotators" in text
    assert "20 labels by 2 annotators on 10 rows, 10 of them labelled twice or more" in text
    assert "Krippendorff's alpha: 0.620 , 95% bootstrap interval" in text  # <b>0.620</b>,
    assert "Fleiss' kappa: 0.600; observed agreement 80.0%" in text
    assert "2 rows tie and wait for adjudication" in text
    assert "ann 10 100.0% of 8 n/a of 0 5.5" in text
    assert "bob 10 100.0% of 8 n/a of 0 16.5" in text
    assert "ann / bob 10 80.0% 0.600" in text
    # the section sits between the result and the key figures
    assert text.index("The annotators") < text.index("Key figures")
    # an annotator's name is data: escaped, never markup
    ws2, rid2, ids = campaign(tmp_path / "b")
    R.import_joined(ws2, rid2, labels_from_table(
        pd.DataFrame({"sample_id": [ids[0]], "annotator": ["<b>x</b>"], "label": [0]}),
        label_col="label", annotator_col="annotator"))
    html_ = annotators_html(ws2, rid2)
    assert "<b>x</b>" not in html_ and "&lt;b&gt;x&lt;/b&gt;" in html_
