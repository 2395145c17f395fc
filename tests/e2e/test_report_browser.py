"""In a real browser (issue 25): the report's first screen, read in a screenshot at 1,400 x 900,
holds the question, the answer, its interval, the hours and the groups; Japanese group names are
drawn with real glyphs from the report's embedded font on a machine without a CJK font."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.data import prepare
from core.demo import make_demo
from core.workspace import Workspace
from core.workspace import rounds as R
from core.workspace.report import round_report_html
from tests.judge_table import judge_table

pytestmark = pytest.mark.e2e

VIEW = {"width": 1400, "height": 900}
JA = {"de": "ドイツ語", "en": "英語", "fr": "フランス語", "ja": "日本語"}


def _judge_round(folder):
    """A judge table (effort in seconds, gold on every row) whose languages are named in
    Japanese: a routing round with an audit, labels from the gold."""
    raw = judge_table(per_group=100, seed=0)
    raw["language"] = raw["language"].map(JA)
    ws = Workspace(folder)
    rid = R.plan_round(ws, prepare(raw, name="judge"), kind="budget",
                       settings={"lam": 1.0, "share": 0.3, "audit": 100, "seed": 0})
    R.simulate_annotators(ws, rid)
    return ws, rid, raw


def _demo_round(folder):
    """The built-in demo with its gold as the annotators' labels (an active design), plus a
    subgroup column named and valued in Japanese (the demo has no Japanese text of its own)."""
    raw = make_demo()
    raw["言語"] = np.where(np.arange(len(raw)) % 3 == 0, "日本語", "英語")
    ws = Workspace(folder)
    rid = R.plan_round(ws, prepare(raw, name="demo"), kind="budget",
                       settings={"design": "active", "labels": 400, "seed": 0})
    R.simulate_annotators(ws, rid)
    return ws, rid, raw


def _open(browser, html: str, path):
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport=VIEW)
    page.goto(path.as_uri())
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    return page


def _first_screen(page, key: str) -> str:
    """The text of the summary line ``key``, asserted to lie wholly inside the first screen."""
    el = page.locator(f"li.digest-{key}")
    box = el.bounding_box()
    assert box is not None, key
    assert box["x"] >= 0 and box["y"] >= 0, (key, box)
    assert box["x"] + box["width"] <= VIEW["width"] and box["y"] + box["height"] <= VIEW["height"], \
        (key, box)
    return el.inner_text()


def test_first_screen_of_a_judge_round_reads_answer_interval_hours_groups(browser, tmp_path):
    ws, rid, raw = _judge_round(tmp_path / "ws")
    page = _open(browser, round_report_html(ws, rid), tmp_path / "report.html")
    try:
        page.screenshot(path=str(tmp_path / "report_first_screen.png"))  # the viewport only
        assert (tmp_path / "report_first_screen.png").stat().st_size > 20_000
        assert "how accurate are the final labels" in _first_screen(page, "question")
        answer = _first_screen(page, "answer")
        m = re.search(r"the final labels are ([\d.]+)% accurate, at least ([\d.]+)% with 95% "
                      r"confidence", answer)
        assert m and float(m.group(2)) < float(m.group(1)), answer
        # hours worked out from the table's seconds and the rows humans labelled
        rows = np.array(sorted(ws.round_labels(rid)))
        sec = raw["predicted_effort_seconds"].to_numpy()
        hours = _first_screen(page, "effort")
        assert (f"Humans labelled {len(rows)} of 400 responses, {sec[rows].sum() / 3600:.1f} h "
                f"of work; labelling everything would take {sec.sum() / 3600:.1f} h, so "
                f"{(sec.sum() - sec[rows].sum()) / 3600:.1f} h were saved.") in hours
        groups = _first_screen(page, "groups")
        for name in JA.values():
            assert re.search(re.escape(name) + r" [\d.]+%", groups), (name, groups)
        assert "日本語" in groups.split("(worse)")[0]  # the bad group is flagged
        _assert_cjk_drawn(page, "li.digest-groups", "日本語")
    finally:
        page.close()


def test_first_screen_of_the_demo_round(browser, tmp_path):
    """The demo's effort has no unit of time: the first screen gives the share of the effort
    spent and saved instead of hours; the rest as above."""
    ws, rid, raw = _demo_round(tmp_path / "ws")
    page = _open(browser, round_report_html(ws, rid), tmp_path / "report.html")
    try:
        page.screenshot(path=str(tmp_path / "demo_first_screen.png"))
        assert "how accurate are the final labels" in _first_screen(page, "question")
        answer = _first_screen(page, "answer")
        assert re.search(r"the final labels are [\d.]+% accurate \(95% interval [\d.]+% – "
                         r"[\d.]+%\)", answer), answer
        effort = _first_screen(page, "effort")
        assert re.search(r"Humans labelled [\d,]+ of 3,557 responses, \d+% of the effort of "
                         r"labelling everything \(\d+% saved\)", effort), effort
        groups = _first_screen(page, "groups")
        assert re.search(r"言語: 日本語 [\d.]+%", groups) or re.search(r"日本語 [\d.]+%", groups)
        _assert_cjk_drawn(page, "li.digest-groups", "日本語")
    finally:
        page.close()


def _assert_cjk_drawn(page, selector: str, text: str, family: str = "HMCEval CJK") -> None:
    """``text`` drawn in the font stack of ``selector`` has real glyphs: each character's ink
    differs from the others' and from the missing-glyph box (the ink of U+E000, a private-use
    code point no font here covers), where a font without them draws the same box for all."""
    inks = page.evaluate(
        """([sel, chars, fam]) => {
            const el = document.querySelector(sel);
            const family = getComputedStyle(el).fontFamily;
            const c = document.createElement('canvas'); c.width = 64; c.height = 64;
            const ctx = c.getContext('2d', {willReadFrequently: true});
            const ink = ch => {
                ctx.clearRect(0, 0, 64, 64); ctx.font = `48px ${family}`;
                ctx.fillStyle = '#000'; ctx.fillText(ch, 4, 52);
                const d = ctx.getImageData(0, 0, 64, 64).data;
                let s = ''; for (let i = 3; i < d.length; i += 4) s += d[i] > 127 ? '1' : '0';
                return s;
            };
            const loaded = [...document.fonts].some(
                f => f.family.replace(/['"]/g, '') === fam && f.status === 'loaded'
                     && f.unicodeRange.includes(chars.codePointAt(0).toString(16).toUpperCase()));
            return {loaded, box: ink('\\ue000'), chars: [...chars].map(ink)};
        }""", [selector, text, family])
    assert inks["loaded"], f"no loaded face of {family} for {text[0]}"
    chars = inks["chars"]
    assert len(set(chars)) == len(chars), "distinct characters drew the same glyph (boxes)"
    for ink in chars:
        assert ink != inks["box"] and ink.count("1") > 100
