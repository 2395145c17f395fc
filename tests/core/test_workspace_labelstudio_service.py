"""The Label Studio service both front ends call (core.workspace.labelstudio_service), against
a Label Studio of one user on localhost (tests/cli/labelstudio_support.py): what the server
received is read from the server's side; the titles a pull looks for are written out here."""

from __future__ import annotations

import numpy as np
import pytest

from core.data import prepare
from core.demo import make_demo
from core.errors import DataError
from core.workspace import Workspace
from core.workspace import labelstudio_service as service
from core.workspace.round_settings import RoundSettings
from core.workspace.rounds import plan_round
from tests.cli.labelstudio_support import FakeLabelStudio


@pytest.fixture
def fake():
    server = FakeLabelStudio(label="0")
    yield server
    server.httpd.shutdown()


def test_older_titles_are_the_earlier_defaults_in_order():
    assert service.older_titles(3, data_name="demo", round_key="ab12", file_name="q.csv") == [
        "HMCEval · demo · round 3", "HMCEval · round ab12", "HMCEval · q.csv"]
    assert service.older_titles() == []


def test_a_round_is_pushed_blind_recorded_and_pulled_back(fake, tmp_path):
    ws = Workspace(tmp_path / "ws")
    data = prepare(make_demo(60).drop(columns=["human_label_2"]), {})
    rid = plan_round(ws, data, kind="budget",
                     settings=RoundSettings(lam=0.0, share=0.1, audit=3, seed=1))
    client = service.connect(fake.url, "tok")
    pushed = service.push_round(ws, rid, client, url=fake.url)
    [project] = fake.projects.values()
    assert project["title"] == service.round_title(ws, rid) == pushed.title
    queued = np.flatnonzero(np.isfinite(np.asarray(ws.round(rid)["queue_rank"], dtype=float)))
    assert pushed.result.n_sent == len(project["tasks"]) == len(queued)
    sent = {str(t["data"]["sample_id"]) for t in project["tasks"]}
    assert sent == {str(v) for v in data.raw["sample_id"].to_numpy()[queued]}
    assert not {"human_label", "machine_label", "selection"} & set(project["tasks"][0]["data"])
    assert pushed.sentence.startswith(f"{len(queued):,} tasks sent to project #1 ")
    events = ws.events(rid)
    assert events["action"].tolist()[-1] == "pushed"
    # a pull finds the project by its title, else by an older one
    got = service.pull_labels(client, "no such title", [pushed.title])
    assert got.source == "labelstudio" and got.n_tasks == len(queued)
    assert sorted(got.sample_id) == sorted(sent) and set(got.label) == {"0"}
    with pytest.raises(DataError, match="no project titled 'other' on http://127.0.0.1:"):
        service.find_project(client, "other", ["neither"])
