"""Scorekeeping figures (core.figures.scorekeeping): readable labels, one word for a missing
score, a legend entry for every mark."""

from __future__ import annotations

import math

import pandas as pd

from core.figures.scorekeeping import (
    ABORTED_TEXT,
    ABSENT_TEXT,
    UNDEFINED_TEXT,
    accuracy_curves_figure,
    main_score_figure,
    score_text,
    short_labels,
)


def test_score_text():
    assert score_text(None, aborted=True) == ABSENT_TEXT == "—"
    assert score_text(float("nan"), aborted=True) == ABORTED_TEXT == "aborted"
    assert score_text(float("nan"), aborted=False) == UNDEFINED_TEXT
    assert score_text(0.96667, aborted=False) == "0.9667"
    assert score_text(96.551724, aborted=False, digits=2) == "96.55"
    assert score_text(0.0, aborted=True) == "0.0000"  # a real zero is not "aborted"
    assert score_text(35, aborted=False) == "35" and score_text(True, aborted=False) == "1"


def test_short_labels_keep_short_names_and_the_last_part():
    demo = "sim-careful/job-interview/episode_0"  # 35 characters: kept
    real = "Mistral-Small-24B-Instruct-2501/1_job-interview/episode_1"  # 56 characters
    got = short_labels([demo, real])
    assert got[0] == demo
    # 40 - len("episode_1") - 2 separators = 29 -> 14 characters per head part, "…" included
    assert got[1] == "Mistral-Small…/1_job-intervi…/episode_1"
    assert len(got[1]) <= 40
    # no "/" at all: cut at the end
    assert short_labels(["x" * 50], max_len=10) == ["xxxxxxxxx…"]


def test_short_labels_stay_unique():
    a = "a-very-long-model-name-number-one/an-experiment-name/episode_1"
    b = "a-very-long-model-name-number-two/an-experiment-name/episode_1"
    got = short_labels([a, b])
    assert got == [a, b]  # shortened they would be equal: the full names are kept
    c = "a-very-long-model-name-number-one/an-experiment-name/episode_2"
    got = short_labels([a, c])
    assert len(set(got)) == 2 and all(len(g) <= 40 for g in got)


def _table() -> pd.DataFrame:
    nan = float("nan")
    return pd.DataFrame({
        "episode": ["m1/job/episode_0", "m1/job/episode_1", "m2/job/episode_0", "m2/job/episode_1"],
        "model": ["m1", "m1", "m2", "m2"],
        "Main Score": [96.55, nan, 0.0, 50.0],
        "Aborted": [0, 1, 0, 0],
    })


def test_main_score_figure_horizontal_with_aborted_marked():
    fig = main_score_figure(_table())
    bars = [t for t in fig.data if t.type == "bar"]
    assert [t.name for t in bars] == ["m1", "m2"] and all(t.orientation == "h" for t in bars)
    assert list(bars[0].y) == ["m1/job/episode_0"] and list(bars[0].x) == [96.55]
    assert list(bars[1].text) == ["0.0", "50.0"]  # a score of 0 is a bar, not "aborted"
    aborted = [t for t in fig.data if t.type == "scatter"]
    assert len(aborted) == 1 and list(aborted[0].y) == ["m1/job/episode_1"]
    assert list(aborted[0].text) == ["aborted"] and "aborted" in aborted[0].name
    # the title does not say NaN; the score axis shows 0..100 with room for the labels
    title = fig.layout.title.text
    assert "NaN" not in title and len(title) <= 40
    assert fig.layout.xaxis.range[1] > 100 and list(fig.layout.xaxis.tickvals) == [0, 20, 40, 60, 80, 100]
    assert "0–100" in fig.layout.xaxis.title.text
    assert list(fig.layout.yaxis.categoryarray) == list(_table()["episode"])
    assert fig.layout.yaxis.autorange == "reversed"
    assert all(t.showlegend is not False for t in fig.data)
    # full names in the hover text
    assert list(bars[1].customdata) == ["m2/job/episode_0", "m2/job/episode_1"]


def test_main_score_figure_without_aborted_episode_has_no_aborted_entry():
    fig = main_score_figure(_table().drop(index=1))
    assert all(t.type == "bar" for t in fig.data)


def _curves() -> pd.DataFrame:
    rows = []
    for ep, model, aborted, accs in (("m1/e0", "m1", False, [1.0, 0.8, 1.0]),
                                     ("m2/e0", "m2", True, [0.6, 0.4])):
        for r, a in enumerate(accs):
            rows.append({"episode": ep, "model": model, "slots": 5, "round": r, "accuracy": a,
                         "middle": r == 2, "aborted": aborted})
    return pd.DataFrame(rows)


def test_accuracy_curves_figure_legend_explains_every_mark():
    fig = accuracy_curves_figure(_curves())
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert legend == ["m1", "m2", "mean (5 slots)", "dashed: aborted episode",
                      "middle round of an episode", "dotted: middle round"]
    # the aborted episode is dashed, the legend entry for dashes is dashed too
    m2 = next(t for t in fig.data if t.name == "m2")
    assert m2.line.dash == "dash"
    assert next(t for t in fig.data if t.name.startswith("dashed")).line.dash == "dash"
    assert [s.x0 for s in fig.layout.shapes] == [2]
    assert fig.layout.yaxis.tickformat == ".0%" and "%" in fig.layout.yaxis.title.text
    assert fig.layout.yaxis.range[0] < 0 < 1 < fig.layout.yaxis.range[1]
    assert len(fig.layout.title.text) <= 40


def test_accuracy_curves_figure_mean_lines_differ_by_dash():
    more = _curves().assign(episode=lambda d: d["episode"] + "-15", slots=15, middle=False)
    fig = accuracy_curves_figure(pd.concat([_curves(), more]))
    means = [t for t in fig.data if t.name and t.name.startswith("mean")]
    assert [t.name for t in means] == ["mean (5 slots)", "mean (15 slots)"]
    assert means[0].line.dash != means[1].line.dash
    # no aborted episode and no middle round: no legend entry for marks that are not drawn
    played = _curves()[lambda d: ~d["aborted"]].assign(middle=False)
    names = [t.name for t in accuracy_curves_figure(played).data]
    assert not any(n.startswith(("dashed", "dotted", "middle")) for n in names)
    assert math.isclose(list(accuracy_curves_figure(played).data[-1].y)[1], 0.8)
