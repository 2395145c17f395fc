"""One step of a round all or nothing (``core.cli.step.one_step``): the rows a block adds to a
workspace and the files it writes through ``core.atomic`` are both kept when it ends well and
both as before when it raises (rows read with sqlite3, files by their bytes); an error after
every temporary was written and the journal committed finishes the step instead."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pandas as pd
import pytest

from core.atomic import write_text
from core.cli.step import one_step
from core.errors import DataError
from core.workspace import Workspace


def n_datasets(ws) -> int:
    con = sqlite3.connect(ws.db_path)
    try:
        return con.execute("SELECT COUNT(*) FROM datasets").fetchone()[0]
    finally:
        con.close()


def a_table(seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"machine_label": rng.integers(0, 2, 5), "c": rng.random(5)})


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


def test_a_step_that_ends_well_keeps_rows_and_files(ws, tmp_path):
    out = tmp_path / "out.csv"
    with one_step(ws):
        ws.add_dataset(a_table(1), name="t")
        write_text(out, "a,b\n1,2\n")
        assert not out.exists()  # renamed only when the whole step succeeded
    assert out.read_text() == "a,b\n1,2\n" and n_datasets(ws) == 1
    assert list((ws.root / "journal").iterdir()) == []  # the journal is gone


def test_a_failing_step_leaves_rows_and_files_as_before(ws, tmp_path):
    out = tmp_path / "out.csv"
    out.write_text("old")
    with pytest.raises(DataError, match="disk full"):
        with one_step(ws):
            ws.add_dataset(a_table(2), name="t")
            write_text(out, "new")
            raise DataError("disk full")
    assert out.read_text() == "old" and n_datasets(ws) == 0
    # no temporary left beside the destination, no journal left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "ws"]
    assert list((ws.root / "journal").iterdir()) == []


def test_a_rename_failing_after_the_commit_finishes_instead(ws, tmp_path, monkeypatch):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    real = os.replace

    def replace(src, dst):
        if str(dst) == str(second):
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(DataError, match=r"cannot write .*b\.csv: Input/output error; the "
                                        "workspace holds the step: its files are renamed by "
                                        "the next hmceval command"):
        with one_step(ws):
            ws.add_dataset(a_table(3), name="t")
            write_text(first, "1")
            write_text(second, "2")
    # the first file is new and the rows are kept: the step is finished, not taken back
    assert first.read_text() == "1" and n_datasets(ws) == 1
    journals = [p for p in (ws.root / "journal").iterdir() if p.suffix == ".json"]
    assert len(journals) == 1  # kept: the next start renames the second file
