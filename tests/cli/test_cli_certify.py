"""``hmceval certify``: a round of the workspace and a table of no round are certified and
routed by the same step (:func:`core.workspace.rounds.certify_round`, the page's): a table of
no round is recorded as a round first (issue 32)."""

from __future__ import annotations

import json

import pandas as pd

from core.cli.round_table import round_link, sidecar_path
from core.demo import make_demo
from tests.cli.cli_support import run_cli


def test_a_round_and_a_table_of_no_round_are_certified_alike(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    df = make_demo()
    gold = df[["sample_id", "human_label"]].rename(columns={"human_label": "label"})
    src = tmp_path / "demo.csv"
    df.drop(columns=["human_label", "human_label_2"]).to_csv(src, index=False)
    q = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 1200, "--seed", 5, "-o", q)[0] == 0
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    back = tmp_path / "back.csv"
    sent[["sample_id"]].merge(gold, on="sample_id").to_csv(back, index=False)
    labelled = tmp_path / "l.csv"
    assert run_cli(capsys, "labels", q, "--from", back, "-o", labelled)[0] == 0
    # the same labelled table, alone (its sidecar removed: a table of no round)
    alone = tmp_path / "alone.csv"
    alone.write_bytes(labelled.read_bytes())
    assert round_link(labelled) is not None and not sidecar_path(alone).exists()

    args = ["--alpha", 0.1, "--delta", 0.1, "--lam", 0.5, "--audit", 60, "--seed", 9, "--json"]
    code, out_round, err = run_cli(capsys, "certify", labelled, *args, "-o", tmp_path / "c1.csv")
    assert code == 0, err
    code, out_alone, err = run_cli(capsys, "certify", alone, *args, "-o", tmp_path / "c2.csv")
    assert code == 0, err
    res_round, res_alone = json.loads(out_round), json.loads(out_alone)
    assert res_round == res_alone
    c1, c2 = pd.read_csv(tmp_path / "c1.csv"), pd.read_csv(tmp_path / "c2.csv")
    for col in ("selection", "queue_rank"):
        assert c1[col].fillna(-1).tolist() == c2[col].fillna(-1).tolist()
    assert (c1["selection"] == "audit").sum() == 60
    assert round_link(tmp_path / "c1.csv")["round_id"] == round_link(q)["round_id"]
    # the table of no round was recorded as a round of its own, named by its new sidecar and
    # by the sidecar of what certify wrote
    adopted = round_link(alone)
    assert adopted is not None and adopted["round_id"] != round_link(q)["round_id"]
    assert round_link(tmp_path / "c2.csv") == adopted
    assert "named no round: recorded as round" in err


def test_annotator_error_is_taken_off_the_level(capsys, tmp_path, monkeypatch):
    """--annotator-error ETA: certified at alpha - ETA against the annotators (so alpha holds
    against the truth); the round stores it; ETA not below alpha exits 2 naming the levels."""
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    df = make_demo()
    src = tmp_path / "demo.csv"
    df.to_csv(src, index=False)
    q = tmp_path / "q.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 1500, "--seed", 2, "-o", q)[0] == 0
    code, out, err = run_cli(capsys, "certify", q, "--alpha", 0.1, "--delta", 0.1,
                             "--annotator-error", 0.02, "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["annotator_error"] == 0.02 and abs(res["alpha_annotators"] - 0.08) < 1e-12
    assert "disagree with the truth (the annotators being wrong on at most 2.0%)" \
        in res["guarantee"]
    q2 = tmp_path / "q2.csv"
    assert run_cli(capsys, "queue", src, "--calibration", 1500, "--seed", 3, "-o", q2)[0] == 0
    code, _, err = run_cli(capsys, "certify", q2, "--alpha", 0.1, "--delta", 0.1,
                           "--annotator-error", 0.1)
    assert code == 2 and "not below alpha" in err


def test_an_active_calibration_sample_is_weighed_by_the_overall_error_certificate(
        capsys, tmp_path, ws_dir, demo_csv):
    """hmceval queue --calibration N_C --design active draws the calibration sample with the
    active design's unequal probabilities (written on every row); certify --overall-error
    weighs them (the weighted rule, said in method and notes) and its output no longer
    carries them; the selective guarantee refuses them with a message; the promise holds on
    the demo's gold."""
    import numpy as np

    src, gold = demo_csv
    df = make_demo()
    q = tmp_path / "q.csv"
    code, out, err = run_cli(capsys, "queue", src, "--calibration", 900, "--design", "active",
                             "--seed", 3, "--json", "-o", q)
    assert code == 0, err
    plan = json.loads(out)
    table = pd.read_csv(q)
    pi = table["inclusion_probability"]
    assert pi.notna().all() and pi.between(0, 1, inclusive="right").all() and pi.nunique() > 1
    drawn = int((table["selection"] == "calibration").sum())
    assert plan["calibration"]["drawn"] == drawn and abs(drawn - 900) < 4 * np.sqrt(900)
    assert abs(pi.sum() - 900) < 1  # the budget is met in expectation
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    assert "inclusion_probability" not in sent.columns and len(sent) == drawn
    back = tmp_path / "back.csv"
    sent[["sample_id"]].merge(gold, on="sample_id").to_csv(back, index=False)
    labelled = tmp_path / "l.csv"
    assert run_cli(capsys, "labels", q, "--from", back, "-o", labelled)[0] == 0
    code, out, err = run_cli(capsys, "certify", labelled, "--alpha", 0.1, "--delta", 0.1, "-o",
                             tmp_path / "a.csv")
    assert code == 2 and "--overall-error" in err and "inclusion_probability" in err
    code, out, err = run_cli(capsys, "certify", labelled, "--overall-error", 0.05, "--delta",
                             0.05, "--json", "-o", tmp_path / "c.csv")
    assert code == 0, err
    res = json.loads(out)
    assert res["method"].startswith("test supermartingale") and res["n_machine"] > 0
    cert = pd.read_csv(tmp_path / "c.csv")
    assert "inclusion_probability" not in cert.columns
    kept = cert["selection"].eq("machine").to_numpy()
    wrong = (df["machine_label"] != df["human_label"]).to_numpy()
    assert wrong[kept].sum() <= 0.05 * len(df)
    assert res["n_machine"] == int(kept.sum())
