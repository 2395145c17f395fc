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


@pytest.fixture(autouse=True)
def _workspace_per_test(tmp_path_factory, monkeypatch):
    """Every page test gets an empty workspace of its own: a new session reopens the dataset
    last made active in its workspace, so one test's upload must not become the next test's
    starting dataset. A test may set its own (``monkeypatch.setenv``) after this."""
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(tmp_path_factory.mktemp("ws")))


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


def shown_cells(element) -> "pd.DataFrame":
    """The text the browser shows in each visible column of an ``st.dataframe`` element.

    Streamlit's grid (1.67, ``DataFrame.js``) draws a missing value (None, NaN) as the
    dataframe's ``placeholder`` ("None" without one), whatever a Styler's ``na_rep`` says; it
    shows a Styler's display value in a text cell, and in a number cell only when the column's
    ``column_config`` has no ``format`` (otherwise it formats the raw value). This helper applies
    the same rules, so a test of the display values cannot pass while the browser shows "None".
    """
    import json

    import pandas as pd
    from streamlit import dataframe_util

    data = element.value
    config = json.loads(element.proto.columns or "{}")
    order = list(element.proto.column_order) or list(data.columns)
    arrow = element.proto.arrow_data
    styled = (dataframe_util.convert_arrow_bytes_to_pandas_df(arrow.styler.display_values)
              if arrow.HasField("styler") else None)

    placeholder = element.proto.placeholder if element.proto.HasField("placeholder") else "None"

    def missing(v) -> bool:
        return v is None or (isinstance(v, float) and v != v) or v is pd.NA

    out = {}
    for col in order:
        type_config = config.get(str(col), {}).get("type_config", {})
        kind = type_config.get("type") or ("checkbox" if data[col].dtype.kind == "b" else
                                           "number" if data[col].dtype.kind in "iuf" else "text")
        use_styler = not (kind == "checkbox" or styled is None
                          or (kind in ("number", "progress") and type_config.get("format")))
        out[col] = [placeholder if missing(v) else str(styled[col].iloc[i] if use_styler else v)
                    for i, v in enumerate(data[col])]
    return pd.DataFrame(out, columns=order)


def figure_problems(element) -> list[str]:
    """What a reader would miss in a ``st.plotly_chart``: a title that does not fit (at about 9 px
    a character, 900 px of page width), an axis showing ticks without a title, a mark neither in
    the legend nor grouped with a legend entry."""
    import json

    spec = json.loads(element.proto.spec)
    layout, problems = spec["layout"], []
    title = (layout.get("title") or {}).get("text") or ""
    if not title or 9 * len(title) > 900:
        problems.append(f"title {title!r}")
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and axis.get("visible", True) \
                and axis.get("showticklabels", True) and not (axis.get("title") or {}).get("text"):
            problems.append(f"{key} without a title")
    shown_groups = {t.get("legendgroup") for t in spec["data"] if t.get("showlegend", True) and t.get("name")}
    for trace in spec["data"]:
        if trace.get("showlegend", True):
            if not trace.get("name"):
                problems.append(f"a {trace['type']} trace without a legend name")
        elif trace.get("legendgroup") not in shown_groups - {None}:
            problems.append(f"{trace.get('name')!r} neither in the legend nor in a legend group")
    return problems
