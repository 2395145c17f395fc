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

    if get_script_run_ctx() is None:  # run by python, not by a Streamlit script runner
        launch(sys.argv[1:])
        raise SystemExit(0)

import streamlit as st  # noqa: E402

from pages._common import init_state, show_error, sidebar  # noqa: E402

from pages._registry import PAGES  # noqa: E402


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
