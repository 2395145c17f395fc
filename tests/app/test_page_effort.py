"""Effort page: demo features, the HMCEval release (Table 4), uploads, errors, sending the effort."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from core.data import prepare
from core.demo import make_demo
from pages._common import fingerprint

PAGE = "4_Effort.py"


def _trace_array(chart, trace: int, axis: str) -> np.ndarray:
    """A trace's x or y values from a plotly chart element (plain list or packed base64)."""
    spec = json.loads(chart.proto.spec)
    v = spec["data"][trace][axis]
    if isinstance(v, dict):
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).astype(float)
    return np.asarray(v, dtype=float)


def _frames(at) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe]


def _metrics(at) -> pd.DataFrame:
    return next(d for d in _frames(at) if "RMSE" in d.index)


def _settings(at) -> pd.DataFrame:
    return next(d for d in _frames(at) if "evaluation" in d.columns)


def _corr(at) -> pd.DataFrame:
    return next(d for d in _frames(at) if "Spearman" in d.columns)


def test_demo_features_from_texts(run_page):
    at = run_page(PAGE, state={"eff_perm": 0})
    assert not at.exception and not at.error
    m = _metrics(at)
    # the demo carries worker features: D+W is available and, as in the paper, better than D
    assert list(m.columns) == ["D", "D+W"]
    assert not any("D+W is unavailable" in w.value for w in at.warning)
    assert m.loc["R²", "D+W"] > m.loc["R²", "D"] + 0.1
    assert any("perplexity" in i.value for i in at.info)  # the skipped feature is named
    assert 0.0 < m.loc["R²", "D"] < 1.0
    # correlation of the number of turns with the dialogue's effort, computed directly
    demo = make_demo()
    g = demo.groupby("dialogue_id", sort=False)
    turns, time = g.size().to_numpy(), g["human_effort"].sum().to_numpy()
    corr = _corr(at).set_index("column")
    r = stats.pearsonr(turns, time).statistic
    assert corr.loc["total_turns", "Pearson"].rstrip("*") == f"{r:.3f}"
    assert len(at.get("plotly_chart")) == 3


def test_release_upload_reproduces_table4(run_page, shared_data):
    content = (shared_data / "hmceval" / "data_per_dialogue.tsv").read_bytes()
    at = run_page(PAGE, state={"eff_source": "upload", "eff_perm": 0,
                               "eff_upload": {"name": "data_per_dialogue.tsv", "bytes": content}})
    assert not at.exception and not at.error
    m = _metrics(at)
    assert list(m.columns) == ["D", "D+W"]
    assert m.loc["R²", "D"] == pytest.approx(0.43, abs=0.01)
    assert m.loc["RMSE", "D"] == pytest.approx(0.092, abs=0.002)
    assert m.loc["R²", "D+W"] == pytest.approx(0.76, abs=0.01)
    assert m.loc["RMSE", "D+W"] == pytest.approx(0.059, abs=0.002)
    corr = _corr(at).set_index("column")
    assert corr.loc["turns", "Pearson"] == "0.053**" and corr.loc["turns", "Spearman"] == "0.122**"
    assert corr.loc["dia_dc_score", "Pearson"] == "0.042*"
    assert corr.loc["dialogue_bert_pp", "Spearman"] == "0.001"
    # the release's dialogue ids do not index the demo's samples: the join is refused clearly
    at.button(key="_w_eff_send").click().run()
    assert not at.exception
    assert any("no predicted effort for the dialogue of sample" in e.value for e in at.error)
    assert at.session_state["data_source"] == "demo"


def test_send_effort_to_active_dataset(run_page):
    at = run_page(PAGE, state={"eff_perm": 0})
    assert not at.exception and not at.error
    scatter = at.get("plotly_chart")[0]
    at.button(key="_w_eff_send").click().run()
    assert not at.exception and not at.error
    assert at.session_state["data_source"] == "effort"
    data = at.session_state["data"]
    assert data.effort_source == "predicted_effort"
    assert data.roles["predicted_effort"] == "predicted_effort_hee"
    f = data.frame
    g = f.groupby("dialogue_id", sort=False)["predicted_effort"]
    assert (g.nunique() == 1).all()  # one value per dialogue: predicted time / turns
    # the dialogue's samples add up to its predicted (normalised) time shown in the scatter
    # (the D+W predictions are sent by default: the scatter's second trace)
    assert at.session_state["eff_send_set"] == "D+W"
    predicted = _trace_array(scatter, 1, "y")
    assert g.sum().to_numpy() == pytest.approx(predicted)
    assert (f["human_effort"] == make_demo()["human_effort"]).all()  # ground truth untouched


def test_turn_log_upload_and_errors(run_page):
    log = pd.DataFrame({
        "conv": [1, 1, 2, 2, 2, 3, 3, 4, 4, 4, 5, 5],
        "utterance": ["hi there friend", "you are stupid", "how are you today", "fine thanks",
                      "go away loser", "nice weather today", "I agree with you",
                      "shut up", "that is rude", "sorry about that", "see you", "bye now"],
        "label": [0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0],
        "seconds": [30, 30, 55, 55, 55, 20, 20, 60, 60, 60, 15, 15],
    })
    content = log.to_csv(index=False).encode()
    at = run_page(PAGE, state={"eff_source": "upload", "eff_kind": "turn", "eff_perm": 0,
                               "eff_folds": 2, "eff_sets": ["D"],
                               "eff_upload": {"name": "log.csv", "bytes": content},
                               "eff_map": {"t_dialogue": "conv", "t_text": "utterance",
                                           "t_time": "seconds", "t_label": "label"}})
    assert not at.exception and not at.error
    m = _metrics(at)
    assert list(m.index) == ["MSE", "RMSE", "MAE", "R²"]
    assert _settings(at).loc["D", "features"] == 7
    corr = _corr(at).set_index("column")
    # malevolent turns per dialogue 1,1,0,1,0 against 30,55,20,60,15 s
    r = stats.pearsonr([1, 1, 0, 1, 0], [30, 55, 20, 60, 15]).statistic
    assert corr.loc["malevolent_turns", "Pearson"].rstrip("*") == f"{r:.3f}"
    # the dialogue time must be constant over its turns
    bad = log.assign(seconds=[30, 31] + [55] * 3 + [20] * 2 + [60] * 3 + [15] * 2)
    at.session_state["eff_upload"] = {"name": "bad.csv", "bytes": bad.to_csv(index=False).encode()}
    at.run()
    assert not at.exception
    assert any("'seconds'" in e.value and "varies within dialogue" in e.value for e in at.error)
    assert at.session_state["eff_upload"]["name"] == "bad.csv"  # what the user loaded is kept


def test_bad_uploads_show_errors(run_page):
    at = run_page(PAGE, state={"eff_source": "upload",
                               "eff_upload": {"name": "x.csv", "bytes": b"\xff\xfe\x00bad"}})
    assert not at.exception
    assert any("x.csv" in e.value for e in at.error)
    table = pd.DataFrame({"turns": [2, 3, 4, 5], "secs": [10, 20, 30, 40],
                          "score": [1.0, 2.0, 3.0, np.nan]})
    at.session_state["eff_upload"] = {"name": "t.csv", "bytes": table.to_csv(index=False).encode()}
    at.session_state["eff_sets"] = ["custom"]
    at.session_state["eff_custom"] = ["turns"]
    at.session_state["eff_folds"] = 2
    at.session_state["eff_map"] = {"time": "secs"}
    at.run()
    assert not at.exception and not at.error
    assert list(_metrics(at).columns) == ["custom"]
    at.session_state["eff_custom"] = ["turns", "score"]
    at.run()
    assert not at.exception
    assert any("'score' has missing values (NaN) in row 4" in e.value for e in at.error)


def test_active_dataset_without_texts_warns(run_page):
    demo = make_demo().drop(columns=["response"])
    data = prepare(demo, name="no text")
    at = run_page(PAGE, state={"data": data, "data_key": fingerprint(data.raw, data.roles),
                               "data_source": "upload"})
    assert not at.exception and not at.error and not at.warning
    # a page that does not apply says so neutrally (issue 25), with what it needs
    assert any("no free-text column" in i.value and "This page needs" in i.value for i in at.info)
    # and hides the model's settings, which could not be used
    assert not at.multiselect and not at.number_input
    # no table to fit: the page still ends with its next step (the QA found a dead end)
    assert at.markdown[-1].value == "**Next: Trade-off**"


# ------------------------------------------------------------------ issue 13 item 5, issue 12

TURN_LOG = pd.DataFrame({
    "conv": ["=1+1", "=1+1", "+b", "+b", "+b", "c", "c", "@d", "@d", "@d", "e", "e"],
    "utterance": ["hi there friend", "you are stupid", "how are you today", "fine thanks",
                  "go away loser", "nice weather today", "I agree with you",
                  "shut up", "that is rude", "sorry about that", "see you", "bye now"],
    "label": [0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0],
    "seconds": [30, 30, 55, 55, 55, 20, 20, 60, 60, 60, 15, 15],
})
TURN_STATE = {"eff_source": "upload", "eff_kind": "turn", "eff_perm": 0, "eff_folds": 2,
              "eff_sets": ["D"],
              "eff_map": {"t_dialogue": "conv", "t_text": "utterance", "t_time": "seconds", "t_label": "label"}}


def test_settings_shown_are_the_ones_used_after_an_upload(run_page, shared_data):
    """Before a file is there the settings, which could not be used, are hidden (issue 25); after
    the upload the widgets and the 'Settings used' table both say D, D+W and 5 folds (the values
    the models were fitted with)."""
    at = run_page(PAGE, state={"eff_perm": 0, "eff_source": "upload"})
    assert not at.exception and not at.error
    assert not at.multiselect and at.markdown[-1].value == "**Next: Trade-off**"
    content = (shared_data / "hmceval" / "data_per_dialogue.tsv").read_bytes()
    at.session_state["eff_upload"] = {"name": "data_per_dialogue.tsv", "bytes": content}
    at.run()
    assert not at.exception and not at.error
    assert at.multiselect(key="_w_eff_sets").value == ["D", "D+W"]
    assert at.number_input(key="_w_eff_folds").value == 5
    s = _settings(at)
    # the paper's Table 5: 10 dialogue features, plus 2 worker features
    assert s.loc["D"].tolist() == [10, "5-fold shuffled CV", 5, 100, 8, 397]
    assert s.loc["D+W"].tolist() == [12, "5-fold shuffled CV", 5, 100, 8, 397]
    assert str(s["features"].dtype) == "Int64" and str(s["folds"].dtype) == "Int64"
    assert any(c.value.startswith("Settings used: **D** 10 features, 5-fold shuffled CV, 100 trees, "
                                  "8 features tried per split, seed 397") for c in at.caption)
    assert list(_metrics(at).index) == ["MSE", "RMSE", "MAE", "R²"]  # no counts among the metrics


def test_a_note_is_said_once(run_page):
    at = run_page(PAGE, state={"eff_perm": 0})
    assert not at.exception and not at.error
    # the skipped perplexity was said by the extraction, then by the D and D+W models: now once
    notes = [e.value for e in at.info if e.value.startswith("Notes:")]
    assert len(notes) == 1 and notes[0].count("perplexity") == 1
    assert notes[0].count("first submission") == 1
    texts = [e.value for e in [*at.info, *at.caption, *at.warning]]
    assert not any("used without it" in t for t in texts)


def test_predictions_and_metrics_downloads(run_page, downloads):
    at = run_page(PAGE, state={**TURN_STATE,
                               "eff_upload": {"name": "log.csv", "bytes": TURN_LOG.to_csv(index=False).encode()}})
    assert not at.exception and not at.error
    labels = {b.proto.label for b in at.get("download_button")}
    assert labels == {"Download the predictions (CSV)", "Download the metrics (JSON)"}
    pred = pd.read_csv(io.BytesIO(downloads["effort_predictions_D.csv"]), keep_default_na=False)
    assert pred["feature_set"].tolist() == ["D"] * 5
    # the dialogue's time is the value repeated on its turns
    assert pred["time"].tolist() == [30, 55, 20, 60, 15]
    # formula-like dialogue ids are neutralised with a leading quote (OWASP)
    assert pred["dialogue_id"].tolist() == ["'=1+1", "'+b", "c", "'@d", "e"]
    metrics = json.loads(downloads["effort_metrics_D.json"])
    assert list(metrics) == ["D"]
    shown = _metrics(at)
    assert metrics["D"]["rmse"] == pytest.approx(shown.loc["RMSE", "D"])
    assert metrics["D"]["params"]["n_splits"] == 2 and len(metrics["D"]["folds"]) == 2


def test_masked_lm_is_a_choice_among_the_models_folder(run_page, tmp_path, monkeypatch):
    """Issue 12: no free server path for the masked LM; the models folder's masked LMs only."""
    from tests.core.test_mce_models import build_tiny_mlm

    build_tiny_mlm(tmp_path / "tiny-mlm")
    monkeypatch.setenv("HMCEVAL_MODELS", str(tmp_path))
    state = {**TURN_STATE, "eff_upload": {"name": "log.csv", "bytes": TURN_LOG.to_csv(index=False).encode()}}
    at = run_page(PAGE, state=state)
    assert not at.exception and not at.error
    assert not at.text_input  # no path box at all
    box = at.selectbox(key="_w_eff_lm")
    assert box.options == ["— none: perplexity skipped —", "tiny-mlm"] and box.value == ""
    assert _settings(at).loc["D", "features"] == 7
    box.set_value("tiny-mlm").run()
    assert not at.exception and not at.error
    assert _settings(at).loc["D", "features"] == 8  # the perplexity joins D
    assert not any("perplexity" in i.value for i in at.info)
    # an empty models folder: the feature is skipped and the page says where models go
    monkeypatch.setenv("HMCEVAL_MODELS", str(tmp_path / "none"))
    at = run_page(PAGE, state=state)
    assert not at.exception and not at.error
    assert at.selectbox(key="_w_eff_lm").options == ["— none: perplexity skipped —"]
    assert any("No masked language model in" in c.value and "HMCEVAL_MODELS" in c.value for c in at.caption)


def test_page_ends_with_the_next_step(run_page):
    at = run_page(PAGE, state={"eff_perm": 0})
    assert any(m.value == "**Next: Trade-off**" for m in at.markdown)


def test_a_large_table_is_fitted_when_asked(run_page, monkeypatch):
    """Above EFFORT_AUTO_FIT_ROWS dialogues the forests are fitted on a button press, not on a
    visit (10^6 rows would block the page for minutes); the page still ends with its next step.
    Here the bound is lowered below the demo's dialogue count."""
    from core import defaults

    monkeypatch.setattr(defaults, "EFFORT_AUTO_FIT_ROWS", 10)
    at = run_page(PAGE)
    assert not at.exception and not at.error
    assert any("so it starts when you ask" in i.value for i in at.info)
    assert "Metrics" not in [s.value for s in at.subheader]  # nothing fitted yet
    assert at.markdown[-1].value == "**Next: Trade-off**"
    at.button(key="_w_eff_fit").click().run()
    assert not at.exception and not at.error
    assert "Metrics" in [s.value for s in at.subheader]
    at.run()  # fitted for this table: no second ask
    assert "Metrics" in [s.value for s in at.subheader]
    assert not any("so it starts when you ask" in i.value for i in at.info)
