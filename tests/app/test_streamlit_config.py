"""Issue 12: the dashboard's Streamlit configuration sends nothing out and uploads stop where
the loader stops."""

from __future__ import annotations

import tomllib
from pathlib import Path

import streamlit

from core.data import MAX_FILE_BYTES

ROOT = Path(__file__).resolve().parents[2]


def _config() -> dict:
    return tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def test_usage_statistics_are_off():
    assert _config()["browser"]["gatherUsageStats"] is False


def test_upload_limit_equals_the_loader_limit():
    assert _config()["server"]["maxUploadSize"] * 2**20 == MAX_FILE_BYTES


def test_material_icon_font_is_served_by_streamlit_itself():
    # the :material/...: icons inside pages are drawn with this bundled font, not fetched
    media = Path(streamlit.__file__).parent / "static" / "static" / "media"
    assert list(media.glob("MaterialSymbols-Rounded*.woff2"))
    assert list(media.glob("SourceSansVF-*.woff2"))


def test_tables_and_figures_keep_their_download_buttons():
    """Issue 13: every table and figure downloadable. Each st.dataframe's toolbar downloads it
    as CSV unless client.disableDataExport is set; each plotly figure's mode bar downloads it
    as PNG unless a page hides the mode bar."""
    assert _config().get("client", {}).get("disableDataExport", False) is False
    for page in sorted((ROOT / "pages").glob("*.py")):
        text = page.read_text()
        assert "displayModeBar" not in text and "disableDataExport" not in text, page.name
