"""``hmceval labels``: returned labels written into a round's table, accumulating."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.cli.cli_support import run_cli


def _round(tmp_path):
    df = pd.DataFrame({"sample_id": [f"s{i}" for i in range(8)],
                       "machine_label": ["ok", "bad", "ok", "ok", "bad", "ok", "ok", "bad"],
                       "machine_confidence": [0.9, 0.6, 0.95, 0.7, 0.99, 0.8, 0.97, 0.55],
                       "selection": ["routed", "routed", "machine", "audit", "machine", "audit",
                                     "machine", "routed"]})
    path = tmp_path / "round.csv"
    df.to_csv(path, index=False)
    return path


def test_labels_accumulate_then_estimate(capsys, tmp_path):
    path = _round(tmp_path)
    first = tmp_path / "l1.csv"
    pd.DataFrame({"sample_id": ["s0", "s1"], "label": ["ok", "ok"]}).to_csv(first, index=False)
    out1 = tmp_path / "r1.csv"
    code, out, err = run_cli(capsys, "labels", path, "--from", first, "-o", out1)
    assert code == 0, err
    assert "2 labels imported; 2 of 5 labelled" in out
    second = tmp_path / "l2.csv"
    pd.DataFrame({"sample_id": ["s3", "s5", "s7", "s7"], "label": ["ok", "bad", "bad", "ok"],
                  "who": ["a", "a", "a", "b"]}).to_csv(second, index=False)
    out2 = tmp_path / "r2.csv"
    code, out, err = run_cli(capsys, "labels", out1, "--from", second, "--annotator-col", "who",
                             "-o", out2)
    assert code == 0, err
    assert "1 samples tie and need adjudication: s7" in out
    table = pd.read_csv(out2)
    # labels of both imports; machine rows none; s7 ties: unlabelled
    assert table["human_label"].fillna("-").tolist() == ["ok", "ok", "-", "ok", "-", "bad", "-", "-"]
    code, out, err = run_cli(capsys, "estimate", out2, "--json")
    assert code == 2 and "1 routed rows have no human label: row 8" in err
    third = tmp_path / "l3.csv"
    pd.DataFrame({"sample_id": ["s7"], "label": ["bad"]}).to_csv(third, index=False)
    out3 = tmp_path / "r3.csv"
    assert run_cli(capsys, "labels", out2, "--from", third, "-o", out3)[0] == 0
    code, out, err = run_cli(capsys, "estimate", out3, "--json")
    assert code == 0, err
    res = json.loads(out)
    # bad: L has s5 (audit) and s7 (routed) -> 2; U machine 'bad': s4 -> 1;
    # audit diff: s3 0, s5 +1 -> |U|/|A| = 3/2 * 1; share = (2 + 1 + 1.5) / 8
    assert abs(res["class_shares"]["bad"]["estimate"] - 4.5 / 8) < 1e-12


def test_labels_for_rows_outside_the_queue_are_refused(capsys, tmp_path):
    path = _round(tmp_path)
    labels = tmp_path / "l.csv"
    pd.DataFrame({"sample_id": ["s2"], "label": ["ok"]}).to_csv(labels, index=False)
    code, out, err = run_cli(capsys, "labels", path, "--from", labels, "-o", tmp_path / "o.csv")
    assert code == 2 and "not in the round's queue" in err and "'machine'" in err
    assert not (tmp_path / "o.csv").exists()


def test_label_studio_export_file(capsys, tmp_path):
    path = _round(tmp_path)
    export = [{"id": 1, "data": {"sample_id": "s0"}, "annotations": [
        {"completed_by": 3, "was_cancelled": False, "result": [
            {"from_name": "label", "to_name": "x", "type": "choices",
             "value": {"choices": ["bad"]}}]}]}]
    f = tmp_path / "export.json"
    f.write_text(json.dumps(export))
    out = tmp_path / "o.csv"
    code, text, err = run_cli(capsys, "labels", path, "--from", f, "-o", out)
    assert code == 0, err
    assert pd.read_csv(out)["human_label"].iloc[0] == "bad"


def _workspace_round(tmp_path, capsys, n: int) -> "Path":
    """A guarantee round of ``n`` rows, every row in its calibration sample (hmceval queue)."""
    pd.DataFrame({"sample_id": [f"s{i}" for i in range(n)],
                  "machine_label": ["ok", "bad"] * (n // 2),
                  "machine_confidence": [0.6 + 0.3 * i / n for i in range(n)]}).to_csv(
        tmp_path / "t.csv", index=False)
    out = tmp_path / "q.csv"
    code, _, err = run_cli(capsys, "queue", tmp_path / "t.csv", "--calibration", n, "-o", out)
    assert code == 0, err
    return out


def test_reimporting_with_a_gold_annotator_applies_it(capsys, tmp_path, ws_dir):
    """Issue 32: re-importing the same votes with another aggregate said so but kept the
    earlier labels. Worked by hand: majority gives s0 bad, s1 ok, s2 ok, s3 bad; with a's
    labels fixed (--gold-annotator a) s0 is ok and s2 bad."""
    table = _workspace_round(tmp_path, capsys, 4)
    votes = tmp_path / "votes.csv"
    pd.DataFrame({"sample_id": ["s0", "s1", "s2", "s3"] * 3,
                  "label": ["ok", "ok", "bad", "bad", "bad", "ok", "ok", "bad",
                            "bad", "ok", "ok", "ok"],
                  "annotator": ["a"] * 4 + ["b"] * 4 + ["c"] * 4}).to_csv(votes, index=False)
    args = ["labels", table, "--from", votes, "--annotator-col", "annotator", "-o", table]
    assert run_cli(capsys, *args)[0] == 0
    assert pd.read_csv(table)["human_label"].tolist() == ["bad", "ok", "ok", "bad"]
    code, out, err = run_cli(capsys, *args, "--gold-annotator", "a")
    assert code == 0, err
    assert pd.read_csv(table)["human_label"].tolist() == ["ok", "ok", "bad", "bad"]
    assert "aggregated with majority, 2 rows get another label" in out
    code, out, err = run_cli(capsys, *args, "--gold-annotator", "a")  # nothing new now
    assert code == 0 and "nothing new was stored" in out


def test_reimporting_with_dawid_skene_equals_a_fresh_dawid_skene_import(capsys, tmp_path,
                                                                        ws_dir):
    """Issue 32: after a majority import, re-importing with --aggregate dawid-skene reported
    dawid-skene but kept majority labels (16 of 200 rows differed from a fresh Dawid-Skene
    import of the same file). One reliable annotator and two poor ones: the two differ."""
    rng = np.random.default_rng(0)
    n = 200
    truth = rng.choice(["ok", "bad"], n)
    flip = {"ok": "bad", "bad": "ok"}
    rows = [(f"s{i}", flip[truth[i]] if rng.random() < err else truth[i], name)
            for name, err in (("a", 0.02), ("b", 0.4), ("c", 0.4)) for i in range(n)]
    votes = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["sample_id", "label", "annotator"]).to_csv(votes, index=False)
    table = _workspace_round(tmp_path, capsys, n)
    fresh = tmp_path / "fresh.csv"  # the same round planned in another workspace
    code, _, err = run_cli(capsys, "queue", tmp_path / "t.csv", "--calibration", n, "-o", fresh,
                           "--workspace", tmp_path / "ws_fresh")
    assert code == 0, err
    args = ["labels", table, "--from", votes, "--annotator-col", "annotator", "-o", table]
    assert run_cli(capsys, *args)[0] == 0
    majority = pd.read_csv(table)["human_label"]
    assert run_cli(capsys, *args, "--aggregate", "dawid-skene")[0] == 0
    again = pd.read_csv(table)["human_label"]
    code, _, err = run_cli(capsys, "labels", fresh, "--from", votes, "--annotator-col",
                           "annotator", "--aggregate", "dawid-skene", "-o", fresh,
                           "--workspace", tmp_path / "ws_fresh")
    assert code == 0, err
    assert (again == pd.read_csv(fresh)["human_label"]).all()
    assert (again != majority).sum() > 0
