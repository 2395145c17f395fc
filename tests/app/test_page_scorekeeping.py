"""Scorekeeping page: demo by default, uploads of clembench runs, bad uploads shown with st.error."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from streamlit import dataframe_util

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


def _shown(element) -> pd.DataFrame:
    """What a styled st.dataframe shows: its display values (the data keeps NaN and None)."""
    arrow = element.proto.arrow_data
    assert arrow.HasField("styler"), "the table is not styled"
    return dataframe_util.convert_arrow_bytes_to_pandas_df(arrow.styler.display_values)


def _charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]

def test_demo_by_default(run_page):
    at = run_page(PAGE)
    assert not at.exception
    assert not at.error
    assert any("Simulated demo episodes" in t for t in _texts(at.info))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Episodes played"].endswith(" of 24")  # short enough not to be cut off (issue 13)
    assert set(metrics) == {"Episodes played", "% Played", "Quality Score", "clemscore"}
    assert len(at.dataframe) >= 3
    # a different seed gives different simulated episodes
    first = metrics["Quality Score"]
    next(n for n in at.number_input if n.label == "Demo seed").set_value(5)
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
    assert metrics["Episodes played"] == "4 of 5"
    assert metrics["% Played"] == "80.00"
    assert metrics["Quality Score"] == "75.92"  # mean of the four recorded Main Scores
    assert metrics["clemscore"] == "60.74"
    assert any("5 episode(s) had clembench's scores.json" in t and "identical" in t
               for t in _texts(at.success))
    table = _shown(at.dataframe[1])
    assert list(table["matches recorded"]) == ["yes"] * 5
    row = table[table["episode"].str.endswith("mistral-large-2411/0_travel-booking/episode_7")].iloc[0]
    # issue 13: an aborted episode's missing scores all say "aborted" (clembench: NaN)
    assert row["Aborted"] == "1"
    assert [row[k] for k in ("Middle-Accuracy", "Accuracy", "Kappa", "Main Score")] == ["aborted"] * 4


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
    assert {m.label: m.value for m in at.metric}["Episodes played"] == "4 of 5"
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
    table = _shown(at.dataframe[1])
    # not logged by clembench (ended before the middle round) vs NaN (aborted): "—" vs "aborted"
    assert table.iloc[0]["Middle-Accuracy"] == "—" and table.iloc[0]["Main Score"] == "aborted"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["% Played"] == "0.00" and metrics["Quality Score"] == "—"
    assert any("Every episode was aborted" in t for t in _texts(at.caption))


def test_missing_scores_have_one_word_and_a_caption(run_page):
    """Issue 13: no row mixes NaN and None; aborted episodes say "aborted", a caption says why."""
    at = run_page(PAGE)
    data, shown = at.dataframe[1].value, _shown(at.dataframe[1])
    aborted = data["Aborted"] == 1
    assert aborted.any() and (~aborted).any()
    scores = ["Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy", "Main Score"]
    assert (shown.loc[aborted, scores] == "aborted").all().all()
    assert not shown.isin(["NaN", "nan", "None", "absent"]).any().any()
    # played episodes keep their numbers (4 decimals), and a real 0 stays 0
    played = shown.loc[~aborted, "Main Score"]
    assert played.str.fullmatch(r"\d+\.\d{4}").all()
    assert (played == "0.0000").any()  # the yes-sayer's played episodes score 0, not "aborted"
    assert any("**aborted**" in t and "**—**" in t for t in _texts(at.caption))
    # the per-episode scores of an aborted episode say the same
    name = data.loc[aborted, "episode"].iloc[0]
    at.selectbox(key="_w_sk_episode").set_value(name).run()
    values = at.dataframe[3].value.set_index("score")["value"]
    assert values["Main Score"] == "aborted" and values["Aborted"] == "1"
    # the Main Score figure: horizontal bars, a title without NaN, "aborted" marks in the legend
    bars = next(c for c in _charts(at) if c["layout"]["title"]["text"] == "Main Score per episode")
    assert all(t.get("orientation") == "h" for t in bars["data"] if t["type"] == "bar")
    marks = [t for t in bars["data"] if t["type"] == "scatter"]
    assert len(marks) == 1 and len(marks[0]["y"]) == int(aborted.sum())


def test_model_filter_resets_to_the_uploaded_models(run_page, shared_data: Path):
    """Issue 13: after the demo, an upload shows its own models' curves (not an empty filter)."""
    at = run_page(PAGE)
    demo_models = list(at.session_state["sk_models"])
    assert demo_models and all(m.startswith("sim-") for m in demo_models)
    at.multiselect(key="_w_sk_models").set_value(demo_models[:1]).run()
    assert at.session_state["sk_models"] == demo_models[:1]  # canonical state follows the widget
    at.file_uploader[0].set_value([("runs.zip", _zip(shared_data / "clembench"), "application/zip")])
    at.run()
    assert not at.exception and not at.error
    assert at.session_state["sk_models"] == ["Llama-3.3-70B-Instruct", "Mistral-Small-24B-Instruct-2501",
                                             "mistral-large-2411"]
    assert at.multiselect(key="_w_sk_models").value == at.session_state["sk_models"]
    assert not any("No scored probing round" in t for t in _texts(at.info))
    assert any(c["layout"]["title"]["text"] == "Probing accuracy per round" for c in _charts(at))
    # a narrower pick survives a rerun; back to the demo resets to the demo's models
    at.multiselect(key="_w_sk_models").set_value(["mistral-large-2411"]).run()
    at.run()
    assert at.session_state["sk_models"] == ["mistral-large-2411"]
    at.button[0].click().run()
    assert at.session_state["sk_source"] == "demo" and at.session_state["sk_models"] == demo_models


def test_tables_and_figure_data_are_downloadable(run_page, shared_data: Path, downloads):
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("runs.zip", _zip(shared_data / "clembench"), "application/zip")])
    at.run()
    assert not at.exception and not at.error
    assert {"scorekeeping_by_model.csv", "scorekeeping_episodes.csv", "scorekeeping_accuracy_curves.csv",
            "scorekeeping_turn_scores.csv", "scorekeeping_scores.json"} <= set(downloads)
    episodes = pd.read_csv(io.BytesIO(downloads["scorekeeping_episodes.csv"]))
    assert len(episodes) == 5
    # the four recorded Main Scores average to the Quality Score 75.92; the aborted one is empty
    assert round(episodes["Main Score"].mean(), 2) == 75.92 and episodes["Main Score"].isna().sum() == 1
    curves = pd.read_csv(io.BytesIO(downloads["scorekeeping_accuracy_curves.csv"]))
    assert len(curves) == 16 + 6 + 6 + 6 + 3  # every scored round of the five episodes
    by_model = pd.read_csv(io.BytesIO(downloads["scorekeeping_by_model.csv"]))
    assert sorted(by_model["model"]) == ["Llama-3.3-70B-Instruct", "Mistral-Small-24B-Instruct-2501",
                                         "mistral-large-2411"]


def test_slot_count_given_on_the_page(run_page, shared_data: Path):
    """A log without realised_slots: the page infers the slot count from the probes; a count
    typed in that contradicts the log is refused with st.error (the previous result stays); the
    right count scores as clembench recorded."""
    ep = shared_data / "clembench" / RECORDED[2]
    log = json.loads((ep / "interactions.json").read_text())
    n_slots = len(log.pop("realised_slots"))
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("interactions.json", json.dumps(log).encode(), "application/json")])
    at.run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.86"
    at.number_input(key="_w_sk_n_slots").set_value(n_slots + 2).run()
    assert not at.exception
    assert at.session_state["sk_n_slots"] == n_slots + 2
    errors = _texts(at.error)
    assert errors and any(str(n_slots + 2) in e for e in errors), errors
    assert any("previously loaded" in t for t in _texts(at.info))
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.86"
    at.number_input(key="_w_sk_n_slots").set_value(n_slots).run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.86"
