"""``hmceval queue``, ``certify`` and ``estimate``: the JSON/CSV contract and error exits."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from core.cli import main
from tests.cli.cli_support import run_cli

CERTIFY_KEYS = ["alpha", "delta", "lambda", "M", "n_calibration", "threshold", "kept_share_grid",
                "n_machine", "n_human", "machine_share", "risk_upper_bound", "calibration_kept",
                "calibration_kept_errors", "predicted_human_effort", "guarantee"]
ESTIMATE_KEYS = ["M", "n_calibration", "n_routed", "n_audit", "n_machine", "confidence",
                 "class_shares", "accuracy", "random_equivalent", "by_group"]


def test_queue_certify_loop_on_the_release(capsys, hmceval_tsv, tmp_path):
    q = tmp_path / "q.csv"
    code, out, err = run_cli(capsys, "queue", hmceval_tsv, "--calibration", 1000, "--seed", 3,
                             "-o", q)
    assert code == 0, err
    assert "1000 rows to label" in out
    table = pd.read_csv(q)
    original = pd.read_csv(hmceval_tsv, sep="\t")
    # every original column; a sample_id (the row number) since the release has none
    assert list(table.columns) == list(original.columns) + ["sample_id", "selection", "queue_rank"]
    assert table["sample_id"].tolist() == list(range(1, 5674))
    assert (table["selection"] == "calibration").sum() == 1000
    assert table["selection"].isna().sum() == 4673
    # the same seed writes the same queue
    q2 = tmp_path / "q2.csv"
    assert run_cli(capsys, "queue", hmceval_tsv, "--calibration", 1000, "--seed", 3, "-o", q2)[0] == 0
    assert q.read_bytes() == q2.read_bytes()

    c = tmp_path / "c.csv"
    code, out, err = run_cli(capsys, "certify", q, "--alpha", 0.05, "--delta", 0.1, "--json",
                             "-o", c)
    assert code == 0, err
    res = json.loads(out)
    assert list(res)[:len(CERTIFY_KEYS)] == CERTIFY_KEYS
    assert res["M"] == 5673 and res["n_calibration"] == 1000 and res["lambda"] == 0
    assert res["n_machine"] + res["n_human"] == 4673
    assert res["machine_share"] == pytest.approx(res["n_machine"] / 4673)
    assert res["risk_upper_bound"] <= 0.05
    assert res["calibration_kept_errors"] <= res["calibration_kept"]
    out_table = pd.read_csv(c)
    assert (out_table["selection"] == "machine").sum() == res["n_machine"]
    assert (out_table["selection"] == "routed").sum() == res["n_human"]
    # every kept row has a gain no larger than the threshold (lam 0: g = 1 - a)
    kept = out_table[out_table["selection"] == "machine"]
    assert (1 - kept["machine_confidence"] <= res["threshold"] + 1e-12).all()
    routed = out_table[out_table["selection"] == "routed"]
    assert (1 - routed["machine_confidence"] > res["threshold"]).all()


def test_certify_with_lam_46(capsys, hmceval_tsv, tmp_path):
    q = tmp_path / "q.csv"
    run_cli(capsys, "queue", hmceval_tsv, "--calibration", 1000, "--seed", 3, "-o", q)
    code, out, err = run_cli(capsys, "certify", q, "--alpha", 0.05, "--delta", 0.1, "--lam", 4.6,
                             "--json")
    assert code == 0, err
    res = json.loads(out)
    # with the effort ordering the first tested threshold is where n_start rows are expected
    if res["threshold"] is None:
        assert res["kept_share_grid"] is None and res["n_machine"] == 0
        assert res["risk_upper_bound"] is None
        assert res["guarantee"].startswith("Nothing could be certified")
    else:
        assert res["risk_upper_bound"] <= 0.05 and res["n_machine"] > 0
        assert res["calibration_kept"] >= res["n_start"] - 1 or res["calibration_kept"] >= 45


def test_queue_budget_then_estimate(capsys, hmceval_tsv, tmp_path):
    q = tmp_path / "q.csv"
    code, out, err = run_cli(capsys, "queue", hmceval_tsv, "--lam", 0, "--human-share", 0.5,
                             "--audit", 200, "--seed", 1, "-o", q)
    assert code == 0, err
    table = pd.read_csv(q)
    assert table["selection"].value_counts().to_dict() == {"routed": 2836, "machine": 2637,
                                                           "audit": 200}
    assert table["queue_rank"].notna().sum() == 3036
    code, out, err = run_cli(capsys, "estimate", q, "--group", "turns", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert list(res)[:len(ESTIMATE_KEYS)] == ESTIMATE_KEYS
    assert (res["M"], res["n_routed"], res["n_audit"], res["n_machine"]) == (5673, 2836, 200, 2637)
    share = res["class_shares"]["1"]
    assert share["ci_low"] < share["estimate"] < share["ci_high"]
    assert share["ci_high"] - share["ci_low"] < 0.03
    assert res["accuracy"]["ci_low"] < res["accuracy"]["estimate"] <= res["accuracy"]["ci_high"]
    assert set(res["random_equivalent"]) == {"0", "1"}
    assert sum(g["M"] for g in res["by_group"]["turns"].values()) == 5673
    # human labels are read on labelled rows only: changing gold on machine rows changes nothing
    table.loc[table["selection"] == "machine", "target"] = 1 - table.loc[
        table["selection"] == "machine", "target"]
    flipped = tmp_path / "flipped.csv"
    table.to_csv(flipped, index=False)
    code, out2, err = run_cli(capsys, "estimate", flipped, "--group", "turns", "--json")
    assert json.loads(out2) == res
    # several paths: a list
    code, out3, err = run_cli(capsys, "estimate", q, flipped, "--json")
    assert code == 0 and len(json.loads(out3)) == 2


def test_queue_labelstudio_format(capsys, hmceval_tsv, tmp_path):
    out = tmp_path / "tasks.json"
    code, _, err = run_cli(capsys, "queue", hmceval_tsv, "--lam", 0, "--human-count", 50,
                           "--audit", 10, "--format", "labelstudio", "-o", out)
    assert code == 0, err
    tasks = json.loads(out.read_text())
    assert len(tasks) == 60 and [t["data"]["queue_rank"] for t in tasks] == list(range(1, 61))
    assert all("machine_predict" not in t["data"] and "target" not in t["data"] for t in tasks)
    assert "<Choices" in out.with_suffix(".xml").read_text()
    # the release has no free-text column: the annotators would see only the sample id
    assert "warning: Label Studio tasks carry no text: no column is mapped as free text" in err


def write(tmp_path, df, name="t.csv"):
    path = tmp_path / name
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("argv,match", [
    (["certify", "{p}", "--alpha", "1.5", "--delta", "0.1"], "--alpha must be strictly between"),
    (["certify", "{p}", "--alpha", "0.1", "--delta", "nan"], "--delta must be strictly between"),
    (["certify", "{p}", "--alpha", "0.1", "--delta", "0.1", "--lam", "-1"], "lambda must be"),
    (["estimate", "{p}", "--confidence", "1"], "--confidence must be strictly between"),
    (["estimate", "{p}", "--group", "nope"], "column 'nope' is not in the table"),
    (["queue", "{p}", "--audit", "3", "-o", "{o}"], "give a budget"),
    (["queue", "{p}", "--calibration", "-2", "-o", "{o}"], "--calibration must be >= 0"),
    (["queue", "{p}", "--human-share", "2", "-o", "{o}"], "--human-share must be in"),
    (["queue", "{p}", "--human-share", "0.5", "--seed", "-1", "-o", "{o}"], "--seed must be"),
    (["estimate", "{p}", "--col", "selection=nope"], "'nope' \\(mapped to selection\\)"),
])
def test_bad_options_exit_2(capsys, tmp_path, argv, match):
    df = pd.DataFrame({"machine_label": [0, 1, 0, 1], "machine_confidence": [0.9, 0.8, 0.7, 0.6],
                       "human_label": [0, 1, None, None],
                       "selection": ["routed", "audit", "machine", "machine"]})
    p = write(tmp_path, df)
    args = [a.format(p=p, o=tmp_path / "o.csv") for a in argv]
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith(f"hmceval {args[0]}: error:")
    assert re.search(match, err), err


def test_estimate_names_unlabelled_routed_rows(capsys, tmp_path):
    df = pd.DataFrame({"machine_label": [0, 1, 0, 1, 0], "machine_confidence": 0.5,
                       "human_label": [0, None, None, 1, None],
                       "selection": ["routed", "routed", "routed", "audit", "machine"]})
    code, out, err = run_cli(capsys, "estimate", write(tmp_path, df), "--json")
    assert code == 2 and "2 routed rows have no human label: rows 2, 3" in err


def test_certify_without_calibration_rows(capsys, tmp_path):
    df = pd.DataFrame({"machine_label": [0, 1, 0, 1], "machine_confidence": 0.5,
                       "selection": ["routed", "machine", "machine", "machine"]})
    code, out, err = run_cli(capsys, "certify", write(tmp_path, df), "--alpha", 0.1,
                             "--delta", 0.1)
    assert code == 2 and "no calibration row" in err


def test_certify_with_an_audit_then_estimate(capsys, hmceval_tsv, tmp_path):
    q = tmp_path / "q.csv"
    run_cli(capsys, "queue", hmceval_tsv, "--calibration", 1000, "--seed", 3, "-o", q)
    queued = pd.read_csv(q)
    gold = queued["target"].copy()
    queued.loc[queued["selection"] != "calibration", "target"] = None  # only calibration labelled
    queued.to_csv(q, index=False)
    c = tmp_path / "c.csv"
    code, out, err = run_cli(capsys, "certify", q, "--alpha", 0.05, "--delta", 0.1, "--audit", 150,
                             "--seed", 2, "--json", "-o", c)
    assert code == 0, err
    res = json.loads(out)
    table = pd.read_csv(c)
    assert (table["selection"] == "audit").sum() == 150
    assert (table["selection"] == "machine").sum() == res["n_machine"] - 150
    # queue: the calibration rows keep the ranks hmceval queue gave them (rows of the round,
    # issue 13), then the audit rows (random order), then the routed rows
    ranked = table[table["queue_rank"].notna()].sort_values("queue_rank")
    cal = table["selection"] == "calibration"
    assert table.loc[cal, "queue_rank"].tolist() == queued.loc[cal, "queue_rank"].tolist()
    assert ranked["queue_rank"].tolist() == list(range(1, len(ranked) + 1))
    assert set(ranked["selection"].iloc[:1000]) == {"calibration"}
    assert set(ranked["selection"].iloc[1000:1150]) == {"audit"}
    assert set(ranked["selection"].iloc[1150:]) == {"routed"}
    # what annotators receive: the rest of the queue (the labelled calibration rows left out),
    # no answer column
    sent = pd.read_csv(tmp_path / "c_to_label.csv")
    assert sent["sample_id"].tolist() == ranked["sample_id"].iloc[1000:].tolist()
    assert not {"target", "machine_predict", "machine_confidence", "final_predict"} & set(sent)
    # the annotators return the gold labels of the queued rows
    table["target"] = gold.where(table["selection"] != "machine")
    table.to_csv(c, index=False)
    code, out, err = run_cli(capsys, "estimate", c, "--json")
    assert code == 0, err
    est = json.loads(out)
    assert est["n_audit"] == 150 and est["n_calibration"] == 1000
    assert est["class_shares"]["1"]["ci_low"] <= 0.2463 <= est["class_shares"]["1"]["ci_high"]


def test_queue_notes_when_lambda_routes_nothing(capsys, tmp_path):
    """hmceval queue with the default lambda on effort in seconds: nothing is routed, and the
    command says why instead of writing an audit-only queue silently (issue 13)."""
    import numpy as np

    rng = np.random.default_rng(3)
    m = 400
    path = tmp_path / "seconds.csv"
    pd.DataFrame({"model_pred": rng.integers(0, 2, m), "model_prob": rng.uniform(0.5, 1.0, m),
                  "annot_seconds": rng.uniform(10, 80, m)}).to_csv(path, index=False)
    code = main(["queue", str(path), "--human-share", "0.5", "--audit", "5", "-o", str(tmp_path / "q.csv")])
    out, err = capsys.readouterr()
    assert code == 0 and "5 rows to label (audit 5" in out
    assert "note: at lambda 4.6 no sample goes to humans: with effort in seconds" in err
    code = main(["queue", str(path), "--human-share", "0.5", "--lam", "0.001", "--audit", "5",
                 "-o", str(tmp_path / "q2.csv")])
    out, err = capsys.readouterr()
    assert code == 0 and "routed" in out and "note:" not in err


def test_queue_writes_an_answer_free_file_for_annotators(capsys, hmceval_tsv, tmp_path):
    """The round's table stays whole (labels, labelstudio and estimate read it); beside it the
    rows to label, in queue order, without the gold 'target', the machine's 'machine_predict',
    its confidence, the human confidence or the release's 'final_predict'. The gold column
    already on the rows to label is named once on stderr, and estimate says it read a gold
    column rather than returned labels."""
    q = tmp_path / "q.csv"
    code, out, err = run_cli(capsys, "queue", hmceval_tsv, "--human-share", 0.3, "--lam", 0,
                             "--audit", 100, "--seed", 1, "-o", q)
    assert code == 0, err
    sent = tmp_path / "q_to_label.csv"
    assert f"for annotators: {sent}" in out
    table, to_label = pd.read_csv(q), pd.read_csv(sent)
    queued = table[table["queue_rank"].notna()].sort_values("queue_rank")
    assert len(to_label) == len(queued) == int(5673 * 0.3) + 100
    assert to_label["queue_rank"].tolist() == list(range(1, len(queued) + 1))
    assert to_label["sample_id"].tolist() == queued["sample_id"].tolist()
    # blind audit (issue 23): no selection column in what annotators receive; an allow-list
    # (issue 32): the release has no text column, so the id and the rank only (its efforts,
    # turn and turns went out before)
    assert list(to_label.columns) == ["sample_id", "queue_rank"]
    assert "target" in table and "machine_predict" in table  # the round's table is whole
    lines = [l for l in err.splitlines() if l.startswith("warning:")]
    assert len(lines) == 1 and "'target'" in lines[0] and "1,801 of the 1,801 rows" in lines[0]
    code, out, err = run_cli(capsys, "estimate", q)
    assert code == 0
    assert "note: column 'target' (human label) also holds labels on 3,872 rows the round " \
           "does not send to humans: it is a gold column" in out


MISINFO_COLS = ["--col", "human_label=Y", "--col", "machine_label=Yhat (GPT4o)",
                "--col", "machine_confidence=confidence"]


def test_certify_overall_error_on_misinfo(capsys, shared_data, tmp_path):
    from scipy.stats import hypergeom

    src = shared_data / "pac-labels" / "misinfo.csv"
    q = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 450, "--seed", 1, "-o", q,
                   *MISINFO_COLS)[0] == 0
    c = tmp_path / "c.csv"
    code, out, err = run_cli(capsys, "certify", q, "--overall-error", 0.05, "--delta", 0.05,
                             "--json", "-o", c, *MISINFO_COLS)
    assert code == 0, err
    res = json.loads(out)
    assert list(res)[:4] == ["epsilon", "delta", "lambda", "M"]
    assert res["M"] == 1923 and res["n_calibration"] == 450
    # k* from scipy by a linear scan: c = floor(0.05 * 1923) = 96
    k = -1
    while hypergeom.cdf(k + 1, 1923, 96 + k + 2, 450) <= 0.05:
        k += 1
    assert res["max_calibration_errors"] == k
    assert res["calibration_kept_errors"] <= k
    assert res["saving"] == pytest.approx(res["n_machine"] / 1923) and res["n_machine"] > 0
    assert res["overall_error_bound"] <= 0.05 and "hypergeometric" in res["method"]
    table = pd.read_csv(c)
    assert (table["selection"] == "machine").sum() == res["n_machine"]
    assert (table["selection"] == "routed").sum() == res["n_human"]
    kept = table[table["selection"] == "machine"]
    routed = table[table["selection"] == "routed"]
    assert (1 - kept["confidence"] <= res["threshold"] + 1e-12).all()
    assert (1 - routed["confidence"] >= res["threshold"] - 1e-12).all()


@pytest.mark.parametrize("argv,message", [
    (["--overall-error", "1.5", "--delta", "0.1"], "--overall-error must be strictly between"),
    (["--overall-error", "0", "--delta", "0.1"], "--overall-error must be strictly between"),
    (["--overall-error", "0.05", "--alpha", "0.1", "--delta", "0.1"], "exactly one of --alpha"),
    (["--delta", "0.1"], "exactly one of --alpha"),
])
def test_certify_overall_error_bad_input(capsys, tmp_path, argv, message):
    df = pd.DataFrame({"machine_label": [0, 1] * 5, "machine_confidence": 0.9,
                       "human_label": [0, 1] * 5})
    code, out, err = run_cli(capsys, "certify", write(tmp_path, df), *argv)
    assert code == 2 and message in err


def test_certify_overall_error_without_calibration_rows(capsys, tmp_path):
    df = pd.DataFrame({"machine_label": [0, 1] * 5, "machine_confidence": 0.9,
                       "human_label": [None] * 10})
    code, out, err = run_cli(capsys, "certify", write(tmp_path, df), "--overall-error", 0.05,
                             "--delta", 0.1)
    assert code == 2 and "no calibration row" in err
