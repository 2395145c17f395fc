"""Turns page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.data import prepare
from pages._common import fingerprint
from tests.app.conftest import figure_problems, shown_cells


def test_turns_page_renders_and_follows_lambda(run_page):
    at = run_page("6_Turns.py")
    assert not at.exception and not at.error
    t1 = at.dataframe[0].value
    assert {"turn", "n", "accuracy", "human_ratio", "time_cost"} <= set(t1.columns)
    at.session_state["lam"] = 40.0
    at.run()
    t2 = at.dataframe[0].value
    assert not t2["human_ratio"].equals(t1["human_ratio"])


def test_turns_page_without_turn_column(run_page):
    df = pd.DataFrame({"machine_label": [0, 1] * 5, "machine_confidence": [0.3, 0.8] * 5})
    at = run_page("6_Turns.py", state={"data": prepare(df), "data_key": fingerprint(df)})
    assert not at.exception
    # a page that does not apply says what it needs in an info (not a red box), and still
    # leads on to the next step
    assert not at.error
    assert at.info and "turn number" in at.info[0].value and "'turn' role" in at.info[0].value
    assert any(m.value == "**Next: Evaluate**" for m in at.markdown)


def test_turns_page_table_is_the_core_table(run_page):
    from core.assignment import SAEInputs, n_from_share, solve
    from core.assignment import per_turn_for

    at = run_page("6_Turns.py")
    data = at.session_state["data"]
    n = n_from_share(float(at.session_state["share"]), data.M)
    a = solve(SAEInputs.from_data(data), lam=float(at.session_state["lam"]), n_human=n,
              mode=at.session_state["mode"])
    want = per_turn_for(data, a.human, n_boot=1000, seed=0)
    got = at.dataframe[0].value
    assert list(got.columns) == list(want.columns)
    for col in want.columns:
        assert np.array_equal(got[col].to_numpy(), want[col].to_numpy()), col
    # back at a visited setting after another one: the same table (cached parts included)
    lam = at.session_state["lam"]
    at.session_state["lam"] = 40.0
    at.run()
    at.session_state["lam"] = lam
    at.run()
    assert at.dataframe[0].value.equals(got)

def test_turns_page_figure_headers_and_download(run_page, downloads):
    """Issue 13: round sample ticks with headroom, a reliability axis zoomed to the data (issue 25), friendly headers
    (the column name in the tooltip), shares in %, and the table downloadable."""
    import io
    import json

    at = run_page("6_Turns.py")
    assert not at.exception and not at.error
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    lay = spec["layout"]
    table = at.dataframe[0].value
    top = lay["yaxis3"]["range"][1]
    assert top >= 1.1 * table["n"].max() and lay["yaxis3"]["tickvals"][-1] == top
    assert all(v % 100 == 0 for v in lay["yaxis3"]["tickvals"])  # the demo: 0, 200, ..., 800
    # reliability zoomed to the values and their intervals, not 0-100 % (issue 25)
    shown_rel = table[[c for c in ("accuracy", "accuracy_lo", "accuracy_hi", "f1", "machine_accuracy")
                       if c in table]].to_numpy(float)
    lo, hi = float(np.nanmin(shown_rel)), float(np.nanmax(shown_rel))
    assert 0 < lay["yaxis"]["range"][0] < lo and hi < lay["yaxis"]["range"][1] <= 1.02
    assert lay["yaxis"]["range"][1] - lay["yaxis"]["range"][0] < 0.5
    config = json.loads(at.dataframe[0].proto.columns)
    assert config["n"]["label"] == "Samples" and config["n"]["help"].startswith("n: ")
    assert config["human_ratio"]["label"] == "To humans"
    assert config["human_ratio"]["help"] == "human_ratio: share of the turn's samples sent to humans"
    shown = shown_cells(at.dataframe[0])
    # shares shown in % with one decimal (the data and the CSV keep fractions)
    assert shown["accuracy"].str.fullmatch(r"\d{1,3}\.\d%").all()
    assert shown["accuracy"].iloc[0] == f"{100 * table['accuracy'].iloc[0]:.1f}%"
    assert shown["n"].iloc[0] == str(table["n"].iloc[0])
    # the intervals: one column per quantity, "low – high" in %, the CSV's names in the tooltip
    intervals = shown_cells(at.dataframe[1])
    assert intervals["accuracy"].iloc[0] == (f"{100 * table['accuracy_lo'].iloc[0]:.1f}% – "
                                             f"{100 * table['accuracy_hi'].iloc[0]:.1f}%")
    assert json.loads(at.dataframe[1].proto.columns)["accuracy"]["help"].startswith("accuracy_lo, accuracy_hi: ")
    got = pd.read_csv(io.BytesIO(downloads["hmceval_turns.csv"]))
    assert list(got.columns) == list(table.columns) and len(got) == len(table)
    assert np.allclose(got["accuracy"], table["accuracy"])


def test_turns_page_without_gold_labels(run_page):
    """Effort still shown; reliability cells read "—" and the figure says why it is empty."""
    import json

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"machine_label": rng.integers(0, 2, 200), "machine_confidence": rng.random(200),
                       "turn": rng.integers(1, 4, 200)})
    at = run_page("6_Turns.py", state={"data": prepare(df), "data_key": fingerprint(df)})
    assert not at.exception and not at.error
    assert any("No gold labels" in w.value for w in at.warning)
    shown = shown_cells(at.dataframe[0])
    assert (shown["accuracy"] == "—").all() and shown["human_ratio"].str.endswith("%").all()
    assert (shown["time_cost"] == "—").all()  # no effort column either
    assert (shown_cells(at.dataframe[1])["accuracy"] == "—").all()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert any("no gold labels" in a.get("text", "") for a in spec["layout"]["annotations"])
    names = [t.get("name") for t in spec["data"]]
    assert "Accuracy" not in names and "Samples sent to humans" in names


SHOWN_MISSING = ["None", "nan", "NaN", "<NA>", "NaT", "nan%"]


@pytest.mark.parametrize("gold", [True, False])
def test_turns_tables_fit_explain_and_download(run_page, downloads, gold):
    """Issue 13: both tables (values, intervals) fit a 1,400 px window (pixel widths adding up to
    at most 900 px of the ~930 px content; each header fits its column at 6 px a character plus
    16 px), every column has a header in words and a tooltip naming the CSV column, no visible
    cell reads None/NaN (with and without gold labels), and each table has its own CSV."""
    import io
    import json

    state = {}
    if not gold:
        rng = np.random.default_rng(1)
        df = pd.DataFrame({"machine_label": rng.integers(0, 2, 300), "machine_confidence": rng.random(300),
                           "turn": rng.integers(1, 5, 300)})
        state = {"data": prepare(df), "data_key": fingerprint(df)}
    at = run_page("6_Turns.py", state=state)
    assert not at.exception and not at.error
    assert len(at.dataframe) == 2
    for element in at.dataframe:
        config = json.loads(element.proto.columns)
        order = list(element.proto.column_order) or list(element.value.columns)
        assert sum(config[c]["width"] for c in order) <= 900
        for col in order:
            c = config[col]
            assert c["help"].split(":")[0].split(",")[0] in (col, f"{col}_lo"), (col, c)
            assert 6 * len(c["label"]) + 16 <= c["width"], (col, c)
        assert not shown_cells(element).isin(SHOWN_MISSING).any().any()
    table = at.dataframe[0].value
    got = pd.read_csv(io.BytesIO(downloads["hmceval_turns_intervals.csv"]))
    assert list(got.columns) == ["turn"] + [f"{k}_{b}" for k in ("accuracy", "precision", "recall", "f1",
                                                               "machine_accuracy", "human_ratio")
                                            for b in ("lo", "hi")]
    assert np.allclose(got["human_ratio_lo"], table["human_ratio_lo"])
    assert "hmceval_turns.csv" in downloads


def test_turns_figure_explained(run_page):
    """Issue 13: the figure's title fits, every axis showing ticks has a title with its unit, every
    mark is in the legend, and the effort panel says what its bars are."""
    import json

    at = run_page("6_Turns.py")
    (chart,) = at.get("plotly_chart")
    assert figure_problems(chart) == []
    titles = [a["text"] for a in json.loads(chart.proto.spec)["layout"]["annotations"]]
    assert "Human effort (bars: bootstrap 95% interval)" in titles
    at.select_slider[0].set_value(0).run()  # no resamples: no bars, and no title claims any
    titles = [a["text"] for a in json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["annotations"]]
    assert titles[:2] == ["Reliability", "Human effort"]
    assert len(at.dataframe) == 1  # no interval table either
