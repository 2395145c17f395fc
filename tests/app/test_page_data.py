"""Data page: demo by default, uploads, mapping, validation errors that keep the active data."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from core.data import prepare
from pages._common import fingerprint


def _activate(at, name: str, content: bytes):
    """Simulate an upload: the page keeps the last upload in session state."""
    at.session_state["upload"] = {"name": name, "bytes": content}
    at.run()
    return at


def test_loads_with_demo_by_default(run_page):
    at = run_page("1_Data.py")
    assert not at.exception
    assert at.session_state["data_source"] == "demo"
    labels = {m.label: m.value for m in at.metric}
    assert labels["Samples"] == f"{at.session_state['data'].M:,}"
    assert "n/a" not in labels["Machine accuracy"]


def test_upload_map_and_activate(run_page, hmceval_tsv):
    at = run_page("1_Data.py")
    _activate(at, "release.tsv", Path(hmceval_tsv).read_bytes())
    assert not at.exception and not at.error
    assert at.selectbox(key="map_machine_label").value == "machine_predict"
    assert at.selectbox(key="map_human_label").value == "target"
    submit = [b for b in at.button if "Validate" in str(b.label)]
    submit[0].click().run()
    assert not at.exception and not at.error
    assert at.session_state["data"].M == 5673
    assert at.session_state["data_source"] == "upload"


def test_bad_file_shows_error_and_keeps_active_data(run_page):
    at = run_page("1_Data.py")
    before = at.session_state["data_key"]
    _activate(at, "broken.json", b'[{"a": 1}, ')
    assert not at.exception
    assert at.error and "not valid JSON" in at.error[0].value
    assert at.session_state["data_key"] == before


def test_bad_mapping_shows_error_and_keeps_active_data(run_page):
    at = run_page("1_Data.py")
    before = at.session_state["data_key"]
    _activate(at, "bad.csv", b"machine_label,machine_confidence\n1,0.5\n0,1.7\n1,0.2\n")
    submit = [b for b in at.button if "Validate" in str(b.label)]
    submit[0].click().run()
    assert not at.exception
    assert at.error and "machine_confidence" in at.error[0].value and "row 2" in at.error[0].value
    assert at.session_state["data_key"] == before
    assert at.session_state["upload"]["name"] == "bad.csv"  # the upload is kept


def test_no_gold_dataset_warns(run_page):
    import pandas as pd
    df = pd.DataFrame({"machine_label": [0, 1, 1, 0], "machine_confidence": [0.2, 0.9, 0.6, 0.8]})
    data = prepare(df, name="nogold")
    at = run_page("1_Data.py", state={"data": data, "data_key": fingerprint(df), "data_source": "upload"})
    assert not at.exception
    assert any("No gold labels" in w.value for w in at.warning)
    assert {m.label: m.value for m in at.metric}["Machine accuracy"] == "n/a"


# ------------------------------------------------------------------ issue 12: state bugs
NO_GOLD = b"machine_label,confidence\n0,0.2\n1,0.9\n1,0.6\n0,0.8\n"
WITH_GOLD = b"machine_label,confidence,gold,turn\n0,0.2,0,1\n1,0.9,1,2\n1,0.6,0,1\n0,0.8,0,2\n"


def _validate(at):
    [b for b in at.button if "Validate" in str(b.label)][0].click().run()
    return at


def test_next_upload_gets_its_own_detected_mapping(run_page):
    at = run_page("1_Data.py")
    _activate(at, "first.csv", NO_GOLD)
    assert at.selectbox(key="map_human_label").value == "—"
    assert at.selectbox(key="map_turn").value == "—"
    _activate(at, "second.csv", WITH_GOLD)
    assert not at.exception and not at.error
    assert at.selectbox(key="map_human_label").value == "gold"
    assert at.selectbox(key="map_turn").value == "turn"
    _validate(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    data = at.session_state["data"]
    assert data.name == "second.csv" and data.has_gold and "turn" in data.frame


def test_a_user_choice_does_not_leak_into_the_next_file(run_page):
    at = run_page("1_Data.py")
    _activate(at, "first.csv", WITH_GOLD)
    at.selectbox(key="map_human_label").set_value("—")
    _validate(at)
    assert not at.session_state["data"].has_gold
    _activate(at, "second.csv", WITH_GOLD.replace(b"0,0.2,0,1", b"0,0.25,0,1"))
    assert at.selectbox(key="map_human_label").value == "gold"


def test_unhashable_table_is_refused_and_the_active_dataset_kept(run_page, monkeypatch):
    import pages._common as common

    at = run_page("1_Data.py")
    before, key = at.session_state["data"], at.session_state["data_key"]
    _activate(at, "odd.csv", WITH_GOLD)

    def unhashable(df, roles=None):
        raise TypeError("unhashable type: 'dict'")

    monkeypatch.setattr(common, "fingerprint", unhashable)
    monkeypatch.setattr(pd.util, "hash_pandas_object", lambda *a, **k: unhashable(None))
    _validate(at)
    assert not at.exception
    assert any("cannot be compared" in e.value and "column(s) machine_label" in e.value
               for e in at.error), [e.value for e in at.error]
    assert at.session_state["data"] is before and at.session_state["data_key"] == key
    assert at.session_state["data"].name == "Built-in demo"


def test_sidebar_names_the_new_dataset_right_after_make_active():
    from streamlit.testing.v1 import AppTest

    root = Path(__file__).resolve().parents[2]
    at = AppTest.from_file(str(root / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/1_Data.py").run()
    at.session_state["upload"] = {"name": "second.csv", "bytes": WITH_GOLD}
    at.run()
    _validate(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.startswith("second.csv · 4 samples") for c in captions), captions
    assert any("second.csv is now the active dataset" in s.value for s in at.success)
