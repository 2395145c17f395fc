"""Fixtures shared by tests of core: GLIDE 0.11's own code as a test-only oracle."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

GLIDE = Path(__file__).resolve().parents[2] / ".cache" / "glide-py-0.11.0"


@pytest.fixture(scope="module")
def glide_bounds():
    """GLIDE's own boundary; fails (never skips) when ``make glide`` has not unpacked it."""
    if not (GLIDE / "glide" / "__init__.py").exists():
        pytest.fail(f"GLIDE 0.11 not found at {GLIDE}: run `make glide` (make test does)")
    sys.path.insert(0, str(GLIDE))
    try:
        from glide.confidence_sequences import AsymptoticConfidenceSequence
        from glide.confidence_sequences.asymptotic import _compute_asymptotic_bounds
    finally:
        sys.path.remove(str(GLIDE))
    return _compute_asymptotic_bounds, AsymptoticConfidenceSequence
