"""``hmceval workspace`` and ``hmceval report``."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from core.data import prepare
from core.demo import make_demo
from core.workspace import Workspace
from core.workspace import rounds as R
from tests.cli.cli_support import run_cli


@pytest.fixture
def filled(tmp_path):
    ws = Workspace(tmp_path / "ws")
    rid = R.plan_round(ws, prepare(make_demo(), name="demo"), kind="budget",
                       settings={"lam": 1.0, "share": 0.5, "audit": 200, "seed": 0})
    R.simulate_annotators(ws, rid)
    ws.save_scenario("demo plan", ws.round(rid)["dataset_id"],
                     {"lam": 1.0, "share": 0.5, "evaluate": {"round_id": rid, "audit": 200}})
    return ws


def test_list_show_export_import(capsys, filled, tmp_path):
    root = str(filled.root)
    code, out, err = run_cli(capsys, "workspace", "--workspace", root, "list", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert [d["name"] for d in res["datasets"]] == ["demo"]
    assert [s["name"] for s in res["scenarios"]] == ["demo plan"]
    assert res["rounds"][0]["n_labelled"] == 1978
    code, out, err = run_cli(capsys, "workspace", "--workspace", root, "show", "demo plan")
    assert code == 0 and json.loads(out)["settings"]["lam"] == 1.0
    sc = tmp_path / "sc.json"
    assert run_cli(capsys, "workspace", "--workspace", root, "export", "demo plan", "-o", sc)[0] == 0
    other = str(tmp_path / "other")
    code, out, err = run_cli(capsys, "workspace", "--workspace", other, "import", sc)
    assert code == 2 and "not in this workspace" in err
    table = tmp_path / "demo.csv"
    make_demo().to_csv(table, index=False)
    code, out, err = run_cli(capsys, "workspace", "--workspace", other, "import", sc,
                             "--data", table)
    assert code == 0, err
    imported = Workspace(other).scenario("demo plan")
    assert imported["settings"]["lam"] == 1.0 and imported["settings"]["evaluate"]["audit"] == 200
    assert imported["settings"]["evaluate"]["round_id"] is None  # rounds stay where they ran


def test_import_of_a_bad_file_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "ws", "import", bad)
    assert code == 2 and "is not JSON" in err
    bad.write_text(json.dumps({"name": "x"}))
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "ws", "import", bad)
    assert code == 2 and "not an HMCEval scenario" in err
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "ws", "show", "nope")
    assert code == 2 and "no scenario 'nope'" in err


def test_report_is_self_contained(capsys, filled, tmp_path):
    out_html = tmp_path / "report.html"
    code, out, err = run_cli(capsys, "report", "demo plan", "--workspace", filled.root,
                             "-o", out_html)
    assert code == 0, err
    text = out_html.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "Plotly" in text
    # nothing is fetched: no external script, stylesheet or font
    assert not re.search(r"<script[^>]+src=", text) and "<link" not in text
    assert "cdn.plot.ly" not in text.split("</script>", 1)[1]
    for part in ("The question", "The plan", "Human effort", "The result",
                 "Settings to reproduce", "1,978 of 3,557"):
        assert part in text, part
    assert text.count("Plotly.newPlot") == 4  # progress, a forest per class, accuracy by group


@pytest.fixture
def round_only(tmp_path):
    """A round planned (as the Evaluate page does) but no scenario saved."""
    ws = Workspace(tmp_path / "ws1")
    rid = R.plan_round(ws, prepare(make_demo(), name="demo"), kind="budget",
                       settings={"lam": 1.0, "share": 0.5, "audit": 200, "seed": 0})
    R.simulate_annotators(ws, rid)
    return ws, rid


def test_report_of_a_round_without_a_scenario(capsys, round_only, tmp_path):
    # issue 13: 'hmceval report 1' failed with "no scenario '1'" when no scenario was saved
    ws, rid = round_only
    code, out, err = run_cli(capsys, "report", "1", "--workspace", ws.root, "-o",
                             tmp_path / "r.html")
    assert code == 2 and out == ""
    assert "no scenario '1': the workspace" in err and "has no saved scenario yet" in err
    assert "Evaluate page" in err and "hmceval report --round ID" in err
    for argv in (["--round", rid], []):  # the round by its id, or the latest round
        out_html = tmp_path / f"r{len(argv)}.html"
        code, out, err = run_cli(capsys, "report", *argv, "--workspace", ws.root, "-o", out_html)
        assert code == 0, err
        assert out.startswith(f"report of round {rid} written to {out_html}")
        text = out_html.read_text(encoding="utf-8")
        assert f"(round {rid})" in text and text.count("Plotly.newPlot") == 4
    code, out, err = run_cli(capsys, "report", "--round", 99, "--workspace", ws.root, "-o",
                             tmp_path / "x.html")
    assert code == 2 and f"no round 99 in the workspace {ws.root}; its rounds are {rid}" in err


def test_report_on_an_empty_workspace_says_what_to_do_first(capsys, tmp_path):
    code, out, err = run_cli(capsys, "report", "--workspace", tmp_path / "empty", "-o",
                             tmp_path / "x.html")
    assert code == 2 and "has no evaluation round yet: plan a round on the Evaluate page" in err
    assert "hmceval workspace import FILE" in err and not (tmp_path / "x.html").exists()


def test_add_a_dataset(capsys, tmp_path):
    table = tmp_path / "t.csv"
    make_demo().to_csv(table, index=False)
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "ws", "add", table,
                             "--name", "my data")
    assert code == 0, err
    assert Workspace(tmp_path / "ws").list_datasets()["name"].tolist() == ["my data"]


@pytest.mark.parametrize("argv", [["workspace", "list"], ["workspace", "list", "--json"]])
def test_a_closed_pipe_stops_quietly(tmp_path, argv):
    """``hmceval workspace list | head``: the reader leaves before anything is written; the
    command stops with no traceback (issue 13), exit 141 as a unix tool stopped by the pipe."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "HMCEVAL_WORKSPACE": str(tmp_path / "ws")}
    read, write = os.pipe()
    os.close(read)  # the reader has already left when the command writes
    proc = subprocess.run([sys.executable, "-m", "core.cli", *argv], stdout=write,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    os.close(write)
    assert proc.stderr == ""
    assert proc.returncode == 141


def test_the_reports_settings_import_and_plan_the_same_round(capsys, round_only, tmp_path):
    """QA: the report said to load its settings with 'hmceval workspace import', which refused
    them (not a scenario file). The JSON in the report is now the scenario itself."""
    import html as html_mod

    ws, rid = round_only
    out_html = tmp_path / "r.html"
    code, out, err = run_cli(capsys, "report", "--round", str(rid), "--workspace", ws.root, "-o", out_html)
    assert code == 0, err
    text = out_html.read_text(encoding="utf-8")
    block = html_mod.unescape(text.split("<h2>Settings to reproduce</h2>", 1)[1].split("<pre>", 1)[1]
                              .split("</pre>", 1)[0])
    scenario = json.loads(block)
    assert scenario["format"] == "hmceval-scenario"
    assert scenario["settings"]["lam"] == 1.0 and scenario["settings"]["share"] == 0.5
    assert scenario["settings"]["evaluate"]["kind"] == "budget"
    assert scenario["settings"]["evaluate"]["audit"] == 200
    # the download link in the report holds the same JSON
    import base64
    href = re.search(r"href='data:application/json;base64,([^']+)'", text).group(1)
    assert json.loads(base64.b64decode(href)) == scenario
    # another workspace, the same table: the import runs and the scenario plans the same round
    saved = tmp_path / "scenario.json"
    saved.write_text(block, encoding="utf-8")
    table = tmp_path / "table.csv"
    make_demo().to_csv(table, index=False)
    code, out, err = run_cli(capsys, "workspace", "--workspace", tmp_path / "other", "import", saved,
                             "--data", table)
    assert code == 0, err
    other = Workspace(tmp_path / "other")
    sc = other.scenario(scenario["name"])
    assert sc["settings"] == scenario["settings"]
    data = R.data_from_workspace(other, sc["dataset_id"])
    rid2 = R.plan_round(other, data, kind="budget", settings={**sc["settings"], **sc["settings"]["evaluate"]})
    assert np.array_equal(other.round(rid2)["selection"], ws.round(rid)["selection"])
