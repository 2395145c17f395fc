"""Home page (issue 13): the default page, the workflow with links, the demo one click away."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from core.data import prepare
from pages._common import fingerprint

ROOT = Path(__file__).resolve().parents[2]


def app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception and not at.error
    return at


def test_home_is_the_default_page_and_links_the_workflow():
    at = app()
    assert at.title[0].value == "HMCEval Studio"
    assert any(m.value.startswith("**Which answers can you trust to a machine") for m in at.markdown)
    links = [(p.proto.label, p.proto.page) for p in at.get("page_link")]
    # the four steps in order, then the next step at the end of the page
    assert links == [("1 · Data", "data"), ("2 · Trade-off", "trade-off"),
                     ("3 · Evaluate", "evaluate"), ("4 · Report", "evaluate"),
                     ("Next: Data", "data")]
    # one line per page of the navigation
    lines = next(m.value for m in at.markdown if m.value.startswith("- **Data**")).splitlines()
    assert [ln.split("**")[1] for ln in lines] == ["Data", "Trade-off", "Evaluate", "Confidence",
                                                  "Effort", "Fairness", "Turns", "Scorekeeping",
                                                  "ToolTalk"]


def test_demo_button_loads_the_demo_and_opens_trade_off():
    at = app()
    # another dataset is active first: the button brings the demo back
    df = pd.DataFrame({"machine_label": [0, 1, 1, 0] * 5,
                       "machine_confidence": [0.2, 0.9, 0.6, 0.8] * 5})
    at.session_state["data"] = prepare(df, name="mine")
    at.session_state["data_key"] = fingerprint(df)
    at.session_state["data_source"] = "upload"
    at.run()
    assert any(c.value.startswith("Active dataset: mine") for c in at.caption)
    next(b for b in at.button if b.label == "Try it on the demo data").click()
    at.run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Trade-off"
    assert at.session_state["data_source"] == "demo"
    assert at.session_state["data"].name == "Built-in demo" and at.session_state["data"].M == 3557


def test_home_runs_on_its_own(run_page):
    at = run_page("0_Home.py")
    assert not at.exception and not at.error
    assert at.markdown[-1].value == "**Next: Data**"
    next(b for b in at.button if b.label == "Try it on the demo data").click()
    at.run()
    assert at.session_state["data_source"] == "demo" and at.success


def test_the_report_step_says_what_must_exist_and_the_command_works(tmp_path, capsys):
    """issue 13: 'or run `hmceval report`' failed with "no scenario '1'" unless a scenario was
    saved. The step names what must exist first, and the command it gives works on a round."""
    import re

    from core.cli import main
    from core.demo import make_demo
    from core.workspace import Workspace
    from core.workspace import rounds as R

    at = app()
    text = next(m.value for m in at.markdown if "hmceval report" in m.value)
    assert text.startswith("Once a round is planned on the Evaluate page")
    command = re.search(r"`(hmceval report[^`]*)`", text).group(1)
    assert command == "hmceval report -o report.html"
    ws = Workspace(tmp_path / "ws")
    rid = R.plan_round(ws, prepare(make_demo(), name="demo"), kind="budget",
                       settings={"lam": 1.0, "share": 0.5, "audit": 200, "seed": 0})
    out = tmp_path / "report.html"
    code = main(command.split()[1:-1] + [str(out), "--workspace", str(ws.root)])
    assert code == 0, capsys.readouterr().err
    assert f"(round {rid})" in out.read_text(encoding="utf-8")


# ------------------------------------------------------------------ one-screen summary (issue 25)
def _labelled_round(ws, data, share: float, audit: int) -> int:
    from core.workspace import rounds as R

    rid = R.plan_round(ws, data, kind="budget",
                       settings={"lam": 1.0, "share": share, "audit": audit, "seed": 0})
    R.simulate_annotators(ws, rid)
    return rid


def test_home_summarises_the_latest_round_on_one_screen(run_page):
    """A round with labels: Home reads the answer with its bound, the hours spent and saved
    (worked out here from the table's seconds), each group's accuracy with the bad group ('ja',
    right half the time by construction) flagged, and the same lines as the report's summary
    box (one core function, core.workspace.digest, behind both)."""
    import html
    import re

    import numpy as np

    from core.workspace import Workspace, default_root
    from core.workspace.report import round_report_html
    from tests.judge_table import BAD, judge_table

    raw = judge_table(per_group=100, seed=0)
    ws = Workspace(default_root())
    data = prepare(raw, name="judge")
    first = _labelled_round(ws, data, 0.5, 60)
    rid = _labelled_round(ws, data, 0.3, 100)
    at = run_page("0_Home.py")
    assert not at.exception and not at.error
    assert [s.value for s in at.subheader][0] == "Latest result"
    assert at.selectbox(key="home_round").value == rid  # the latest round first
    metrics = {m.label: m.value for m in at.metric}
    # hours worked out from the table: the seconds of the rows humans labelled
    rows = np.array(sorted(ws.round_labels(rid)))
    seconds = raw["predicted_effort_seconds"].to_numpy()
    assert metrics["Rows labelled by humans"] == f"{len(rows)} of 400"
    assert metrics["Hours spent"] == f"{seconds[rows].sum() / 3600:.1f} h"
    assert metrics["Hours saved"] == f"{(seconds.sum() - seconds[rows].sum()) / 3600:.1f} h"
    # the answer: a routing round gives an exact lower bound, and it holds for the true
    # accuracy of the final labels (gold where humans labelled, the machine elsewhere)
    acc = float(metrics["Accuracy of the final labels"].rstrip("%")) / 100
    bound = next(c.value for c in at.caption if c.value.startswith("at least"))
    low = float(re.match(r"at least ([\d.]+)%", bound).group(1)) / 100
    final = raw["machine_label"].to_numpy(dtype=object).copy()
    final[rows] = raw["human_label"].to_numpy(dtype=object)[rows]
    truth = float(np.mean(final == raw["human_label"].to_numpy(dtype=object)))
    assert low <= truth and low < acc
    # per-group accuracy: four languages, the bad one flagged with its warning
    table = at.dataframe[0].value
    assert list(table["group"]) == [f"language = {g}" for g in ("de", "en", "fr", "ja")]
    assert list(table.loc[table["worse"] == "worse", "group"]) == [f"language = {BAD}"]
    assert any(w.value.startswith(f"language = {BAD}") for w in at.warning)
    # the same lines as the report's first screen
    bullets = next(m.value for m in at.markdown if m.value.startswith("- **Question:**"))
    page = round_report_html(ws, rid)
    box = page[page.index("class='summary'"):page.index("The question")]
    for line in bullets.splitlines():
        text = line.removeprefix("- ").replace("**", "").replace("\\", "")
        assert text in html.unescape(re.sub("<[^>]+>", "", box)), text
    # each group's accuracy, one decimal, as the report's groups line reads it
    box_text = html.unescape(re.sub("<[^>]+>", "", box))
    for name, value in zip(table["group"], table["accuracy"]):
        assert f"{name.split(' = ')[1]} {value:.1f}%" in box_text, (name, value)
    assert [b.label for b in at.get("download_button")] == ["Report for stakeholders (HTML)"]
    # another round chosen: its own numbers
    at.selectbox(key="home_round").set_value(first).run()
    assert not at.exception
    n_first = len(ws.round_labels(first))
    assert {m.label: m.value for m in at.metric}["Rows labelled by humans"] == f"{n_first} of 400"
    assert n_first != len(rows)


def test_home_has_no_summary_before_any_label(run_page):
    from core.workspace import Workspace, default_root
    from core.workspace import rounds as R
    from tests.judge_table import judge_table

    ws = Workspace(default_root())
    R.plan_round(ws, prepare(judge_table(per_group=50), name="judge"), kind="budget",
                 settings={"lam": 1.0, "share": 0.3, "audit": 20, "seed": 0})
    at = run_page("0_Home.py")
    assert not at.exception and not at.error
    assert "Latest result" not in [s.value for s in at.subheader]
    assert not at.metric


def test_the_app_gives_its_font_the_glyphs_of_the_datasets_cjk_names():
    """A dataset whose name, groups or classes are Japanese: the app adds to Streamlit's own
    family a face with exactly those glyphs (a few kB); the demo (all Latin) gets none."""
    import base64
    import io
    import re

    from fontTools.ttLib import TTFont

    from tests.judge_table import judge_table

    at = app()
    faces = [m.value for m in at.markdown if "@font-face" in m.value]
    # the demo: only the face served at app/static for CJK free text (no glyphs in the page)
    assert len(faces) == 1 and "url('app/static/NotoSansCJKjp-Subset.woff')" in faces[0]
    assert "base64" not in faces[0]
    raw = judge_table(per_group=20)
    raw["language"] = raw["language"].map({"de": "ドイツ語", "en": "英語", "fr": "フランス語",
                                           "ja": "日本語"})
    at.session_state["data"] = prepare(raw, name="審査")
    at.session_state["data_key"] = fingerprint(raw)
    at.session_state["data_source"] = "upload"
    at.run()
    assert not at.exception and not at.error
    styles = [m.value for m in at.markdown if "@font-face" in m.value and "base64" in m.value]
    assert len(styles) == 1 and "font-family: 'Source Sans'" in styles[0]
    assert len(styles[0]) < 30_000
    font = TTFont(io.BytesIO(base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)\)",
                                                        styles[0]).group(1))))
    assert {chr(c) for c in font.getBestCmap()} == set("審査ドイツ語英フランス日本")
    # the response texts are not taken ("answer 1", ...), the names are
    assert "unicode-range: U+30A4" in styles[0]
