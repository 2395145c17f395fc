"""The chunk kernels (core.scale.kernels): the Poisson draw's uniforms chunk by chunk are the
one call's, and a chunk's probabilities are the in-memory solver's for the same multiplier."""

from __future__ import annotations

import numpy as np

from core.evaluation.sampling.active import inclusion_probabilities, row_uncertainty
from core.evaluation.sampling.draw import DRAW_SALT
from core.scale.kernels import active_pi, uniforms


def test_uniforms_of_a_chunk_are_the_slice_of_one_call():
    whole = np.random.default_rng(np.random.SeedSequence([12, DRAW_SALT])).random(10_007)
    parts = [uniforms(12, s, min(1000, 10_007 - s)) for s in range(0, 10_007, 1000)]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    np.testing.assert_array_equal(uniforms(12, 4321, 5), whole[4321:4326])


def test_probabilities_at_the_solvers_multiplier_are_its_own():
    """inclusion_probabilities's pi on a labels budget is min(1, max(floor, sig / sqrt(nu)))
    for its nu; reading nu back from an interior row gives every row's pi again."""
    rng = np.random.default_rng(3)
    q = rng.uniform(0.5, 1.0, 500)
    s2 = row_uncertainty(q, 2)
    pi = inclusion_probabilities(s2, np.ones(500), 60.0, floor=0.02)
    inner = np.flatnonzero((pi > 0.02) & (pi < 1))[0]
    nu = s2[inner] / pi[inner] ** 2
    got = active_pi(s2, np.ones(500), np.zeros(500), nu, 0.0, 0.02)[0]
    np.testing.assert_allclose(got, pi, rtol=1e-12)
    assert abs(got.sum() - 60.0) < 1e-6
