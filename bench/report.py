"""How long the stakeholder report takes: HTML with and without CJK text, the CJK font subset
alone, and the PDF print (issue 25).

Run from the project root: ``python bench/report.py`` (about a minute; needs Chromium for the
PDF line). One routing round on a judge table of 400 rows (tests/judge_table.py), its group
names in Latin or Japanese script. Prints each time (best of 3) and its ratio to one stable
argsort of 100,000 floats timed in the same run, and the sizes of the files.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _timing import argsort_reference as reference  # noqa: E402
from _timing import best_of  # noqa: E402

from core.data import prepare  # noqa: E402
from core.workspace import Workspace  # noqa: E402
from core.workspace import rounds as R  # noqa: E402
from core.workspace.fonts import cjk_font_face  # noqa: E402
from core.workspace.pdf import html_to_pdf, pdf_unavailable  # noqa: E402
from core.workspace.report import round_report_html  # noqa: E402
from tests.judge_table import judge_table  # noqa: E402


def _round(folder: Path, names: dict[str, str] | None) -> tuple[Workspace, int]:
    raw = judge_table(per_group=100, seed=0)
    if names:
        raw["language"] = raw["language"].map(names)
    ws = Workspace(folder)
    rid = R.plan_round(ws, prepare(raw, name="judge"), kind="budget",
                       settings={"lam": 1.0, "share": 0.3, "audit": 100, "seed": 0})
    R.simulate_annotators(ws, rid)
    return ws, rid


def main() -> None:
    ref = reference()
    tmp = Path(tempfile.mkdtemp())
    rows = []
    latin = _round(tmp / "latin", None)
    ja = _round(tmp / "ja", {"de": "ドイツ語", "en": "英語", "fr": "フランス語", "ja": "日本語"})
    for name, (ws, rid) in (("HTML report, Latin group names", latin),
                            ("HTML report, Japanese group names", ja)):
        t = best_of(lambda: round_report_html(ws, rid), 3)
        size = len(round_report_html(ws, rid).encode())
        rows.append((name, t, f"{size / 2**20:.2f} MiB"))
    face = cjk_font_face("ドイツ語 英語 フランス語 日本語")
    rows.append(("CJK font subset alone (8 characters)",
                 best_of(lambda: cjk_font_face("ドイツ語 英語 フランス語 日本語"), 3),
                 f"{len(face) / 1024:.1f} KiB of CSS"))
    why = pdf_unavailable()
    if why:
        print(f"PDF skipped: {why}")
    else:
        page = round_report_html(*ja)
        pdf = html_to_pdf(page)
        rows.append(("PDF print (Chromium start included)",
                     best_of(lambda: html_to_pdf(page), 3), f"{len(pdf) / 1024:.0f} KiB"))
    print(f"reference: one stable argsort of 10^5 floats = {ref * 1e3:.2f} ms")
    for name, t, size in rows:
        print(f"{name:<40} {t:7.2f} s  {t / ref:9,.0f} x ref  {size}")


if __name__ == "__main__":
    main()
