"""Data-page figures: histograms counted on the server, bars whose size does not grow with rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.figures.data import histogram, histogram_counts, label_balance


def test_counts_by_hand():
    b = histogram_counts([0.0, 0.1, 0.25, 0.5, 0.74, 1.0], bins=4, value_range=(0, 1))
    assert b.edges.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    # [0, .25): 0, .1   [.25, .5): .25   [.5, .75): .5, .74   [.75, 1]: 1 (last bin closed)
    assert b.counts["all"].tolist() == [2, 1, 2, 1]
    assert b.total == 6 and b.dropped == 0


def test_split_missing_and_out_of_range():
    b = histogram_counts([1, 2, 3, 4, np.nan, np.inf, 9], bins=2, value_range=(1, 5),
                         split=["w", "c", "c", "w", "c", "c", "w"])
    assert list(b.counts) == ["c", "w"]
    assert b.counts["c"].tolist() == [1, 1]  # 2 in [1, 3), 3 in [3, 5]
    assert b.counts["w"].tolist() == [1, 1]  # 1, 4; 9 is outside
    assert b.dropped == 3


def test_constant_values_make_one_bin():
    b = histogram_counts([7.0, 7.0, 7.0])
    assert b.edges.tolist() == [6.5, 7.5] and b.counts["all"].tolist() == [3]


def test_bad_arguments():
    with pytest.raises(ValueError, match="bins"):
        histogram_counts([1.0], bins=0)
    with pytest.raises(ValueError, match="split"):
        histogram_counts([1.0, 2.0], split=["a"])


def test_figure_size_does_not_grow_with_rows():
    rng = np.random.default_rng(0)
    sizes = []
    for n in (1_000, 1_000_000):
        x = rng.random(n)
        split = np.where(rng.random(n) < 0.8, "machine correct", "machine wrong")
        fig = histogram(histogram_counts(x, value_range=(0, 1), split=split),
                        title="Machine confidence", x_title="confidence")
        sizes.append(len(fig.to_json()))
        assert [t.type for t in fig.data] == ["bar", "bar"]
        assert sum(int(np.sum(t.y)) for t in fig.data) == n
    assert sizes[1] < 1.1 * sizes[0] and sizes[1] < 20_000


def test_label_balance_counts():
    frame = pd.DataFrame({"human_label": ["a", "b", "b", None], "machine_label": ["b", "b", "b", "a"]})
    fig = label_balance(frame, ["human_label", "machine_label", "absent"],
                        names={"human_label": "gold"})
    assert [t.name for t in fig.data] == ["gold", "machine_label"]
    assert list(fig.data[0].x) == ["a", "b"] and list(fig.data[0].y) == [1, 2]
    assert list(fig.data[1].x) == ["a", "b"] and list(fig.data[1].y) == [1, 3]


def test_figures_are_valid_plotly_with_the_small_white_template():
    import plotly.graph_objects as go

    b = histogram_counts([0.1, 0.2, 0.9], bins=2, value_range=(0, 1), split=[True, False, True])
    figs = [histogram(b, title="Machine confidence", x_title="confidence (0 to 1)",
                      names={"True": "machine correct"}),
            label_balance(pd.DataFrame({"machine_label": [0, 1, 1]}), ["machine_label"])]
    for fig in figs:
        go.Figure(fig.to_dict())  # plotly's validation accepts every key the builders write
        assert fig.layout.template.layout.plot_bgcolor == "white"
        assert not fig.layout.template.data.bar  # not the whole plotly_white tree
    hist, labels = figs
    assert hist.layout.title.text == "Machine confidence"
    assert hist.layout.xaxis.title.text == "confidence (0 to 1)"
    assert [t.name for t in hist.data] == ["False", "machine correct"]
    assert [list(t.y) for t in hist.data] == [[1, 0], [1, 1]]
    assert hist.layout.barmode == "stack" and hist.layout.showlegend is True
    assert labels.layout.xaxis.type == "category" and list(labels.data[0].y) == [1, 2]


def test_legends_stay_clear_of_the_toolbar_and_counts_are_separated():
    """issue 33: on the Data page the legends lay over the chart's toolbar (top right) and a
    count read "1210". Legends sit below the x axis, left-aligned; counts carry separators on
    the axis and in the hover."""
    import pandas as pd

    from core.figures.data import histogram, histogram_counts, label_balance

    frame = pd.DataFrame({"gold": ["a"] * 1210 + ["b"] * 3, "pred": ["a"] * 1200 + ["b"] * 13})
    bars = label_balance(frame, ["gold", "pred"])
    hist = histogram(histogram_counts([0.1, 0.5, 0.9, 0.95], split=[True, False, True, True]),
                     title="Machine confidence", x_title="confidence")
    for fig in (bars, hist):
        legend = fig.layout.legend
        assert legend.y < 0 and legend.yanchor == "top" and legend.xanchor == "left"
        assert fig.layout.yaxis.tickformat == ","
    assert all("%{y:,}" in t.hovertemplate for t in bars.data)
    assert "%{y:,}" in hist.data[0].hovertemplate
