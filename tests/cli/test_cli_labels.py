"""``hmceval labels``: returned labels written into a round's table, accumulating."""

from __future__ import annotations

import json

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
