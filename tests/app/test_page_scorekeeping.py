"""Scorekeeping page: demo by default, uploads of clembench runs, bad uploads shown with st.error."""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from tests.app.conftest import figure_problems, shown_cells

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


def _shown(at) -> pd.DataFrame:
    """What the browser shows of the episodes: the scores table and the rounds table side by side."""
    scores, rounds = shown_cells(at.dataframe[1]), shown_cells(at.dataframe[2])
    assert list(scores["episode"]) == list(rounds["episode"])
    return pd.concat([scores, rounds.drop(columns="episode")], axis=1)


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
    # ... shown as soon as the seed changes, no button press needed (the QA saw seed 0's
    # episodes under a box saying 3)
    next(n for n in at.number_input if n.label == "Demo seed").set_value(5).run()
    assert not at.exception
    assert at.session_state["sk_seed"] == 5
    assert any("Simulated demo episodes (seed 5)" in t for t in _texts(at.info))
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
    assert metrics["% Played"] == "80"
    assert metrics["Quality Score"] == "75.9"  # mean of the four recorded Main Scores (75.92), 3 significant digits
    assert metrics["clemscore"] == "60.7"
    assert any("5 episode(s) had clembench's scores.json" in t and "identical" in t
               for t in _texts(at.success))
    table = _shown(at)
    assert list(table["matches recorded"]) == ["yes"] * 5
    # the episodes are named by their folder below runs/ (QA: not runs/runs/...)
    assert list(table["episode"]) == sorted(RECORDED)
    row = table[table["episode"] == "mistral-large-2411/0_travel-booking/episode_7"].iloc[0]
    # an aborted episode's missing scores are empty (—, clembench: NaN) and its status says why
    assert row["status"] == "aborted"
    assert [row[k] for k in ("Middle-Accuracy", "Accuracy", "Kappa", "Main Score")] == ["—"] * 4
    assert list(table["status"]) == ["played"] * 4 + ["aborted"]


def test_upload_flat_json_files(run_page, shared_data: Path):
    ep = shared_data / "clembench" / RECORDED[2]
    at = run_page(PAGE)
    at.file_uploader[0].set_value([
        ("interactions.json", (ep / "interactions.json").read_bytes(), "application/json"),
        ("scores.json", (ep / "scores.json").read_bytes(), "application/json"),
    ])
    at.run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.9"
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
    # the message is shown as escaped markdown (a name is never rendered as a link or image):
    # read it as the user sees it
    errors = [e.replace("\\", "") for e in _texts(at.error)]
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
    table = _shown(at)
    # no value ("—", clembench: not logged or NaN); the status says the episode was aborted
    assert table.iloc[0]["Middle-Accuracy"] == "—" and table.iloc[0]["Main Score"] == "—"
    assert table.iloc[0]["status"] == "aborted"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["% Played"] == "0" and metrics["Quality Score"] == "—"
    assert any("Every episode was aborted" in t for t in _texts(at.caption))


def test_missing_scores_have_one_word_and_a_caption(run_page):
    """Issue 13: no row mixes NaN and None; aborted episodes say "aborted" (in the status column,
    their scores are empty: —), a caption says why."""
    at = run_page(PAGE)
    data, shown = at.dataframe[1].value, _shown(at)
    aborted = data["Aborted"] == 1
    assert aborted.any() and (~aborted).any()
    scores = ["Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy", "Main Score"]
    assert (shown.loc[aborted, scores] == "—").all().all()
    assert (shown.loc[aborted, "status"] == "aborted").all() and (shown.loc[~aborted, "status"] == "played").all()
    assert not shown.isin(["NaN", "nan", "None", "absent"]).any().any()
    # played episodes keep their numbers (written with 4 decimals), and a real 0 stays 0
    played = data.loc[~aborted, "Main Score"]
    assert played.notna().all() and _layout(at.dataframe[1])[1]["Main Score"]["type_config"]["format"] == "%.4f"
    assert (played == 0).any()  # the yes-sayer's played episodes score 0, not "aborted"
    assert any("**aborted**" in t and "**—**" in t for t in _texts(at.caption))
    # the per-episode scores of an aborted episode say the same
    name = data.loc[aborted, "episode"].iloc[0]
    at.selectbox(key="_w_sk_episode").set_value(name).run()
    values = shown_cells(at.dataframe[4]).set_index("score")["value"]
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


def test_score_columns_are_numbers_and_the_status_says_aborted(run_page, shared_data: Path, downloads):
    """QA: the score columns sorted as text in the browser; they are numbers now (missing: —),
    and the aborted / undefined state is a short status column."""
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("runs.zip", _zip(shared_data / "clembench"), "application/zip")])
    at.run()
    assert not at.exception and not at.error
    by_model, scores, rounds = at.dataframe[0].value, at.dataframe[1].value, at.dataframe[2].value
    for col in ("Main Score", "Middle-Accuracy", "Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy"):
        assert pd.api.types.is_float_dtype(scores[col]), col
    assert pd.api.types.is_float_dtype(rounds["Request Success Ratio"])
    for col in ("% Played", "Quality Score", "clemscore"):
        assert pd.api.types.is_float_dtype(by_model[col]), col
    shown = shown_cells(at.dataframe[1]).set_index("episode")
    aborted = "mistral-large-2411/0_travel-booking/episode_7"
    assert shown.loc[aborted, "status"] == "aborted" and shown.loc[aborted, "Main Score"] == "—"
    assert math.isnan(scores.set_index("episode").loc[aborted, "Main Score"])
    # sorted as numbers: the recorded Main Scores (README of the shared data) in order, the empty last
    main = scores.set_index("episode")["Main Score"].sort_values(na_position="last")
    assert [round(v, 4) for v in main.iloc[:4]] == [42.1053, 69.5652, 92.8571, 99.1597]
    assert list(main.index) == [RECORDED[1], RECORDED[0], RECORDED[2], RECORDED[3], aborted]
    # the models: mistral-large's only episode was aborted; Llama's one was played
    status = dict(zip(by_model["model"], by_model["status"]))
    assert status == {"Llama-3.3-70B-Instruct": "all played", "Mistral-Small-24B-Instruct-2501": "all played",
                      "mistral-large-2411": "all aborted"}
    assert by_model.set_index("model").loc["mistral-large-2411", "% Played"] == 0.0
    # the CSV stays as it was: numbers, no status column
    episodes = pd.read_csv(io.BytesIO(downloads["scorekeeping_episodes.csv"]))
    assert "status" not in episodes.columns and pd.api.types.is_float_dtype(episodes["Main Score"])


def test_status_undefined_for_a_nan_score_of_a_played_episode(run_page):
    """A played episode whose answers and ground truth are all "no": Kappa is NaN (drawn as —),
    the status says "undefined", the other scores stay numbers (Truncated Kappa max(0, NaN) = 0)."""
    probe = {"target": "A", "question": "q", "gt": 0, "answer": "ASIDE: no", "value": 0, "tries": 1}
    log = {"players": {"GM": "Game master for privateshared", "Player 1": "Answerer: m"},
           "probes": [[probe, dict(probe, target="B")]], "realised_slots": {"a": 0, "b": 1},
           "Request Count": [2, 0, 0], "Parsed Request Count": [2, 0, 0], "Violated Request Count": [0, 0, 0],
           "Filled Slots": [True], "Aborted": False, "Played Probe Rounds": 1}
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("e/interactions.json", json.dumps(log).encode(), "application/json")])
    at.run()
    assert not at.exception and not at.error
    data, shown = at.dataframe[1].value.iloc[0], shown_cells(at.dataframe[1]).iloc[0]
    assert shown["status"] == "undefined" and shown["Kappa"] == "—" and math.isnan(data["Kappa"])
    assert (data["Accuracy"], data["Truncated Kappa"], data["Main Score"]) == (1.0, 0.0, 0.0)


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
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.9"
    at.number_input(key="_w_sk_n_slots").set_value(n_slots + 2).run()
    assert not at.exception
    assert at.session_state["sk_n_slots"] == n_slots + 2
    errors = _texts(at.error)
    assert errors and any(str(n_slots + 2) in e for e in errors), errors
    assert any("previously loaded" in t for t in _texts(at.info))
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.9"
    at.number_input(key="_w_sk_n_slots").set_value(n_slots).run()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Quality Score"] == "92.9"


SHOWN_MISSING = ["None", "nan", "NaN", "<NA>", "NaT"]


def _layout(element) -> tuple[list[str], dict]:
    config = json.loads(element.proto.columns)
    return list(element.proto.column_order) or list(element.value.columns), config


@pytest.mark.parametrize("source", ["demo", "recorded", "round zero abort"])
def test_tables_fit_explain_and_show_no_none(run_page, shared_data: Path, source):
    """Issue 13: every table fits its place at a 1,400 px window (full width about 930 px, the
    turn scores' column 3/5 of it, the episode scores' 2/5): pixel widths, headers that fit their
    column (6 px a character plus 16 px), a tooltip naming clembench's key or the CSV column; no
    visible cell reads None/NaN (an aborted episode's scores say "aborted", absent ones "—")."""
    at = run_page(PAGE)
    if source == "recorded":
        at.file_uploader[0].set_value([("runs.zip", _zip(shared_data / "clembench"), "application/zip")])
        at.run()
    elif source == "round zero abort":
        log = {"players": {"GM": "Game master for privateshared", "Player 1": "Answerer: m"},
               "probes": [[{"target": "A", "question": "q", "gt": 0, "answer": "x", "value": -1, "tries": 6}]],
               "realised_slots": {f"s{i}": i for i in range(5)}, "Request Count": [5, 0, 0, 0, 0, 0],
               "Parsed Request Count": [0] * 6, "Violated Request Count": [5, 0, 0, 0, 0, 0],
               "Filled Slots": [], "Aborted": True, "Played Probe Rounds": 0}
        at.file_uploader[0].set_value([("e/interactions.json", json.dumps(log).encode(), "application/json")])
        at.run()
    assert not at.exception and not at.error
    turn_scores = next((d for d in at.dataframe if _layout(d)[0][0] == "round"), None)
    episode_scores = next(d for d in at.dataframe if _layout(d)[0] == ["score", "value"])
    for element in at.dataframe:
        order, config = _layout(element)
        room = 540 if element is turn_scores else 350 if element is episode_scores else 900
        assert sum(config[c]["width"] for c in order) <= room, order
        for col in order:
            c = config[col]
            assert c["help"].startswith(f"{col}: ") and 6 * len(c["label"]) + 16 <= c["width"], (col, c)
        assert not shown_cells(element).isin(SHOWN_MISSING).any().any(), shown_cells(element)
    shown = _shown(at)
    if source == "recorded":
        # the long recorded episode names wrap over taller rows instead of being cut off
        assert at.dataframe[1].proto.row_height >= 65
        assert shown["status"].tolist().count("aborted") == 1
    if source == "round zero abort":
        assert shown.iloc[0]["Middle-Accuracy"] == "—" and shown.iloc[0]["Kappa"] == "—"
        assert shown.iloc[0]["status"] == "aborted"
        assert turn_scores is None
    values = shown_cells(episode_scores)
    assert len(values) == 13 and values["value"].str.len().min() >= 1


def test_every_table_downloadable(run_page, downloads):
    """Issue 13: one CSV per table (the two episode tables share one: the same rows)."""
    at = run_page(PAGE)
    assert not at.exception and not at.error
    assert len(at.dataframe) == 5
    assert {"scorekeeping_by_model.csv", "scorekeeping_episodes.csv", "scorekeeping_turn_scores.csv",
            "scorekeeping_episode_scores.csv"} <= set(downloads)
    scores = pd.read_csv(io.BytesIO(downloads["scorekeeping_episode_scores.csv"]))
    first = at.dataframe[1].value.iloc[0]  # the episode shown in the detail by default
    assert list(scores["score"])[:6] == ["Middle-Accuracy", "Accuracy", "Kappa", "Truncated Kappa",
                                         "Slot-Filling-Accuracy", "Main Score"]
    assert scores.set_index("score").loc["Main Score", "value"] == pytest.approx(first["Main Score"], rel=1e-12)
    episodes = pd.read_csv(io.BytesIO(downloads["scorekeeping_episodes.csv"]))
    shown_columns = set(_layout(at.dataframe[1])[0]) | set(_layout(at.dataframe[2])[0])
    # every shown column is in the CSV, but the status (words for its empty score cells)
    assert shown_columns - {"status"} <= set(episodes.columns) and "status" not in episodes.columns


def test_number_inputs_state_their_range(run_page):
    """Issue 13: Streamlit silently reverts a number out of range: the help says the range."""
    from core.defaults import MAX_N_SLOTS

    at = run_page(PAGE)
    slots = at.number_input(key="_w_sk_n_slots")
    assert (slots.proto.min, slots.proto.max) == (0, MAX_N_SLOTS)
    assert slots.help.count("Allowed: 0 to 1,000.") == 1 and MAX_N_SLOTS == 1_000
    seed = next(n for n in at.number_input if n.label == "Demo seed")
    assert (seed.proto.min, seed.proto.max) == (0, 10_000) and seed.help.endswith("Allowed: 0 to 10,000.")


def test_figures_explained(run_page):
    """Issue 13: every figure's title fits, every axis showing ticks has a title, every mark is in
    the legend or grouped with a legend entry."""
    at = run_page(PAGE)
    charts = at.get("plotly_chart")
    assert len(charts) == 2 and all(figure_problems(c) == [] for c in charts)


def test_ignored_files_listed_as_text(run_page, shared_data: Path):
    """Issue 13: the files of a zip that are not episode logs are listed by name, not in a JSON
    viewer (st.write of a list)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        rel = RECORDED[0]
        zf.writestr(f"runs/{rel}/interactions.json",
                    (shared_data / "clembench" / rel / "interactions.json").read_bytes())
        zf.writestr("runs/notes.txt", "not an episode")
    at = run_page(PAGE)
    at.file_uploader[0].set_value([("runs.zip", buf.getvalue(), "application/zip")])
    at.run()
    assert not at.exception and not at.error
    assert not at.get("json")
    assert any("notes.txt`" in m.value and m.value.startswith("- `") for m in at.markdown)
