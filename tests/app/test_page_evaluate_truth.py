"""Evaluate page, section 4 (issue 23 item 4): the result says what it is relative to, and a
round with double-labelled rows offers the shares and accuracy corrected for the annotators'
own error (core.evaluation.annotators.noise through the round service), its measured rate beside."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import prepare
from core.evaluation.labels.imports import labels_from_table
from core.workspace import Workspace, default_root
from core.workspace import rounds as R
from tests.judge_table import judge_table

PAGE = "2a_Evaluate.py"


def _round(double: int) -> tuple[int, pd.DataFrame]:
    """A judge table's round, every queued row labelled by annotator 'a' (gold), the double
    rows by 'b' too, 'b' wrong on every 10th of them."""
    ws = Workspace(default_root())
    table = judge_table(per_group=60)
    data = prepare(table, name="judge")
    rid = R.plan_round(ws, data, kind="budget",
                       settings={"lam": 1.0, "share": 0.3, "audit": 60, "seed": 0,
                                 **({"double": double} if double else {})})
    rnd = ws.round(rid)
    ids = data.frame["sample_id"].to_numpy()
    gold = data.frame["human_label"].to_numpy(dtype=object)
    queued = np.flatnonzero(np.isfinite(rnd["queue_rank"]))
    votes = [{"sample_id": ids[r], "annotator": "a", "label": gold[r]} for r in queued]
    classes = sorted(set(gold))
    rows = (ws.latest_result(rid, "double") or {"rows": []})["rows"]
    for j, r in enumerate(rows):
        other = classes[(classes.index(gold[r]) + 1) % len(classes)]
        votes.append({"sample_id": ids[r], "annotator": "b",
                      "label": other if j % 10 == 0 else gold[r]})
    frame = pd.DataFrame(votes)
    R.import_joined(ws, rid, labels_from_table(frame, label_col="label",
                                               annotator_col="annotator"),
                    aggregate="dawid-skene")
    return rid, frame


def test_the_result_says_it_is_relative_to_the_annotators(run_page):
    _round(0)
    at = run_page(PAGE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("relative to the annotators' labels" in c.value for c in at.caption)
    assert not [t for t in at.toggle if t.label.startswith("Against the truth")]


def test_double_labelled_rows_give_the_result_against_the_truth(run_page):
    rid, frame = _round(50)
    at = run_page(PAGE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    toggle = next(t for t in at.toggle if t.label.startswith("Against the truth"))
    assert "50 double-labelled rows" in toggle.label
    toggle.set_value(True).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = next(d.value for d in at.dataframe if "quantity" in d.value.columns
                 and "95% low" in d.value.columns)
    assert list(table["quantity"])[-1] == "accuracy of the final labels"
    assert table["estimate"].str.endswith("%").all()
    # 5 of 50 pairs disagree: D = 0.1 = 2 eta - k eta^2 / (k - 1) with k classes
    k = int(frame["label"].nunique())
    eta = next(e for e in np.roots([-k / (k - 1), 2, -0.1]) if 0 <= e < 0.5)
    said = next(c.value for c in at.caption if c.value.startswith("Annotators' error rate"))
    assert f"{eta:.1%}" in said and "truth (corrected" in said
    # a look: the round's stored estimate is not replaced by the corrected one
    stored = Workspace(default_root()).latest_result(rid, "estimate")
    assert stored is None or stored.get("relative_to") == "annotators"
