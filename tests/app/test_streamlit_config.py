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


def test_the_launcher_passes_the_configuration_wherever_it_starts(monkeypatch, tmp_path):
    """Streamlit reads .streamlit/config.toml only from the current folder: python app.py
    passes its settings as flags, so they hold when started from elsewhere; the user's own
    options come last and win."""
    import sys

    import app
    from streamlit.web import cli as streamlit_cli

    seen = {}
    monkeypatch.setattr(streamlit_cli, "main", lambda: seen.setdefault("argv", list(sys.argv)))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.chdir(tmp_path)
    app.launch(["--server.port", "8999", "--server.fileWatcherType", "auto"])
    argv = seen["argv"]
    pairs = dict(zip(argv[3::2], argv[4::2]))
    assert argv[:3] == ["streamlit", "run", str(ROOT / "app.py")]
    assert pairs["--server.address"] == "127.0.0.1" and pairs["--server.headless"] == "true"
    assert pairs["--browser.gatherUsageStats"] == "false"
    assert pairs["--server.maxUploadSize"] == "200"
    assert pairs["--client.toolbarMode"] == "minimal"
    assert argv.index("--server.fileWatcherType") < len(argv) - 2  # the config's "none" first...
    assert argv[argv.index("--server.fileWatcherType") + 1] == "none"
    assert argv[-4:] == ["--server.port", "8999", "--server.fileWatcherType", "auto"]  # ...the user's last


def test_no_file_watcher():
    assert _config()["server"]["fileWatcherType"] == "none"


def test_streamlit_run_binds_to_this_machine_and_contacts_nothing(monkeypatch):
    """Issue 24: `streamlit run app.py` listened on every interface and asked a public service
    for the machine's IP at start (only `python app.py` passed 127.0.0.1). The project's
    config.toml, which Streamlit reads from the folder it starts in, now sets the address; the
    start-up banner then looks nothing up."""
    assert _config()["server"]["address"] == "127.0.0.1"
    assert _config()["browser"]["gatherUsageStats"] is False
    from streamlit import config
    from streamlit.web import bootstrap

    monkeypatch.chdir(ROOT)
    config.get_config_options(force_reparse=True)
    try:
        assert config.get_option("server.address") == "127.0.0.1"
        assert config.is_manually_set("server.address")
        looked_up = []
        monkeypatch.setattr(bootstrap.net_util, "get_external_ip",
                            lambda: looked_up.append(1) or "203.0.113.1")
        monkeypatch.setattr(bootstrap.net_util, "get_internal_ip", lambda: "10.0.0.2")
        monkeypatch.setattr(bootstrap.cli_util, "print_to_cli", lambda *a, **k: None)
        get = config.get_option  # headless, as on a server without a display
        monkeypatch.setattr(bootstrap.config, "get_option",
                            lambda key: True if key == "server.headless" else get(key))
        bootstrap._print_url(False)
        assert looked_up == []
    finally:
        config.get_config_options(force_reparse=True)


def test_the_cjk_font_is_served_from_the_static_folder():
    """Issue 33: free text in CJK drawn with the bundled font on a machine without one. The app
    points the browser at app/static/<font> (app.py's CJK_URL), which Streamlit serves from the
    folder ``static`` beside app.py when static serving is on."""
    from core.workspace.fonts import CJK_FONT

    assert _config()["server"]["enableStaticServing"] is True
    served = ROOT / "static" / CJK_FONT.name
    assert served.is_file() and served.resolve() == CJK_FONT.resolve()
