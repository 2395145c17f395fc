"""The sidecar of a round's table (:mod:`core.cli.round_table`): what it records, the round it
names, and the table it refuses."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core.cli.round_table import (check_round_table, round_link, sidecar_path,
                                  write_round_table)
from core.errors import DataError


def test_the_sidecar_names_the_round_and_checks_the_table(tmp_path):
    table = pd.DataFrame({"sample_id": [3, 1, 2], "selection": ["routed", None, "audit"]})
    path = tmp_path / "t.csv"
    write_round_table(table, path, id_col="sample_id")
    assert round_link(path) is None  # a table of no round
    rec = json.loads(sidecar_path(path).read_text())
    assert rec["rows"] == 3 and rec["sample_id_column"] == "sample_id"
    write_round_table(table, path, id_col="sample_id",
                      link={"round_id": 7, "workspace": str(tmp_path / "ws")})
    assert round_link(path) == {"round_id": 7, "workspace": str(tmp_path / "ws")}
    check_round_table(path, pd.read_csv(path))  # whole: no error
    # sorted rows keep the digest; a lost row does not
    table.sort_values("sample_id").to_csv(path, index=False)
    check_round_table(path, pd.read_csv(path))
    table.iloc[:2].to_csv(path, index=False)
    with pytest.raises(DataError, match="holds 2 rows; its plan has 3"):
        check_round_table(path, pd.read_csv(path))
    assert round_link(tmp_path / "none.csv") is None  # no sidecar
