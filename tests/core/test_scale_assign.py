"""hmceval assign on the large-table path (core.scale.assign): the same assignment and metrics
as the in-memory path on the loaded table."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.assignment import assignment_json, run_assignment
from core.cli import main
from core.data import prepare
from core.scale.assign import read_assign_inputs
from core.assignment import solve_fast
from tests.judge_table import judge_table


def _table(per_group: int, seed: int, *, three: bool = False, extra: bool = False,
           gold: bool = True) -> pd.DataFrame:
    df = judge_table(per_group, seed=seed).drop(columns=["response"])
    rng = np.random.default_rng(seed)
    if three:  # a third class, numbers as labels
        codes = {"no": 0, "yes": 1}
        df["machine_label"] = df["machine_label"].map(codes)
        df["human_label"] = df["human_label"].map(codes)
        flip = rng.random(len(df)) < 0.1
        df.loc[flip, "human_label"] = 2
    if extra:
        df["human_confidence"] = rng.uniform(0.9, 1.0, len(df))
        df["machine_effort"] = rng.uniform(0, 2, len(df))
        df["confidence"] = df["confidence"].round(2)  # ties in the ranking
    if not gold:
        df = df.drop(columns=["human_label"])
    return df


@pytest.mark.parametrize("per_group,seed,three,extra,gold,lam,n,mode", [
    (1500, 1, False, False, True, 0.002, 1800, "at_most"),
    (1200, 2, True, True, True, 0.0, 2000, "exactly"),
    (1000, 3, False, True, False, 0.001, 900, "at_most"),
])
def test_assignment_equals_the_in_memory_path(tmp_path, per_group, seed, three, extra, gold,
                                              lam, n, mode):
    df = _table(per_group, seed, three=three, extra=extra, gold=gold)
    path = tmp_path / "t.parquet"
    df.to_parquet(path, row_group_size=1700)
    data = prepare(df, name="t")
    inp, mem = run_assignment(data, lam=lam, n_human=n, mode=mode)
    cdata, cinp = read_assign_inputs(str(path))
    big = solve_fast(cinp, lam=lam, n_human=n, mode=mode)
    assert np.array_equal(mem.human, big.human) and mem.objective == big.objective
    jm, jb = assignment_json(data, inp, mem), assignment_json(cdata, cinp, big)
    assert json.dumps(jm, sort_keys=True) == json.dumps(jb, sort_keys=True)
    assert 0 < jb["n_human"] <= n and (jb["accuracy"] is None) == (not gold)


def test_cli_assign_of_a_parquet_table_equals_the_csv_one(tmp_path, capsys):
    df = _table(1000, 4)
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_parquet(tmp_path / "t.parquet", row_group_size=1500)
    for flags in (("--lam", "0.003", "--human-share", "0.3"),
                  ("--lam", "0", "--human-count", "700", "--exactly")):
        assert main(["assign", str(tmp_path / "t.csv"), *flags, "--json"]) == 0
        mem = json.loads(capsys.readouterr().out)
        assert main(["assign", str(tmp_path / "t.parquet"), *flags, "--json",
                     "--engine", "local"]) == 0
        big = json.loads(capsys.readouterr().out)
        assert big == mem and big["n_human"] > 0
    # -o OUT.parquet: the in-memory path's table, row by row
    flags = ("--lam", "0.002", "--human-count", "800")
    assert main(["assign", str(tmp_path / "t.csv"), *flags, "-o", str(tmp_path / "o.csv")]) == 0
    assert main(["assign", str(tmp_path / "t.parquet"), *flags, "--engine", "local", "-o",
                 str(tmp_path / "o.parquet")]) == 0
    capsys.readouterr()
    mem, big = pd.read_csv(tmp_path / "o.csv"), pd.read_parquet(tmp_path / "o.parquet")
    assert list(big.columns) == list(mem.columns) and len(big) == len(mem) == 4000
    for col in mem.columns:
        if mem[col].dtype.kind == "f":
            assert np.allclose(mem[col], big[col], rtol=0, atol=1e-12), col
        else:
            assert mem[col].astype(str).tolist() == big[col].astype(str).tolist(), col
    assert (big["decision"] == "human").sum() == 800
    # not yet on the path: -o OUT.csv, a goal; --engine or -o OUT.parquet of a CSV table
    assert main(["assign", str(tmp_path / "t.parquet"), "--engine", "local", "-o",
                 str(tmp_path / "o.csv")]) == 2
    assert "not on assign's large-table path" in capsys.readouterr().err
    assert main(["assign", str(tmp_path / "t.parquet"), "--engine", "local",
                 "--target-accuracy", "0.9"]) == 2
    assert "not on assign's large-table path" in capsys.readouterr().err
    assert main(["assign", str(tmp_path / "t.csv"), "-o", str(tmp_path / "p.parquet")]) == 2
    assert "large-table path" in capsys.readouterr().err
    assert main(["assign", str(tmp_path / "t.csv"), "--engine", "local"]) == 2
    assert "--engine takes" in capsys.readouterr().err


def test_a_missing_gold_label_names_its_row(tmp_path):
    df = _table(100, 5)
    df.loc[7, "human_label"] = None
    df.to_parquet(tmp_path / "t.parquet")
    from core.errors import DataError

    with pytest.raises(DataError, match="row 8"):
        read_assign_inputs(str(tmp_path / "t.parquet"))


def test_label_codes_set_as_the_inputs_compute_them(tmp_path):
    """read_assign_inputs sets SAEInputs.label_codes from the class codes; the property
    computes the same from the labels (a fresh SAEInputs of the same arrays)."""
    import dataclasses

    df = _table(300, 6, three=True)
    df.to_parquet(tmp_path / "t.parquet", row_group_size=500)
    _, inp = read_assign_inputs(str(tmp_path / "t.parquet"))
    fresh = dataclasses.replace(inp)  # no cached value: computed by the property
    assert "label_codes" not in fresh.__dict__
    got, want = inp.label_codes, fresh.label_codes
    assert np.array_equal(got.gold, want.gold) and np.array_equal(got.machine, want.machine)
    assert got.classes == want.classes and np.array_equal(got.machine_cm, want.machine_cm)
    assert got.gold.dtype == want.gold.dtype


def test_a_large_table_takes_the_path_by_itself_and_what_it_lacks_stays_in_memory(
        tmp_path, monkeypatch, capsys):
    """From LARGE_ROWS rows (lowered here) a Parquet table takes the large-table path without
    --engine (its message on a bad row says so: no in-memory loader's wording); -o OUT.csv
    and a goal, not on the path yet, stay on the in-memory path, as before."""
    import core.scale.cli as scale_cli

    monkeypatch.setattr(scale_cli, "LARGE_ROWS", 100)
    df = _table(100, 7)
    df.to_parquet(tmp_path / "t.parquet")
    assert main(["assign", str(tmp_path / "t.parquet"), "--json"]) == 0
    big = json.loads(capsys.readouterr().out)
    assert main(["assign", str(tmp_path / "t.parquet"), "--json", "-o",
                 str(tmp_path / "o.csv")]) == 0
    mem = json.loads(capsys.readouterr().out)
    assert big == mem and len(pd.read_csv(tmp_path / "o.csv")) == 400
    assert main(["assign", str(tmp_path / "t.parquet"), "--target-accuracy", "0.9"]) == 0
    bad = df.copy()
    bad.loc[5, "human_label"] = None
    bad.to_parquet(tmp_path / "bad.parquet")
    assert main(["assign", str(tmp_path / "bad.parquet")]) == 2
    assert "missing value in row 6" in capsys.readouterr().err  # read_columns' wording
