"""The workspace's Parquet files (``core.workspace.tables``): a table stored once under the
SHA-256 of its Parquet bytes and read back equal, a plan written and read back (undecided rows
as "", unqueued ranks NaN, inclusion probabilities when given), the legacy CSV hash rebuilt
with hashlib, and missing, damaged or foreign files refused naming them."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from core.data.content import content_id
from core.errors import DataError
from core.workspace.tables import (PLAN_PROBABILITY, check_database_file, legacy_table_hash,
                                   parquet_bytes, plan_frame, plan_inclusion, plan_rows,
                                   read_table, table_hash, write_table)


def a_table():
    return pd.DataFrame({"x": [1, 2, 3], "t": ["a", None, "c"], "f": [0.5, np.nan, 1.0]})


def test_a_table_is_stored_once_under_the_hash_of_its_bytes(tmp_path):
    df = a_table()
    name = write_table(tmp_path, df)
    assert name == hashlib.sha256(parquet_bytes(df)).hexdigest()[:32] + ".parquet"
    assert write_table(tmp_path, df.copy()) == name  # the same content: one file
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary left
    pd.testing.assert_frame_equal(read_table(tmp_path, name), df)
    assert write_table(tmp_path, df.assign(x=[1, 2, 4])) != name


def test_table_hash_is_the_content_id_and_the_legacy_hash_the_csv_text():
    df = a_table()
    assert table_hash(df) == content_id(df)
    # schema < 4: SHA-256 of the CSV text, numbers as float64, missing as empty
    text = "x,t,f\n1.0,a,0.5\n2.0,,\n3.0,c,1.0\n"
    assert legacy_table_hash(df) == hashlib.sha256(text.encode()).hexdigest()


def test_a_table_pyarrow_cannot_store_is_a_data_error():
    mixed = pd.DataFrame({"m": [1, "a", 2.5]})
    with pytest.raises(DataError, match="cannot be stored in the workspace"):
        parquet_bytes(mixed)


def test_missing_and_damaged_files_are_named(tmp_path):
    with pytest.raises(DataError, match=r"nope\.parquet is missing"):
        read_table(tmp_path, "nope.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DataError, match=r"bad\.parquet is damaged and cannot be read"):
        read_table(tmp_path, "bad.parquet")


def test_a_plan_reads_back_as_written(tmp_path):
    sel = np.array(["", "routed", "audit", "machine"], dtype=object)
    rank = np.array([np.nan, 1.0, 2.0, np.nan])
    pi = np.array([np.nan, 1.0, 0.25, 0.25])
    stored = read_table(tmp_path, write_table(tmp_path, plan_frame(sel, rank, pi)))
    assert list(stored.columns) == ["selection", "queue_rank", PLAN_PROBABILITY]
    got_sel, got_rank = plan_rows(stored)
    assert got_sel.tolist() == sel.tolist()
    np.testing.assert_array_equal(got_rank, rank)
    np.testing.assert_array_equal(plan_inclusion(stored), pi)
    without = plan_frame(sel, rank)
    assert plan_inclusion(without) is None
    with pytest.raises(DataError, match="the plan has 4 rows but 2 inclusion probabilities"):
        plan_frame(sel, rank, np.ones(2))


def test_database_file_checks(tmp_path):
    check_database_file(tmp_path / "absent.sqlite")  # a new workspace: nothing to check
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match=r"is empty \(0 bytes\): it is not replaced"):
        check_database_file(empty)
    foreign = tmp_path / "notes.sqlite"
    foreign.write_text("my notes")
    with pytest.raises(DataError, match=r"notes\.sqlite is not a workspace database \(not SQLite\)"):
        check_database_file(foreign)
    ok = tmp_path / "ok.sqlite"
    import sqlite3

    sqlite3.connect(ok).execute("CREATE TABLE t (x)").connection.commit()
    check_database_file(ok)
