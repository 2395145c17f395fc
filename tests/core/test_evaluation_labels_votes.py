"""Votes kept across imports: merge rules, times, the stored file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.labels.form import LabelImport
from core.evaluation.labels.votes import (check_seconds, merge_votes, read_votes, votes_import,
                                   votes_path, write_votes)


def _imp(rows, seconds=()):
    s, a, lab = zip(*rows)
    return LabelImport(source="table", sample_id=s, annotator=a, label=lab,
                       where=tuple(f"row {i + 1}" for i in range(len(rows))), seconds=seconds)


def test_merge_adds_keeps_and_replaces():
    first = merge_votes(None, _imp([("1", "a", "x"), ("2", "a", "y")], (3.0, 4.0)))
    assert first.new == 2 and first.unchanged is False and first.notices == ()
    again = merge_votes(first.votes, _imp([("1", "a", "x"), ("2", "a", "y")]))
    assert again.unchanged and again.same == 2
    pd.testing.assert_frame_equal(again.votes, first.votes)  # unknown times keep the stored ones
    more = merge_votes(first.votes, _imp([("1", "b", "x"), ("2", "a", "x")], (5.0, 6.0)))
    assert more.new == 1 and more.changed == (("2", "a", "y", "x"),)
    assert more.votes.values.tolist() == [["1", "a", "x", 3.0], ["2", "a", "x", 6.0],
                                          ["1", "b", "x", 5.0]]
    assert "1 labels replace the same annotator's earlier label (annotator 'a'" in \
        more.notices[1]
    full = votes_import(more, _imp([("1", "b", "x"), ("2", "a", "x")]))
    assert full.where == ("an earlier import", "row 2", "row 1")
    assert full.times().tolist() == [3.0, 6.0, 5.0]


def test_times_are_checked():
    check_seconds([0.0, np.nan, 86_400.0], ["a", "b", "c"])
    with pytest.raises(DataError, match=r"2 label times .* row 2 \(-1\), row 3 \(inf\)"):
        check_seconds([1.0, -1.0, np.inf], ["row 1", "row 2", "row 3"])


def test_stored_file_round_trips(tmp_path):
    votes = merge_votes(None, _imp([("007", "a", "=1+1"), ("2", "", "y")], (np.nan, 2.5))).votes
    path = votes_path(tmp_path / "t.csv")
    assert path.name == "t.csv.labels.csv"
    write_votes(votes, path)
    back = read_votes(path)
    assert back["sample_id"].tolist() == ["007", "2"] and back["label"].tolist() == ["=1+1", "y"]
    assert back["annotator"].tolist() == ["a", ""]
    assert np.isnan(back["seconds"].iloc[0]) and back["seconds"].iloc[1] == 2.5
    assert read_votes(tmp_path / "none.csv") is None
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match="lack column sample_id, annotator, label, seconds"):
        read_votes(tmp_path / "bad.csv")
