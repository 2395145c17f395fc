"""The evaluation figures (``core.figures.evaluation``) and the stakeholder report that draws
them: row labels shown whole, legends off the axes, whatever plotly template is the default."""

from __future__ import annotations

import json
import re

import pandas as pd
import plotly.io as pio
import pytest

from core.figures.evaluation import (forest_figure, label_margin, progress_figure,
                                     wrap_label)


@pytest.fixture
def streamlit_template():
    """Streamlit's plotly template as the default, as inside the app (it has no automargin)."""
    from streamlit.elements.lib.streamlit_plotly_theme import configure_streamlit_plotly_theme

    before = pio.templates.default
    configure_streamlit_plotly_theme()
    assert pio.templates.default == "streamlit"
    yield
    pio.templates.default = before


def _demo_rows() -> pd.DataFrame:
    return pd.DataFrame({"group": ["All rows", "system = blender", "topic = relationships"],
                         "rows": [3557, 1003, 722], "estimate": [0.7, 0.75, 0.61],
                         "ci_low": [0.68, 0.72, 0.59], "ci_high": [0.72, 0.78, 0.63],
                         "machine_only": [0.65, 0.7, 0.6]})


def test_wrap_label_by_hand():
    assert wrap_label("topic = relationships (n=722)") == "topic = relationships (n=722)"
    assert (wrap_label("annotator_region = North-East and Central Highlands district (n=1,234)")
            == "annotator_region = North-East<br>and Central Highlands district<br>(n=1,234)")
    assert wrap_label("a" * 70) == "a" * 32 + "<br>" + "a" * 32 + "<br>" + "a" * 6
    assert wrap_label("") == ""


def test_forest_rows_labels_fit_the_left_margin(streamlit_template):
    fig = forest_figure(_demo_rows(), label="0")
    assert list(fig.data[0].y) == ["All rows (n=3,557)", "system = blender (n=1,003)",
                                   "topic = relationships (n=722)"]
    assert fig.layout.yaxis.automargin is True
    # "topic = relationships (n=722)": 29 characters at 12 px, about 7 px each: 203 px at least
    assert fig.layout.margin.l >= 29 * 7
    assert fig.layout.yaxis.tickfont.size == 12


def test_a_long_subgroup_name_wraps_and_the_margin_holds_its_longest_line(streamlit_template):
    rows = _demo_rows()
    rows.loc[1, "group"] = "annotator_region = North-East and Central Highlands district"
    fig = forest_figure(rows, label="0")
    assert fig.data[0].y[1] == ("annotator_region = North-East<br>and Central Highlands "
                                "district<br>(n=1,003)")
    # longest line "and Central Highlands district": 30 characters
    assert fig.layout.margin.l >= 30 * 7
    assert label_margin(["ab<br>abcd", "abc"], pad=0) == 4 * 7.5


def test_progress_legend_sits_above_the_plot_not_on_the_ticks(streamlit_template):
    prog = {"calibration": {"rows": 0, "labelled": 0}, "routed": {"rows": 1778, "labelled": 1778},
            "audit": {"rows": 200, "labelled": 200}}
    fig = progress_figure(prog)
    assert list(fig.data[0].y) == ["routed", "audit"]
    # above the plot area (paper y >= 1, anchored at its bottom), within the top margin
    assert fig.layout.legend.y >= 1 and fig.layout.legend.yanchor == "bottom"
    assert fig.layout.margin.t >= 30
    assert fig.layout.yaxis.automargin is True
    assert fig.layout.margin.l >= len("routed") * 7


def test_report_figures_show_their_labels_whole_even_when_written_inside_the_app(
        tmp_path, streamlit_template):
    from core.data import prepare
    from core.demo import make_demo
    from core.workspace import Workspace
    from core.workspace import rounds as R
    from core.workspace.report import round_report_html

    ws = Workspace(tmp_path / "ws")
    rid = R.plan_round(ws, prepare(make_demo(), name="demo"), kind="budget",
                       settings={"lam": 1.0, "share": 0.5, "audit": 200, "seed": 0})
    R.simulate_annotators(ws, rid)
    page = round_report_html(ws, rid)
    layouts = [json.loads(m) for m in re.findall(
        r'Plotly\.newPlot\(\s*"[^"]+",\s*\[.*?\],\s*(\{.*?\}),\s*\{"displaylogo"', page,
        flags=re.S)]
    # progress + one forest plot per class + the final labels' accuracy by group
    assert len(layouts) == 4
    for layout in layouts:
        assert layout["yaxis"]["automargin"] is True
        # a template with real colours, not Streamlit's placeholders (#000001 ...)
        assert "#000001" not in json.dumps(layout["template"])
    # the demo's longest row label, "topic = relationships (n=722)", fits the forest plots
    assert all(lay["margin"]["l"] >= 29 * 7 for lay in layouts[1:])
    # the random-labelling column is explained, and on the demo it says that random labelling
    # would estimate a share with fewer rows than this round labelled (the QA's reading)
    assert "rows labelled at random for the same precision" in page
    assert "a smaller number means random labelling would have estimated that share" in page


def _frontier() -> pd.DataFrame:
    return pd.DataFrame([
        {"design": "active", "mu": 0.0, "expected_accuracy": 0.80, "expected_half_width": 0.020,
         "random_equivalent": 1200, "recommended": False},
        {"design": "active", "mu": 5.0, "expected_accuracy": 0.85, "expected_half_width": 0.025,
         "random_equivalent": 800, "recommended": True},
        {"design": "routing", "mu": float("nan"), "expected_accuracy": 0.90,
         "expected_half_width": 0.060, "random_equivalent": 150, "recommended": False},
        {"design": "random", "mu": float("nan"), "expected_accuracy": 0.78,
         "expected_half_width": 0.030, "random_equivalent": 400, "recommended": False}])


def test_worth_text_by_hand():
    from core.figures.evaluation import worth_text

    assert worth_text(1238) == "worth 1,238 random labels"
    assert worth_text(1) == "worth 1 random label"
    assert worth_text(None) == "" and worth_text(float("nan")) == ""


def test_frontier_marks_the_recommended_routing_and_random_designs():
    from core.figures.evaluation import frontier_figure

    fig = frontier_figure(_frontier())
    by_name = {t.name: t for t in fig.data}
    assert list(by_name["active designs"].x) == [0.020, 0.025]
    assert list(by_name["active designs"].y) == [0.80, 0.85]
    rec = by_name["recommended (worth 800 random labels)"]
    assert (rec.x[0], rec.y[0], rec.marker.symbol) == (0.025, 0.85, "star")
    routing = next(t for n, t in by_name.items() if n.startswith("routing"))
    assert (routing.x[0], routing.y[0]) == (0.060, 0.90)
    assert (by_name["random labels"].x[0], by_name["random labels"].y[0]) == (0.030, 0.78)
    # every point says what its interval is worth
    assert "worth 150 random labels" in routing.text[0]
    # half-widths are about 1 %: two decimals, or neighbouring ticks read alike (0.9%, 0.9%)
    assert fig.layout.xaxis.tickformat == ".2%"


def test_group_accuracy_figure_draws_worse_groups_in_red_in_table_order():
    from core.figures.evaluation import group_accuracy_figure

    table = pd.DataFrame({"column": ["lang"] * 3, "group": ["de", "ja", "en"],
                          "rows": [500, 500, 1000], "accuracy": [0.95, 0.70, 0.94],
                          "ci_low": [0.92, 0.64, 0.92], "ci_high": [0.97, 0.76, 0.96],
                          "worth_random": pd.array([300, 150, 500], dtype="Int64"),
                          "worse": [False, True, False]})
    fig = group_accuracy_figure(table)
    ok, bad = fig.data
    assert list(bad.y) == ["lang = ja (n=500)"] and bad.marker.color == "#d62728"
    assert list(ok.x) == [0.95, 0.94]
    assert list(bad.error_x.arrayminus) == pytest.approx([0.06])
    assert list(fig.layout.yaxis.categoryarray) == [
        "lang = de (n=500)", "lang = ja (n=500)", "lang = en (n=1,000)"]
    assert bad.text == ("worth 150 random labels",)


def test_frontier_leaves_out_a_design_without_an_interval():
    from core.figures.evaluation import frontier_figure

    f = _frontier()
    f.loc[f["design"] == "routing", "expected_half_width"] = float("nan")
    names = [t.name for t in frontier_figure(f).data]
    assert not any(n.startswith("routing") for n in names)
    assert "random labels" in names and "active designs" in names


def test_group_names_are_drawn_as_written():
    """A group named like HTML is text in the group-accuracy figure (plotly would draw <b>
    bold and <a href> as a link): entities, never tags."""
    from core.figures import plain_text
    from core.figures.evaluation import group_accuracy_figure

    assert plain_text("<a href='x'>l</a> & <b>") == "&lt;a href='x'&gt;l&lt;/a&gt; &amp; &lt;b&gt;"
    table = pd.DataFrame({"column": ["lang"] * 2, "group": ["<b>ja</b>", "en"],
                          "rows": [10, 20], "accuracy": [0.7, 0.9], "ci_low": [0.6, 0.8],
                          "ci_high": [0.8, 0.95],
                          "worth_random": pd.array([50, 100], dtype="Int64"),
                          "worse": [True, False]})
    fig = group_accuracy_figure(table)
    drawn = [y for t in fig.data for y in (t.y or [])]
    assert any("&lt;b&gt;ja&lt;/b&gt;" in str(y) for y in drawn)
    assert not any("<b>ja" in str(y) for y in drawn)


def _look(n: int, share: tuple[float, float, float], acc: tuple[float, float, float]) -> dict:
    """One look of a two-class stream's trace: the share of 'unsafe' (estimate, low, high),
    'safe' its mirror, and the final labels' accuracy."""
    e, lo, hi = share
    return {"labels": n,
            "class_shares": {"safe": {"estimate": 1 - e, "ci_low": 1 - hi, "ci_high": 1 - lo},
                             "unsafe": {"estimate": e, "ci_low": lo, "ci_high": hi}},
            "accuracy": dict(zip(("estimate", "ci_low", "ci_high"), acc))}


def _stream_result() -> dict:
    trace = [_look(10, (0.10, 0.00, 0.30), (0.90, 0.70, 1.00)),
             _look(20, (0.06, 0.01, 0.11), (0.92, 0.85, 0.99)),
             _look(30, (0.04, 0.02, 0.06), (0.93, 0.89, 0.97))]
    return {"labels": 30, "queue": 100, "confidence": 0.95, "trace": trace,
            "class_shares": trace[-1]["class_shares"], "accuracy": trace[-1]["accuracy"],
            "decision": {"question": "share(unsafe) <= 0.08", "decided": True, "answer": True,
                         "labels": 30},
            "stop": {"reached": False, "labels": 30, "reason": "..."}, "imports": [20, 30]}


def test_stream_figure_bands_imports_target_question_and_stop_by_hand():
    from core.figures.evaluation import stream_figure

    fig = stream_figure(_stream_result(), target_half_width=0.02)
    lines = {t.name: t for t in fig.data if t.showlegend is not False}
    bands = {t.legendgroup: t for t in fig.data if t.showlegend is False}
    # one band and one line per class share and for the accuracy, the band in its line's group
    assert set(bands) == {"share of 'safe'", "share of 'unsafe'", "accuracy of the final labels"}
    assert list(lines["share of 'unsafe'"].x) == [10, 20, 30]
    assert list(lines["share of 'unsafe'"].y) == [0.10, 0.06, 0.04]
    # the band runs along the high ends, then back along the low ends
    assert list(bands["share of 'unsafe'"].x) == [10, 20, 30, 30, 20, 10]
    assert list(bands["share of 'unsafe'"].y) == [0.30, 0.11, 0.06, 0.02, 0.01, 0.00]
    assert list(bands["accuracy of the final labels"].y) == [1.00, 0.99, 0.97, 0.89, 0.85, 0.70]
    # a point after each import, on the question's quantity, with that look's interval
    imp = lines["after each import: share of 'unsafe'"]
    assert list(imp.x) == [20, 30] and list(imp.y) == [0.06, 0.04]
    assert list(imp.error_y.array) == pytest.approx([0.05, 0.02])
    assert list(imp.error_y.arrayminus) == pytest.approx([0.05, 0.02])
    # the target: ± 2 points around the latest estimate (4 %), over the labels drawn
    target = lines["target: ± 2.0 points around the latest estimate"]
    assert list(target.x) == [10, 30, 30, 10]
    assert list(target.y) == pytest.approx([0.02, 0.02, 0.06, 0.06])
    # the question's threshold, and the stop where it was decided
    question = lines["question: is the share of 'unsafe' at most 8.0%?"]
    assert list(question.y) == [0.08, 0.08]
    assert list(lines["stop reached after 30 labels"].x) == [30, 30]
    assert fig.layout.title.text == "Intervals against labels spent (95%, valid however often you look)"
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text


def test_progress_figure_names_a_stream_queue():
    from core.figures.evaluation import progress_figure

    prog = {"calibration": {"rows": 0, "labelled": 0}, "routed": {"rows": 0, "labelled": 0},
            "audit": {"rows": 600, "labelled": 150}}
    assert list(progress_figure(prog).data[0].y) == ["audit"]
    done, left = progress_figure(prog, stream=True).data
    assert list(done.y) == ["stream queue"] and list(done.x) == [150] and list(left.x) == [450]


def test_stream_figure_without_question_target_or_labels():
    from core.figures.evaluation import stream_figure

    res = {**_stream_result(), "decision": None, "imports": [], "stop": None}
    names = [t.name for t in stream_figure(res).data if t.showlegend is not False]
    # no question, target or stop: the three lines only
    assert names == ["share of 'safe'", "share of 'unsafe'", "accuracy of the final labels"]
    empty = {**res, "trace": [], "labels": 0}
    assert list(stream_figure(empty, target_half_width=0.02).data) == []
    # a question about the accuracy: the target band is around the widest class share
    acc_q = {**res, "decision": {"question": "accuracy >= 0.9", "decided": False,
                                 "answer": None, "labels": None}}
    shapes = {t.name: t for t in stream_figure(acc_q, target_half_width=0.02).data}
    band = shapes["target: ± 2.0 points around the latest estimate"]
    # at 30 labels both shares span 4 points; the later class, 'unsafe' (4 %), is taken
    assert list(band.y) == pytest.approx([0.02, 0.02, 0.06, 0.06])
    assert "question: are the final labels at least 90.0% accurate?" in shapes
    # a class named like HTML is drawn as text
    odd = _look(10, (0.1, 0.0, 0.3), (0.9, 0.8, 1.0))
    odd["class_shares"] = {"<b>x</b>": odd["class_shares"]["unsafe"]}
    fig = stream_figure({**res, "trace": [odd], "class_shares": odd["class_shares"]})
    assert "share of '&lt;b&gt;x&lt;/b&gt;'" in [t.name for t in fig.data]
