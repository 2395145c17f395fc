"""hmceval queue -o OUT.parquet and hmceval estimate of its table (core.scale.cli): the same
round and the same estimate as the in-memory path writes and reads as CSV."""

from __future__ import annotations

import json
import sys

import numpy as np
import pandas as pd
import pytest

from core.cli import main
from tests.judge_table import judge_table


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def judged(tmp_path, monkeypatch):
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    df = judge_table(1000, seed=8)
    gold = df["human_label"].to_numpy()
    path = tmp_path / "t.parquet"
    df.drop(columns=["human_label"]).to_parquet(path, row_group_size=1500)
    return path, gold


def test_queue_and_estimate_equal_the_in_memory_path(judged, tmp_path, capsys):
    path, gold = judged
    args = ("--design", "active", "--labels", "250", "--seed", "5")
    assert _run(capsys, "queue", path, *args, "-o", tmp_path / "q.csv")[0] == 0
    code, out, err = _run(capsys, "queue", path, *args, "-o", tmp_path / "q.parquet")
    assert code == 0, err
    assert "round table written to" in out and "large-table path" in err
    mem = pd.read_csv(tmp_path / "q.csv")
    big = pd.read_parquet(tmp_path / "q.parquet")
    assert list(big["sample_id"]) == list(mem["sample_id"])
    assert (big["selection"] == mem["selection"]).all()
    assert big["queue_rank"].fillna(-1).astype(int).equals(
        mem["queue_rank"].fillna(-1).astype(int))
    np.testing.assert_allclose(big["inclusion_probability"], mem["inclusion_probability"],
                               rtol=1e-12)
    assert big["human_label"].isna().all()  # the column to fill
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    queued = big[big["queue_rank"].notna()].sort_values("queue_rank")
    assert list(sent["sample_id"]) == list(queued["sample_id"])
    assert list(sent["queue_rank"]) == list(range(1, len(queued) + 1))
    # the annotators return the gold labels of the rows to label
    for tab, name in ((mem, "m.csv"), (big, "b.parquet")):
        tab["human_label"] = np.where(tab["queue_rank"].notna(), gold, None)
    mem.to_csv(tmp_path / "m.csv", index=False)  # no sidecar: a table of no round
    big.to_parquet(tmp_path / "b.parquet")  # rewritten by pandas: the record is dropped
    code, out_m, err = _run(capsys, "estimate", tmp_path / "m.csv", "--json")
    assert code == 0, err
    code, out_b, err = _run(capsys, "estimate", tmp_path / "b.parquet", "--json", "--engine",
                            "local")
    assert code == 0, err
    a, b = json.loads(out_m), json.loads(out_b)
    assert a["notes"] == b["notes"] and a["M"] == b["M"] == 4000
    for label, s in a["class_shares"].items():
        for key in ("estimate", "ci_low", "ci_high", "machine_only", "half_width"):
            assert b["class_shares"][label][key] == pytest.approx(s[key], rel=1e-12)
        truth = float((gold == label).mean())
        assert s["ci_low"] <= truth <= s["ci_high"]
    for key in ("estimate", "ci_low", "ci_high"):
        assert b["accuracy"][key] == pytest.approx(a["accuracy"][key], rel=1e-12)


@pytest.mark.parametrize("extra,message", [
    (("--stream",), "not on the large-table path yet"),
    (("--design", "routing", "--human-share", "0.1"), "not on the large-table path yet"),
    (("--design", "active"), "needs a budget"),
])
def test_what_the_large_table_path_refuses(judged, tmp_path, capsys, extra, message):
    path, _ = judged
    labels = () if "--human-share" in extra or extra == ("--design", "active") else \
        ("--labels", "100")
    code, _, err = _run(capsys, "queue", path, *extra, *labels, "-o", tmp_path / "q.parquet")
    assert code == 2 and message in err
    assert not (tmp_path / "q.parquet").exists()


def test_engine_ray_without_ray_says_how_to_install(judged, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    path, _ = judged
    code, _, err = _run(capsys, "queue", path, "--labels", "100", "--engine", "ray", "-o",
                        tmp_path / "q.parquet")
    assert code == 2
    assert 'pip install -e ".[scale]"' in err
    assert not (tmp_path / "q.parquet").exists()


def test_labels_into_a_large_round_table(judged, tmp_path, capsys):
    """hmceval labels ROUND.parquet --from LABELS.csv -o OUT.parquet fills human_label of the
    rows named, batch by batch; a label for a row outside the queue is refused."""
    path, gold = judged
    assert _run(capsys, "queue", path, "--labels", "120", "-o", tmp_path / "q.parquet")[0] == 0
    q = pd.read_parquet(tmp_path / "q.parquet")
    queued = q[q["queue_rank"].notna()]
    half = queued.iloc[: len(queued) // 2]
    pd.DataFrame({"sample_id": half["sample_id"],
                  "label": gold[half.index.to_numpy()]}).to_csv(tmp_path / "l.csv", index=False)
    code, out, err = _run(capsys, "labels", tmp_path / "q.parquet", "--from", tmp_path / "l.csv",
                          "-o", tmp_path / "ql.parquet")
    assert code == 0, err
    ql = pd.read_parquet(tmp_path / "ql.parquet")
    filled = ql["human_label"].notna().to_numpy()
    assert filled.sum() == len(half)
    assert list(ql.loc[filled, "human_label"]) == list(gold[filled])
    outside = q[q["queue_rank"].isna()].iloc[:1]
    pd.DataFrame({"sample_id": outside["sample_id"], "label": ["yes"]}).to_csv(
        tmp_path / "bad.csv", index=False)
    code, _, err = _run(capsys, "labels", tmp_path / "q.parquet", "--from",
                        tmp_path / "bad.csv", "-o", tmp_path / "bad.parquet")
    assert code == 2 and "not in the round's queue" in err
    assert not (tmp_path / "bad.parquet").exists()


def test_groups_and_the_worse_group_on_the_large_table_path(judged, tmp_path, capsys):
    """judge_table's ja rows are right half the time at the same confidence: both paths
    flag language = ja as worse than the rest, on the same group sizes."""
    path, gold = judged
    assert _run(capsys, "queue", path, "--labels", "400", "-o", tmp_path / "q.parquet")[0] == 0
    q = pd.read_parquet(tmp_path / "q.parquet")
    q["human_label"] = np.where(q["queue_rank"].notna(), gold, None)
    q.to_parquet(tmp_path / "ql.parquet")
    q.to_csv(tmp_path / "ql.csv", index=False)
    res = {}
    for name, extra in (("ql.csv", ()), ("ql.parquet", ("--engine", "local"))):
        code, out, err = _run(capsys, "estimate", tmp_path / name, "--group", "language",
                              "--json", *extra)
        assert code == 0, err
        res[name] = json.loads(out)
    a, b = res["ql.csv"], res["ql.parquet"]
    assert [w["group"] for w in b["worse_groups"]] == [w["group"] for w in a["worse_groups"]] \
        == ["ja"]
    assert {g: r["M"] for g, r in b["by_group"]["language"].items()} == \
        {g: r["M"] for g, r in a["by_group"]["language"].items()}
