"""Effort page: demo features, the HMCEval release (Table 4), uploads, errors, sending the effort."""

from __future__ import annotations

import base64
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
    assert m.loc["features", "D"] == 7
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
    assert not at.exception and not at.error
    assert any("no free-text column" in w.value for w in at.warning)
