"""The clembench tables of the page and the CLI (``core.clembench.tables``): one row per episode
and the per-round accuracy curves, by hand and on the recorded episodes."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import core.clembench as sk
from core.errors import DataError
from tests.core.clembench_support import make_log, perfect, score

from core.figures.scorekeeping import accuracy_curves_figure, main_score_figure


# ---------------------------------------------------------------------------------------------
# tables, curves, figures
# ---------------------------------------------------------------------------------------------
def test_tables_and_curves(shared_data: Path):
    scored = sk.score_episodes(sk.load_paths([shared_data / "clembench"]).episodes)
    table = sk.episode_table(scored)
    assert len(table) == 5 and table["matches recorded"].tolist() == [True] * 5
    curves = sk.accuracy_curves(scored)
    assert len(curves) == 16 + 6 + 6 + 6 + 3
    mids = curves[curves["middle"]]
    # one middle point per episode that reached its middle round: round 7 (15 slots), round 2
    assert sorted(zip(mids["slots"], mids["round"])) == [(5, 2)] * 4 + [(15, 7)]
    fig = accuracy_curves_figure(curves)
    vlines = [s for s in fig.layout.shapes if s.type == "line"]
    assert sorted(v.x0 for v in vlines) == [2, 7]
    names = {t.name for t in fig.data}
    assert {"mean (5 slots)", "mean (15 slots)"} <= names
    bars = main_score_figure(table)
    texts = [t for tr in bars.data for t in tr.text]
    assert texts.count("aborted") == 1


def test_episode_table_middle_absent_vs_nan():
    a = score(make_log(perfect()[:2], aborted=True, filled=[True, True]))
    b = score(make_log(perfect()[:4], aborted=True, filled=[True] * 3))
    t = sk.episode_table([a, b])
    assert t.loc[0, "Middle-Accuracy"] is None
    assert math.isnan(t.loc[1, "Middle-Accuracy"])
    assert t["matches recorded"].tolist() == [None, None]
    with pytest.raises(DataError):
        accuracy_curves_figure(t)


def test_accuracy_curves_by_hand():
    from core.clembench.tables import accuracy_curves, episode_table

    s = score(make_log([[1] * 5 for _ in range(6)]))  # always yes: round r has r of 5 right
    curves = accuracy_curves([s])
    assert list(curves.columns) == ["episode", "model", "slots", "round", "accuracy", "middle",
                                    "aborted"]
    assert curves["accuracy"].tolist() == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert curves["model"].tolist() == ["hand-model"] * 6  # the hand-built log's model
    # 5 slots: the middle round is 2
    assert curves.loc[curves["middle"], "round"].tolist() == [2]
    t = episode_table([s])
    assert t.loc[0, "slots"] == 5 and t.loc[0, "Middle-Accuracy"] == 0.4
    assert t.loc[0, "Main Score"] == 0.0
    assert accuracy_curves([]).empty and episode_table([]).empty
