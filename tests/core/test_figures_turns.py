"""The per-turn figure (core.figures.turns): round ticks, headroom, full accuracy axis, styles."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from core.figures.turns import TITLE, nice_ticks, turn_figure


@pytest.mark.parametrize("vmax, want", [
    # 700 * 1.1 = 770: steps of 100 need 8 intervals (> 5), steps of 200 need 4 -> 0..800
    (700, [0, 200, 400, 600, 800]),
    # 606 * 1.1 = 666.6: 200 * 4 = 800 (the old axis topped out at 606)
    (606, [0, 200, 400, 600, 800]),
    # 545 * 1.1 = 599.5: steps of 100 need 6 intervals, steps of 200 need 3 -> 0..600
    (545, [0, 200, 400, 600]),
    # 9 * 1.1 = 9.9: steps of 1 need 10, steps of 2 need 5
    (9, [0, 2, 4, 6, 8, 10]),
    # 1 * 1.1 = 1.1: steps of 0.1 need 11, 0.2 need 6, 0.25 need 5
    (1, [0, 0.25, 0.5, 0.75, 1.0, 1.25]),
])
def test_nice_ticks_hand_worked(vmax, want):
    assert nice_ticks(vmax) == want


def test_nice_ticks_degenerate():
    assert nice_ticks(0) == [0.0, 1.0]
    assert nice_ticks(float("nan")) == [0.0, 1.0]


def test_nice_ticks_properties():
    for vmax in (1, 3, 7, 13, 99, 100, 101, 437, 5673, 12_345, 0.37):
        ticks = nice_ticks(vmax)
        assert ticks[0] == 0 and ticks[-1] >= vmax * 1.1 and len(ticks) <= 6
        steps = {round(b - a, 9) for a, b in zip(ticks, ticks[1:])}
        assert len(steps) == 1
        step = steps.pop()
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert round(mantissa, 6) in (1, 2, 2.5, 5)


def _table(small_last: bool = True) -> pd.DataFrame:
    rows = []
    for t, n in zip(range(1, 5), (700, 606, 447, 30)):
        rows.append({"turn": t, "n": n, "accuracy": 0.97, "f1": 0.96, "machine_accuracy": 0.85,
                     "human_ratio": 0.45, "time_cost": 0.40, "small": small_last and t == 4,
                     "accuracy_lo": 0.95, "accuracy_hi": 0.99})
    return pd.DataFrame(rows)


def test_turn_figure_axes_and_ticks():
    fig = turn_figure(_table())
    lay = fig.layout
    # reliability zoomed to the values and their intervals (0.85 to 0.99: a margin of 8 % of
    # the 0.14 span each side, by hand), not 0..100% (issue 25); one decimal on a short span
    assert lay.yaxis.range[0] == pytest.approx(0.85 - 0.08 * 0.14)
    assert lay.yaxis.range[1] == pytest.approx(0.99 + 0.08 * 0.14)
    assert lay.yaxis.tickformat == ".1%" and "%" in lay.yaxis.title.text
    # effort shares start at 0 and show 0..100%
    assert lay.yaxis2.range[0] == 0 and lay.yaxis2.range[1] >= 1
    assert list(lay.yaxis2.tickvals) == [0, 0.2, 0.4, 0.6, 0.8, 1.0] and lay.yaxis2.tickformat == ".0%"
    assert "%" in lay.yaxis2.title.text
    # the samples axis: round ticks (not 130/288/447/606), and headroom above the tallest bar
    assert list(lay.yaxis3.tickvals) == [0, 200, 400, 600, 800]
    assert lay.yaxis3.range[1] == 800 and lay.yaxis3.range[1] >= 700 * 1.1
    assert lay.xaxis3.title.text == "dialogue turn"
    assert lay.title.text == TITLE and len(TITLE) <= 60


def test_turn_figure_lines_are_distinct_and_in_the_legend():
    fig = turn_figure(_table())
    lines = [t for t in fig.data if t.type == "scatter" and t.x[0] is not None]
    assert [t.name for t in lines] == ["Accuracy", "F1 (macro)", "Machine-only accuracy",
                                       "Samples sent to humans", "Human effort (time cost)"]
    assert len({t.line.color for t in lines}) == len(lines)
    assert len({t.line.dash for t in lines[:3]}) == 3 and len({t.line.dash for t in lines[3:]}) == 2
    # every mark has a legend entry: no trace hides itself from the legend
    assert all(t.showlegend is not False and t.name for t in fig.data)
    # the small turn: hollow markers, a hatched bar and a legend entry that says what they mean
    acc = lines[0]
    assert list(acc.marker.symbol) == ["circle", "circle", "circle", "circle-open"]
    bar = next(t for t in fig.data if t.type == "bar")
    assert list(bar.marker.pattern.shape) == ["", "", "", "/"]
    assert list(bar.text) == ["700", "606", "447", "30"]
    legend = [t.name for t in fig.data if t.x[0] is None]
    assert len(legend) == 1 and "under 5% of the samples" in legend[0]
    # error bars only where bounds exist
    assert acc.error_y.array is not None and fig.data[1].error_y.array is None


def test_turn_figure_without_small_turns_or_gold():
    table = _table(small_last=False)
    fig = turn_figure(table)
    assert not [t for t in fig.data if t.x[0] is None]  # no legend entry for an absent mark
    no_gold = table.assign(accuracy=float("nan"), f1=float("nan"), machine_accuracy=float("nan"))
    fig = turn_figure(no_gold)
    assert [t.name for t in fig.data if t.type == "scatter"] == ["Samples sent to humans",
                                                                  "Human effort (time cost)"]
    assert any("no gold labels" in a.text for a in fig.layout.annotations)


def _panel_titles(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations if a.xref == "paper"]


def test_panel_titles_mention_bars_only_where_drawn():
    """Issue 13: a panel says "bars: bootstrap 95% interval" only when it draws error bars (the
    effort panel's bars on the share sent to humans were unexplained; without resamples the
    reliability panel claimed bars it did not draw)."""
    base = {"turn": [1, 2], "n": [60, 40], "small": [False, False], "accuracy": [0.9, 0.8],
            "f1": [0.85, 0.75], "machine_accuracy": [0.7, 0.6], "human_ratio": [0.5, 0.4],
            "time_cost": [0.45, 0.35]}
    plain = turn_figure(pd.DataFrame(base))
    assert _panel_titles(plain) == ["Reliability", "Human effort", "Samples per turn"]
    assert all(t.error_y.array is None for t in plain.data if t.type == "scatter")
    bounds = {f"{k}_{b}": [v - 0.05 if b == "lo" else v + 0.05 for v in base[k]]
              for k in ("accuracy", "f1", "machine_accuracy", "human_ratio") for b in ("lo", "hi")}
    with_bars = turn_figure(pd.DataFrame({**base, **bounds}))
    assert _panel_titles(with_bars) == ["Reliability (bars: bootstrap 95% interval)",
                                        "Human effort (bars: bootstrap 95% interval)", "Samples per turn"]
    # no gold labels: reliability all NaN, its bounds too; the effort panel keeps its bars
    nan = float("nan")
    no_gold = {**base, **bounds, **{k: [nan, nan] for k in list(bounds) + ["accuracy", "f1", "machine_accuracy"]
                                    if not k.startswith("human_ratio")}}
    titles = _panel_titles(turn_figure(pd.DataFrame(no_gold)))
    assert titles[:2] == ["Reliability", "Human effort (bars: bootstrap 95% interval)"]


def test_turn_figure_is_valid_plotly_with_each_trace_on_its_panel():
    # built from dicts without plotly's validation: plotly's validating constructor must accept
    # every property, and reliability / effort / counts sit on the panels y, y2, y3 sharing the
    # turn axis of the bottom panel (x3 titled, x and x2 matching it)
    import plotly.graph_objects as go

    from core.figures.tradeoff import TEMPLATE

    fig = turn_figure(_table())
    checked = go.Figure(fig.to_dict())  # raises on an invalid property
    panel = {t.name: (t.xaxis, t.yaxis) for t in checked.data}
    assert panel["Accuracy"] == ("x", "y") and panel["Samples sent to humans"] == ("x2", "y2")
    assert panel["Samples per turn"] == ("x3", "y3")
    assert checked.layout.xaxis.matches == "x3" and checked.layout.xaxis2.matches == "x3"
    assert [a.text.split(" (")[0] for a in checked.layout.annotations][:3] == [
        "Reliability", "Human effort", "Samples per turn"]
    assert fig.layout.template == TEMPLATE
    assert fig.layout.yaxis.domain[0] > fig.layout.yaxis2.domain[1] > fig.layout.yaxis3.domain[1]
