"""core.figures.tradeoff: what the Trade-off page's curves and frontier draw, worked by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.figures.tradeoff import TEMPLATE, curves_figure, frontier_figure


def test_curves_figure_draws_available_metrics_and_the_current_setting():
    df = pd.DataFrame({"lambda": [0.0, 0.5, 2.0], "accuracy": [0.9, 0.8, 0.7],
                       "f1": [np.nan] * 3, "human_ratio": [0.5, 0.3, 0.1]})
    fig = curves_figure(df, x="lambda", metrics=["accuracy", "f1", "missing"], current=0.5,
                        log_x=True, title="t", y_title="score")
    names = [t.name for t in fig.data]
    assert names == ["Accuracy", "current"]  # f1 all NaN and an absent column are skipped
    # a log axis cannot show lambda = 0: that row is left out
    assert list(fig.data[0].x) == [0.5, 2.0] and list(fig.data[0].y) == [0.8, 0.7]
    assert list(fig.data[1].x) == [0.5, 0.5]
    # scores 0.7-0.8: the axis fits them (span 0.1 + 8% margins), with one-decimal ticks
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.tickformat == ".1%"
    assert list(fig.layout.yaxis.range) == pytest.approx([0.692, 0.808])
    # the current line spans the axis; the log axis's ticks are plain decades, not "1μ"
    assert list(fig.data[1].y) == pytest.approx([0.692, 0.808])
    assert fig.layout.xaxis.ticktext == ("0.1", "1", "10")
    assert fig.layout.title.text == "t" and fig.layout.yaxis.title.text == "score"
    assert fig.layout.xaxis.title.text == "λ"
    # at lambda = 0 on a log axis there is no place for the marker
    assert [t.name for t in curves_figure(df, x="lambda", metrics=["accuracy"], current=0.0,
                                          log_x=True).data] == ["Accuracy"]


def test_curves_figure_linear_axis_keeps_zero_and_plain_ticks():
    df = pd.DataFrame({"human_share": [0.0, 0.5, 1.0], "human_ratio": [0.0, 0.4, 0.6]})
    fig = curves_figure(df, x="human_share", metrics=["human_ratio"], percent=False,
                        x_title="share")
    assert list(fig.data[0].x) == [0.0, 0.5, 1.0]
    assert fig.layout.xaxis.type is None and fig.layout.yaxis.tickformat is None
    assert fig.layout.xaxis.title.text == "share"


def test_frontier_figure_is_the_best_accuracy_reached_at_each_time_cost():
    # points (time cost, accuracy): the frontier is the running maximum by time cost, drawn
    # where it rises: (0.1, 0.7), (0.2, 0.8), (0.5, 0.9); (0.3, 0.75) and (0.6, 0.85) are below
    grid = pd.DataFrame({"time_cost": [0.3, 0.1, 0.5, 0.2, 0.6, np.nan],
                         "accuracy": [0.75, 0.7, 0.9, 0.8, 0.85, 0.99],
                         "lambda": [1.0, 10.0, 0.1, 2.0, 0.0, 1.0],
                         "human_share": [0.2, 0.1, 0.5, 0.3, 0.6, 0.9]})
    fig = frontier_figure(grid, current={"time_cost": 0.2, "accuracy": 0.8}, machine_only=0.6,
                          log_lambda=True)
    by_name = {t.name: t for t in fig.data}
    assert list(by_name) == ["grid points", "frontier", "machine only", "all human", "current"]
    assert len(by_name["grid points"].x) == 5  # the row without a time cost is left out
    # SVG, not WebGL: a WebGL context redrawn on every move of N took about 1 s of the browser's
    # time in headless chromium (bench/browser.py, issue 25)
    assert by_name["grid points"].type == "scatter"
    assert list(by_name["frontier"].x) == [0.1, 0.2, 0.5]
    assert list(by_name["frontier"].y) == pytest.approx([0.7, 0.8, 0.9])
    assert list(by_name["machine only"].y) == [0.6] and list(by_name["all human"].x) == [1]
    # colour by log10(lambda), lambda = 0 at the smallest positive lambda's colour
    assert list(by_name["grid points"].marker.color) == pytest.approx([0, 1, -1, np.log10(2), -1])
    assert by_name["grid points"].marker.colorbar.ticktext == ("0.1", "1", "10")
    # the colour bar is titled (plotly.js shows a title given as {"text": ...} only)
    assert fig.to_plotly_json()["data"][0]["marker"]["colorbar"]["title"] == {
        "text": "λ (log scale)"}


def test_decade_labels_read_plainly():
    from core.figures.tradeoff import decade_label

    assert [decade_label(t) for t in (1e-5, 1e-4, 1e-3, 0.01, 1.0, 1000.0, 1e4, 1e12)] == [
        "10⁻⁵", "10⁻⁴", "0.001", "0.01", "1", "1,000", "10⁴", "10¹²"]


def test_figures_share_the_small_white_template():
    fig = curves_figure(pd.DataFrame({"human_share": [0.0, 1.0], "accuracy": [0.5, 1.0]}),
                        x="human_share", metrics=["accuracy"])
    assert fig.layout.template.layout.plot_bgcolor == "white"
    assert fig.layout.template.layout.xaxis.gridcolor == TEMPLATE.layout.xaxis.gridcolor
    assert not fig.layout.template.data.bar  # not the whole plotly_white tree


def test_equal_curves_share_one_line_and_name():
    """QA: under uniform effort the predicted time cost equals the human ratio, and its line
    hid the other while the legend listed both."""
    import pandas as pd

    from core.figures.tradeoff import curves_figure

    df = pd.DataFrame({"human_share": [0.0, 0.5, 1.0], "human_ratio": [0.0, 0.5, 1.0],
                       "time_cost_predicted": [0.0, 0.5, 1.0], "time_cost": [0.0, 0.7, 1.0]})
    fig = curves_figure(df, x="human_share", metrics=["human_ratio", "time_cost", "time_cost_predicted"])
    assert [t.name for t in fig.data] == ["Human ratio = Predicted time cost", "Time cost"]
    df.loc[1, "time_cost_predicted"] = 0.51  # differ anywhere: two lines
    fig = curves_figure(df, x="human_share", metrics=["human_ratio", "time_cost_predicted"])
    assert [t.name for t in fig.data] == ["Human ratio", "Predicted time cost"]


def test_zoomed_range_fits_the_data():
    from core.figures.tradeoff import zoomed_range

    # 0.86-0.99: span 0.13, margins 0.08 x 0.13 = 0.0104 -> [0.8496, 1.0004]
    assert zoomed_range([0.86, 0.99, np.nan]) == pytest.approx([0.8496, 1.0004])
    # 0-1: margins capped at 0.02 beyond the ends
    assert zoomed_range([0.0, 1.0]) == pytest.approx([-0.02, 1.02])
    # a flat curve at 0.95: at least 0.02 of span -> 0.95 -+ 0.0016
    assert zoomed_range([0.95, 0.95]) == pytest.approx([0.9484, 0.9516])
    assert zoomed_range([]) == pytest.approx([-0.02, 1.05])


def test_log_ticks_are_plain_decades():
    from core.figures.tradeoff import log_ticks

    t = log_ticks([2e-6, 0.04, 0.0])
    assert t["tickvals"] == pytest.approx([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1])
    assert t["ticktext"] == ["10⁻⁶", "10⁻⁵", "10⁻⁴", "0.001", "0.01", "0.1"]
    assert log_ticks([0.0]) == {}


def test_goal_figure_draws_the_frontier_and_marks_the_recommendation():
    from core.figures.tradeoff import goal_figure

    # settings (hours, accuracy): frontier (1, 0.7), (2, 0.8), (5, 0.9); (3, 0.75) is below
    fig = goal_figure([3, 1, 5, 2], [0.75, 0.7, 0.9, 0.8], current=(3, 0.75),
                      points=[{"x": 2, "y": 0.8, "name": "same accuracy, 1 h less"}],
                      target_y=0.85, x_title="human effort (hours)")
    by = {t.name: t for t in fig.data}
    assert list(by) == ["best accuracy for the effort", "same accuracy, 1 h less",
                        "current setting", "target"]
    assert list(by["best accuracy for the effort"].x) == [1, 2, 5]
    assert list(by["best accuracy for the effort"].y) == pytest.approx([0.7, 0.8, 0.9])
    assert list(by["current setting"].x) == [3] and list(by["target"].y) == [0.85, 0.85]
    # y: 0.7-0.9, span 0.2, margins 0.016
    assert list(fig.layout.yaxis.range) == pytest.approx([0.684, 0.916])
    assert fig.layout.xaxis.title.text == "human effort (hours)"


def test_curves_pair_figure_is_two_panels_of_one_figure():
    """Both panels of the Trade-off page's curves in one figure (issue 33: one figure drawn
    again per move instead of two): each panel has its own axes, title and y range, the current
    setting is marked in both with one legend entry."""
    from core.figures.tradeoff import curves_pair_figure

    df = pd.DataFrame({"human_share": [0.0, 0.5, 1.0], "accuracy": [0.8, 0.9, 1.0],
                       "human_ratio": [0.0, 0.5, 1.0], "time_cost": [0.0, 0.25, 0.5]})
    fig = curves_pair_figure(df, x="human_share", left=["accuracy"], right=["human_ratio",
                             "time_cost"], current=0.5, title="both",
                             subtitles=("Reliability", "Effort"), y_titles=("score (%)", "share (%)"),
                             x_title="N / M")
    by_axis = [(t.name, t.xaxis, t.yaxis, t.showlegend) for t in fig.data]
    assert by_axis == [("Accuracy", "x", "y", None), ("current", "x", "y", True),
                       ("Human ratio", "x2", "y2", None), ("Time cost", "x2", "y2", None),
                       ("current", "x2", "y2", False)]
    lay = fig.layout
    assert lay.title.text == "both"
    assert [a.text for a in lay.annotations] == ["Reliability", "Effort"]
    assert lay.xaxis.domain[1] < lay.xaxis2.domain[0] and lay.xaxis2.anchor == "y2"
    assert lay.yaxis.title.text == "score (%)" and lay.yaxis2.title.text == "share (%)"
    assert lay.xaxis.title.text == lay.xaxis2.title.text == "N / M"
    # each panel's range fits its own data: scores 0.8-1.0 (span 0.2, 8% margins, kept within
    # 1 + 0.02); shares 0-1 (0 - 0.02 to 1 + 0.02)
    assert list(lay.yaxis.range) == pytest.approx([0.784, 1.016])
    assert list(lay.yaxis2.range) == pytest.approx([-0.02, 1.02])
    # the current line spans its own panel's range
    assert list(fig.data[1].y) == pytest.approx([0.784, 1.016])
    assert list(fig.data[4].x) == [0.5, 0.5] and list(fig.data[4].y) == pytest.approx([-0.02, 1.02])


def test_frontier_figure_draws_each_distinct_point_once():
    """Settings reaching the same time cost and accuracy are one marker (the last of them, the
    one that showed on top), not several drawn over each other (issue 33); the frontier still
    comes from the whole grid."""
    grid = pd.DataFrame({"time_cost": [0.1, 0.1, 0.2, 0.1, 0.2],
                         "accuracy": [0.7, 0.7, 0.8, 0.7, 0.9],
                         "lambda": [0.01, 0.1, 1.0, 10.0, 0.001],
                         "human_share": [0.1, 0.2, 0.3, 0.4, 0.5]})
    fig = frontier_figure(grid, log_lambda=True)
    cloud = next(t for t in fig.data if t.name == "grid points")
    assert list(cloud.x) == [0.2, 0.1, 0.2] and list(cloud.y) == [0.8, 0.7, 0.9]
    assert list(cloud.customdata[:, 0]) == [1.0, 10.0, 0.001]  # lambda of the last of (0.1, 0.7)
    assert list(cloud.marker.color) == pytest.approx([0.0, 1.0, -3.0])
    front = next(t for t in fig.data if t.name == "frontier")
    assert list(front.x) == [0.1, 0.2] and list(front.y) == pytest.approx([0.7, 0.9])


def test_figures_redrawn_per_move_have_margins_nothing_expands():
    """The curves, goal and frontier figures, drawn anew on every move of N or λ, keep fixed margins
    (plotly.js draws a figure twice when its legend or axis labels push a margin out; issue 33):
    no margin expansion, no axis automargin, the legend in the bottom margin."""
    from core.figures.tradeoff import curves_pair_figure, fixed_margins, goal_figure

    lay = fixed_margins({"xaxis": {"title": {"text": "x"}}, "yaxis2": {"range": [0, 1]},
                         "legend": {"title": {"text": "l"}}, "height": 400},
                        left=80, right=10, top=50, bottom=110)
    assert lay["margin"] == {"l": 80, "r": 10, "t": 50, "b": 110, "autoexpand": False}
    assert lay["xaxis"] == {"title": {"text": "x"}, "automargin": False}
    assert lay["yaxis2"] == {"range": [0, 1], "automargin": False}
    assert lay["legend"] == {"title": {"text": "l"}, "orientation": "h", "yref": "container",
                             "y": 0, "yanchor": "bottom"}
    assert lay["height"] == 400
    df = pd.DataFrame({"human_share": [0.0, 1.0], "accuracy": [0.8, 1.0],
                       "human_ratio": [0.0, 1.0]})
    pair = curves_pair_figure(df, x="human_share", left=["accuracy"], right=["human_ratio"],
                              current=0.5)
    goal = goal_figure([0.0, 1.0], [0.8, 0.9], current=(0.5, 0.85))
    # the frontier starred with the current setting (drawn per move when the goal figure is off)
    frontier = frontier_figure(pd.DataFrame({"time_cost": [0.1, 0.5], "accuracy": [0.8, 0.9],
                                             "lambda": [0.0, 1.0], "human_share": [0.1, 0.5]}),
                               current={"time_cost": 0.5, "accuracy": 0.9}, log_lambda=True)
    assert frontier.layout.margin.r == 110  # the colour bar's room
    for fig, axes in ((pair, ("xaxis", "yaxis", "xaxis2", "yaxis2")), (goal, ("xaxis", "yaxis")),
                      (frontier, ("xaxis", "yaxis"))):
        assert fig.layout.margin.autoexpand is False and fig.layout.margin.b >= 100
        assert all(fig.layout[a].automargin is False for a in axes)
        assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0
