"""hmceval certify on the large-table path (core.scale.certify): the same certificate, kept
rows and notes as the in-memory path on the loaded table, for both guarantees."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.cli import main
from core.errors import DataError
from core.evaluation.certify import certify, certify_overall
from core.evaluation.sampling import load_design
from core.scale.certify import certify_large, read_certify_design
from tests.judge_table import judge_table


def _table(per_group: int, seed: int, n_cal: int, *, selection: bool = True,
           ties: bool = False, unlabelled: int = 0) -> pd.DataFrame:
    """A judge table whose human labels are known on a simple random calibration sample of
    ``n_cal`` rows (``unlabelled`` more drawn rows still unlabelled)."""
    df = judge_table(per_group, seed=seed, bad_accuracy=0.9)
    if ties:  # many tied gains: the thresholds keep ties together
        df["confidence"] = df["confidence"].round(2)
    rng = np.random.default_rng(seed)
    drawn = rng.permutation(len(df))[:n_cal + unlabelled]
    labelled = np.zeros(len(df), dtype=bool)
    labelled[drawn[:n_cal]] = True
    df["human_label"] = df["human_label"].where(labelled, None)
    if selection:
        sel = np.full(len(df), "", dtype=object)
        sel[drawn] = "calibration"
        df["selection"] = sel
    return df


def _same(mem: dict, big: dict) -> None:
    assert set(mem) == set(big)
    for key, value in mem.items():
        if key == "steps":
            pd.testing.assert_frame_equal(value, big[key])
        elif isinstance(value, np.ndarray):
            assert np.array_equal(value, big[key]), key
        else:
            assert value == big[key], key


@pytest.mark.parametrize("per_group,seed,n_cal,lam,ties,selection,unlabelled", [
    (1500, 1, 1500, 0.0, False, True, 0),
    (1500, 2, 2500, 0.0002, True, True, 40),
    (1000, 3, 1200, 0.0, True, False, 0),
])
def test_selective_guarantee_equals_the_in_memory_path(tmp_path, per_group, seed, n_cal, lam,
                                                       ties, selection, unlabelled):
    df = _table(per_group, seed, n_cal, selection=selection, ties=ties, unlabelled=unlabelled)
    path = tmp_path / "t.parquet"
    df.to_parquet(path, row_group_size=1700)  # several batches
    mem = certify(load_design(df), alpha=0.1, delta=0.1, lam=lam)
    big = certify_large(str(path), alpha=0.1, overall_error=None, delta=0.1, lam=lam)
    _same(mem, big)
    lean = certify_large(str(path), alpha=0.1, overall_error=None, delta=0.1, lam=lam,
                         steps=False)
    assert lean.pop("steps") is None
    _same({k: v for k, v in mem.items() if k != "steps"}, lean)
    # the certificate is a real one: some rows kept, every kept row outside the calibration
    assert big["n_machine"] > 0 and big["threshold"] is not None
    assert not np.any((big["selection"] == "machine") & df["human_label"].notna().to_numpy())
    if unlabelled:
        assert any("have no human label yet" in n for n in big["notes"])


@pytest.mark.parametrize("seed,eta", [(4, 0.0), (5, 0.01)])
def test_overall_guarantee_equals_the_in_memory_path(tmp_path, seed, eta):
    df = _table(1200, seed, 2000, ties=True)
    path = tmp_path / "t.parquet"
    df.to_parquet(path, row_group_size=2000)
    mem = certify_overall(load_design(df), epsilon=0.05, delta=0.1, seed=seed,
                          annotator_error=eta)
    big = certify_large(str(path), alpha=None, overall_error=0.05, delta=0.1, seed=seed,
                        annotator_error=eta)
    _same(mem, big)
    assert big["n_machine"] > 0


def test_compact_design_reads_the_columns(tmp_path):
    """Hand-checked: codes of the sorted classes, -1 where no human label, the selection
    words, the effort (seconds) and the default b = 1, k = 0."""
    df = pd.DataFrame({"machine_label": ["yes", "no", "no"], "confidence": [0.9, 0.6, 0.8],
                       "human_label": ["no", None, "no"], "predicted_effort": [2.0, 3.0, 4.0],
                       "selection": ["calibration", "", "calibration"]})
    path = tmp_path / "t.parquet"
    df.to_parquet(path)
    d = read_certify_design(str(path))
    assert d.codes.tolist() == [1, 0, 0] and d.human_codes.tolist() == [0, -1, 0]
    assert d.has_label.tolist() == [True, False, True]
    assert d.selection.tolist() == ["calibration", "", "calibration"] and d.has_selection
    assert d.effort.tolist() == [2.0, 3.0, 4.0] and d.b == 1.0 and d.k == 0.0
    assert d.inclusion is None


def test_no_human_label_column_is_refused(tmp_path):
    path = tmp_path / "t.parquet"
    judge_table(50).drop(columns=["human_label"]).to_parquet(path)
    with pytest.raises(DataError, match="no human label column"):
        read_certify_design(str(path))


def _certificates(frame, parquet, stem, capsys) -> list[tuple[dict, dict]]:
    """``(in memory, large-table path)`` certificates, selective then overall error (delta
    0.1), of ``frame`` written as a CSV table and of the Parquet table ``parquet`` with
    ``--engine local``. A table is certified once (its round records it): each certificate of
    ``frame`` is made on its own copy, ``<stem>0.csv``, ``<stem>1.csv``."""
    out = []
    for i, flags in enumerate((("--alpha", "0.1"), ("--overall-error", "0.05"))):
        copy = f"{stem}{i}.csv"
        frame.to_csv(copy, index=False)
        assert main(["certify", copy, *flags, "--delta", "0.1", "--json"]) == 0
        mem = json.loads(capsys.readouterr().out)
        assert main(["certify", str(parquet), *flags, "--delta", "0.1", "--json",
                     "--engine", "local"]) == 0
        out.append((mem, json.loads(capsys.readouterr().out)))
    return out


def test_cli_certify_of_a_parquet_table_equals_the_csv_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    df = _table(1000, 6, 1500)
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_parquet(tmp_path / "t.parquet", row_group_size=1500)
    for mem, big in _certificates(df, tmp_path / "t.parquet", tmp_path / "t", capsys):
        assert big == mem and big["n_machine"] > 0
    # not yet on the path: -o, --engine ray; --engine on a CSV table
    assert main(["certify", str(tmp_path / "t.parquet"), "--alpha", "0.1", "--delta", "0.1",
                 "--engine", "local", "-o", str(tmp_path / "o.csv")]) == 2
    assert "not on certify's large-table path" in capsys.readouterr().err
    assert main(["certify", str(tmp_path / "t.csv"), "--alpha", "0.1", "--delta", "0.1",
                 "--engine", "local"]) == 2
    assert "--engine takes" in capsys.readouterr().err


def test_calibration_queue_then_certify_equal_the_in_memory_path(tmp_path, monkeypatch,
                                                                  capsys):
    """queue --calibration N_C -o OUT.parquet draws the rows and the queue order the CSV path
    draws (same seed); once labelled, certify of that round table on the large-table path
    gives the certificate of the same table certified in memory."""
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    df = judge_table(1000, seed=12, bad_accuracy=0.9)
    gold = df["human_label"].to_numpy()
    df = df.drop(columns=["human_label"])
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_parquet(tmp_path / "t.parquet", row_group_size=1500)
    args = ("--calibration", "1500", "--seed", "5")
    assert main(["queue", str(tmp_path / "t.csv"), *args, "-o", str(tmp_path / "q.csv")]) == 0
    assert main(["queue", str(tmp_path / "t.parquet"), *args, "-o",
                 str(tmp_path / "r.parquet")]) == 0
    capsys.readouterr()
    mem, big = pd.read_csv(tmp_path / "q.csv"), pd.read_parquet(tmp_path / "r.parquet")
    assert (mem["selection"].fillna("") == big["selection"]).all()
    assert (big["selection"] == "calibration").sum() == 1500
    assert np.array_equal(mem["queue_rank"].to_numpy(float),
                          big["queue_rank"].astype(float).to_numpy(), equal_nan=True)
    sent_mem = pd.read_csv(tmp_path / "q_to_label.csv")
    sent_big = pd.read_csv(tmp_path / "r_to_label.csv")
    assert sent_mem["sample_id"].tolist() == sent_big["sample_id"].tolist()
    # the annotators return the gold labels of the calibration rows
    cal = (big["selection"] == "calibration").to_numpy()
    big["human_label"] = np.where(cal, gold, None)
    big.to_parquet(tmp_path / "r.parquet")  # a rewrite: the metadata is gone, --engine local
    # no sidecar: each CSV copy recorded as a round of its own
    for want, got in _certificates(big, tmp_path / "r.parquet", tmp_path / "plain", capsys):
        assert got == want and got["n_calibration"] == 1500 and got["n_machine"] > 0


def test_certify_with_output_stays_on_the_in_memory_path(tmp_path, monkeypatch, capsys):
    """-o and --audit are not on certify's large-table path yet: without --engine a large
    Parquet table is certified in memory with them, as before (with --engine: refused)."""
    import core.scale.cli as scale_cli

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setattr(scale_cli, "LARGE_ROWS", 100)
    df = _table(500, 8, 1000)
    df.to_parquet(tmp_path / "t.parquet")
    assert main(["certify", str(tmp_path / "t.parquet"), "--alpha", "0.1", "--delta", "0.1",
                 "--json"]) == 0
    big = json.loads(capsys.readouterr().out)
    assert main(["certify", str(tmp_path / "t.parquet"), "--alpha", "0.1", "--delta", "0.1",
                 "--json", "-o", str(tmp_path / "o.csv")]) == 0
    mem = json.loads(capsys.readouterr().out)
    assert big == mem and (tmp_path / "o.csv").is_file()
