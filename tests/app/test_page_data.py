"""Data page: demo by default, uploads, mapping, validation errors that keep the active data."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from core.data import prepare
from pages._common import fingerprint



def mapping(widgets, role: str):
    """The Data page's mapping widget of ``role`` (its key is ``map_<role>@<file digest>``)."""
    found = [w for w in widgets if (w.key or "").split("@")[0] == f"map_{role}"]
    assert len(found) == 1, [w.key for w in widgets]
    return found[0]

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
    assert mapping(at.selectbox, "machine_label").value == "machine_predict"
    assert mapping(at.selectbox, "human_label").value == "target"
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
    # issue 25: said neutrally (an info, not a warning), and no "n/a" headline card
    assert any("No gold labels" in i.value for i in at.info) and not at.warning
    cards = {m.label: m.value for m in at.metric}
    assert "Machine accuracy" not in cards and "Dialogues" not in cards
    assert "n/a" not in cards.values() and cards["Samples"] == "4"


def test_the_active_mapping_is_editable(run_page):
    """issue 25: the active dataset's mapping can be changed in place: mapping the undetected
    'answer' column as the gold label gives machine accuracy 3 of 4 = 75.0%."""
    import pandas as pd
    df = pd.DataFrame({"machine_label": [0, 1, 1, 0], "machine_confidence": [0.2, 0.9, 0.6, 0.8],
                       "answer": [0, 1, 0, 0]})
    data = prepare(df, name="remap")
    assert not data.has_gold
    at = run_page("1_Data.py", state={"data": data, "data_key": fingerprint(df), "data_source": "upload"})
    assert at.selectbox(key="remap_human_label").value == "—"
    at.selectbox(key="remap_human_label").set_value("answer")
    [b for b in at.button if b.label == "Apply the new mapping"][0].click().run()
    assert not at.exception and not at.error
    assert at.session_state["data"].roles["human_label"] == "answer"
    assert {m.label: m.value for m in at.metric}["Machine accuracy"] == "75.0%"
    # a refused mapping keeps the active dataset and names the problem
    at.selectbox(key="remap_machine_label").set_value("—")  # a required role left out
    at.selectbox(key="remap_human_label").set_value("—")
    [b for b in at.button if b.label == "Apply the new mapping"][0].click().run()
    assert not at.exception and at.error
    assert at.session_state["data"].roles["human_label"] == "answer"


# ------------------------------------------------------------------ issue 12: state bugs
NO_GOLD = b"machine_label,confidence\n0,0.2\n1,0.9\n1,0.6\n0,0.8\n"
WITH_GOLD = b"machine_label,confidence,gold,turn\n0,0.2,0,1\n1,0.9,1,2\n1,0.6,0,1\n0,0.8,0,2\n"


def _validate(at):
    [b for b in at.button if "Validate" in str(b.label)][0].click().run()
    return at


def test_next_upload_gets_its_own_detected_mapping(run_page):
    at = run_page("1_Data.py")
    _activate(at, "first.csv", NO_GOLD)
    assert mapping(at.selectbox, "human_label").value == "—"
    assert mapping(at.selectbox, "turn").value == "—"
    _activate(at, "second.csv", WITH_GOLD)
    assert not at.exception and not at.error
    assert mapping(at.selectbox, "human_label").value == "gold"
    assert mapping(at.selectbox, "turn").value == "turn"
    _validate(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    data = at.session_state["data"]
    assert data.name == "second.csv" and data.has_gold and "turn" in data.frame


def test_a_user_choice_does_not_leak_into_the_next_file(run_page):
    at = run_page("1_Data.py")
    _activate(at, "first.csv", WITH_GOLD)
    mapping(at.selectbox, "human_label").set_value("—")
    _validate(at)
    assert not at.session_state["data"].has_gold
    _activate(at, "second.csv", WITH_GOLD.replace(b"0,0.2,0,1", b"0,0.25,0,1"))
    assert mapping(at.selectbox, "human_label").value == "gold"


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


# ------------------------------------------------------------------ issue 13: role detection
ISSUE_13 = ("dialogue_id,turn,system,gold,model_pred,model_prob,annot_seconds\n"
            + "".join(f"d{i // 3},{i % 3 + 1},{['blender', 'plato', 'dialogpt'][i % 3]},"
                      f"{['safe', 'unsafe'][i % 2]},{['safe', 'unsafe'][(i // 2) % 2]},"
                      f"{0.5 + (i % 5) / 10},{10 + 3 * i}\n" for i in range(12))).encode()


def _warnings(at) -> list[str]:
    return [w.value for w in at.warning]


def test_issue_13_upload_maps_prediction_probability_and_seconds(run_page):
    at = run_page("1_Data.py")
    _activate(at, "mine.csv", ISSUE_13)
    assert not at.exception and not at.error
    assert mapping(at.selectbox, "machine_label").value == "model_pred"
    assert mapping(at.selectbox, "machine_confidence").value == "model_prob"
    assert mapping(at.selectbox, "human_effort").value == "annot_seconds"
    assert mapping(at.selectbox, "human_label").value == "gold"
    sub = mapping(at.multiselect, "subgroups")
    assert sub.options == ["system"] and sub.value == ["system"]
    assert not any("Check the" in w for w in _warnings(at))
    assert any("'annot_seconds' is in **seconds**" in c.value for c in at.caption)
    _validate(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    data = at.session_state["data"]
    assert data.subgroup_columns == ["system"] and data.roles["machine_label"] == "model_pred"
    # the effort histogram names the unit
    specs = " ".join(e.proto.spec for e in at.get("plotly_chart"))
    assert "effort per sample (seconds)" in specs


def test_unsure_detection_is_shown_with_its_candidates(run_page):
    at = run_page("1_Data.py")
    two = b"pred,llm_label,prob,gold\nsafe,unsafe,0.9,safe\nunsafe,unsafe,0.8,unsafe\nsafe,safe,0.6,safe\n"
    _activate(at, "two.csv", two)
    assert not at.exception and not at.error
    [w] = [w for w in _warnings(at) if "Check the machine label" in w]
    assert "'pred' (chosen)" in w and "'llm_label'" in w
    assert mapping(at.selectbox, "machine_label").value == "pred"
    assert mapping(at.multiselect, "subgroups").options == []  # both are predictions


def test_a_missing_required_role_is_asked_not_guessed(run_page):
    at = run_page("1_Data.py")
    _activate(at, "anon.csv", b"a,b\nx,0.25\ny,0.5\nx,0.75\n")
    assert not at.exception
    ws = _warnings(at)
    assert any("No column was recognised as the machine label" in w and "'a'" in w for w in ws)
    assert any("No column was recognised as the machine confidence" in w and "'b'" in w
               for w in ws)
    assert mapping(at.selectbox, "machine_label").value == "—"


def test_the_next_upload_gets_its_own_questions_and_subgroup_options(run_page):
    at = run_page("1_Data.py")
    _activate(at, "anon.csv", b"a,b\nx,0.25\ny,0.5\nx,0.75\n")
    assert any("No column was recognised" in w for w in _warnings(at))
    _activate(at, "mine.csv", ISSUE_13)
    assert not any("Check the" in w for w in _warnings(at))
    assert mapping(at.multiselect, "subgroups").options == ["system"]
    assert mapping(at.selectbox, "machine_label").value == "model_pred"


# ------------------------------------------------------------------ issue 11: what is sent
def _spec_bytes(at) -> int:
    return sum(len(e.proto.spec) for e in at.get("plotly_chart"))


def test_figures_sent_do_not_grow_with_the_rows(run_page):
    import numpy as np

    sizes = []
    for n in (2_000, 200_000):
        rng = np.random.default_rng(0)
        gold = rng.integers(0, 2, n)
        df = pd.DataFrame({"machine_label": np.where(rng.random(n) < 0.85, gold, 1 - gold),
                           "human_label": gold, "machine_confidence": rng.random(n),
                           "human_effort": rng.gamma(2.0, 20.0, n)})
        data = prepare(df, name=f"n{n}")
        at = run_page("1_Data.py", state={"data": data, "data_key": fingerprint(df, data.roles),
                                          "data_source": "upload"})
        assert not at.exception
        assert len(at.get("plotly_chart")) == 4
        sizes.append(_spec_bytes(at))
    # 100x the rows: the same bins (raw points would be about 100x larger)
    assert sizes[1] < 1.1 * sizes[0] and sizes[1] < 60_000, sizes


def test_uploaded_bytes_are_hashed_once_not_per_rerun(run_page, monkeypatch):
    import hashlib

    content = ISSUE_13 + b"".join(f"d9,1,plato,safe,safe,0.5,{i}\n".encode()
                                  for i in range(60_000))  # about 1.5 MB
    seen: list[int] = []

    class Spy:
        def __init__(self, h):
            self._h = h

        def update(self, b):
            seen.append(len(b))
            self._h.update(b)

        def __getattr__(self, name):
            return getattr(self._h, name)

    def spying(factory):
        def make(*args, **kwargs):
            data = args[1] if factory is hashlib.new and len(args) > 1 else (
                args[0] if args and factory is not hashlib.new else b"")
            if data:
                seen.append(len(data))
            return Spy(factory(*args, **kwargs))
        return make

    at = run_page("1_Data.py")
    for name in ("sha1", "md5", "blake2b", "sha256", "new"):
        monkeypatch.setattr(hashlib, name, spying(getattr(hashlib, name)))
    _activate(at, "big.csv", content)
    assert not at.exception and not at.error
    assert sum(s >= len(content) for s in seen) == 1  # the upload's digest
    seen.clear()
    at.run()
    at.run()
    assert not at.exception
    assert max(seen, default=0) < len(content) // 10, max(seen)


def test_the_uploader_path_reads_each_file_once_and_maps_it(run_page, monkeypatch):
    """Through the file uploader itself (AppTest cannot drive it: a stand-in returns the file)."""
    import streamlit as st

    class Uploaded:
        def __init__(self, name, content, file_id):
            self.name, self._content, self.file_id, self.reads = name, content, file_id, 0

        def getvalue(self):
            self.reads += 1
            return self._content

    current = {"file": None}
    monkeypatch.setattr(st, "file_uploader", lambda *a, **k: current["file"])
    at = run_page("1_Data.py")
    current["file"] = first = Uploaded("first.csv", NO_GOLD, "f1")
    at.run()
    assert mapping(at.selectbox, "human_label").value == "—"
    current["file"] = second = Uploaded("second.csv", ISSUE_13, "f2")
    at.run()
    assert mapping(at.selectbox, "human_label").value == "gold"
    assert mapping(at.selectbox, "machine_label").value == "model_pred"
    at.run()
    at.run()
    assert first.reads == 1 and second.reads == 1  # read once, not on every rerun
    assert at.session_state["upload"]["name"] == "second.csv"
    _validate(at)
    assert not at.error and at.session_state["data"].name == "second.csv"


def test_the_preview_shows_missing_cells_as_a_dash_not_none(run_page):
    # issue 13: the demo's human_label_2 showed "None" in the preview's missing cells
    from tests.app.conftest import shown_cells

    at = run_page("1_Data.py")
    preview = at.dataframe[-1]
    data = at.session_state["data"]
    raw = data.raw.head(200)
    # every column, the mapped ones first (issue 25: the key columns in view at 1,400 px)
    cols = list(preview.value.columns)
    assert sorted(cols) == sorted(raw.columns)
    mapped = {v for v in data.roles.values() if isinstance(v, str)}
    mapped |= {c for v in data.roles.values() if isinstance(v, list) for c in v}
    mapped &= set(raw.columns)
    assert {"machine_label", "system", "response"} <= mapped and "confidence_mcp" not in mapped
    assert set(cols[:len(mapped)]) == mapped and cols[0] == data.roles["machine_label"]
    shown = shown_cells(preview)
    missing = raw["human_label_2"].isna().to_numpy()
    assert 0 < missing.sum() < len(raw)  # the demo's second rater labelled some rows only
    assert (shown["human_label_2"][missing] == "—").all()
    assert (shown["human_label_2"][~missing] != "—").all()
    assert not (shown == "None").any().any()


def test_uniform_effort_has_no_single_bar_histogram(run_page):
    """QA: with no effort column the effort histogram was one bar at 1; the page says why
    there is no distribution instead."""
    import pandas as pd

    from core.data import prepare
    from pages._common import fingerprint

    df = pd.DataFrame({"machine_label": ["a", "b", "a", "b"], "machine_confidence": [0.9, 0.6, 0.7, 0.8],
                       "human_label": ["a", "b", "b", "b"]})
    data = prepare(df)
    assert data.effort_source == "uniform"
    at = run_page("1_Data.py", state={"data": data, "data_key": fingerprint(df, data.roles),
                                      "data_source": "upload"})
    assert not at.exception and not at.error
    specs = " ".join(e.proto.spec for e in at.get("plotly_chart"))
    assert "Effort the optimiser uses" not in specs and "Machine confidence" in specs
    assert any("every sample costs 1 unit of effort" in i.value for i in at.info)


def test_an_upload_survives_a_reload(run_page, tmp_path, monkeypatch):
    """Nothing the user loaded is lost: a validated upload is stored in the workspace and a new
    session (a reload, a restart) reopens it; choosing the demo again is remembered too."""
    from core.workspace import Workspace

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    at = run_page("1_Data.py")
    _activate(at, "mine.csv", b"pred,prob,gold\nsafe,0.9,safe\nunsafe,0.8,unsafe\nsafe,0.6,unsafe\n")
    _validate(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Saved in the workspace" in s.value for s in at.success)
    ws = Workspace(tmp_path / "ws")
    assert ws.list_datasets()["name"].tolist() == ["mine.csv"]
    assert ws.last_active() == int(ws.list_datasets()["id"].iloc[0])
    again = run_page("1_Data.py")  # a new session: no data in it
    assert again.session_state["data"].name == "mine.csv" and again.session_state["data"].M == 3
    assert again.session_state["_resumed"].startswith("Resumed where the work stopped: 'mine.csv'")
    # the demo chosen on the Home page: a reload gives the demo, which is not stored
    home = run_page("0_Home.py", state={"data": again.session_state["data"],
                                        "data_key": again.session_state["data_key"]})
    [b for b in home.button if b.label == "Try it on the demo data"][0].click().run()
    assert ws.last_active() == "demo" and len(ws.list_datasets()) == 1
    assert run_page("1_Data.py").session_state["data"].name == "Built-in demo"


def test_a_large_upload_is_saved_on_request(run_page, tmp_path, monkeypatch):
    """Saving hashes the table as CSV (about 7 s at 10^6 rows): above AUTO_SAVE_ROWS the page
    says the table is for this session only and saves it on a button press."""
    import core.defaults
    from core.workspace import Workspace

    monkeypatch.setattr(core.defaults, "AUTO_SAVE_ROWS", 2)
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    at = run_page("1_Data.py")
    _activate(at, "big.csv", b"pred,prob,gold\nsafe,0.9,safe\nunsafe,0.8,unsafe\nsafe,0.6,unsafe\n")
    _validate(at)
    assert not at.exception and not at.error
    ws = Workspace(tmp_path / "ws")
    assert ws.list_datasets().empty and ws.last_active() is None
    assert not any("Saved in the workspace" in s.value for s in at.success)
    assert any("active for this session only" in i.value for i in at.info)
    [b for b in at.button if b.label == "Save it in the workspace"][0].click().run()
    assert any("Saved in the workspace" in s.value for s in at.success)
    assert ws.list_datasets()["name"].tolist() == ["big.csv"] and ws.last_active() is not None
    at.run()
    assert not any("active for this session only" in i.value for i in at.info)


def test_a_large_table_says_its_figures_count_every_row(run_page, monkeypatch):
    """issue 34: the Data page's figures are bin counts of every row, exact on a large table
    too, and say so (the threshold lowered so the demo table counts as large)."""
    import pages._large as large

    at = run_page("1_Data.py")
    assert not any("Large table" in c.value for c in at.caption)
    monkeypatch.setattr(large, "LARGE_ROWS", 100)
    at = run_page("1_Data.py")
    assert not at.exception
    m = at.session_state["data"].M
    said = [c.value for c in at.caption if "Large table" in c.value]
    assert said and f"all {m:,} rows" in said[0]
