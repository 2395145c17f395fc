"""One round service for both front ends (issue 22, item 2): a round planned by the command
line is kept in the workspace (``hmceval report`` and the Evaluate page show it), one planned
through :func:`core.workspace.rounds.plan_round` (the page's call) continues in the command
line, and both give the same estimate."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core.cli.round_table import round_link, sidecar_path
from core.serialize import dumps
from core.workspace import Workspace
from tests.cli.cli_support import run_cli


def returned_labels(tmp_path, to_label: pd.DataFrame, gold: pd.DataFrame, name="back.csv"):
    """The annotators return the gold label of every row they received."""
    back = to_label[["sample_id"]].merge(gold, on="sample_id")
    path = tmp_path / name
    back.to_csv(path, index=False)
    return path


def test_a_round_planned_in_the_cli_is_kept_reported_and_continued(capsys, ws_dir, demo_csv,
                                                                   tmp_path):
    src, gold = demo_csv
    q = tmp_path / "q.csv"
    code, out, err = run_cli(capsys, "queue", src, "--lam", 0, "--human-share", 0.3, "--audit",
                             100, "--seed", 4, "-o", q)
    assert code == 0, err
    ws = Workspace(ws_dir)
    rounds = ws.list_rounds()
    assert len(rounds) == 1
    rid = int(rounds["id"].iloc[0])
    assert f"round #{rid} in the workspace {ws_dir}" in out
    assert round_link(q) == {"round_id": rid, "workspace": str(ws_dir.resolve())}
    rnd = ws.round(rid)
    assert rnd["kind"] == "budget" and rnd["settings"]["share"] == 0.3
    # the CSV is the round's export: the same selection, row by row
    table = pd.read_csv(q)
    assert table["selection"].fillna("").tolist() == list(rnd["selection"])
    assert int(rounds["n_to_label"].iloc[0]) == int(table["queue_rank"].notna().sum()) == \
        int(3557 * 0.3) + 100
    assert ws.list_datasets()["source"].tolist() == ["cli"]

    # labels go into the round; the next table names the same round
    back = returned_labels(tmp_path, pd.read_csv(tmp_path / "q_to_label.csv"), gold)
    q2 = tmp_path / "q2.csv"
    code, out, err = run_cli(capsys, "labels", q, "--from", back, "-o", q2)
    assert code == 0, err
    assert round_link(q2)["round_id"] == rid
    assert len(ws.round_labels(rid)) == int(3557 * 0.3) + 100
    from core.evaluation.labels.votes import read_votes, votes_path

    assert len(read_votes(votes_path(q2))) == len(ws.round_labels(rid))  # the votes' export

    # estimate reads the round; its result is the page's (round_summary: section 4's call)
    code, out, err = run_cli(capsys, "estimate", q2, "--json")
    assert code == 0, err
    from core.workspace.rounds import round_summary

    page = round_summary(ws, rid, groups=[])["estimate"]
    assert json.loads(out) == json.loads(dumps(page))
    assert ws.latest_result(rid, "estimate") is not None

    # hmceval report reports it
    html = tmp_path / "r.html"
    code, out, err = run_cli(capsys, "report", "-o", html)
    assert code == 0, err
    assert f"round {rid}" in out and html.stat().st_size > 10_000


def test_the_evaluate_page_shows_a_round_planned_in_the_cli(capsys, ws_dir, demo_csv, tmp_path):
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import page_test

    src, gold = demo_csv
    q = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 300, "--seed", 2, "-o", q)[0] == 0
    rid = round_link(q)["round_id"]
    at: AppTest = page_test("2a_Evaluate.py")
    at.run()
    assert not at.exception, at.exception
    boxes = [s for s in at.selectbox if s.label == "Round"]
    assert boxes and boxes[0].value == rid
    assert any(c.value == f"Round #{rid}: 0 of 300 labelled" for c in at.caption)


def test_a_round_planned_by_the_page_service_continues_in_the_cli(capsys, ws_dir, demo_csv,
                                                                  tmp_path):
    from core.data import load_table, prepare
    from core.workspace.rounds import plan_round, round_summary

    src, gold = demo_csv
    ws = Workspace(ws_dir)
    data = prepare(load_table(src), name="demo")
    rid = plan_round(ws, data, kind="budget",
                     settings={"lam": 0.0, "share": 0.2, "mode": "at_most", "audit": 80,
                               "seed": 1})
    t = tmp_path / "t.csv"
    code, out, err = run_cli(capsys, "queue", "--round", rid, "-o", t)
    assert code == 0, err
    assert round_link(t)["round_id"] == rid and sidecar_path(t).is_file()
    assert pd.read_csv(t)["selection"].fillna("").tolist() == list(ws.round(rid)["selection"])
    back = returned_labels(tmp_path, pd.read_csv(tmp_path / "t_to_label.csv"), gold)
    code, out, err = run_cli(capsys, "labels", "--round", rid, "--from", back, "-o",
                             tmp_path / "t2.csv")
    assert code == 0, err
    code, out, err = run_cli(capsys, "estimate", "--round", rid, "--json", "--group", "system")
    assert code == 0, err
    page = round_summary(ws, rid, groups=["system"])["estimate"]
    assert json.loads(out) == json.loads(dumps(page))
    # the table names the round too: the same result
    code, out2, err = run_cli(capsys, "estimate", tmp_path / "t2.csv", "--json", "--group",
                              "system")
    assert json.loads(out2) == json.loads(out)


def test_a_guarantee_round_is_certified_in_the_workspace(capsys, ws_dir, demo_csv, tmp_path):
    src, gold = demo_csv
    q = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 1500, "--seed", 3, "-o", q)[0] == 0
    ws = Workspace(ws_dir)
    rid = round_link(q)["round_id"]
    back = returned_labels(tmp_path, pd.read_csv(tmp_path / "q_to_label.csv"), gold)
    assert run_cli(capsys, "labels", q, "--from", back, "-o", q)[0] == 0
    c = tmp_path / "c.csv"
    code, out, err = run_cli(capsys, "certify", q, "--alpha", 0.1, "--delta", 0.1, "--audit",
                             40, "--json", "-o", c)
    assert code == 0, err
    res = json.loads(out)
    stored = ws.latest_result(rid, "certify")
    assert stored["n_machine"] == res["n_machine"] and stored["audit"] == 40
    sel = ws.round(rid)["selection"]
    assert (sel == "audit").sum() == 40 and (sel == "routed").sum() == res["n_human"]
    assert pd.read_csv(c)["selection"].fillna("").tolist() == list(sel)
    assert round_link(c)["round_id"] == rid
    # a second certification is refused by the round (the page's rule)
    code, out, err = run_cli(capsys, "certify", c, "--alpha", 0.1, "--delta", 0.1)
    assert code == 2 and "certified already" in err


def test_an_active_round_keeps_its_inclusion_probabilities(capsys, ws_dir, demo_csv, tmp_path):
    src, _ = demo_csv
    q = tmp_path / "q.csv"
    code, out, err = run_cli(capsys, "queue", src, "--labels", 300, "--seed", 1, "--json",
                             "-o", q)
    assert code == 0, err
    res = json.loads(out)
    ws = Workspace(ws_dir)
    rnd = ws.round(res["round_id"])
    assert rnd["inclusion"] is not None
    assert pd.read_csv(q)["inclusion_probability"].tolist() == pytest.approx(
        list(rnd["inclusion"]))
    assert ws.latest_result(res["round_id"], "design")["expected_accuracy"] == \
        res["expected"]["expected_accuracy"]


def test_a_table_of_another_workspace_is_refused(capsys, ws_dir, demo_csv, tmp_path):
    src, _ = demo_csv
    q = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 100, "-o", q)[0] == 0
    code, out, err = run_cli(capsys, "estimate", q, "--workspace", tmp_path / "other")
    assert code == 2 and f"pass --workspace {ws_dir.resolve()}" in err
    code, out, err = run_cli(capsys, "estimate", "--round", 99)
    assert code == 2 and "no round #99" in err
