"""``hmceval queue --stream`` and ``hmceval estimate --anytime`` (``core.cli.queue_stream``,
``core.cli.anytime_estimate``): a stream planned, labelled in two imports in queue order, read
back with confidence sequences that agree with the core's call on the same labels; bad input
exits 2 naming the flag."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.evaluation.estimate.anytime import anytime_estimate
from tests.cli.cli_support import run_cli


@pytest.fixture()
def judge(tmp_path):
    rng = np.random.default_rng(4)
    m = 800
    gold = np.where(rng.random(m) < 0.3, "unsafe", "safe")
    q = rng.choice([0.6, 0.7, 0.8, 0.9, 0.99], m)
    machine = np.where(rng.random(m) < q, gold, np.where(gold == "safe", "unsafe", "safe"))
    table = pd.DataFrame({"sample_id": [f"r{i}" for i in range(m)], "text": [f"t {i}" for i in range(m)],
                          "topic": rng.choice(["a", "b"], m), "machine_label": machine,
                          "machine_confidence": q})
    path = tmp_path / "judge.csv"
    table.to_csv(path, index=False)
    return path, dict(zip(table["sample_id"], gold)), table


def test_stream_round_trip(tmp_path, capsys, judge):
    path, gold, table = judge
    out = tmp_path / "q.csv"
    code, text, err = run_cli(capsys, "queue", path, "--stream", "--labels", 400, "--seed", 2,
                              "--target-half-width", 0.08, "--decide", "share(unsafe) <= 0.5",
                              "-o", out, "--json")
    assert code == 0, err
    plan = json.loads(text)
    assert plan["rows_to_label"] == 400 and plan["design"] == "stream"
    q = pd.read_csv(out)
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    assert "machine_label" not in sent.columns and "draw_probability" not in sent.columns
    assert list(sent["queue_rank"]) == list(range(1, 401))
    # two imports in queue order: 120 then 130 more labels
    for lo, hi in ((0, 120), (120, 250)):
        part = sent.iloc[lo:hi]
        lab = pd.DataFrame({"sample_id": part["sample_id"], "label": [gold[i] for i in part["sample_id"]]})
        lab.to_csv(tmp_path / "lab.csv", index=False)
        code, _, err = run_cli(capsys, "labels", out, "--from", tmp_path / "lab.csv",
                               "--sample-id-col", "sample_id", "--label-col", "label", "-o", out)
        assert code == 0, err
    code, text, err = run_cli(capsys, "estimate", out, "--anytime", "--json", "--trace-every", 50,
                              "--group", "topic")
    assert code == 0, err
    res = json.loads(text)
    assert res["labels"] == 250 and [t["labels"] for t in res["trace"]] == [50, 100, 150, 200, 250]
    # the same labels through the core's call, from the written table's own columns
    q = q.sort_values("queue_rank").dropna(subset=["queue_rank"])
    rows = table.set_index("sample_id").index.get_indexer(q["sample_id"])
    classes = ["safe", "unsafe"]
    code_of = {c: i for i, c in enumerate(classes)}
    human = np.array([code_of[gold[i]] for i in q["sample_id"]])
    human[250:] = -1
    ref = anytime_estimate(classes=classes,
                           machine=table["machine_label"].map(code_of).to_numpy(),
                           confidence=table["machine_confidence"].to_numpy(), order=rows,
                           draw_probability=q["draw_probability"].to_numpy(),
                           human=human, weights=pd.read_csv(out)["draw_weight"].to_numpy(),
                           groups={"topic": table["topic"].to_numpy(object)},
                           trace_every=50, target_half_width=0.08,
                           decide="share(unsafe) <= 0.5")
    for c in classes:
        for key in ("estimate", "ci_low", "ci_high"):
            assert res["class_shares"][c][key] == pytest.approx(ref["class_shares"][c][key],
                                                                abs=1e-12)
    assert res["decision"] == ref["decision"] and res["stop"] == ref["stop"]
    truth = np.mean([gold[i] == "unsafe" for i in table["sample_id"]])
    iv = res["class_shares"]["unsafe"]
    assert iv["ci_low"] <= truth <= iv["ci_high"]
    assert set(res["by_group"]["topic"]) == {"a", "b"}
    # the betting sequence (finite samples): another interval, still around the truth
    code, text, err = run_cli(capsys, "estimate", out, "--anytime", "--sequence", "betting",
                              "--json")
    assert code == 0, err
    bet = json.loads(text)
    assert bet["sequence"] == "betting" and res["sequence"] == "asymptotic"
    assert bet["class_shares"]["unsafe"]["ci_low"] <= truth <= bet["class_shares"]["unsafe"]["ci_high"]
    assert bet["class_shares"]["unsafe"] != res["class_shares"]["unsafe"]
    # without --anytime a stream is still read with its sequences (its draws are unequal)
    code, text, err = run_cli(capsys, "estimate", out, "--json")
    assert code == 0 and json.loads(text)["anytime"] is True
    assert json.loads(text)["class_shares"]["unsafe"] == res["class_shares"]["unsafe"]


@pytest.mark.parametrize("extra,message", [
    (["--labels", "0"], "--labels MAX"),
    (["--labels", "2.5"], "--labels MAX"),
    (["--labels", "5000"], "more than the table"),
    (["--labels", "10", "--decide", "share(unsafe) == 1"], "--decide"),
    (["--labels", "10", "--decide", "share(maybe) <= 0.1"], "not one of the table's classes"),
    (["--labels", "10", "--target-half-width", "0"], "--target-half-width"),
    (["--labels", "10", "--design", "active"], "does not take --design"),
])
def test_bad_input_exits_2(tmp_path, capsys, judge, extra, message):
    path, _, _ = judge
    code, _, err = run_cli(capsys, "queue", path, "--stream", *extra, "-o", tmp_path / "q.csv")
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "q.csv").exists()


def test_anytime_on_a_table_that_is_no_stream(tmp_path, capsys, judge):
    path, _, _ = judge
    code, _, err = run_cli(capsys, "estimate", path, "--anytime")
    assert code == 2 and "queue_rank" in err
    code, _, err = run_cli(capsys, "estimate", path, "--decide", "accuracy >= 0.9")
    assert code == 2 and "goes with --anytime" in err


def test_replan_from_the_command_line(tmp_path, capsys, judge):
    path, gold, table = judge
    out = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", path, "--stream", "--labels", 300, "-o", out)[0] == 0
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    code, _, err = run_cli(capsys, "queue", out, "--replan", "-o", out)
    assert code == 2 and "at least 30" in err  # no label yet
    part = sent.iloc[:80]
    pd.DataFrame({"sample_id": part["sample_id"],
                  "label": [gold[i] for i in part["sample_id"]]}).to_csv(tmp_path / "l.csv",
                                                                         index=False)
    assert run_cli(capsys, "labels", out, "--from", tmp_path / "l.csv", "-o", out)[0] == 0
    code, text, err = run_cli(capsys, "queue", out, "--replan", "-o", out, "--json")
    assert code == 0, err
    info = json.loads(text)
    assert info["labelled"] == 80 and info["redrawn"] == 220
    again = pd.read_csv(tmp_path / "q_to_label.csv")
    assert len(again) == 220 and not set(again["sample_id"]) & set(part["sample_id"])
    code, text, _ = run_cli(capsys, "estimate", out, "--json")
    assert code == 0 and json.loads(text)["labels"] == 80
