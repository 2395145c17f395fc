"""core.workspace.schema: migration 4 (live settings) on a workspace of schema 3; the live
settings of a dataset as stored and read back."""

from __future__ import annotations

import sqlite3

from core.data import prepare
from core.demo import make_demo
from core.workspace import Workspace
from core.workspace.schema import MIGRATIONS, SCHEMA_VERSION


def test_a_schema_3_workspace_gains_live_settings(tmp_path, monkeypatch):
    import core.workspace.schema as schema

    root = tmp_path / "ws"
    monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS[:3])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 3)
    old = Workspace(root)
    dsid = old.add_dataset(make_demo(), name="demo")
    con = sqlite3.connect(root / "workspace.sqlite")
    assert con.execute("SELECT name FROM sqlite_master WHERE name='live_settings'").fetchone() is None
    con.close()
    monkeypatch.undo()
    new = Workspace(root)
    assert new.schema_version == SCHEMA_VERSION == 4
    assert new.dataset(dsid)["name"] == "demo"
    assert new.live_settings("k") is None
    new.save_live_settings("k", {"lam": 0.0025, "share": 0.3})
    new.save_live_settings("k", {"lam": 62.581039, "share": 0.3})  # replaces
    assert new.live_settings("k") == {"lam": 62.581039, "share": 0.3}
    assert Workspace(root).live_settings("k") == {"lam": 62.581039, "share": 0.3}  # restart


def test_datasets_are_found_by_content_id(tmp_path):
    ws = Workspace(tmp_path / "ws")
    data = prepare(make_demo(), name="demo")
    dsid = ws.add_dataset(data.raw, name="demo", roles=data.roles, content_id=data.content_id)
    assert ws.find_dataset(data.raw, data.roles) == dsid  # hashed here: the same id
    assert ws.list_datasets()["content_hash"].tolist() == [data.content_id]
    assert ws.add_dataset(ws.dataset(dsid)["raw"], name="again", roles=data.roles) == dsid


def test_a_dataset_stored_under_the_former_csv_hash_is_found_and_rekeyed(tmp_path):
    """Datasets stored before the content id carry the CSV text's hash: an upgraded workspace
    still finds them (and their rounds), re-keys them once, and stores no duplicate."""
    from core.workspace.tables import legacy_table_hash, table_hash

    data = prepare(make_demo(), name="demo")
    roles = dict(data.roles)
    ws = Workspace(str(tmp_path / "ws"))
    did = ws.add_dataset(data.raw, name="demo", roles=roles)
    # what a workspace written before schema 4 holds: the legacy key
    with sqlite3.connect(tmp_path / "ws" / "workspace.sqlite") as con:
        con.execute("UPDATE datasets SET content_hash=? WHERE id=?",
                    (legacy_table_hash(data.raw), did))
    assert ws.find_dataset(data.raw, roles, content_id=data.content_id) == did
    with sqlite3.connect(tmp_path / "ws" / "workspace.sqlite") as con:
        key = con.execute("SELECT content_hash FROM datasets WHERE id=?", (did,)).fetchone()[0]
        count = con.execute("SELECT COUNT(*) FROM datasets").fetchone()[0]
    assert key == table_hash(data.raw) == data.content_id
    assert ws.add_dataset(data.raw, name="demo", roles=roles) == did and count == 1
    # another mapping of the same table is another dataset, not this one
    assert ws.find_dataset(data.raw, {**roles, "turn": None}) is None
