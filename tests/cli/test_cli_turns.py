"""``hmceval turns --json``."""

from __future__ import annotations

import json

from core.cli import main
from core.assignment import TURN_KEYS


def test_turns_json(capsys, hmceval_tsv):
    code = main(["turns", str(hmceval_tsv), "--lam", "4.6", "--human-share", "0.5", "--json",
                 "--bootstrap", "100"])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert all(list(r)[:len(TURN_KEYS)] == list(TURN_KEYS) for r in rows)
    by_turn = {r["turn"]: r for r in rows}
    assert by_turn[1]["n"] == 1199 and round(by_turn[1]["accuracy"], 4) == 0.9775
    assert round(by_turn[3]["accuracy"], 4) == 0.9875


def test_turns_without_turn_column(capsys, tmp_path):
    p = tmp_path / "x.csv"
    p.write_text("machine_label,machine_confidence\n1,0.5\n0,0.2\n")
    assert main(["turns", str(p)]) == 2
    assert "turn" in capsys.readouterr().err
