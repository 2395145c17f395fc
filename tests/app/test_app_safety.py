"""Issue 24 in the app: data is never rendered as markdown (a cell, column or file name such as
``![x](http://host/x)`` in an error message, the Data page or the Fairness page made the browser
fetch that URL; pages show data through ``pages._common.md``/``code``), and a read-only workspace
is named as such."""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------- a read-only workspace (issue 24)

#: every button of the pages that writes to the workspace
WRITE_BUTTONS = {"Save it in the workspace", "Plan the round", "Save scenario",
                 "Import these labels", "Send the queue", "Pull the labels",
                 "Fill labels from gold", "Certify and route the other rows"}


#: pages that neither read the active dataset nor touch the workspace (their own uploads)
NO_DATASET_PAGES = {"7_Scorekeeping.py", "8_ToolTalk.py"}


def _dataset_pages():
    """(page, AppTest run) of every page that shows the active dataset, each run without an
    exception."""
    from pages._registry import PAGES

    from tests.app.conftest import page_test

    for page in PAGES:
        if page.file in NO_DATASET_PAGES:
            continue
        at = page_test(page.file)
        at.run()
        assert not at.exception, (page.file, at.exception)
        yield page, at


def _files(root) -> dict:
    """Every file of the workspace folder and its bytes (what a write would change)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def read_only_workspace(tmp_path, monkeypatch):
    """A workspace with the demo data and a guarantee round whose calibration sample is
    labelled (so Evaluate shows its certify step), then made read-only for the app: the
    file system answers "not writable" for it (the tests run as root, for whom a chmod does
    not stop writes)."""
    import os

    from core.data import prepare
    from core.demo import make_demo
    from core.workspace import Workspace
    from core.workspace import rounds as R

    root = tmp_path / "ro_ws"
    ws = Workspace(root)
    data = prepare(make_demo(300, seed=3), name="demo")
    rid = R.plan_round(ws, data, kind="guarantee",
                       settings={"calibration": 120, "guarantee": "kept", "alpha": 0.1,
                                 "overall_error": 0.05, "delta": 0.1, "lam": 0.0, "audit": 10,
                                 "seed": 0})
    R.simulate_annotators(ws, rid)
    ws.remember_active(R.dataset_id_for(ws, data, source="session"))
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(root))
    real = os.access
    inside = str(root)
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if (
        mode == os.W_OK and str(p).startswith(inside)) else real(p, mode, **k))
    assert Workspace(root).read_only
    return root


def test_read_only_workspace_greys_out_every_write_and_nothing_raises(read_only_workspace):
    """Every page of the dataset opens on a read-only workspace with no exception and no error box, its last
    dataset and round reopened for reading; every button that would write (save, plan, import,
    push/pull, fill, certify) is greyed out with a help text saying why; no file of the
    workspace changes."""
    from pages._common import READ_ONLY_HELP

    before = _files(read_only_workspace)
    seen: dict[str, set] = {}
    for page, at in _dataset_pages():
        assert not at.error, (page.file, [e.value for e in at.error])
        for b in at.button:
            if b.label in WRITE_BUTTONS or b.label.startswith("Plan a new round"):
                assert b.disabled and b.help == READ_ONLY_HELP, (page.file, b.label)
                seen.setdefault(page.file, set()).add(b.label)
    assert {"Plan the round", "Save scenario", "Fill labels from gold",
            "Certify and route the other rows"} <= seen.get("2a_Evaluate.py", set()), seen
    assert _files(read_only_workspace) == before  # nothing written, not even a -wal file


def test_a_writable_workspace_keeps_its_buttons(tmp_path, monkeypatch):
    """The same buttons are live on a workspace that can be written (the guard is not always on)."""
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    from tests.app.conftest import page_test

    at = page_test("2a_Evaluate.py")
    at.run()
    assert not at.exception
    plan = next(b for b in at.button if b.label == "Plan the round")
    assert not plan.disabled and not plan.help


# ------------------------------------------------------ hostile names on every page (issue 24)

#: where a live image or link would send the browser (a closed port: nothing answers)
HOST = "http://127.0.0.1:9"
#: column names, class labels and group values that are active markdown/HTML if not escaped
HOSTILE_COLUMNS = {"machine_label": f"![m]({HOST}/m.png)", "human_label": "<img src=x>",
                   "machine_confidence": "$conf$", "human_effort": ":red[effort]",
                   "turn": f"**turn** [t]({HOST}/t)", "group": f"[g]({HOST}/g) <b>grp</b>"}
HOSTILE_CLASSES = [f"![a]({HOST}/a.png)", "<b>B</b>", ":red[c]"]
HOSTILE_GROUPS = ["$x$", "<img src=y>", f"[l]({HOST}/l)"]


def _live_markup(text: str) -> list[str]:
    """Data rendered as active markdown: an image or link to HOST, an HTML tag, a colour
    directive or LaTeX from the hostile names above, outside inline code spans (inert)."""
    text = re.sub(r"(?<!\\)`[^`\n]*(?<!\\)`", "", text)
    pats = [r"(?<!\\)\]\(\s*" + re.escape(HOST), r"(?<!\\)<\s*(img|b)\b", r":red\[",
            r"(?<!\\)\$(x|conf)\$"]
    return [p for p in pats if re.search(p, text)]


def _figure_strings(node) -> list[str]:
    """Every string of a plotly figure's JSON (data and layout)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [t for v in node.values() for t in _figure_strings(v)]
    if isinstance(node, list):
        return [t for v in node for t in _figure_strings(v)]
    return []


def _live_html(text: str) -> bool:
    """A hostile name's HTML left live in a figure (plotly draws <b>, <i>, <a href> and more
    in any text; the builders' own <br>, <b> in titles are not from the data)."""
    return any(tag in text for tag in ("<img src=", "<b>B</b>", "<b>grp</b>"))


#: element types whose body Streamlit renders as markdown
_MARKDOWN_TYPES = {"markdown", "caption", "title", "header", "subheader", "error", "warning",
                   "info", "success", "toast", "exception", "latex"}


def _rendered_texts(node, out: list) -> list:
    """(where, text) of every string of the page that Streamlit renders as markdown: bodies of
    markdown/caption/alert elements, labels and help of widgets, expanders and tabs, radio
    options."""
    kind = getattr(node, "type", "")
    if kind in _MARKDOWN_TYPES:
        out.append((kind, str(getattr(node, "value", ""))))
    for attr in ("label", "help"):
        val = getattr(node, attr, None)
        if isinstance(val, str):
            out.append((f"{kind}.{attr}", val))
    if kind == "radio":
        out.extend((f"radio option", str(o)) for o in getattr(node, "options", []))
    proto = getattr(node, "proto", None)
    for attr in ("label", "help"):  # expanders, tabs, metrics
        val = getattr(proto, attr, None) if proto is not None else None
        if isinstance(val, str) and val:
            out.append((f"{kind}.proto.{attr}", val))
    for child in getattr(node, "children", {}).values():
        _rendered_texts(child, out)
    return out


def test_hostile_column_names_classes_and_groups_are_never_rendered_as_markup(tmp_path,
                                                                              monkeypatch):
    """A dataset whose column names, class labels and group values are images, links, HTML,
    colour directives and LaTeX, active in the workspace: on every page that shows the dataset,
    no text Streamlit renders as markdown carries one of them live (each is escaped or in a code
    span), no exception, and the hostile names are shown (escaped) at all."""
    import numpy as np
    import pandas as pd

    from core.data import prepare
    from core.workspace import Workspace

    rng = np.random.default_rng(5)
    n = 240
    human = rng.integers(0, 3, n)
    machine = np.where(rng.random(n) < 0.8, human, rng.integers(0, 3, n))
    c = HOSTILE_COLUMNS
    raw = pd.DataFrame({
        "sample_id": [f"s{i}" for i in range(n)],
        c["machine_label"]: [HOSTILE_CLASSES[i] for i in machine],
        c["human_label"]: [HOSTILE_CLASSES[i] for i in human],
        c["machine_confidence"]: rng.uniform(0.3, 1, n).round(3),
        c["human_effort"]: rng.uniform(5, 60, n).round(1),
        c["turn"]: rng.integers(1, 5, n),
        c["group"]: rng.choice(HOSTILE_GROUPS, n),
    })
    roles = {role: c[role] for role in ("machine_label", "human_label", "machine_confidence",
                                        "human_effort", "turn")}
    data = prepare(raw, roles, name=f"![f]({HOST}/f.png).csv")
    root = tmp_path / "ws"
    ws = Workspace(root)
    ws.remember_active(ws.add_dataset(data.raw, name=data.name, roles=dict(data.roles),
                                      content_id=data.content_id))
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(root))

    live, shown, charts = [], 0, 0
    for page, at in _dataset_pages():
        for chart in at.get("plotly_chart"):
            charts += 1
            for text in _figure_strings(json.loads(chart.proto.spec)):
                if _live_html(text):
                    live.append((page.file, "plotly figure", text[:300]))
        for where, text in _rendered_texts(at._tree, []):
            if _live_markup(text):
                live.append((page.file, where, text[:300]))
            plain = re.sub(r"\\(.)", r"\1", text)
            shown += any(h in plain for h in [*HOSTILE_COLUMNS.values(), *HOSTILE_CLASSES,
                                              *HOSTILE_GROUPS])
    assert live == [], "\n".join(map(repr, live))
    assert shown >= 5  # the names are on the pages, escaped: the check above is not vacuous
    assert charts >= 5  # and figures were drawn from them


def test_a_hostile_upload_name_on_the_data_page_is_shown_escaped(tmp_path, monkeypatch):
    """The Data page's notices about an upload (session-only above AUTO_SAVE_ROWS, saved or
    not) name the file escaped: an upload named like an image is never one."""
    import core.defaults

    from tests.app.conftest import page_test

    monkeypatch.setattr(core.defaults, "AUTO_SAVE_ROWS", 2)
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path / "ws"))
    name = f"![u]({HOST}/u.png) <img src=x>.csv"
    at = page_test("1_Data.py")
    at.run()
    at.session_state["upload"] = {"name": name, "bytes": b"pred,prob,gold\nsafe,0.9,safe\n"
                                  b"unsafe,0.8,unsafe\nsafe,0.6,unsafe\n"}
    at.run()
    [b for b in at.button if "Validate" in str(b.label)][0].click().run()
    assert not at.exception and not at.error
    texts = _rendered_texts(at._tree, [])
    notice = [t for _, t in texts if "active for this session only" in t]
    assert notice and re.sub(r"\\(.)", r"\1", notice[0]).startswith(name)  # named, escaped
    assert [t for _, t in texts if _live_markup(t)] == []
