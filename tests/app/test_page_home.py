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
