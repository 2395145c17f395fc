"""Page tests run with ``streamlit.testing.v1.AppTest``.

Each page calls ``pages._common.init_state()``, which loads the built-in demo data when no
dataset is active, so a page file can be run on its own: ``run_page("2_Trade-off.py")``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def page_test(file_name: str, *, timeout: float = 120) -> AppTest:
    """An AppTest of ``pages/<file_name>`` (not yet run)."""
    return AppTest.from_file(str(ROOT / "pages" / file_name), default_timeout=timeout)


@pytest.fixture
def run_page():
    """Run a page file and return its AppTest after the first run."""

    def _run(file_name: str, *, timeout: float = 120, state: dict | None = None) -> AppTest:
        at = page_test(file_name, timeout=timeout)
        for key, value in (state or {}).items():
            at.session_state[key] = value
        at.run()
        return at

    return _run


@pytest.fixture
def downloads(monkeypatch):
    """file name -> bytes of every download button's data in the run (the media storage)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    got: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, data, mimetype, kind, filename=None):
        if filename:
            got[filename] = data
        return original(self, data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return got
