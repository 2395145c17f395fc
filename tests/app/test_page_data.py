"""Data page: demo by default, uploads, mapping, validation errors that keep the active data."""

from __future__ import annotations

from pathlib import Path


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
