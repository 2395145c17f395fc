"""HMCEval Studio: the Streamlit entry point.

Run with ``python app.py`` (``make app`` does that; Streamlit options may follow, e.g.
``python app.py --server.port 8502``): it starts ``streamlit run app.py`` on 127.0.0.1, headless.
Pages are declared once, in ``pages/_registry.py`` (``PAGES``), and given to ``st.navigation``.

Why a launcher: a folder named ``pages/`` beside the main script makes Streamlit run the first
script of a new server in its old multipage mode, which lists every file of ``pages/`` in the
sidebar (``/a_Evaluate``, ``/common``) and answers a link to one of the app's own pages
(``/trade-off``) with "Page not found" until ``st.navigation`` has run once. The launcher tells
Streamlit before it starts that the pages are declared by the app. ``streamlit run app.py``
works too, with that first-run glitch.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))



def config_flags() -> list[str]:
    """The settings of the project's ``.streamlit/config.toml`` as command-line flags.

    Streamlit reads that file only from the current folder; passed as flags they hold wherever
    ``python app.py`` is started from (no usage statistics, the upload limit, no file watcher).
    """
    import tomllib

    path = ROOT / ".streamlit" / "config.toml"
    flags: list[str] = []
    for section, items in tomllib.loads(path.read_text(encoding="utf-8")).items():
        for key, value in items.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--{section}.{key}", text]
    return flags


def launch(argv: list[str]) -> None:
    """Start the Streamlit server on this script (``python app.py [streamlit options]``; an
    option given there wins over the project's configuration)."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli as streamlit_cli

    # the pages are declared by st.navigation below: skip Streamlit's pages/-folder mode, which
    # otherwise answers the first script run of the server (see the module docstring)
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(Path(__file__).resolve()),
                "--server.address", "127.0.0.1", "--server.headless", "true", *config_flags(), *argv]
    streamlit_cli.main()


if __name__ == "__main__":
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:  # run by python, not by Streamlit
        launch(sys.argv[1:])
        raise SystemExit(0)

import streamlit as st  # noqa: E402

from pages._common import get_data, init_state, show_error, sidebar  # noqa: E402

from pages._registry import PAGES  # noqa: E402
from pages._warm import start as start_warmup  # noqa: E402
from core.workspace.fonts import CJK_FONT, cjk_served_face  # noqa: E402

#: where Streamlit's static serving (``server.enableStaticServing``, the folder ``static`` beside
#: this file, a link to the font's folder) hands out the bundled CJK font
CJK_URL = f"app/static/{CJK_FONT.name}"


def data_names(data) -> str:
    """The names the pages show of a dataset: its name, its columns, its classes and its
    subgroups' values (up to 200 distinct values a column; not its free text)."""
    import pandas as pd

    raw = data.raw
    parts = [str(data.name), *map(str, raw.columns)]
    roles = data.roles or {}
    columns = [roles.get(r) for r in ("machine_label", "human_label", "human_label_2")]
    for col in [c for c in columns if c] + list(data.subgroup_columns or []):
        if col in raw:
            parts += [str(v) for v in pd.unique(raw[col])[:200]]
    return "\n".join(parts)


@st.cache_data(max_entries=8, show_spinner=False)
def cjk_style(names_key: str, _data) -> str:
    """A ``<style>`` giving Streamlit's own font family ("Source Sans") the glyphs of the CJK
    characters in the active dataset's names (core.workspace.fonts, a few kB), so that tables,
    figures and text show them on a machine without a CJK font; "" when there are none."""
    from core.errors import DataError
    from core.workspace.fonts import cjk_font_face

    try:
        face = cjk_font_face(data_names(_data), family="Source Sans")
    except DataError as exc:  # the bundled font missing: the reader's own fonts then
        logging.getLogger("hmceval").warning("%s", exc)
        return ""
    return f"<style>{face}</style>" if face else ""


def declared_pages() -> list:
    """The pages of ``pages/_registry.py`` (``PAGES``), in its order; the first (Home) is the
    default page."""
    return [st.Page(str(ROOT / "pages" / spec.file), title=spec.title, icon=spec.icon,
                    url_path=spec.url_path, default=i == 0)
            for i, spec in enumerate(PAGES)]


# the favicon is an emoji: a material icon here makes the browser fetch it from fonts.gstatic.com
st.set_page_config(page_title="HMCEval Studio", page_icon="⚖️", layout="wide")
css = ROOT / "assets" / "style.css"
if css.exists():
    st.markdown(f"<style>{css.read_text()}</style>", unsafe_allow_html=True)
init_state()
# the Effort and ToolTalk pages' first visits computed in a background process (once a server)
start_warmup()
_data = get_data()
_names_key = json.dumps([_data.content_id, str(_data.name), _data.roles], sort_keys=True, default=str)
# every CJK character, free text included, from the bundled font the server hands out (a page
# with none fetches nothing); the names' inline subset after it comes first for its characters
# (a later face is tried first) and draws them even where static serving is off
st.markdown(f"<style>{cjk_served_face(CJK_URL, family='Source Sans')}</style>",
            unsafe_allow_html=True)
if (style := cjk_style(_names_key, _data)):
    st.markdown(style, unsafe_allow_html=True)
nav = st.navigation(declared_pages())
with st.sidebar:
    st.markdown("### HMCEval Studio")
    st.caption("Human-machine collaborative evaluation")
sidebar()
try:
    nav.run()
except Exception as exc:  # last resort: a clear message in the page, the traceback in the log
    logging.getLogger("hmceval").exception("the %s page failed", nav.title)
    show_error(exc, context=f"The {nav.title} page failed")
