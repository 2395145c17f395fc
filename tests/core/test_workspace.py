"""The workspace (``core.workspace``): a real SQLite database with Parquet tables beside it."""

from __future__ import annotations

import json
import multiprocessing as mp
import sqlite3

import numpy as np
import pandas as pd
import pytest

from core.data import prepare
from core.demo import make_demo
from core.errors import DataError
from core.workspace import SCHEMA_VERSION, Workspace
from core.workspace import rounds as R
from core.workspace.schema import MIGRATIONS


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "ws")


@pytest.fixture(scope="module")
def demo():
    return prepare(make_demo(), name="demo")


def test_dataset_round_trip_and_dedup(ws, demo):
    i = R.dataset_id_for(ws, demo)
    assert R.dataset_id_for(ws, demo) == i  # same content and mapping: one dataset
    stored = ws.dataset(i)
    pd.testing.assert_frame_equal(stored["raw"], demo.raw)
    again = R.data_from_workspace(ws, i)
    assert again.roles == demo.roles and again.labels == demo.labels
    assert len(ws.list_datasets()) == 1


def test_reopening_sees_everything(tmp_path, demo):
    root = tmp_path / "ws"
    ws = Workspace(root)
    rid = R.plan_round(ws, demo, kind="budget",
                       settings={"lam": 1.0, "share": 0.5, "audit": 50, "seed": 1})
    R.simulate_annotators(ws, rid, fraction=0.5)
    sid = ws.save_scenario("first", ws.round(rid)["dataset_id"], {"lam": 1.0, "round_id": rid})
    fresh = Workspace(root)  # a restart: a new process would open the same files
    assert fresh.schema_version == SCHEMA_VERSION
    assert fresh.scenario("first")["id"] == sid
    rnd = fresh.round(rid)
    assert rnd["settings"]["audit"] == 50 and (rnd["selection"] == "audit").sum() == 50
    assert len(fresh.round_labels(rid)) == len(ws.round_labels(rid)) > 0


def test_labels_accumulate_and_the_latest_import_wins(ws, demo):
    rid = R.plan_round(ws, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    rows = np.flatnonzero(ws.round(rid)["selection"] == "routed")[:3]
    R.import_labels(ws, rid, rows[:2], [0, 1], source="csv", file_name="a.csv")
    R.import_labels(ws, rid, rows[1:], [0, 1], source="csv", file_name="b.csv")
    assert ws.round_labels(rid) == {int(rows[0]): 0, int(rows[1]): 0, int(rows[2]): 1}
    assert ws.imports(rid)["file_name"].tolist() == ["a.csv", "b.csv"]


def test_import_errors_change_nothing(ws, demo):
    rid = R.plan_round(ws, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    sel = ws.round(rid)["selection"]
    routed = np.flatnonzero(sel == "routed")
    machine = np.flatnonzero(sel == "machine")
    with pytest.raises(DataError, match=rf"^1 labelled rows are not in the round's queue \(for "
                       rf"example sample id {machine[0] + 1} \(row {machine[0] + 1}\), selection "
                       r"'machine'\); nothing was imported.$"):
        R.import_labels(ws, rid, np.r_[routed[:2], machine[:1]], [0, 1, 0], source="csv")
    with pytest.raises(DataError, match="not one of the dataset's classes"):
        R.import_labels(ws, rid, routed[:2], [0, "maybe"], source="csv")
    with pytest.raises(DataError, match="two labels for the same row"):
        ws.add_labels(rid, np.r_[routed[:1], routed[:1]], [0, 1], source="csv")
    assert ws.round_labels(rid) == {} and ws.imports(rid).empty


def test_a_failure_inside_the_transaction_rolls_back(ws, demo, monkeypatch):
    """A crash in the middle of an import (here: the database refuses the 2nd label row)
    leaves the previous state: neither the import record nor any label is kept."""
    rid = R.plan_round(ws, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    routed = np.flatnonzero(ws.round(rid)["selection"] == "routed")
    R.import_labels(ws, rid, routed[:1], [1], source="csv")
    before = (ws.round_labels(rid), len(ws.imports(rid)))
    real_dumps = json.dumps
    calls = {"n": 0}

    def failing(obj, *a, **k):  # the label encoder fails on the second row
        calls["n"] += 1
        if calls["n"] == 3:
            raise sqlite3.OperationalError("disk I/O error (simulated)")
        return real_dumps(obj, *a, **k)

    monkeypatch.setattr("core.workspace.store.json.dumps", failing)
    with pytest.raises(sqlite3.OperationalError):
        ws.add_labels(rid, routed[1:4], [0, 1, 0], source="csv")
    monkeypatch.undo()
    assert (ws.round_labels(rid), len(ws.imports(rid))) == before


def _writer(root: str, start: int) -> None:
    import traceback
    from pathlib import Path

    try:
        w = Workspace(root)
        for k in range(25):
            w.save_scenario(f"s{start + k}", 1, {"k": start + k})
    except BaseException:  # the parent reads why
        Path(root, f"writer{start}.err").write_text(traceback.format_exc())
        raise


def test_two_processes_writing_at_once_corrupt_nothing(tmp_path, demo):
    root = tmp_path / "ws"
    ws = Workspace(root)
    R.dataset_id_for(ws, demo)
    ctx = mp.get_context("fork")  # both start at once, without re-importing the test module
    procs = [ctx.Process(target=_writer, args=(str(root), s)) for s in (0, 100)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    errors = [f.read_text() for f in root.glob("writer*.err")]
    assert not errors, errors
    assert [p.exitcode for p in procs] == [0, 0]
    names = set(Workspace(root).list_scenarios()["name"])
    assert names == {f"s{i}" for i in list(range(25)) + list(range(100, 125))}
    con = sqlite3.connect(root / "workspace.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_newer_app_opens_older_workspace_and_refuses_a_newer_one(tmp_path, demo, monkeypatch):
    import core.workspace.schema as schema

    root = tmp_path / "ws"
    old = Workspace(root)
    dsid = R.dataset_id_for(old, demo)
    old.save_scenario("kept", dsid, {"lam": 3.0})
    # a newer app: one more migration (a new column); opening the old workspace migrates it
    monkeypatch.setattr(schema, "MIGRATIONS",
                        MIGRATIONS + ["ALTER TABLE scenarios ADD COLUMN note TEXT"])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    new = Workspace(root)
    assert new.schema_version == SCHEMA_VERSION + 1
    assert new.scenario("kept")["settings"] == {"lam": 3.0}
    assert "note" in new.scenario("kept")
    monkeypatch.undo()
    # and the older app refuses the migrated (newer) workspace with a clear message
    with pytest.raises(DataError, match="newer HMCEval Studio"):
        Workspace(root)


def test_scenario_export_import(tmp_path, demo):
    a = Workspace(tmp_path / "a")
    dsid = R.dataset_id_for(a, demo)
    a.save_scenario("plan", dsid, {"lam": 2.5, "share": 0.4, "evaluate": {"audit": 30}})
    obj = json.loads(json.dumps(a.export_scenario("plan")))
    b = Workspace(tmp_path / "b")
    with pytest.raises(DataError, match="not in this workspace"):
        b.import_scenario(obj)
    wrong = demo.raw.copy()
    wrong.loc[0, "machine_label"] = 1 - wrong.loc[0, "machine_label"]
    with pytest.raises(DataError, match="content differs"):
        b.import_scenario(obj, raw=wrong)
    sid = b.import_scenario(obj, raw=demo.raw)
    sc = b.scenario(sid)
    # settings come back as saved, but a round id stays in the workspace it ran in
    assert sc["settings"] == {"lam": 2.5, "share": 0.4, "evaluate": {"audit": 30, "round_id": None}}
    assert R.data_from_workspace(b, sc["dataset_id"]).roles == demo.roles
    with pytest.raises(DataError, match="not an HMCEval scenario"):
        b.import_scenario({"name": "x"})


def test_guarantee_round_end_to_end(ws, demo):
    rid = R.plan_round(ws, demo, kind="guarantee",
                       settings={"calibration": 800, "alpha": 0.1, "delta": 0.1, "lam": 0.0,
                                 "audit": 100, "seed": 2})
    early = R.round_summary(ws, rid)
    assert early["estimate"] is None and "label the calibration sample and certify" in early["estimate_error"]
    R.simulate_annotators(ws, rid)
    cert = R.certify_round(ws, rid, alpha=0.1, delta=0.1, audit=100, seed=2)
    assert cert["n_calibration"] == 800 and cert["n_machine"] + cert["n_human"] == demo.M - 800
    with pytest.raises(DataError, match="certified already"):
        R.certify_round(ws, rid, alpha=0.1, delta=0.1)
    rnd, design = R.round_design(ws, rid)
    assert (design.selection == "audit").sum() == 100
    R.simulate_annotators(ws, rid)
    s = R.round_summary(ws, rid)
    est = s["estimate"]
    assert est["n_calibration"] == 800 and est["n_audit"] == 100
    truth = float((demo.frame["human_label"] == 1).mean())
    assert est["class_shares"]["1"]["ci_low"] <= truth <= est["class_shares"]["1"]["ci_high"]
    assert s["certificate"]["guarantee"] == cert["guarantee"]
    final = R.final_table(design)
    assert final["final_label"].notna().all()


def test_a_schema_1_workspace_is_migrated_to_keep_annotations(tmp_path, demo, monkeypatch):
    """A workspace written by the first release (schema 1, no annotations table) opens in this
    one: its data stays and the annotations table is added."""
    import core.workspace.schema as schema

    root = tmp_path / "ws"
    monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS[:1])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 1)
    old = Workspace(root)
    rid = R.plan_round(old, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    routed = np.flatnonzero(old.round(rid)["selection"] == "routed")
    old.add_labels(rid, routed[:2], [0, 1], source="csv")
    con = sqlite3.connect(root / "workspace.sqlite")
    assert con.execute("SELECT name FROM sqlite_master WHERE name='annotations'").fetchone() is None
    con.close()
    monkeypatch.undo()
    new = Workspace(root)
    assert new.schema_version == SCHEMA_VERSION == 4
    assert new.round_labels(rid) == {int(routed[0]): 0, int(routed[1]): 1}
    new.add_labels(rid, routed[2:3], [1], source="labelstudio", annotations=[(int(routed[2]), "7", 1)])
    assert new.annotations(rid)[["row", "annotator", "label"]].values.tolist() == [[int(routed[2]), "7", 1]]


def test_store_parts_schema_and_tables(tmp_path):
    """The store's parts: the schema's migrations and the Parquet files, each with one home and
    the package ``core.workspace`` as their face (the store re-exports nothing); a plan reads back
    as written (undecided rows as "", unqueued ranks as NaN)."""
    import core.workspace as face
    import core.workspace.schema as schema
    import core.workspace.store as store
    import core.workspace.tables as tables

    assert face.SCHEMA_VERSION == schema.SCHEMA_VERSION == 4 and face.table_hash is tables.table_hash
    assert "MIGRATIONS" not in store.__all__ and "table_hash" not in store.__all__
    sel, rank = tables.plan_rows(tables.plan_frame(np.array(["", "routed", "machine"], object),
                                                   np.array([np.nan, 1.0, np.nan])))
    assert sel.tolist() == ["", "routed", "machine"]
    assert np.isnan(rank[0]) and rank[1] == 1.0 and np.isnan(rank[2])
    with pytest.raises(DataError, match=r"nope\.parquet is missing"):
        tables.read_table(tmp_path, "nope.parquet")


def test_unknown_ids_are_named(ws):
    with pytest.raises(DataError, match=r"^no dataset with id 99 in the workspace$"):
        ws.dataset(99)
    with pytest.raises(DataError, match=r"^no dataset with id 98 in the workspace$"):
        ws.save_scenario("s", 98, {})
    with pytest.raises(DataError, match=r"^no dataset with id 97 in the workspace$"):
        ws.create_round(97, kind="budget", settings={}, selection=np.array(["routed"], object),
                        queue_rank=np.array([1.0]))
    with pytest.raises(DataError, match=r"^no round with id 96 in the workspace$"):
        ws.round(96)
    assert ws.list_scenarios().empty and ws.list_rounds().empty


def test_certified_round_counts_its_calibration_rows(ws, demo):
    """After certifying, the labelled calibration rows stay rows of the round's queue (their
    ranks 1..800 unchanged): rows to label = calibration + audit + routed, never fewer than
    the rows labelled (the QA's 'Round #3: 3,461 of 2,461 labelled')."""
    rid = R.plan_round(ws, demo, kind="guarantee",
                       settings={"calibration": 800, "alpha": 0.1, "delta": 0.1, "lam": 0.0,
                                 "audit": 100, "seed": 2})
    before = ws.round(rid)["queue_rank"].copy()
    R.simulate_annotators(ws, rid)
    R.certify_round(ws, rid, alpha=0.1, delta=0.1, audit=100, seed=2)
    rnd = ws.round(rid)
    sel, rank = rnd["selection"], rnd["queue_rank"]
    cal = sel == "calibration"
    assert cal.sum() == 800
    np.testing.assert_array_equal(rank[cal], before[cal])
    assert sorted(rank[cal]) == list(range(1, 801))
    n_routed = int((sel == "routed").sum())
    # the audit follows the calibration rows, then the routed rows
    assert sorted(rank[sel == "audit"]) == list(range(801, 901))
    assert sorted(rank[sel == "routed"]) == list(range(901, 901 + n_routed))
    listed = ws.list_rounds().set_index("id").loc[rid]
    assert listed["n_to_label"] == 800 + 100 + n_routed
    assert listed["n_labelled"] == 800
    R.simulate_annotators(ws, rid)
    listed = ws.list_rounds().set_index("id").loc[rid]
    assert listed["n_labelled"] == listed["n_to_label"] == 900 + n_routed


def test_certify_audit_is_chosen_at_certify_time(ws, demo):
    """The audit asked when certifying is the one drawn and saved (not the plan's); an audit
    larger than the rows the machine keeps is refused with the largest possible one named,
    and certify_outlook gives that number beforehand."""
    rid = R.plan_round(ws, demo, kind="guarantee",
                       settings={"calibration": 1000, "alpha": 0.05, "delta": 0.1, "lam": 0.0,
                                 "audit": 200, "seed": 0})
    R.simulate_annotators(ws, rid)
    look = R.certify_outlook(ws, rid, alpha=0.05, delta=0.1, audit=10**6)
    kept = look["n_machine"]
    assert 0 < kept and look["audit"] == kept
    assert look["n_calibration"] == 1000 and look["n_routed"] == demo.M - 1000 - kept
    assert look["rows_labelled"] == 1000 + look["n_routed"] + kept  # calibration, routed, audit
    with pytest.raises(DataError, match=f"exceeds the {kept} rows the machine keeps; choose an "
                                        f"audit of at most {kept}"):
        R.certify_round(ws, rid, alpha=0.05, delta=0.1, audit=kept + 1)
    assert ws.latest_result(rid, "certify") is None  # nothing stored
    R.certify_round(ws, rid, alpha=0.05, delta=0.1, audit=7)
    rnd = ws.round(rid)
    assert (rnd["selection"] == "audit").sum() == 7
    assert rnd["settings"]["audit"] == 7 and rnd["settings"]["calibration"] == 1000
    assert ws.latest_result(rid, "certify")["audit"] == 7


def test_labelling_outlook_counts_every_row_humans_label():
    """Routed rows plus the audit's expected effort: hand-worked on six rows."""
    raw = pd.DataFrame({"machine_label": [0, 1, 0, 1, 0, 1],
                        "machine_confidence": [0.9, 0.8, 0.7, 0.6, 0.9, 0.9],
                        "human_effort": [1.0, 2.0, 3.0, 4.0, 6.0, 4.0]})
    data = prepare(raw, name="six")
    human = np.array([False, False, True, True, False, False])
    # humans: rows 2 and 3 (effort 7) plus an audit of 2 of the other four (mean effort 13/4)
    out = R.labelling_outlook(data, human, audit=2)
    assert out["rows_labelled"] == 4 and out["rows_total"] == 6
    assert out["effort_share"] == pytest.approx((7 + 2 * 13 / 4) / 20)
    assert R.labelling_outlook(data, human)["effort_share"] == pytest.approx(7 / 20)
    with pytest.raises(DataError, match="at most 4"):
        R.labelling_outlook(data, human, audit=5)


def test_budget_round_waits_for_routed_rows_only(ws, demo):
    """A budget round has no calibration sample: its missing rows are called routed."""
    rid = R.plan_round(ws, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    err = R.round_summary(ws, rid)["estimate_error"]
    assert err.endswith(" routed rows still need a human label") and "calibration" not in err


def test_round_version_changes_with_every_plan_or_label_change(ws, demo):
    """The Evaluate page caches a round's Design on this key: it must change whenever the
    round's plan or labels do, and only then."""
    rid = R.plan_round(ws, demo, kind="budget", settings={"lam": 1.0, "share": 0.1, "audit": 0})
    v0 = ws.round_version(rid)
    assert ws.round_version(rid) == v0 and v0[1:] == (0, 0)
    ws.record_event(rid, "exported", {"format": "csv"})  # not a change of state
    assert ws.round_version(rid) == v0
    routed = np.flatnonzero(ws.round(rid)["selection"] == "routed")
    R.import_labels(ws, rid, routed[:3], [0, 1, 0], source="csv")
    v1 = ws.round_version(rid)
    assert v1[0] == v0[0] and v1[1] == 3 and v1[2] > 0
    R.import_labels(ws, rid, routed[:3], [1, 1, 1], source="csv")  # corrections: same rows
    v2 = ws.round_version(rid)
    assert v2[1] == v1[1] + 3 and v2[2] > v1[2]
    rnd = ws.round(rid)
    ws.update_plan(rid, rnd["selection"], rnd["queue_rank"], action="same plan")
    assert ws.round_version(rid) == v2  # plans are stored by content: the same plan, the same key
    sel, rank = rnd["selection"].copy(), rnd["queue_rank"].copy()
    one = np.flatnonzero(sel == "machine")[0]
    sel[one], rank[one] = "audit", np.nanmax(rank) + 1
    ws.update_plan(rid, sel, rank, action="audit added")
    assert ws.round_version(rid)[0] != v2[0]
    with pytest.raises(DataError):
        ws.round_version(999)


def test_the_last_active_dataset_is_remembered(ws, demo):
    assert ws.last_active() is None
    dsid = R.dataset_id_for(ws, demo)
    ws.remember_active(dsid)
    assert ws.last_active() == dsid
    assert Workspace(ws.root).last_active() == dsid  # in the file: a restart reads it
    ws.remember_active(None)
    assert ws.last_active() == "demo"
    with pytest.raises(DataError):
        ws.remember_active(dsid + 99)
    assert ws.last_active() == "demo"  # a refused id changes nothing


# ---------------------------------------------------------------- issue 24: damaged or read-only files

@pytest.mark.parametrize("content, match", [(b"", "is empty \\(0 bytes\\): it is not replaced"),
                                            (b"garbage" * 100, "not a workspace database")])
def test_an_empty_or_foreign_database_file_is_reported_never_replaced(tmp_path, content, match):
    """An empty workspace.sqlite was silently replaced by a new workspace."""
    db = tmp_path / "workspace.sqlite"
    db.write_bytes(content)
    with pytest.raises(DataError, match=match):
        Workspace(tmp_path)
    assert db.read_bytes() == content


def test_a_read_only_workspace_opens_for_reading_and_refuses_writes(tmp_path, monkeypatch):
    """A read-only workspace could not be opened at all ("attempt to write a readonly
    database"), even to look. (Tests run as root, which the file system lets write anything:
    the permission check is what is made to answer "no".)"""
    import os

    first = Workspace(tmp_path)
    demo = make_demo(20, seed=1)
    did = first.add_dataset(demo, name="demo", roles=None)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if mode == os.W_OK
                        else real(p, mode, **k))
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    ro = Workspace(tmp_path)
    assert ro.read_only and not first.read_only
    assert ro.list_datasets()["id"].tolist() == [did]
    assert len(ro.dataset(did)["raw"]) == len(demo)
    with pytest.raises(DataError, match="is read-only: it can be looked at, nothing can be saved"):
        ro.add_dataset(make_demo(10, seed=2), name="other", roles=None)
    after = {p.name: p.stat().st_mtime_ns for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


def test_a_damaged_table_file_is_a_data_error_naming_it(tmp_path):
    """A damaged Parquet file made hmceval report print pyarrow's ArrowInvalid traceback."""
    from core.cli import main

    ws = Workspace(tmp_path)
    did = ws.add_dataset(make_demo(20, seed=1), name="demo", roles=None)
    for f in (tmp_path / "tables").glob("*.parquet"):
        f.write_bytes(f.read_bytes()[:40])
    with pytest.raises(DataError, match="is damaged and cannot be read"):
        ws.dataset(did)
    ws.save_scenario("s", did, {})
    code = main(["report", "--workspace", str(tmp_path), "s", "-o", str(tmp_path / "r.html")])
    assert code == 2 and not (tmp_path / "r.html").exists()


def test_no_home_directory_is_a_data_error_saying_what_to_set(monkeypatch):
    from pathlib import Path

    from core.workspace import default_root

    monkeypatch.delenv("HMCEVAL_WORKSPACE", raising=False)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: (_ for _ in ()).throw(
        RuntimeError("Could not determine home directory."))))
    with pytest.raises(DataError, match="no home directory .* set HMCEVAL_WORKSPACE"):
        default_root()
