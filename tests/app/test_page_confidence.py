"""Confidence page: metrics table, figures, SAE per estimator, and the training panel (tiny BERT)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from core.data import load_table, prepare
from core.mce.testing import build_tiny_bert
from pages._common import fingerprint

PAGE = "3_Confidence.py"
POS = ["i love you", "you are nice", "thanks , good day", "i like that", "great !", "hello , how are you ?"]
NEG = ["i hate you", "you are stupid", "go away idiot", "awful people", "kill it", "you are bad"]


def _state(data):
    return {"data": data, "data_key": fingerprint(data.raw, data.roles), "data_source": "upload"}


def _table(at, i=0) -> pd.DataFrame:
    return at.dataframe[i].value



def _train_quickly(at) -> None:
    """Pick the tiny model and the shortest training, then press Start."""
    at.selectbox(key="mce_model").set_value("tiny-bert")
    at.number_input(key="mce_epochs").set_value(1)
    at.number_input(key="mce_batch").set_value(8)
    at.number_input(key="mce_ts_k").set_value(3)
    at.number_input(key="mce_tcp_epochs").set_value(1)
    at.button(key="mce_start").click().run()

def test_demo_data_compares_three_estimators(run_page):
    at = run_page(PAGE)
    assert not at.exception and not at.error
    t = _table(at)
    assert list(t["confidence column"]) == ["confidence_ts", "confidence_mcp", "confidence_tcp"]
    assert t["active"].tolist() == [True, False, False]
    assert t["AUC ↑"].between(0, 1).all()
    charts = at.get("plotly_chart")
    assert len(charts) == 4  # ROC, risk-coverage, reliability, SAE per estimator
    sae = _table(at, 1)
    assert list(sae["confidence column"]) == ["confidence_ts", "confidence_mcp", "confidence_tcp"]


def test_paper_data_table3_on_the_page(run_page, hmceval_tsv):
    data = prepare(load_table(hmceval_tsv), name="hmceval")
    at = run_page(PAGE, state=_state(data))
    assert not at.exception and not at.error
    row = _table(at).set_index("confidence column").loc["machine_confidence"]
    assert round(row["AUC ↑"], 4) == 0.8246
    assert round(row["top-50% accuracy ↑"], 4) == 0.9785


def test_sae_points_follow_lambda(run_page, hmceval_tsv):
    data = prepare(load_table(hmceval_tsv), name="hmceval")
    at = run_page(PAGE, state={**_state(data), "lam": 4.6, "share": 0.5})
    sae = _table(at, 1).set_index("confidence column").loc["machine_confidence"]
    # the authors' released SAE output at lambda 4.6, N/M 0.5
    assert round(sae["accuracy"], 5) == 0.98484 and round(sae["time cost"], 5) == 0.50556
    at2 = run_page(PAGE, state={**_state(data), "lam": 30.0, "share": 0.5})
    assert _table(at2, 1).set_index("confidence column").loc["machine_confidence", "time cost"] < 0.5


def test_top_slider_changes_the_table(run_page):
    at = run_page(PAGE)
    before = _table(at)["top-50% accuracy ↑"].tolist()
    at.slider(key="_w_mce_top").set_value(0.2).run()
    assert at.session_state["mce_top"] == 0.2
    after = _table(at)
    assert "top-20% accuracy ↑" in after.columns and after["top-20% accuracy ↑"].tolist() != before
    assert not at.exception


def test_switch_the_active_confidence(run_page):
    at = run_page(PAGE)
    key = [s.key for s in at.selectbox if s.key and s.key.startswith("mce_use_")][0]
    at.selectbox(key=key).set_value("confidence_mcp").run()
    at.button(key="mce_use_btn").click().run()
    assert not at.exception
    assert at.session_state["data"].roles["machine_confidence"] == "confidence_mcp"


def test_without_gold_explains_and_does_not_fail(run_page):
    df = pd.DataFrame({"machine_label": [0, 1, 1, 0] * 5, "machine_confidence": [0.2, 0.9, 0.6, 0.8] * 5})
    at = run_page(PAGE, state=_state(prepare(df, name="nogold")))
    assert not at.exception and not at.error
    assert any("no gold" in i.value for i in at.info)


# ------------------------------------------------------------------------------ training panel
@pytest.fixture(scope="module")
def models_root_dir(tmp_path_factory):
    """A models folder holding one tiny random BERT, ``tiny-bert``."""
    root = tmp_path_factory.mktemp("models_page")
    build_tiny_bert(root / "tiny-bert")
    return root


@pytest.fixture
def tiny_dir(models_root_dir, monkeypatch):
    """The tiny BERT, offered by the page through $HMCEVAL_MODELS."""
    monkeypatch.setenv("HMCEVAL_MODELS", str(models_root_dir))
    return models_root_dir / "tiny-bert"


def _records(n_rep):
    rows = []
    for r in range(n_rep):
        for i, t in enumerate(POS + NEG):
            rows.append({"context": "hello" + " !" * r + (" ?" if i % 2 else ""), "response": t,
                         "category": ["Risk Ignorance", "Toxicity Agreement"][i % 2],
                         "label": "Safe" if t in POS else "Unsafe"})
    return rows


def _files():
    return {"train": {"name": "train.json", "bytes": json.dumps(_records(4)).encode()},
            "eval": {"name": "test.json", "bytes": json.dumps(_records(2)).encode()}}


def test_training_panel_makes_the_scored_table_active(run_page, tiny_dir):
    at = run_page(PAGE, state={"mce_files": _files()})
    assert not at.exception
    assert at.selectbox(key="mce_text_col").value == "response"
    assert at.selectbox(key="mce_ctx_col").value == "context"
    assert at.selectbox(key="mce_label_col").value == "label"
    at.selectbox(key="mce_model").set_value("tiny-bert")
    at.number_input(key="mce_epochs").set_value(15)
    at.number_input(key="mce_batch").set_value(8)
    at.number_input(key="mce_lr").set_value(3e-3)
    at.number_input(key="mce_ts_k").set_value(3)
    at.number_input(key="mce_tcp_epochs").set_value(3)
    at.button(key="mce_start").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("now the active dataset" in s.value for s in at.success)
    data = at.session_state["data"]
    assert at.session_state["data_source"] == "classifier"
    assert data.M == 24 and data.roles["machine_confidence"] == "confidence_ts"
    # the three estimators; whether the class probabilities (probability-named columns in [0, 1])
    # are also offered is core.data's role detection's call (issue 13)
    estimators = {"confidence_ts", "confidence_mcp", "confidence_tcp"}
    assert estimators <= set(data.confidence_columns) <= estimators | {"proba_Safe", "proba_Unsafe"}
    assert data.confidence_columns[0] == "confidence_ts"
    assert data.has_gold and data.roles["human_label"] == "label"
    assert "mce_scored" in at.session_state
    # the next run compares the three new estimators
    at.run()
    assert list(_table(at)["confidence column"]) == data.confidence_columns


def test_training_panel_errors_keep_the_active_dataset(run_page, tiny_dir, tmp_path):
    files = _files()
    files["eval"] = {"name": "bad.json", "bytes": b'[{"response": "hi"}, 3]'}
    at = run_page(PAGE, state={"mce_files": files})
    assert not at.exception
    assert any("bad.json" in e.value and "object" in e.value for e in at.error)
    before = at.session_state["data_key"]
    # a listed model whose weights do not load is reported, nothing changes
    broken = tiny_dir.parent / "broken-bert"
    if not broken.exists():
        build_tiny_bert(broken)
        (broken / "model.safetensors").write_bytes(b"garbage")
    at = run_page(PAGE, state={"mce_files": _files()})
    at.selectbox(key="mce_model").set_value("broken-bert")
    at.button(key="mce_start").click().run()
    assert not at.exception
    assert any("cannot load an encoder" in e.value and "broken-bert" in e.value for e in at.error)
    assert at.session_state["data_key"] == before and at.session_state["data_source"] == "demo"
    assert at.session_state["mce_files"]["train"]["name"] == "train.json"  # uploads kept


def test_scored_table_download_neutralises_formulas(run_page, tiny_dir):
    """Issue 12: a response such as ``=HYPERLINK(...)`` is downloaded as text, not a formula."""
    files = _files()
    rows = _records(2)
    rows[0]["response"] = '=HYPERLINK("http://evil","x")'
    rows[1]["context"] = "+SUM(A1:A9)"
    files["eval"] = {"name": "test.json", "bytes": json.dumps(rows).encode()}
    at = run_page(PAGE, state={"mce_files": files})
    _train_quickly(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    scored = pd.read_csv(io.BytesIO(at.session_state["mce_scored"]["csv"]))
    assert scored["response"].iloc[0] == "'=HYPERLINK(\"http://evil\",\"x\")"
    assert scored["context"].iloc[1] == "'+SUM(A1:A9)"
    assert pd.api.types.is_float_dtype(scored["confidence_ts"])


def test_sidebar_names_the_scored_table_right_after_training(tiny_dir):
    """Issue 12: the sidebar (drawn before the page) names the new active dataset at once."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=240)
    at.run()
    at.switch_page("pages/3_Confidence.py")
    at.session_state["mce_files"] = _files()
    at.run()
    _train_quickly(at)
    assert not at.exception and not at.error, [e.value for e in at.error]
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.startswith("test.json (scored) · 24 samples") for c in captions), captions


def test_encoder_is_a_choice_among_the_models_folder(run_page, tiny_dir):
    """Issue 12: no free server path; the packaged MiniLM and the models folder's encoders only."""
    from core.mce.models import PACKAGED_ENCODER_NAME

    at = run_page(PAGE, state={"mce_files": _files()})
    assert not at.exception
    assert not [t for t in at.text_input if "folder" in t.label.lower()]
    box = at.selectbox(key="mce_model")
    assert box.options[0] == PACKAGED_ENCODER_NAME and "tiny-bert" in box.options
    assert box.value == PACKAGED_ENCODER_NAME  # the default
    assert not at.button(key="mce_start").disabled


def test_no_encoder_found_says_where_to_put_one(run_page, tmp_path, monkeypatch):
    import core.mce.encoder
    from core.errors import DataError

    def absent():
        raise DataError("no packaged encoder")

    monkeypatch.setattr(core.mce.encoder, "default_model_dir", absent)
    monkeypatch.setenv("HMCEVAL_MODELS", str(tmp_path / "empty"))
    at = run_page(PAGE, state={"mce_files": _files()})
    assert not at.exception and not at.error
    assert any("No encoder found" in w.value and "HMCEVAL_MODELS" in w.value for w in at.warning)
    assert at.button(key="mce_start").disabled


# ------------------------------------------------------------------------------ issue 13 item 5
def test_tables_have_plain_headers_and_titles_fit(run_page):
    at = run_page(PAGE)
    assert not at.exception and not at.error
    for i in (0, 1):
        headers = list(_table(at, i).columns)
        assert not [h for h in headers if "_" in str(h)], headers
    assert list(_table(at, 1).columns) == [
        "confidence column", "to humans", "human share", "time cost", "accuracy", "F1", "precision",
        "recall"]
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert titles[1].startswith("Risk-coverage (AURC: area under it)<br>")  # was one 69-character line, cut at "sampl"
    for t in titles:
        main, _, sub = t.partition("<br>")
        assert len(main) <= 40 and len(sub.replace("<sup>", "").replace("</sup>", "")) <= 60, t


def test_reliability_marker_sizes_are_explained(run_page):
    at = run_page(PAGE)
    spec = json.loads(at.get("plotly_chart")[2].proto.spec)
    assert "marker size: samples in the bin" in [t.get("name") for t in spec["data"]]
    assert any("area growing with the number of samples in the bin" in c.value for c in at.caption)


def test_one_epoch_is_singular(run_page, tiny_dir):
    at = run_page(PAGE, state={"mce_files": _files()})
    at.number_input(key="mce_epochs").set_value(1).run()
    assert any("× 1 epoch," in c.value for c in at.caption)
    assert not any("1 epochs" in c.value for c in at.caption)
    at.number_input(key="mce_epochs").set_value(2).run()
    assert any("× 2 epochs," in c.value for c in at.caption)


def test_page_ends_with_the_next_step(run_page):
    at = run_page(PAGE)
    assert any(m.value == "**Next: Trade-off**" for m in at.markdown)


def test_figure4_lines_span_the_datas_lambda_range(run_page, hmceval_tsv):
    """The QA case: on the release (range 0 to 804.7) the lines stopped at a fixed λ = 50, far
    before the machine alone; they now span the data's whole λ range, and reach time cost 0."""
    import json

    import numpy as np

    data = prepare(load_table(hmceval_tsv), name="hmceval")
    at = run_page(PAGE, state=_state(data))
    assert not at.exception and not at.error
    assert any("Lines: λ from 0 to 804.7 at this N" in c.value for c in at.caption)
    spec = json.loads(at.get("plotly_chart")[-1].proto.spec)
    def values(v):  # plotly sends arrays as {"dtype", "bdata"} (base64)
        import base64

        import numpy as np

        if isinstance(v, dict):
            return np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        return np.asarray(v, dtype=float)

    lines = [t for t in spec["data"] if t.get("mode") == "lines" and t.get("x") is not None]
    lows = [float(np.nanmin(values(t["x"]))) for t in lines]
    assert lines and all(low == 0 for low in lows), lows


def test_quality_headers_are_plain_with_the_technical_name_in_the_tooltip(run_page):
    """issue 33: AUC, AURC, ECE and top-k shown as plain words; the abbreviation and its
    definition are in the header's tooltip; scores to 3 decimals."""
    import json

    at = run_page(PAGE)
    el = next(d for d in at.dataframe if "AUC ↑" in d.value.columns)
    config = json.loads(el.proto.columns)
    shown = {k: (config[k]["label"], config[k]["help"].split(" ")[0]) for k in
             ("AUC ↑", "AURC ↓", "ECE ↓", "top-50% accuracy ↑")}
    assert shown == {"AUC ↑": ("tells right from wrong ↑", "AUC"),
                     "AURC ↓": ("error, surest kept ↓", "AURC"),
                     "ECE ↓": ("confidence off by ↓", "ECE"),
                     "top-50% accuracy ↑": ("accuracy, surest 50% ↑", "top-50%")}
    assert {config[k]["type_config"]["format"] for k in shown} == {"%.3f"}
