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


@pytest.fixture(scope="session")
def hmceval_tsv(shared_data: Path) -> Path:
    """The authors' per-sample release (5,673 rows)."""
    return shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv"


@pytest.fixture(scope="session")
def hmceval_data(hmceval_tsv):
    """The release loaded through the data contract (auto-detected roles)."""
    from core.data import load_table, prepare

    return prepare(load_table(hmceval_tsv), name="hmceval")


@pytest.fixture(scope="session")
def hmceval_inputs(hmceval_data):
    from core.assignment import SAEInputs

    return SAEInputs.from_data(hmceval_data)


@pytest.fixture(autouse=True, scope="session")
def _isolated_workspace(tmp_path_factory):
    """Every test (and every server a test starts) uses a fresh workspace folder, never the
    user's ``~/.hmceval/workspace``."""
    import os

    old = os.environ.get("HMCEVAL_WORKSPACE")
    os.environ["HMCEVAL_WORKSPACE"] = str(tmp_path_factory.mktemp("workspace"))
    yield
    if old is None:
        os.environ.pop("HMCEVAL_WORKSPACE", None)
    else:
        os.environ["HMCEVAL_WORKSPACE"] = old


@pytest.fixture(autouse=True, scope="session")
def _no_background_warmup():
    """No test (nor a server a test starts) computes the Effort and ToolTalk pages' first
    visits in the background (pages/_warm.py): the suite's machine is busy enough; a test of
    the warm-up turns it on for itself."""
    import os

    old = os.environ.get("HMCEVAL_WARMUP")
    os.environ["HMCEVAL_WARMUP"] = "0"
    yield
    if old is None:
        os.environ.pop("HMCEVAL_WARMUP", None)
    else:
        os.environ["HMCEVAL_WARMUP"] = old
