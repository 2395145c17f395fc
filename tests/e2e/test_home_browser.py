"""Home in a real browser (issue 25): with a labelled round in the workspace, the first screen
at 1,400 x 900 holds the round's answer, its bound, the hours spent and saved; the dataset's
Japanese names are drawn with real glyphs (the app's font extended from the bundled CJK font) on
a machine without a CJK font."""

from __future__ import annotations

import re

import pytest

from tests.e2e.servers import streamlit_server
from tests.e2e.test_report_browser import VIEW, _assert_cjk_drawn, _judge_round

pytestmark = pytest.mark.e2e


def _inside(page, locator) -> str:
    box = locator.bounding_box()
    assert box is not None
    assert box["y"] >= 0 and box["y"] + box["height"] <= VIEW["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= VIEW["width"], box
    return locator.inner_text()


def test_home_first_screen_reads_the_latest_round(browser, tmp_path):
    ws, rid, raw = _judge_round(tmp_path / "ws")
    seconds = raw["predicted_effort_seconds"].to_numpy()
    rows = sorted(ws.round_labels(rid))
    spent = seconds[rows].sum() / 3600
    with streamlit_server(tmp_path / "server.log",
                          env={"HMCEVAL_WORKSPACE": str(tmp_path / "ws")}) as url:
        page = browser.new_page(viewport=VIEW, accept_downloads=True)
        page.set_default_timeout(90_000)
        page.goto(url, wait_until="domcontentloaded")
        page.get_by_text("Latest result").first.wait_for()
        metrics = page.locator('[data-testid="stMain"] [data-testid="stMetric"]')
        metrics.nth(3).wait_for()  # the summary is computed after the heading shows
        page.get_by_role("button", name="Report for stakeholders (HTML)").first.wait_for()
        page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden")
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        page.screenshot(path=str(tmp_path / "home_first_screen.png"))
        assert metrics.count() == 4
        texts = [_inside(page, metrics.nth(i)) for i in range(4)]
        joined = " | ".join(re.sub(r"\s+", " ", t) for t in texts)
        assert re.search(r"Accuracy of the final labels [\d.]+%", joined), joined
        assert f"Hours spent {spent:.1f} h" in joined, joined
        assert f"Hours saved {seconds.sum() / 3600 - spent:.1f} h" in joined, joined
        assert f"Rows labelled by humans {len(rows)} of 400" in joined, joined
        bound = page.get_by_text(re.compile(r"^at least [\d.]+% \(95% confidence")).first
        _inside(page, bound)
        chooser = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').first
        _inside(page, chooser)
        value = chooser.evaluate("e => [e.innerText, ...[...e.querySelectorAll('input')]"
                                 ".map(i => i.value)].join(' ')")
        assert f"Round {rid} · judge" in value, value
        # the groups' Japanese names (in the table, a canvas) in the page's text font: Streamlit's
        # "Source Sans", given their glyphs by the app
        _assert_cjk_drawn(page, '[data-testid="stMarkdownContainer"]', "日本語",
                          family="Source Sans")
        # CJK free text, characters in none of the dataset's names: from the font the server
        # hands out at app/static (fetched on demand), in the same family
        _assert_served_cjk(page, url, "検証済応答文")
        assert not page.locator('[data-testid="stException"]').count()
        # the report, one click away: made on the click, the round's summary first
        button = page.get_by_role("button", name="Report for stakeholders (HTML)").first
        with page.expect_download() as download:
            button.click()
        assert download.value.suggested_filename == f"hmceval_round{rid}_report.html"
        report = open(download.value.path(), encoding="utf-8").read()
        assert report.index("class='summary'") < report.index("The question")
        assert f"{spent:.1f} h</b> of work" in report
        page.close()


def _assert_served_cjk(page, url: str, text: str) -> None:
    """``text`` (CJK characters none of the page's inline faces hold) loads a face of "Source
    Sans" served at app/static and draws real glyphs: each character's ink differs from the
    others' and from the missing-glyph box (U+E000)."""
    from core.workspace.fonts import CJK_FONT

    assert page.request.get(f"{url}/app/static/{CJK_FONT.name}").body()[:4] == b"wOFF"
    inks = page.evaluate(
        """async (chars) => {
            const faces = await document.fonts.load(`48px "Source Sans"`, chars);
            const c = document.createElement('canvas'); c.width = 64; c.height = 64;
            const ctx = c.getContext('2d', {willReadFrequently: true});
            const ink = ch => {
                ctx.clearRect(0, 0, 64, 64); ctx.font = '48px "Source Sans"';
                ctx.fillStyle = '#000'; ctx.fillText(ch, 4, 52);
                const d = ctx.getImageData(0, 0, 64, 64).data;
                let s = ''; for (let i = 3; i < d.length; i += 4) s += d[i] > 127 ? '1' : '0';
                return s;
            };
            return {ranges: faces.map(f => f.unicodeRange), box: ink('\\ue000'),
                    chars: [...chars].map(ink)};
        }""", text)
    assert any("U+4E00" in r.upper() or "U+2E80" in r.upper() for r in inks["ranges"]), inks["ranges"]
    chars = inks["chars"]
    assert len(set(chars)) == len(chars), "distinct characters drew the same glyph (boxes)"
    for ink in chars:
        assert ink != inks["box"] and ink.count("1") > 100
