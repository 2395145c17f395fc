"""Evaluate page (AppTest), two batches (issue 30, item 3): the first batch planned as
``hmceval queue --design pilot`` plans it, its labels simulated, the rest planned on them as
``hmceval queue --calibrate-on ID`` plans it, the result estimated in two stages with the plan
against what the labels realise after each import."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.app.test_page_evaluate import click, fresh_workspace  # noqa: F401  (a fixture)

PAGE = "2a_Evaluate.py"
BUDGET = 500


def _cli_rounds(tmp_path, monkeypatch, page_ws, gold_rows=None):
    """Plan the pilot (and, given ``gold_rows``, label them from gold and plan the rest) with
    the command line in a workspace of its own, on the demo written as CSV without its gold
    columns; returns that workspace."""
    from core.cli import main
    from core.demo import make_demo
    from core.workspace import Workspace

    df = make_demo()
    path = tmp_path / "demo.csv"
    df.drop(columns=["human_label", "human_label_2"]).to_csv(path, index=False)
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "cli_ws"))
    try:
        assert main(["queue", str(path), "--design", "pilot", "--labels", str(BUDGET),
                     "--seed", "0", "-o", str(tmp_path / "pilot.csv")]) == 0
        if gold_rows is not None:
            back = df.iloc[gold_rows][["sample_id", "human_label"]].rename(
                columns={"human_label": "label"})
            back.to_csv(tmp_path / "back.csv", index=False)
            assert main(["labels", str(tmp_path / "pilot.csv"), "--from",
                         str(tmp_path / "back.csv"), "-o", str(tmp_path / "pilot.csv")]) == 0
            assert main(["queue", str(path), "--calibrate-on", "1", "--seed", "0", "-o",
                         str(tmp_path / "rest.csv")]) == 0
    finally:
        monkeypatch.setenv("HMCEVAL_WORKSPACE", str(page_ws))
    return Workspace(tmp_path / "cli_ws")


def _same_round(a: dict, b: dict) -> None:
    assert a["settings"].to_dict() == b["settings"].to_dict()
    assert (np.asarray(a["selection"]) == np.asarray(b["selection"])).all()
    np.testing.assert_array_equal(a["queue_rank"], b["queue_rank"])
    np.testing.assert_array_equal(a["inclusion"], b["inclusion"])


def _plan_pilot(run_page):
    at = run_page(PAGE)
    radio = at.radio(key="_w_ev_design")
    assert "Two batches: a first batch, then the rest planned on its labels" in radio.options
    # the technical name in the tooltip, not in the option
    assert "--design pilot" in radio.proto.help
    radio.set_value("pilot").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    # a budget too small for two batches is refused before anything is planned
    at.number_input(key="_w_ev_labels").set_value(100).run()
    assert any("too small for two batches" in e.value for e in at.error), \
        [e.value for e in at.error]
    assert [b for b in at.button if b.label == "Plan the round"][0].disabled
    at.number_input(key="_w_ev_labels").set_value(BUDGET).run()
    assert not at.error
    plan = [m for m in at.markdown if m.value.startswith("**Humans first label about 100 of")]
    assert plan, [m.value for m in at.markdown]  # 20 % of 500
    assert "the other 400 labels of the budget" in plan[0].value
    assert "pilot design" in plan[0].proto.help
    click(at, "Plan the round")
    assert any("Round #1 planned and saved" in s.value for s in at.success)
    assert any(e.label.startswith("The design of this round: Two batches") for e in at.expander)
    assert any("(after the first of two batches alone)" in m.value for m in at.markdown)
    return at


def test_the_page_and_the_command_line_draw_the_same_first_batch(run_page, fresh_workspace,
                                                                  tmp_path, monkeypatch):
    from core.workspace import Workspace

    _plan_pilot(run_page)
    page = Workspace(fresh_workspace).round(1)
    assert page["settings"].to_dict() == {"design": "pilot", "labels": 500.0, "seed": 0,
                                          "lam": 0.0}
    assert page["inclusion"].sum() == pytest.approx(100, rel=1e-6)
    _same_round(page, _cli_rounds(tmp_path, monkeypatch, fresh_workspace).round(1))


def test_two_batches_plan_simulate_rest_result(run_page, fresh_workspace, tmp_path,
                                               monkeypatch):
    from core.workspace import Workspace

    at = _plan_pilot(run_page)
    assert any(h.value == "Two batches: the rest of the budget" for h in at.subheader)
    # its lambda is the design's own (0), not the Trade-off page's: no "planned with λ" note
    assert not any("was planned with" in i.value for i in at.info)
    assert not [b for b in at.button if b.label == "Plan the rest on its labels"]
    # half the first batch labelled: planned against realised already, the rest offered with
    # the word that the two-stage estimate waits for the whole batch
    at.slider[0].set_value(0.5).run()
    click(at, "Fill labels from gold")
    ws = Workspace(fresh_workspace)
    queued = int(np.isfinite(ws.round(1)["queue_rank"]).sum())
    half = len(ws.round_labels(1))
    assert half == int(np.ceil(queued / 2))
    table = _plan_table(at)
    assert table is not None and table.loc["labels", "realised"] == f"{half:,}"
    assert any("Not every row of the first batch is labelled yet" in i.value for i in at.info)
    at.slider[0].set_value(1.0).run()
    click(at, "Fill labels from gold")
    assert len(ws.round_labels(1)) == queued
    assert not any("Not every row" in i.value for i in at.info)
    left = BUDGET - queued
    assert any(f"{left:,} left for the second batch" in c.value for c in at.caption), \
        [c.value for c in at.caption]
    click(at, "Plan the rest on its labels")
    assert any("Round #2 planned and saved: the rest of the budget, on the labels of round #1"
               in s.value for s in at.success), [s.value for s in at.success]
    rest = ws.round(2)
    assert rest["settings"].to_dict() == {"design": "active", "labels": float(left), "seed": 0,
                                          "lam": 0.0, "calibrate_on": 1}
    pilot_rows = np.array(sorted(ws.round_labels(1)))
    assert (rest["inclusion"][pilot_rows] == 1).all()  # carried, labelled
    # the page's rest is the command line's on the same labels
    _same_round(rest, _cli_rounds(tmp_path, monkeypatch, fresh_workspace, pilot_rows).round(2))
    assert at.selectbox(key="_w_ev_round_id").value == 2
    # the first batch says where its rest is
    at.selectbox(key="_w_ev_round_id").set_value(1).run()
    assert any("The rest is planned in round #2" in c.value for c in at.caption)
    at.selectbox(key="_w_ev_round_id").set_value(2).run()
    # the rest labelled: the result is the two-stage estimate, the plan against the labels
    click(at, "Fill labels from gold")
    table = _plan_table(at)
    assert table is not None
    n_labelled = len(ws.round_labels(2))
    assert table.loc["labels", "realised"] == f"{n_labelled:,}"
    from core.workspace.rounds import estimate_round

    est = estimate_round(ws, 2, save=False)
    assert est["method"] == "two-stage"
    assert any(c.value.startswith("Estimated in two stages") for c in at.caption)
    assert table.loc["final accuracy", "realised"] == _pct(est["accuracy"]["estimate"])


def _pct(v: float) -> str:
    from core.format import pct

    return pct(v)


def _plan_table(at) -> pd.DataFrame | None:
    """The planned-against-realised table (indexed by quantity), None when not shown."""
    for df in at.dataframe:
        value = df.value
        if "planned" in value.columns and "realised" in value.columns:
            return value.set_index("")
    return None
