"""Pooling clembench episode scores (``core.clembench.aggregate``): % Played, Quality Score and
clemscore by hand and on the recorded episodes of ``../shared/data/clembench`` (their published
values), by model, and bad input named."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import core.clembench as sk
from core.errors import DataError
from tests.core.clembench_support import make_log, perfect, score


def test_recorded_aggregate(shared_data: Path):
    loaded = sk.load_paths([shared_data / "clembench"])
    agg = sk.aggregate_scores(sk.score_episodes(loaded.episodes))
    mains = [69.56521739130436, 42.10526315789475, 92.85714285714286, 99.15966386554621]
    assert agg["episodes"] == 5 and agg["played"] == 4
    assert agg["% Played"] == 80.0
    assert agg["Quality Score"] == math.fsum(mains) / 4
    assert agg["Quality Score"] == pytest.approx(75.92182181797205, abs=1e-12)
    assert agg["clemscore"] == 0.8 * agg["Quality Score"]
    by_model = sk.aggregate_by(sk.score_episodes(loaded.episodes))
    assert by_model["mistral-large-2411"]["% Played"] == 0.0
    assert math.isnan(by_model["mistral-large-2411"]["Quality Score"])
    assert math.isnan(by_model["mistral-large-2411"]["clemscore"])
    assert by_model["Mistral-Small-24B-Instruct-2501"]["Quality Score"] == pytest.approx(
        (69.56521739130436 + 42.10526315789475 + 92.85714285714286) / 3, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# aggregation and comparison
# ---------------------------------------------------------------------------------------------
def test_aggregate_hand():
    a = score(make_log(perfect()))                                  # main 100.0
    b = score(make_log([[1] * 5 for _ in range(6)]))                # main 0.0
    c = score(make_log(perfect()[:3], aborted=True, filled=[True, True]))  # aborted
    agg = sk.aggregate_scores([a, b, c])
    assert agg["episodes"] == 3 and agg["played"] == 2
    assert agg["% Played"] == 2 / 3 * 100
    assert agg["Quality Score"] == 50.0
    assert agg["clemscore"] == (2 / 3 * 100) / 100 * 50.0
    only_aborted = sk.aggregate_scores([c])
    assert only_aborted["% Played"] == 0.0
    assert math.isnan(only_aborted["Quality Score"]) and math.isnan(only_aborted["clemscore"])
    # plain episode-score dicts and scores.json layouts are accepted too
    assert sk.aggregate_scores([a.episode_scores, a.to_dict()])["Quality Score"] == 100.0
    with pytest.raises(DataError, match="no episodes"):
        sk.aggregate_scores([])
    with pytest.raises(DataError, match="cannot group"):
        sk.aggregate_by([a], by="colour")


def test_aggregate_by_model_and_the_report_layout():
    from core.clembench.aggregate import aggregate_by, scores_report

    a = score(make_log(perfect()))
    b = score(make_log([[1] * 5 for _ in range(6)]))
    by = aggregate_by([a, b])
    assert list(by) == ["hand-model"] and by["hand-model"]["Quality Score"] == 50.0  # the logs' model
    rep = scores_report([a, b], ignored=["notes.txt"])
    assert list(rep) == ["episodes", "aggregate", "aggregate_by_model", "ignored_files"]
    assert rep["ignored_files"] == ["notes.txt"] and len(rep["episodes"]) == 2
    assert rep["aggregate"]["episodes"] == 2 and rep["aggregate"]["Quality Score"] == 50.0
    assert rep["episodes"][0]["matches_recorded"] is None  # no recorded scores.json
