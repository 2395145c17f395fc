"""Issue 24 in the app: data is never rendered as markdown (a cell, column or file name such as
``![x](http://host/x)`` in an error message, the Data page or the Fairness page made the browser
fetch that URL; pages show data through ``pages._common.md``/``code``), and a read-only workspace
is named as such."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from pages._common import md

HOSTILE = "![x](http://203.0.113.9/p.png) <img src=x> :red[big] `c` # h [l](http://h) **b**"


def _unescaped_markup(text: str) -> list[str]:
    """Markdown constructs left live: an image, a link, an HTML tag, a directive, a code span."""
    live = r"(?<!\\)"
    pats = [live + r"!" + live + r"\[", live + r"\]" + live + r"\(", live + r"<img",
            live + r":red" + live + r"\[", live + r"`"]
    return [p for p in pats if re.search(p, text)]


def test_md_escapes_every_markdown_construct_and_keeps_the_text():
    out = md(HOSTILE)
    assert _unescaped_markup(out) == []
    assert re.sub(r"\\(.)", r"\1", out) == HOSTILE  # what is shown is the text itself
    assert md(12) == "12" and md("plain words") == "plain words"


@pytest.mark.parametrize("hostile", [HOSTILE, "column '![a](http://h/a)' (machine label)"])
def test_an_error_naming_hostile_data_is_shown_escaped(hostile):
    def script(hostile):
        from core.errors import DataError
        from pages._common import show_error

        show_error(DataError(hostile))

    at = AppTest.from_function(script, kwargs={"hostile": hostile}).run()
    assert not at.exception
    shown = at.error[0].value
    assert _unescaped_markup(shown) == []
    assert re.sub(r"\\(.)", r"\1", shown) == hostile


def test_a_read_only_workspace_is_named_in_the_sidebar(tmp_path, monkeypatch):
    """Issue 24: a read-only workspace opens for reading and the app says so."""
    import os

    from core.demo import make_demo
    from core.workspace import Workspace

    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path))
    Workspace(tmp_path).add_dataset(make_demo(20, seed=1), name="demo", roles=None)
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if mode == os.W_OK
                        else real(p, mode, **k))

    def script():
        from pages._common import workspace_sidebar

        workspace_sidebar()

    at = AppTest.from_function(script).run()
    assert not at.exception and not at.sidebar.error
    assert any("read-only" in i.value for i in at.sidebar.info)
