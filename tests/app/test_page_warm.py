"""pages/_warm.py (issue 33): the Effort and ToolTalk pages' first visits on the demo computed in
a background process at start. A page run after it calls none of the slow functions (the keys
it asks with are exactly its cached functions' arguments); other settings are not served."""

from __future__ import annotations

import pytest

from pages import _warm


@pytest.fixture
def warmed(monkeypatch):
    """The background process started for this test (and its state reset afterwards)."""
    monkeypatch.setenv("HMCEVAL_WARMUP", "1")
    saved = dict(_warm._state)
    _warm._state.update(started=False, results={}, done={}, failed=set())
    assert _warm.start() and not _warm.start()  # once a server
    yield _warm
    _warm._state.clear()
    _warm._state.update(saved)


def test_off_by_default_in_the_tests():
    assert not _warm.enabled() and not _warm.start()
    assert _warm.precomputed("effort_fits", ("x",)) is None


def test_effort_and_tooltalk_pages_use_what_was_computed_ahead(run_page, warmed, monkeypatch):
    import streamlit as st


    st.cache_data.clear()
    calls = []

    def refuse(name):
        def f(*a, **k):
            calls.append(name)
            raise AssertionError(f"{name} called: the page did not use the warm-up's result")
        return f

    # the page module's names are bound at its run: patch where it imports them from
    import core.hee as hee
    import core.tooltalk as tooltalk
    for name in ("features_from_samples", "estimate_effort"):
        monkeypatch.setattr(hee, name, refuse(name))
    monkeypatch.setattr(tooltalk, "score_conversations", refuse("score_conversations"))
    at = run_page("4_Effort.py", timeout=300)
    assert not at.exception, at.exception
    assert calls == []
    metrics = next(d.value for d in at.dataframe if "MSE" in d.value.index)
    assert list(metrics.columns) == ["D", "D+W"] and metrics.notna().all().all()
    at = run_page("8_ToolTalk.py", timeout=300)
    assert not at.exception, at.exception
    assert calls == []
    # another setting is computed by the page as before (here: refused, so it shows the error)
    assert _warm.effort_fit(("another table",) + (None,) * 10) is None
    assert _warm.tooltalk_demo("exact", False) is None
    assert _warm.tooltalk_demo("minilm", True) is not None
