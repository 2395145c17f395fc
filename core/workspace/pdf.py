"""The stakeholder report as a PDF (issue 25): the HTML report printed by headless Chromium.

A real browser renders the report exactly as it reads on screen (its plotly figures, the
embedded CJK font), then prints it: Playwright drives a Chromium found on this machine
(``$HMCEVAL_CHROMIUM``, else ``chromium``, ``chromium-browser``, ``google-chrome`` on the PATH,
else the browser Playwright installed). Nothing is fetched: every request of the page other
than its own ``data:`` URLs is refused. Without Playwright or without a Chromium the export is a
:class:`core.errors.DataError` saying what to install; there is no second, lesser renderer.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["PDF_NEEDS", "find_chromium", "html_to_pdf", "pdf_unavailable"]

#: what a PDF export needs, in the words of an error message
PDF_NEEDS = ("PDF export prints the HTML report with a headless Chromium through Playwright: "
             "install Playwright (pip install playwright) and a Chromium (Debian: apt-get install "
             "chromium; elsewhere: python -m playwright install chromium), or set "
             "HMCEVAL_CHROMIUM to a Chromium or Chrome executable. The HTML report needs neither")

#: the page's layout width in CSS pixels and the print scale: the report's 960 px column and
#: its figures fit the A4 page (190 mm printable = 718 px at 96 dpi, / 0.7 = 1,026 px)
_VIEWPORT = {"width": 1000, "height": 1400}
_SCALE = 0.7
_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def find_chromium() -> str | None:
    """The Chromium executable to print with: ``$HMCEVAL_CHROMIUM``, else the first of
    ``chromium``, ``chromium-browser``, ``google-chrome``, ``google-chrome-stable`` on the PATH;
    None when there is none (Playwright's own browser may still be there)."""
    env = os.environ.get("HMCEVAL_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def pdf_unavailable() -> str | None:
    """Why a PDF cannot be printed here (no Playwright; no Chromium on the PATH, in
    ``$HMCEVAL_CHROMIUM`` or in Playwright's own browser folder), None when it can be tried.
    Cheap: nothing is started."""
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        return f"Playwright is not installed. {PDF_NEEDS}"
    exe = find_chromium()
    if exe is not None:
        return None if Path(exe).exists() else f"HMCEVAL_CHROMIUM={exe} does not exist. {PDF_NEEDS}"
    own = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    if any(own.glob("chromium*")):
        return None
    return f"No Chromium found. {PDF_NEEDS}"


def html_to_pdf(html: str, *, timeout_s: float = 90.0) -> bytes:
    """Print a self-contained HTML page (the report) to PDF, A4, backgrounds kept.

    Parameters
    ----------
    html : str
        The complete document (:func:`core.workspace.report.round_report_html`).
    timeout_s : float
        The longest wait for the page and its figures.

    Returns
    -------
    bytes
        The PDF file.

    Raises
    ------
    DataError
        Without Playwright or a Chromium (:data:`PDF_NEEDS`), or when the browser fails.
    """
    from core.errors import DataError

    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise DataError(f"Playwright is not installed. {PDF_NEEDS}") from None
    exe = find_chromium()
    if exe is not None and not Path(exe).exists():
        raise DataError(f"HMCEVAL_CHROMIUM={exe} does not exist. {PDF_NEEDS}")
    ms = timeout_s * 1000
    try:
        with sync_playwright() as p:
            try:
                browser = p.chromium.launch(executable_path=exe, headless=True, args=_ARGS)
            except PlaywrightError as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise DataError(f"no Chromium could be started ({first}). {PDF_NEEDS}") from None
            try:
                page = browser.new_page(viewport=_VIEWPORT)
                page.set_default_timeout(ms)
                # the report is self-contained: refuse anything but its own data: URLs
                page.route("**/*", lambda route: route.abort()
                           if not route.request.url.startswith("data:") else route.continue_())
                page.set_content(html, wait_until="load", timeout=ms)
                # every plotly figure drawn, and the page's fonts loaded
                page.wait_for_function(
                    "() => [...document.querySelectorAll('.plotly-graph-div')]"
                    ".every(d => d._fullLayout && d.querySelector('.main-svg'))", timeout=ms)
                page.evaluate("() => document.fonts.ready.then(() => true)")
                return page.pdf(format="A4", print_background=True, scale=_SCALE,
                                margin={"top": "10mm", "bottom": "10mm", "left": "10mm",
                                        "right": "10mm"})
            finally:
                browser.close()
    except PlaywrightError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"printing the report to PDF failed: {first}") from None
