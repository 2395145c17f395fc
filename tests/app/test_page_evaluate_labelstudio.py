"""Evaluate page and ``hmceval labelstudio``: one push and pull (core.workspace.
labelstudio_service) for both front ends. A round planned on the page is pushed from the page
to a Label Studio server of one user (tests/cli/labelstudio_support.py), pulled back by the
command line (the same project: the same title, the same blind tasks), and pulled by the page;
what the server received is checked from the server's side."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.app.test_page_evaluate import PAGE, click
from tests.cli.labelstudio_support import FakeLabelStudio


@pytest.fixture
def fake():
    server = FakeLabelStudio(label="1")
    yield server
    server.httpd.shutdown()


def _server_form(at, url: str):
    at.radio(key="_w_import_source").set_value("Label Studio server").run()
    next(t for t in at.text_input if t.label == "Label Studio URL").set_value(url).run()
    next(t for t in at.text_input if t.label == "Access token").set_value("tok").run()
    return at


def test_the_page_pushes_and_the_command_line_pulls_the_same_project(run_page, fake, tmp_path,
                                                                    monkeypatch):
    ws = tmp_path / "ws"
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(ws))
    at = run_page(PAGE)
    click(at, "Plan the round")
    _server_form(at, fake.url)
    click(at, "Send the queue")
    assert any("tasks sent to project #1" in s.value for s in at.success)
    [project] = fake.projects.values()
    from core.workspace import Workspace

    store = Workspace(ws)
    rnd = store.round(1)
    queued = int(np.isfinite(np.asarray(rnd["queue_rank"], dtype=float)).sum())
    assert len(project["tasks"]) == queued == 1978  # routed 1,778 + audit 200 of the demo
    data_keys = set(project["tasks"][0]["data"])
    assert "human_label" not in data_keys and "machine_label" not in data_keys  # blind
    events = store.events(1)
    assert "pushed" in set(events["action"])

    # the command line pulls the page's project by the round's own title
    from core.cli import main

    out = tmp_path / "r.csv"
    assert main(["labelstudio", "pull", "--round", "1", "--url", fake.url, "--token", "tok",
                 "-o", str(out)]) == 0
    got = store.round_labels(1)  # every task came back with label 1, on its own row
    queue = set(np.flatnonzero(np.isfinite(np.asarray(rnd["queue_rank"], dtype=float))).tolist())
    assert set(got) == queue and {str(v) for v in got.values()} == {"1"}
    assert pd.read_csv(out).shape[0] == 3557  # the round's table, exported

    # and the page's pull of the same project imports nothing new (the same votes)
    at = run_page(PAGE)
    _server_form(at, fake.url)
    click(at, "Pull the labels")
    assert not at.error, [e.value for e in at.error]
    assert store.list_rounds()["n_labelled"].iloc[0] == len(project["tasks"])
