"""Shared fixtures: the real data in ``../shared/data`` (never copied into the project)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ``../shared/data``; fails (never skips) when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"shared data folder not found at {SHARED_DATA}: tests need ../shared beside the project")
    return SHARED_DATA
