"""Fixtures of the browser tests (Debian's chromium through Playwright)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.servers import ARGS, CHROMIUM


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), "Debian's chromium is required (make test installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()
