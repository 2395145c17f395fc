"""``hmceval report --format pdf`` (issue 25): the report printed by headless Chromium, checked
by rendering its first page to an image (pypdfium2) and reading its text; the HTML/PDF choice
and what happens without a browser."""

from __future__ import annotations

import html as html_lib
import re

import numpy as np
import pypdfium2 as pdfium
import pytest

from core.cli import main
from core.data import prepare
from core.workspace import Workspace
from core.workspace import rounds as R
from tests.cli.cli_support import run_cli
from tests.judge_table import judge_table


@pytest.fixture(scope="module")
def round_ws(tmp_path_factory):
    """A workspace with one labelled round of a judge table whose languages are named in
    Japanese (effort in seconds, gold on every row)."""
    folder = tmp_path_factory.mktemp("report") / "ws"
    raw = judge_table(per_group=60, seed=0)
    raw["language"] = raw["language"].map({"de": "ドイツ語", "en": "英語", "fr": "フランス語",
                                           "ja": "日本語"})
    ws = Workspace(folder)
    rid = R.plan_round(ws, prepare(raw, name="judge"), kind="budget",
                       settings={"lam": 1.0, "share": 0.3, "audit": 60, "seed": 0})
    R.simulate_annotators(ws, rid)
    return folder, rid


@pytest.fixture(scope="module")
def pdf_file(round_ws, tmp_path_factory):
    folder, rid = round_ws
    out = tmp_path_factory.mktemp("pdf") / "report.pdf"
    code = main(["report", "--workspace", str(folder), "--format", "pdf", "-o", str(out)])
    assert code == 0
    return out


def _summary_text(folder, rid) -> str:
    """The summary box of the HTML report, as text (what the PDF's first page must hold)."""
    from core.workspace.report import round_report_html

    page = round_report_html(Workspace(folder), rid)
    box = page[page.index("class='summary'"):page.index("The question")]
    return html_lib.unescape(re.sub(r"\s+", " ", re.sub("<[^>]+>", "", box.split(">", 1)[1])))


def test_pdf_first_page_is_drawn_and_holds_the_summary(pdf_file, round_ws):
    data = pdf_file.read_bytes()
    assert data.startswith(b"%PDF-")
    doc = pdfium.PdfDocument(data)
    assert len(doc) >= 2  # the report runs over several A4 pages
    first = doc[0]
    w, h = first.get_size()
    assert abs(w - 595.3) < 2 and abs(h - 841.9) < 2  # A4 (210 x 297 mm) in points
    # the first page as an image: not blank (ink on a good part of it, dark text pixels)
    img = np.asarray(first.render(scale=1).to_pil().convert("L"), dtype=float)
    assert (img < 250).mean() > 0.03 and (img < 100).mean() > 0.005
    # its text: the summary's lines, with the answer, the hours and the groups
    text = re.sub(r"\s+", " ", first.get_textpage().get_text_range())
    assert "Summary" in text and "Question:" in text
    summary = _summary_text(*round_ws)
    answer = re.search(r"the final labels are [\d.]+% accurate, at least [\d.]+% with 95% "
                       r"confidence", summary).group(0)
    assert answer in text
    hours = re.search(r"Humans labelled [\d,]+ of 240 responses, [\d.]+ (h|min) of work", summary)
    assert hours.group(0) in text
    # the Japanese group names are text in the PDF (their glyphs embedded, not boxes)
    assert "Groups: language:" in text and "日本語" in text and "ドイツ語" in text


def test_the_output_suffix_chooses_pdf_and_a_wrong_one_is_refused(round_ws, tmp_path, capsys):
    folder, _ = round_ws
    bad = tmp_path / "r.html"
    code, _, err = run_cli(capsys, "report", "--workspace", folder, "--format", "pdf", "-o", bad)
    assert code == 2 and "name the file .pdf (not .html)" in err and not bad.exists()
    code, _, err = run_cli(capsys, "report", "--workspace", folder, "--format", "html", "-o",
                           tmp_path / "r.pdf")
    assert code == 2 and "(not .pdf)" in err and not (tmp_path / "r.pdf").exists()
    # no --format: HTML unless -o ends in .pdf
    code, out, err = run_cli(capsys, "report", "--workspace", folder, "-o", tmp_path / "r.htm")
    assert code == 0, err
    assert (tmp_path / "r.htm").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_without_a_browser_the_pdf_export_says_what_to_install(round_ws, tmp_path, capsys,
                                                               monkeypatch):
    folder, _ = round_ws
    out = tmp_path / "r.pdf"
    monkeypatch.setenv("HMCEVAL_CHROMIUM", str(tmp_path / "no-such-chromium"))
    code, _, err = run_cli(capsys, "report", "--workspace", folder, "-o", out)
    assert code == 2 and "Traceback" not in err
    assert "no-such-chromium does not exist" in err and "apt-get install chromium" in err
    assert not out.exists()  # nothing written, no HTML in its place


def test_without_playwright_the_pdf_export_says_so(monkeypatch):
    import sys

    from core.errors import DataError
    from core.workspace.pdf import PDF_NEEDS, html_to_pdf

    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)  # as if not installed
    with pytest.raises(DataError) as exc:
        html_to_pdf("<html><body>x</body></html>")
    assert str(exc.value) == f"Playwright is not installed. {PDF_NEEDS}"
