"""Settings that persist (issue 22), in a real browser: change N and λ on the Trade-off page,
reload the tab, restart the server: both are kept (saved per dataset in the workspace)."""

from __future__ import annotations

import re

import pytest

from tests.e2e.servers import streamlit_server

pytestmark = pytest.mark.e2e


def _result_heading(page) -> str:
    return page.get_by_text(re.compile(r"^Result at λ")).first.inner_text(timeout=90_000)


def _type(page, label: re.Pattern, value: str, expect: str) -> None:
    """Type ``value`` into the number box labelled ``label`` until the heading shows
    ``expect`` (retried while the page hydrates)."""
    for _ in range(4):
        box = page.get_by_label(label).first
        box.fill(value)
        box.press("Enter")
        try:
            page.get_by_text(re.compile(r"^Result at .*" + re.escape(expect))).first.wait_for(
                timeout=20_000)
            page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden",
                                                                   timeout=60_000)
            return
        except Exception:  # playwright's TimeoutError: type again
            continue
    raise AssertionError(f"typing {value} did not give {expect!r}: {_result_heading(page)!r}")


def test_n_and_lambda_survive_a_reload_and_a_restart(browser, tmp_path):
    env = {"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    with streamlit_server(tmp_path / "server1.log", env=env) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(90_000)
        page.goto(url + "/trade-off", wait_until="domcontentloaded")
        assert _result_heading(page).startswith("Result at λ = 4.6, N = 1,778")  # defaults
        _type(page, re.compile(r"^λ, exact value"), "7.25", "λ = 7.25,")
        _type(page, re.compile(r"^N \(samples\)"), "1000", "N = 1,000 ")
        assert _result_heading(page).startswith("Result at λ = 7.25, N = 1,000")
        page.reload(wait_until="domcontentloaded")  # a new session
        page.get_by_text(re.compile(r"^Result at λ")).first.wait_for()
        assert _result_heading(page).startswith("Result at λ = 7.25, N = 1,000")
        page.close()
    with streamlit_server(tmp_path / "server2.log", env=env) as url:  # a restart
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(90_000)
        page.goto(url + "/trade-off", wait_until="domcontentloaded")
        assert _result_heading(page).startswith("Result at λ = 7.25, N = 1,000")
        assert not page.locator('[data-testid="stException"]').count()
        page.close()
