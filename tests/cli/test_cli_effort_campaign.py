"""``hmceval effort --campaign-times``: the effort model refitted on a campaign's own times
(issue 23, item 5), written for the next round, which ``hmceval queue --effort-budget`` plans
with; the held-out comparison with the prior; bad input exits 2 naming rows."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from core.cli import main
from core.data import prepare
from core.hee.campaign import CAMPAIGN_COLUMN, refit_campaign_effort
from tests.core.test_hee_campaign import simulated_campaign


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("campaign")
    table, votes, held, truth = simulated_campaign(seed=3, n=600)
    data, labels = tmp / "data.csv", tmp / "round.csv.labels.csv"
    table.to_csv(data, index=False)
    votes.to_csv(labels, index=False)
    return tmp, table, votes, data, labels


def test_refit_writes_the_effort_the_next_round_plans_with(campaign, capsys):
    tmp, table, votes, data, labels = campaign
    out = tmp / "refit.csv"
    assert main(["effort", str(data), "--campaign-times", str(labels), "--col", "text=response",
                 "--json", "-o", str(out)]) == 0
    captured = capsys.readouterr()
    rep = json.loads(captured.out)
    assert "--col predicted_effort=campaign_predicted_seconds" in captured.err
    h = rep["heldout"]
    assert rep["n_timed"] == h["n_timed"] == 200 and rep["n_times"] == 400
    # times depend on confidence and class, the prior on length: the refit wins held out
    assert h["refit"]["mae"] < 0.5 * h["prior"]["mae"], h
    assert h["refit"]["spearman"] > h["prior"]["spearman"] + 0.3, h
    written = pd.read_csv(out)
    assert list(written.columns) == list(table.columns) + [CAMPAIGN_COLUMN]
    assert written[list(table.columns)].equals(table)
    # the same numbers as the core function the Effort page calls
    core = refit_campaign_effort(prepare(table, {"text": ["response"]}), votes)
    np.testing.assert_allclose(written[CAMPAIGN_COLUMN], core.predicted, rtol=1e-12)
    assert rep["heldout"] == json.loads(json.dumps(core.heldout))

    # the next round: the active design spends its effort budget in the refitted seconds
    budget = 0.25 * float(written[CAMPAIGN_COLUMN].sum())
    queue = tmp / "queue.csv"
    assert main(["queue", str(out), "--design", "active", "--effort-budget", f"{budget:.6f}",
                 "--col", "text=response", "--col", f"predicted_effort={CAMPAIGN_COLUMN}",
                 "--json", "-o", str(queue)]) == 0
    plan = json.loads(capsys.readouterr().out)
    q = pd.read_csv(queue)
    spent = float((q["inclusion_probability"] * written[CAMPAIGN_COLUMN]).sum())
    assert spent == pytest.approx(budget, rel=1e-6)
    assert plan["expected"]["expected_effort"] == pytest.approx(budget, rel=1e-6)
    # refitting NEXT.csv again on the same times: said to flatter the earlier refit
    again = tmp / "again.csv"
    assert main(["effort", str(out), "--campaign-times", str(labels), "--col", "text=response",
                 "--col", f"predicted_effort={CAMPAIGN_COLUMN}", "-o", str(again)]) == 0
    err = capsys.readouterr().err
    assert "an earlier refit" in err and f"the column {CAMPAIGN_COLUMN} of" in err
    assert list(pd.read_csv(again).columns) == list(written.columns)
    # ... which the prior's column would have spent differently
    assert float((q["inclusion_probability"] * written["predicted_effort"]).sum()) != \
        pytest.approx(budget, rel=1e-3)


def test_text_report_and_extra_feature(campaign, capsys):
    tmp, table, votes, data, labels = campaign
    assert main(["effort", str(data), "--campaign-times", str(labels), "--col", "text=response",
                 "--features", "machine_confidence", "--trees", "20", "--folds", "3"]) == 0
    text = capsys.readouterr().out
    assert "refit on 200 timed samples (400 times, median over annotators) of 600" in text
    assert "held-out (3-fold CV)" in text and "prior effort" in text
    assert "20 trees" in text and "machine_confidence" in text


@pytest.mark.parametrize("edit, message", [
    (lambda v: v.assign(seconds=np.where(np.arange(len(v)) == 4, -3.0, v["seconds"])),
     r"row 6 of the campaign times \(-3\)"),
    (lambda v: v.assign(sample_id=np.where(np.arange(len(v)) == 0, 99, v["sample_id"])),
     r"sample ids of the campaign times are not in the dataset \('99'\)"),
    (lambda v: v.drop(columns=["seconds"]), "lack column seconds"),
    (lambda v: v.iloc[:9], "only 5 labelled samples have a time"),
])
def test_bad_campaign_times_exit_2(campaign, tmp_path, capsys, edit, message):
    _, _, votes, data, _ = campaign
    bad = tmp_path / "bad.csv"
    edit(votes.copy()).to_csv(bad, index=False)
    out = tmp_path / "out.csv"
    assert main(["effort", str(data), "--campaign-times", str(bad), "--col", "text=response",
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert not out.exists()


def test_time_col_or_campaign_times_is_needed(campaign, capsys):
    _, _, _, data, _ = campaign
    assert main(["effort", str(data)]) == 2
    assert "--time-col is required" in capsys.readouterr().err
    assert main(["effort", str(data), "--campaign-times", str(data.parent / "none.csv")]) == 2
    assert "no such file" in capsys.readouterr().err
