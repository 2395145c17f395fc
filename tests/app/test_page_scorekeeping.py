"""Scorekeeping page: demo by default, uploads of clembench runs, bad uploads shown with st.error."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

PAGE = "7_Scorekeeping.py"
RECORDED = [
    "Mistral-Small-24B-Instruct-2501/1_job-interview/episode_1",
    "Mistral-Small-24B-Instruct-2501/1_job-interview/episode_5",
    "Mistral-Small-24B-Instruct-2501/0_travel-booking/episode_0",
    "Llama-3.3-70B-Instruct/3_things-places/episode_4",
    "mistral-large-2411/0_travel-booking/episode_7",
]


def _zip(root: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for rel in RECORDED:
            for name in ("interactions.json", "scores.json"):
                zf.writestr(f"runs/{rel}/{name}", (root / rel / name).read_bytes())
    return buf.getvalue()


def _texts(elements) -> list[str]:
    return [str(e.value) for e in elements]


def test_demo_by_default(run_page):
    at = run_page(PAGE)
    assert not at.exception
    assert not at.error
    assert any("Simulated demo episodes" in t for t in _texts(at.info))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Episodes"].startswith("24 (")
    assert set(metrics) == {"Episodes", "% Played", "Quality Score", "clemscore"}
    assert len(at.dataframe) >= 3
    # a different seed gives different simulated episodes
    first = metrics["Quality Score"]
    at.number_input[0].set_value(5)
    at.button[0].click().run()
    assert not at.exception
    assert at.session_state["sk_seed"] == 5
    assert {m.label: m.value for m in at.metric}["Quality Score"] != first


def test_upload_zip_of_recorded_runs(run_page, shared_data: Path):
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("runs.zip", _zip(shared_data / "clembench"), "application/zip")])
    at.run()
    assert not at.exception
    assert not at.error
    assert at.session_state["sk_source"] == "upload"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Episodes"] == "5 (4 played)"
    assert metrics["% Played"] == "80.00"
    assert metrics["Quality Score"] == "75.92"  # mean of the four recorded Main Scores
    assert metrics["clemscore"] == "60.74"
    assert any("5 episode(s) had clembench's scores.json" in t and "identical" in t
               for t in _texts(at.success))
    table = at.dataframe[1].value
    assert list(table["matches recorded"]) == ["yes"] * 5
    row = table[table["episode"].str.endswith("mistral-large-2411/0_travel-booking/episode_7")].iloc[0]
    assert row["Middle-Accuracy"] == "NaN" and row["Aborted"] == 1


def test_upload_flat_json_files(run_page, shared_data: Path):
    ep = shared_data / "clembench" / RECORDED[2]
    at = run_page(PAGE)
    at.file_uploader[0].set_value([
        ("interactions.json", (ep / "interactions.json").read_bytes(), "application/json"),
        ("scores.json", (ep / "scores.json").read_bytes(), "application/json"),
    ])
    at.run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.86"
    assert any("1 episode(s)" in t for t in _texts(at.success))


def test_bad_upload_shows_error_and_keeps_previous(run_page, shared_data: Path):
    at = run_page(PAGE)
    good = ("runs.zip", _zip(shared_data / "clembench"), "application/zip")
    at.file_uploader[0].set_value([good])
    at.run()
    assert not at.error
    log = json.loads((shared_data / "clembench" / RECORDED[0] / "interactions.json").read_text())
    log["probes"][2][1]["value"] = "maybe"
    at.file_uploader[0].set_value([("broken.json", json.dumps(log).encode(), "application/json")])
    at.run()
    assert not at.exception
    errors = _texts(at.error)
    assert any("broken.json: field 'probes'[2][1]['value'] must be 0 or 1, got 'maybe'" in e for e in errors)
    assert any("previously loaded" in t for t in _texts(at.info))
    assert {m.label: m.value for m in at.metric}["Episodes"] == "5 (4 played)"
    # the failed upload is kept in state, not dropped
    assert at.session_state["sk_upload"][0][0] == "broken.json"


def test_bad_first_upload_falls_back_to_demo_with_error(run_page):
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("x.json", b"{oops", "application/json")])
    at.run()
    assert not at.exception
    assert any("x.json: not valid JSON" in e for e in _texts(at.error))
    assert any("demo" in t for t in _texts(at.info))


def test_round_zero_abort_detail(run_page):
    log = {"players": {"GM": "Game master for privateshared", "Player 1": "Answerer: m"},
           "probes": [[{"target": "A", "question": "q", "gt": 0, "answer": "x", "value": -1, "tries": 6}]],
           "realised_slots": {f"s{i}": i for i in range(5)}, "Request Count": [5, 0, 0, 0, 0, 0],
           "Parsed Request Count": [0] * 6, "Violated Request Count": [5, 0, 0, 0, 0, 0],
           "Filled Slots": [], "Aborted": True, "Played Probe Rounds": 0}
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("e/interactions.json", json.dumps(log).encode(), "application/json")])
    at.run()
    assert not at.exception and not at.error
    assert any("aborted in round 0" in t for t in _texts(at.info))
    assert any("No scored probing round" in t for t in _texts(at.info))
    table = at.dataframe[1].value
    assert table.iloc[0]["Middle-Accuracy"] == "absent"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["% Played"] == "0.00" and metrics["Quality Score"] == "NaN"
