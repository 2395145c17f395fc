"""The effort model's figures (``core.figures.effort``): predicted against real time (NaN
predictions left out, long series sampled), correlation bars with the paper's marks, feature
importances, and the metric bars, each checked on the values drawn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.figures.effort import (correlation_figure, importance_figure, metrics_figure,
                                 predicted_vs_real_figure)


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------
def test_figures():
    fig = predicted_vs_real_figure({"D": ([0.1, 0.2, 0.3], [0.15, np.nan, 0.25]),
                                    "D+W": ([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])})
    assert [t.name for t in fig.data] == ["D", "D+W", "y = x"]
    assert list(fig.data[0].x) == [0.1, 0.3]  # the NaN prediction (a training row) is left out
    assert list(fig.data[2].x) == [0.1, 0.3]
    big = predicted_vs_real_figure({"D": (np.arange(50.0), np.arange(50.0))}, max_points=10)
    assert len(big.data[0].x) == 10 and "10 random points" in big.layout.title.text
    with pytest.raises(DataError):
        predicted_vs_real_figure({"D": ([1, 2], [1])})

    corr = pd.DataFrame({"label": ["total turns", "flat"], "pearson": [0.053, np.nan],
                         "pearson_mark": ["**", ""], "spearman": [0.122, np.nan],
                         "spearman_mark": ["*", ""]})
    fig = correlation_figure(corr)
    assert list(fig.data[0].text) == ["undefined", "0.053**"]  # drawn bottom-up
    assert list(fig.data[1].text) == ["undefined", "0.122*"]
    with pytest.raises(DataError, match="pearson_mark"):
        correlation_figure(corr.drop(columns=["pearson_mark"]))

    imp = pd.DataFrame({"label": ["a", "b"], "impurity": [0.7, 0.3],
                        "permutation": [np.nan, np.nan], "permutation_std": [np.nan, np.nan]})
    assert len(importance_figure(imp).data) == 1
    imp["permutation"] = [0.5, 0.01]
    imp["permutation_std"] = [0.02, 0.01]
    fig = importance_figure(imp)
    assert len(fig.data) == 2 and list(fig.data[0].y) == ["b", "a"]
    fig = metrics_figure({"D": {"mse": 0.0085, "rmse": 0.092, "mae": 0.06, "r2": 0.43},
                          "D+W": {"mse": 0.0035, "rmse": 0.059, "mae": 0.033, "r2": 0.76}})
    assert len(fig.data) == 2 and list(fig.data[1].text) == ["0.004", "0.059", "0.033", "0.760"]


def test_predicted_vs_real_needs_series_of_one_length_and_says_the_sample():
    with pytest.raises(DataError):
        predicted_vs_real_figure({"D": ([1.0, 2.0, 3.0], [1.0, 2.0])})
    fig = predicted_vs_real_figure({"D": (np.arange(5.0), np.arange(5.0) + 1)}, max_points=100)
    assert list(fig.data[0].x) == [0, 1, 2, 3, 4] and list(fig.data[0].y) == [1, 2, 3, 4, 5]
    assert "random points" not in (fig.layout.title.text or "")
