"""A round's settings (``core.workspace.round_settings.RoundSettings``): checked once, each bad
value refused naming its field; stored as the same JSON the plain dicts were (read straight
from the SQLite file); a round row of an older workspace (keys missing, keys unknown) read back
into a RoundSettings with its defaults and nothing lost."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from core.data import prepare
from core.demo import make_demo
from core.errors import DataError
from core.workspace import Workspace
from core.workspace.round_settings import RoundSettings, settings_json
from core.workspace.rounds import plan_round


@pytest.mark.parametrize("field,value", [
    ("design", "clever"), ("mode", "at_least"), ("guarantee", "both"),
    ("lam", float("nan")), ("lam", "1"), ("share", 1.5), ("share", -0.1), ("n_human", 2.5),
    ("audit", -1), ("calibration", True), ("double", -3), ("seed", -1), ("seed", 2**63),
    ("labels", 0), ("effort_budget", -2.0), ("width_ratio", 0.0), ("calibrate_on", 1.5),
    ("alpha", 0.0), ("alpha", 1.0), ("delta", 1.2), ("overall_error", -0.5),
    ("target_half_width", 0), ("stratify", 3), ("decide", ["x"]), ("min_share", 0.2),
])
def test_a_bad_value_is_refused_naming_its_field(field, value):
    with pytest.raises(DataError, match=f"round setting '{field}'"):
        RoundSettings(**{field: value})


def test_a_bad_least_share_names_its_group():
    with pytest.raises(DataError, match=r"min_share\['young'\]"):
        RoundSettings(stratify="age", min_share={"old": 0.1, "young": 1.5})


def test_given_settings_are_a_mapping_of_what_was_given():
    s = RoundSettings(lam=0.0, share=0.2, mode="at_most", audit=5, seed=1)
    assert dict(s) == {"lam": 0.0, "share": 0.2, "mode": "at_most", "audit": 5, "seed": 1}
    assert {**s, "audit": 9}["audit"] == 9 and "alpha" not in s and "lam" in s
    assert s.get("design") is None and s.get("mode", "exactly") == "at_most"
    assert s.budget_design == "routing" and not s.is_weighted and not s.is_stream
    with pytest.raises(KeyError):
        s["alpha"]
    changed = s.with_(audit=9)
    assert changed.audit == 9 and s.audit == 5  # frozen: a new value
    with pytest.raises(DataError, match="no round setting 'alhpa'"):
        s.with_(alhpa=0.1)
    with pytest.raises(DataError, match="round setting 'audit'"):
        s.with_(audit=-1)  # checked again


def test_numpy_numbers_are_stored_as_plain_json_numbers():
    s = RoundSettings(calibrate_on=np.int64(3), labels=np.float64(120.0), design="active")
    assert type(s.calibrate_on) is int and type(s.labels) is float
    assert json.loads(settings_json(s)) == {"calibrate_on": 3, "labels": 120.0,
                                            "design": "active"}


def test_an_older_dict_keeps_its_unknown_keys_and_takes_the_defaults():
    old = {"lam": 1.5, "share": 0.3, "audit": 10, "seed": 4, "retired_option": [1, 2]}
    s = RoundSettings.from_dict(old)
    assert s.mode is None and s.get("mode", "at_most") == "at_most"  # the default
    assert s.extra == {"retired_option": [1, 2]} and s["retired_option"] == [1, 2]
    assert s.to_dict() == old and s == old
    assert RoundSettings.from_dict(None) == {} and RoundSettings.from_dict(s) is s
    with pytest.raises(DataError, match="round setting 'share'"):
        RoundSettings.from_dict({"share": 2})


@pytest.fixture
def ws_data(tmp_path):
    df = make_demo(120)
    data = prepare(df.drop(columns=["human_label_2"]), {})
    return Workspace(tmp_path / "ws"), data, tmp_path / "ws" / "workspace.sqlite"


def _stored(db, rid):
    con = sqlite3.connect(db)
    try:
        return json.loads(con.execute("SELECT settings_json FROM rounds WHERE id=?",
                                      (rid,)).fetchone()[0])
    finally:
        con.close()


def test_a_round_stores_the_json_of_the_settings_and_reads_them_back(ws_data):
    ws, data, db = ws_data
    s = RoundSettings(lam=0.0, share=0.1, mode="exactly", audit=4, seed=2)
    rid = plan_round(ws, data, kind="budget", settings=s)
    assert _stored(db, rid) == {"lam": 0.0, "share": 0.1, "mode": "exactly", "audit": 4,
                                "seed": 2}
    back = ws.round(rid)["settings"]
    assert isinstance(back, RoundSettings) and back.mode == "exactly" and back.audit == 4
    # the plan followed them: exactly 10% of the rows routed, 4 audited
    sel = ws.round(rid)["selection"]
    assert (sel == "routed").sum() == round(0.1 * data.M) and (sel == "audit").sum() == 4


def test_a_round_row_of_an_older_workspace_is_read_with_defaults(ws_data):
    ws, data, db = ws_data
    rid = plan_round(ws, data, kind="budget",
                     settings={"lam": 0.0, "share": 0.1, "audit": 0, "seed": 1})
    con = sqlite3.connect(db)
    con.execute("UPDATE rounds SET settings_json=? WHERE id=?",
                (json.dumps({"lam": 0.0, "share": 0.1, "legacy": "x"}), rid))
    con.commit()
    con.close()
    s = ws.round(rid)["settings"]
    assert s.audit is None and s.get("audit", 0) == 0 and s.extra == {"legacy": "x"}
    from core.workspace.rounds import round_summary

    assert round_summary(ws, rid)["round"]["settings"]["share"] == 0.1  # the report reads it


def test_a_budget_round_without_lam_is_refused_naming_it(ws_data):
    ws, data, _ = ws_data
    with pytest.raises(DataError, match="round setting 'lam'"):
        plan_round(ws, data, kind="budget", settings={"share": 0.1})
    assert ws.list_rounds().empty


def test_too_many_double_rows_are_refused_before_anything_is_stored(ws_data):
    ws, data, _ = ws_data
    with pytest.raises(DataError):
        plan_round(ws, data, kind="budget",
                   settings=RoundSettings(lam=0.0, share=0.05, audit=0, seed=1, double=10**6))
    assert ws.list_rounds().empty and ws.list_datasets().empty
    rid = plan_round(ws, data, kind="budget",
                     settings=RoundSettings(lam=0.0, share=0.05, audit=0, seed=1, double=5))
    double = ws.latest_result(rid, "double")
    queued = np.flatnonzero(np.isfinite(ws.round(rid)["queue_rank"]))
    assert double["k"] == 5 and len(set(double["rows"])) == 5
    assert set(double["rows"]) <= set(queued.tolist())
