"""Poisson sampling of a round (``core.evaluation.sampling.draw``): draw frequencies against
their probabilities, the queue's order by hand, and a round table's probabilities checked
against its selection, bad values named by row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.evaluation.sampling.draw import (DRAW_SALT, check_probabilities, draw, draw_queue,
                                           earlier_stage)


def test_poisson_draw_frequencies():
    pi = np.array([1.0, 0.5, 0.1, 0.02])
    hits = np.mean([draw(pi, seed=s) for s in range(4000)], axis=0)
    assert hits[0] == 1.0
    # binomial standard errors: 0.0079, 0.0047, 0.0022
    assert abs(hits[1] - 0.5) < 0.04 and abs(hits[2] - 0.1) < 0.025 and abs(hits[3] - 0.02) < 0.012
    assert (draw(pi, seed=3) == draw(pi, seed=3)).all()


def test_check_probabilities_names_the_rows():
    sel = np.array(["routed", "audit", "machine", "machine"], dtype=object)
    ok = check_probabilities(pd.Series([1.0, 0.2, 0.3, 0.4]), sel, "inclusion_probability")
    assert ok.tolist() == [1.0, 0.2, 0.3, 0.4]
    with pytest.raises(DataError, match=r"\(0, 1\].*row 3"):
        check_probabilities(pd.Series([1.0, 0.2, 1.5, 0.4]), sel, "inclusion_probability")
    with pytest.raises(DataError, match="no inclusion probability on row 2"):
        check_probabilities(pd.Series([1.0, None, 0.3, 0.4]), sel, "inclusion_probability")
    with pytest.raises(DataError, match="does not match.*row 1"):
        check_probabilities(pd.Series([0.5, 0.2, 0.3, 0.4]), sel, "inclusion_probability")
    with pytest.raises(DataError, match="text"):
        check_probabilities(pd.Series([1.0, "x", 0.3, 0.4]), sel, "inclusion_probability")


def test_draw_is_salted_so_it_is_not_the_seeds_own_first_uniforms():
    """A table simulated from default_rng(seed).random would otherwise be cut at pi."""
    pi = np.full(2000, 0.3)
    u = np.random.default_rng(7).random(2000)
    xi = draw(pi, seed=7)
    assert not np.array_equal(xi, u < pi)
    # drawn rows are not the rows with small u: about 30 % of them fall under 0.3 either way
    assert abs(np.mean(u[xi] < 0.3) - 0.3) < 0.06


def test_a_stage_is_a_stream_of_its_own():
    """A round planned on an earlier round's labels draws with ``stage`` (earlier_stage of the
    rows carried): its uniforms are not the earlier round's, whatever the seed."""
    pi = np.full(2000, 0.3)
    u = np.random.default_rng(np.random.SeedSequence([5, DRAW_SALT])).random(2000)
    assert np.array_equal(draw(pi, seed=5), u < pi)  # stage 0: the draw as it always was
    staged = draw(pi, seed=5, stage=earlier_stage(np.array([3, 1, 2])))
    assert not np.array_equal(staged, u < pi)
    assert abs(np.mean(u[staged] < 0.3) - 0.3) < 0.06  # independent of the earlier uniforms
    assert earlier_stage([3, 1, 2]) == earlier_stage([1, 2, 3]) > 0  # order of the rows: none
    assert earlier_stage([1, 2, 3]) != earlier_stage([1, 2, 4])
    assert 0 < earlier_stage([]) < 2**63


def test_draw_queue_by_hand():
    pi = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    gain = np.array([0.1, 9.0, 0.5, 0.5, 9.0, 0.2])
    sel, rank = draw_queue(pi, gain, seed=4)
    # pi = 1: routed; pi = 0: never drawn (machine); no audit rows
    assert sel.tolist() == ["routed", "machine", "routed", "routed", "machine", "routed"]
    # routed by descending gain, the tie (rows 2 and 3) to the earlier row
    assert np.isnan(rank[[1, 4]]).all()
    assert rank[[2, 3, 5, 0]].tolist() == [1, 2, 3, 4]
    # rows already labelled are routed but not queued
    sel2, rank2 = draw_queue(pi, gain, seed=4, done=np.array([0, 0, 1, 0, 0, 0], bool))
    assert sel2[2] == "routed" and np.isnan(rank2[2]) and rank2[[3, 5, 0]].tolist() == [1, 2, 3]


def test_draw_queue_puts_the_audit_first_in_a_random_order():
    rng = np.random.default_rng(0)
    pi = np.r_[np.ones(5), np.full(200, 0.5)]
    gain = rng.random(205)
    sel, rank = draw_queue(pi, gain, seed=11)
    audit = np.flatnonzero(sel == "audit")
    assert sel[:5].tolist() == ["routed"] * 5 and 60 < len(audit) < 140
    assert sorted(rank[audit]) == list(range(1, len(audit) + 1))
    assert sorted(rank[:5]) == list(range(len(audit) + 1, len(audit) + 6))
    assert np.isnan(rank[sel == "machine"]).all()
    # the audit's order is not the row order (a random permutation of 60+ rows)
    assert not np.array_equal(np.argsort(rank[audit]), np.arange(len(audit)))


def test_check_probabilities_leaves_calibration_rows_without_one():
    sel = np.array(["calibration", "routed", "audit"], dtype=object)
    out = check_probabilities(pd.Series([None, 1.0, 0.25]), sel, "p")
    assert np.isnan(out[0]) and out[1:].tolist() == [1.0, 0.25]
    with pytest.raises(DataError, match=r"column 'p'.*row 3.*hold 0"):
        check_probabilities(pd.Series([None, 1.0, 0.0]), sel, "p")
    with pytest.raises(DataError, match=r"column 'p' does not match column 'selection'"):
        check_probabilities(pd.Series([None, 1.0, 1.0]), sel, "p")
