"""``hmceval queue --design active|random`` and the round it starts: the table's contract
(selection, inclusion_probability), the JSON plan with its frontier, estimate on the round,
and bad input (exit 2 naming the rows, nothing written)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.cli.cli_support import run_cli

ESTIMATE_KEYS = ["M", "n_calibration", "n_routed", "n_audit", "n_machine", "confidence",
                 "class_shares", "accuracy", "random_equivalent", "by_group"]
MISINFO_COLS = ["--col", "machine_label=Yhat (GPT4o)", "--col", "human_label=Y",
                "--col", "machine_confidence=confidence"]


@pytest.fixture()
def misinfo(shared_data):
    return shared_data / "pac-labels" / "misinfo.csv"


def _queue_json(capsys, misinfo, out, labels: int, seed: int) -> tuple[dict, str]:
    """``queue --json`` on misinfo with a label budget: the plan and its raw output."""
    code, stdout, err = run_cli(capsys, "queue", misinfo, *MISINFO_COLS, "--labels", labels,
                                "--seed", seed, "--json", "-o", out)
    assert code == 0, err
    return json.loads(stdout), stdout


def test_active_queue_contract_and_json_plan(capsys, misinfo, tmp_path):
    out = tmp_path / "round.csv"
    plan, stdout = _queue_json(capsys, misinfo, out, 292, 4)
    assert plan["design"] == "active"
    assert sum(r["recommended"] for r in plan["frontier"]) == 1
    assert {r["design"] for r in plan["frontier"]} == {"active", "routing", "random"}
    table = pd.read_csv(out)
    sel, pi = table["selection"], table["inclusion_probability"]
    assert set(sel) <= {"routed", "audit", "machine"}
    assert ((sel == "routed") == (pi == 1)).all()
    assert pi.between(0, 1, inclusive="right").all()
    assert pi.sum() == pytest.approx(292, rel=1e-6)
    assert plan["counts"]["audit"] == (sel == "audit").sum()
    assert plan["expected"]["expected_labels"] == pytest.approx(292, rel=1e-6)
    # both promises compared before any label, as the estimate is expected to report them: on
    # plain random labelling the estimate keeps PPI++'s interval unless another is tighter (worth
    # at least 1), and no estimate beats the one with the truth's probabilities as control,
    # worth 1 / (1 - 292 / 1923) of PPI++'s labels with the finite-population correction
    rows = {r["design"]: r for r in plan["frontier"]}
    assert 1 - 1e-9 <= rows["random"]["worth_vs_ppi"] < 1 / (1 - 292 / 1923)
    assert rows["routing"]["accuracy_vs_routing"] == 0.0
    assert rows["routing"]["worth_vs_ppi"] is None  # routing alone gives no interval
    assert "NaN" not in stdout  # strict JSON
    assert {"accuracy_vs_routing", "worth_vs_ppi", "meets_targets"} <= set(plan["expected"])
    reachable = any(r["meets_targets"] for r in plan["frontier"] if r["design"] == "active")
    assert (plan["targets_note"] is None) == reachable
    # annotators get the rows to label, neither the probability nor any answer
    sent = pd.read_csv(tmp_path / "round_to_label.csv")
    assert len(sent) == (sel != "machine").sum()
    assert "inclusion_probability" not in sent and "confidence" not in sent
    # the same seed plans the same round
    again = tmp_path / "again.csv"
    assert run_cli(capsys, "queue", misinfo, *MISINFO_COLS, "--labels", 292, "--seed", 4,
                   "-o", again)[0] == 0
    assert pd.read_csv(again)["selection"].equals(sel)


def test_few_labels_plan_plain_random_labelling_and_say_why(capsys, misinfo, tmp_path):
    out = tmp_path / "round.csv"
    plan, _ = _queue_json(capsys, misinfo, out, 40, 2)
    assert plan["design"] == "active" and plan["expected"]["design"] == "random"
    assert plan["expected"]["worth_vs_ppi"] >= 1 - 1e-9
    assert plan["targets_note"].startswith("Plain random labelling is recommended instead")
    rows = [r for r in plan["frontier"] if r["recommended"]]
    assert len(rows) == 1 and rows[0]["design"] == "random"
    pi = pd.read_csv(out)["inclusion_probability"]
    assert np.allclose(pi, 40 / 1923)
    code, stdout, err = run_cli(capsys, "queue", misinfo, *MISINFO_COLS, "--labels", 40,
                                "--seed", 2, "-o", tmp_path / "again.csv")
    assert code == 0, err
    assert stdout.startswith("active design asked, plain random labelling planned: ")
    assert "Plain random labelling is recommended instead of the active design" in stdout
    # the estimate on its labels is PPI++'s own interval
    table = pd.read_csv(out)
    gold = pd.read_csv(misinfo)["Y"]
    table["Y"] = np.where(table["selection"] == "audit", gold, None)
    table.to_csv(out, index=False)
    code, stdout, err = run_cli(capsys, "estimate", out, *MISINFO_COLS, "--json")
    assert code == 0, err
    assert json.loads(stdout)["method"] == "ppi++"


def test_estimate_reads_the_design_and_names_the_worse_topic(capsys, misinfo, tmp_path):
    out = tmp_path / "round.csv"
    assert run_cli(capsys, "queue", misinfo, *MISINFO_COLS, "--labels", 400, "--seed", 1,
                   "-o", out)[0] == 0
    code, stdout, err = run_cli(capsys, "estimate", out, *MISINFO_COLS, "--group", "topic",
                                "--json")
    assert code == 0, err
    res = json.loads(stdout)
    assert list(res)[:len(ESTIMATE_KEYS)] == ESTIMATE_KEYS
    assert res["design"] == "active" and res["method"] == "weighted"
    gold = pd.read_csv(misinfo)
    share = res["class_shares"]["misinfo"]
    assert share["ci_low"] <= (gold["Y"] == "misinfo").mean() <= share["ci_high"]
    assert set(res["by_group"]["topic"]) == {"climate", "covid"}
    # GPT-4o is right on 76.0 % of the climate headlines and 87.9 % of the covid ones
    assert [w["group"] for w in res["worse_groups"]] == ["climate"]
    assert any(n.startswith("topic = climate: final labels") for n in res["notes"])


def test_random_design_and_effort_budget(capsys, hmceval_tsv, tmp_path):
    out = tmp_path / "r.csv"
    assert run_cli(capsys, "queue", hmceval_tsv, "--design", "random", "--labels", 500,
                   "-o", out)[0] == 0
    pi = pd.read_csv(out)["inclusion_probability"]
    assert np.ptp(pi) == 0 and pi.iloc[0] == pytest.approx(500 / 5673)
    eff = tmp_path / "e.csv"
    code, _, err = run_cli(capsys, "queue", hmceval_tsv, "--effort-budget", 10.0, "-o", eff)
    assert code == 0, err
    t = pd.read_csv(eff)
    spent = (t["inclusion_probability"] * t["human_effort_predicted_avg"]).sum()
    assert spent == pytest.approx(10.0, rel=1e-6)


def test_routing_stays_the_default_with_a_human_share(capsys, hmceval_tsv, tmp_path):
    out = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", hmceval_tsv, "--human-share", 0.5, "--audit", 100,
                   "-o", out)[0] == 0
    t = pd.read_csv(out)
    assert "inclusion_probability" not in t
    # the paper's N = 2,836 at lambda 4.6, as hmceval assign
    assert (t["selection"] == "routed").sum() == 2836


@pytest.mark.parametrize("args, message", [
    (["--design", "active", "--human-share", "0.5", "--labels", "10"], "belong to --design routing"),
    (["--design", "routing", "--labels", "10"], "routing takes --human-share"),
    (["--design", "active"], "needs a budget"),
    (["--labels", "10", "--calibration", "50"], "without --labels or --effort-budget"),
    (["--design", "random", "--calibration", "50"], "use --design active --calibration N_C"),
    (["--labels", "0"], "must be a number > 0"),
    (["--labels", "10", "--effort-budget", "3"], "not both"),
])
def test_bad_queue_arguments_exit_2(capsys, hmceval_tsv, tmp_path, args, message):
    out = tmp_path / "q.csv"
    code, _, err = run_cli(capsys, "queue", hmceval_tsv, *args, "-o", out)
    assert code == 2
    assert message in err
    assert not out.exists()


@pytest.mark.parametrize("edit, message", [
    ("over_one", "probabilities in (0, 1]"),
    ("missing", "no inclusion probability on row"),
    ("mismatch", "does not match column 'selection'"),
])
def test_edited_probabilities_are_refused(capsys, hmceval_tsv, tmp_path, edit, message):
    out = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", hmceval_tsv, "--labels", 400, "-o", out)[0] == 0
    t = pd.read_csv(out)
    row = int(np.flatnonzero(t["selection"] == "audit")[0])
    if edit == "over_one":
        t.loc[row, "inclusion_probability"] = 1.5
    elif edit == "missing":
        t.loc[row, "inclusion_probability"] = np.nan
    else:
        t.loc[row, "inclusion_probability"] = 1.0
    edited = tmp_path / "edited.csv"
    t.to_csv(edited, index=False)
    code, _, err = run_cli(capsys, "estimate", edited)
    assert code == 2 and message in err and f"row {row + 1}" in err
    labels = tmp_path / "labels.csv"
    pd.DataFrame({"sample_id": [1], "label": [0]}).to_csv(labels, index=False)
    written = tmp_path / "written.csv"
    code, _, err = run_cli(capsys, "labels", edited, "--from", labels, "-o", written)
    assert code == 2 and message in err
    assert not written.exists()


def test_queue_two_batches_pilot_then_the_rest(capsys, ws_dir, demo_csv, tmp_path):
    """--design pilot draws the first batch (20 % of the budget, tilted towards the less sure
    rows, with its inclusion probabilities); --calibrate-on ID without --labels plans what
    its labels left of the budget on them, the pilot's rows carried."""
    from core.workspace import Workspace
    from tests.cli.test_cli_rounds import returned_labels

    path, gold = demo_csv
    pilot = tmp_path / "pilot.csv"
    code, out, err = run_cli(capsys, "queue", path, "--design", "pilot", "--labels", 500,
                             "--seed", 3, "-o", pilot)
    assert code == 0, err
    assert "--calibrate-on 1" in out
    t = pd.read_csv(pilot)
    pi = t["inclusion_probability"].to_numpy()
    assert pi.sum() == pytest.approx(100, rel=1e-6)  # 20 % of 500
    q = t["confidence_ts"].to_numpy()
    assert pi[q < np.median(q)].mean() > pi[q >= np.median(q)].mean()  # tilted
    back = returned_labels(tmp_path, pd.read_csv(tmp_path / "pilot_to_label.csv"), gold)
    assert run_cli(capsys, "labels", pilot, "--from", back, "-o", pilot)[0] == 0
    n_pilot = len(Workspace(ws_dir).round_labels(1))
    rest = tmp_path / "rest.csv"
    code, stdout, err = run_cli(capsys, "queue", path, "--calibrate-on", 1, "--seed", 4,
                                "--json", "-o", rest)
    assert code == 0, err
    plan = json.loads(stdout)
    assert plan["carried"] == n_pilot
    assert plan["expected"]["expected_labels"] == pytest.approx(500 - n_pilot, rel=1e-6)
    # weighted by 1 / pi: Kish's effective number, below the pilot's count
    assert plan["expected"]["expected_range"]["n_labels"] < n_pilot
    assert plan["expected"]["expected_range"]["meets_targets"] in ([False, False],
                                                                   [False, True], [True, True])
    for key in ("expected_accuracy", "expected_half_width", "worth_vs_ppi", "meets_targets",
                "calibrated_on"):
        assert key in plan["expected"]
    assert "targets_note" in plan
    # a pilot takes the whole budget and no earlier round; the rest needs a pilot round
    code, _, err = run_cli(capsys, "queue", path, "--design", "pilot", "--labels", 500,
                           "--calibrate-on", 1, "-o", tmp_path / "x.csv")
    assert code == 2 and "first of two batches" in err
    code, _, err = run_cli(capsys, "queue", path, "--calibrate-on", 2, "-o", tmp_path / "y.csv")
    assert code == 2 and "is not one: give --labels" in err


def test_queue_calibrated_on_a_pilot_round(capsys, ws_dir, demo_csv, tmp_path):
    from core.workspace import Workspace
    from tests.cli.test_cli_rounds import returned_labels

    path, gold = demo_csv
    pilot = tmp_path / "pilot.csv"
    assert run_cli(capsys, "queue", path, "--design", "random", "--labels", 100, "--seed", 3,
                   "-o", pilot)[0] == 0
    back = returned_labels(tmp_path, pd.read_csv(tmp_path / "pilot_to_label.csv"), gold)
    assert run_cli(capsys, "labels", pilot, "--from", back, "-o", pilot)[0] == 0
    ws = Workspace(ws_dir)
    n_pilot = len(ws.round_labels(1))
    main_ = tmp_path / "main.csv"
    code, stdout, err = run_cli(capsys, "queue", path, "--labels", 400, "--calibrate-on", 1,
                                "--seed", 4, "--json", "-o", main_)
    assert code == 0, err
    plan = json.loads(stdout)
    assert plan["expected"]["calibrated_on"] == {"source": "round 1", "labels": n_pilot}
    # equal weights (a random pilot): the range rests on all the pilot's labels
    assert plan["expected"]["expected_range"]["rests_on"] == "recalibrated"
    assert plan["expected"]["expected_range"]["n_labels"] == pytest.approx(n_pilot)
    assert plan["carried"] == n_pilot and plan["counts"]["routed"] >= n_pilot
    assert plan["expected"]["expected_labels"] == pytest.approx(400, rel=1e-6)
    table = pd.read_csv(main_)
    carried = np.array(sorted(ws.round_labels(1)))
    assert (table["selection"].to_numpy()[carried] == "routed").all()
    assert (table["inclusion_probability"].to_numpy()[carried] == 1).all()
    assert table["queue_rank"].iloc[carried].isna().all()
    # the annotators get the new rows only
    sent = pd.read_csv(tmp_path / "main_to_label.csv")
    assert len(sent) == plan["rows_to_label"] > 0
    assert not set(sent["sample_id"]) & set(table["sample_id"].iloc[carried])
    # routing does not take it; a round that does not exist is named
    code, _, err = run_cli(capsys, "queue", path, "--human-share", 0.3, "--lam", 0.5,
                           "--calibrate-on", 1, "-o", tmp_path / "r.csv")
    assert code == 2 and "--calibrate-on plans an active or random round" in err
    code, _, err = run_cli(capsys, "queue", path, "--labels", 50, "--calibrate-on", 7,
                           "-o", tmp_path / "r.csv")
    assert code == 2 and "no round with id 7" in err


def _judge_table(path, gold: str, n: int = 40):
    """A judge CSV: a reply text, the machine's verdict and confidence, gold under ``gold``."""
    rng = np.random.default_rng(3)
    pd.DataFrame({"sample_id": [f"s{i}" for i in range(n)],
                  "response": [f"reply number {i} with some words" for i in range(n)],
                  "machine_label": rng.choice(["ok", "bad"], n),
                  "machine_confidence": rng.uniform(0.5, 1, n).round(3),
                  gold: rng.choice(["ok", "bad"], n),
                  "topic": rng.choice(["a", "b"], n)}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("mapped", [True, False])
@pytest.mark.parametrize("gold", ["human_verdict", "reviewer_decision", "y", "answer_key"])
def test_annotators_file_holds_no_answer_whatever_its_name(capsys, tmp_path, ws_dir, gold,
                                                           mapped):
    """Issue 32 item 5: OUT_to_label.csv and Label Studio tasks are an allow-list: the sample
    id, queue_rank and the text; gold never, mapped or not, whatever its name (20 rows routed,
    5 audited: 25 rows)."""
    data = _judge_table(tmp_path / "judge.csv", gold)
    cols = ["--col", f"human_label={gold}"] if mapped else []
    out = tmp_path / "round.csv"
    code, _, err = run_cli(capsys, "queue", data, *cols, "--col", "text=response",
                           "--human-count", 20, "--exactly", "--audit", 5, "-o", out)
    assert code == 0, err
    sent = pd.read_csv(tmp_path / "round_to_label.csv")
    assert list(sent.columns) == ["sample_id", "queue_rank", "response"] and len(sent) == 25
    tasks = tmp_path / "tasks.json"
    code, _, err = run_cli(capsys, "queue", "--round", 1, "--format", "labelstudio", "-o", tasks)
    assert code == 0, err
    keys = {k for t in json.loads(tasks.read_text()) for k in t["data"]}
    assert keys == {"sample_id", "queue_rank", "response"}


def test_show_adds_a_context_column_and_refuses_gold(capsys, tmp_path, ws_dir):
    """--show topic adds the topic; --show of the gold column exits 2 naming it, before any
    round is stored."""
    data = _judge_table(tmp_path / "judge.csv", "human_verdict")
    out = tmp_path / "round.csv"
    code, _, err = run_cli(capsys, "queue", data, "--col", "human_label=human_verdict",
                           "--human-count", 20, "--show", "human_verdict", "-o", out)
    assert code == 2 and "'human_verdict' is mapped to the role human_label" in err
    assert not out.exists() and not ws_dir.exists()
    code, _, err = run_cli(capsys, "queue", data, "--col", "human_label=human_verdict",
                           "--human-count", 20, "--show", "topic", "-o", out)
    assert code == 0, err
    sent = pd.read_csv(tmp_path / "round_to_label.csv")
    assert list(sent.columns) == ["sample_id", "queue_rank", "response", "topic"]


@pytest.mark.parametrize("rid", ["99999999999999999999", "-99999999999999999999"])
def test_calibrate_on_an_id_beyond_64_bits_exits_2(capsys, tmp_path, ws_dir, rid):
    """Issue 32's fuzz: an id SQLite cannot hold was an OverflowError traceback. Now the round
    is named as missing, and nothing is written."""
    data = _judge_table(tmp_path / "t.csv", "y")
    out = tmp_path / "r.csv"
    code, _, err = run_cli(capsys, "queue", data, "--labels", 10, "--calibrate-on", rid,
                           "-o", out)
    assert code == 2 and f"no round with id {rid}" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("where", ["option", "environment"])
def test_a_workspace_under_an_unknown_users_home_exits_2(capsys, tmp_path, monkeypatch, where):
    """``--workspace '~nosuchuser/ws'`` was a RuntimeError traceback ("Could not determine home
    directory"). Exit 2 naming the path; nothing written."""
    data = _judge_table(tmp_path / "t.csv", "y")
    out = tmp_path / "r.csv"
    args = ["queue", data, "--calibration", 5, "-o", out]
    if where == "option":
        args += ["--workspace", "~nosuchuser_h32/ws"]
    else:
        monkeypatch.setenv("HMCEVAL_WORKSPACE", "~nosuchuser_h32/ws")
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and "'~nosuchuser_h32/ws'" in err and "no home directory" in err
    assert not out.exists()


def test_queue_json_with_the_routing_design_prints_json(capsys, tmp_path, ws_dir):
    """Issue 32's fuzz: ``queue --json`` printed its text line with the routing design. Now one
    JSON object: 20 rows routed (--exactly) and 5 audited of 40, round 1; the same for the
    round written again with --round."""
    data = _judge_table(tmp_path / "t.csv", "y")
    out = tmp_path / "r.csv"
    code, stdout, err = run_cli(capsys, "queue", data, "--human-count", 20, "--exactly",
                                "--audit", 5, "--json", "-o", out)
    assert code == 0, err
    plan = json.loads(stdout)
    assert plan["design"] == "routing" and plan["kind"] == "budget" and plan["M"] == 40
    assert plan["counts"] == {"calibration": 0, "routed": 20, "audit": 5, "machine": 15}
    assert plan["rows_to_label"] == 25 and plan["round_id"] == 1
    assert plan["output"] == str(out) and plan["to_label"] == str(tmp_path / "r_to_label.csv")
    code, stdout, err = run_cli(capsys, "queue", "--round", 1, "--json", "-o", tmp_path / "b.csv")
    assert code == 0, err
    again = json.loads(stdout)
    assert again["counts"] == plan["counts"] and again["rows_to_label"] == 25
    code, stdout, err = run_cli(capsys, "queue", data, "--calibration", 8, "--json",
                                "-o", tmp_path / "g.csv")
    assert code == 0, err
    guarantee = json.loads(stdout)
    assert guarantee["kind"] == "guarantee" and guarantee["counts"]["calibration"] == 8


def test_queue_round_warns_when_its_table_carries_gold_on_rows_to_label(capsys, tmp_path,
                                                                        ws_dir):
    """Issue 32: a page-planned round on a table with gold, written by ``queue --round``,
    carried the gold on its rows to label without a word, and the next import said "0 labels
    imported" (the gold had been read as labels). Now queue warns, naming the column and the
    7 rows (5 routed + 2 audited), and labels says where those labels came from; with the
    column emptied as the warning says, the file's 7 labels are imported."""
    from core.data import prepare
    from core.workspace import Workspace
    from core.workspace.rounds import plan_round

    t = pd.read_csv(_judge_table(tmp_path / "t.csv", "human_label", n=20))
    plan_round(Workspace(ws_dir), prepare(t, name="judge"), kind="budget",
               settings={"lam": 0.0, "n_human": 5, "mode": "exactly", "audit": 2, "seed": 0})
    out = tmp_path / "q.csv"
    code, _, err = run_cli(capsys, "queue", "--round", 1, "-o", out)
    assert code == 0, err
    assert "column 'human_label'" in err and "on 7 of the 7 rows to label" in err
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    back = tmp_path / "back.csv"
    t[t["sample_id"].isin(sent["sample_id"])][["sample_id", "human_label"]].rename(
        columns={"human_label": "label"}).to_csv(back, index=False)
    code, stdout, err = run_cli(capsys, "labels", out, "--from", back, "-o", tmp_path / "a.csv")
    assert code == 0, err
    assert "7 labels taken first from column 'human_label'" in err
    # a fresh round, its table's gold column emptied as the warning says
    plan_round(Workspace(ws_dir), prepare(t, name="judge"), kind="budget",
               settings={"lam": 0.0, "n_human": 5, "mode": "exactly", "audit": 2, "seed": 1})
    code, _, err = run_cli(capsys, "queue", "--round", 2, "-o", out)
    table = pd.read_csv(out)
    table["human_label"] = None
    table.to_csv(out, index=False)
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    t[t["sample_id"].isin(sent["sample_id"])][["sample_id", "human_label"]].rename(
        columns={"human_label": "label"}).to_csv(back, index=False)
    code, stdout, err = run_cli(capsys, "labels", out, "--from", back, "-o", tmp_path / "b.csv")
    assert code == 0, err
    assert "7 labels imported" in stdout


def test_active_queue_says_what_its_expectations_rest_on(capsys, misinfo, tmp_path):
    """No labels to calibrate on: `expected_range` holds the point, spans the typical
    overconfidence (the low end at least 5 points below it on misinfo, whose judge the range
    allows to be 10 points overconfident), and the text says so."""
    code, stdout, err = run_cli(capsys, "queue", misinfo, *MISINFO_COLS, "--labels", 289,
                                "--seed", 1, "--json", "-o", tmp_path / "r.csv")
    assert code == 0, err
    e = json.loads(stdout)["expected"]
    rng = e["expected_range"]
    lo, hi = rng["expected_accuracy"]
    assert lo < e["expected_accuracy"] < hi and e["expected_accuracy"] - lo > 0.05
    hlo, hhi = rng["expected_half_width"]
    assert hlo <= e["expected_half_width"] <= hhi
    assert rng["rests_on"] == "confidences" and rng["gaps"] == [-0.05, 0.1]
    code, stdout, err = run_cli(capsys, "queue", misinfo, *MISINFO_COLS, "--labels", 289,
                                "--seed", 1, "-o", tmp_path / "t.csv")
    assert code == 0, err
    assert "take the judge's confidences as probabilities; no labels check them" in stdout
    assert f"from {lo:.1%} to {hi:.1%}" in stdout
