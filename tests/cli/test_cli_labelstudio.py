"""``hmceval labelstudio push|pull`` against a local fake server: what is pushed (blind), the
queue positions it reads, and the project's title."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.cli.cli_support import run_cli
from tests.cli.labelstudio_support import FakeLabelStudio


@pytest.fixture
def fake(monkeypatch):
    server = FakeLabelStudio(label="ok")
    monkeypatch.setenv("LABEL_STUDIO_TOKEN", "legacy-token-0123456789")
    yield server
    server.httpd.shutdown()


def _round(tmp_path, capsys) -> "Path":
    """A round of 30 rows whose 8 calibration rows are queued (hmceval queue)."""
    rng = np.random.default_rng(1)
    src = tmp_path / "t.csv"
    pd.DataFrame({"sample_id": [f"s{i}" for i in range(30)],
                  "response": [f"reply {i} in a few words" for i in range(30)],
                  "machine_label": rng.choice(["ok", "bad"], 30),
                  "machine_confidence": rng.uniform(0.5, 1, 30).round(3),
                  "topic": rng.choice(["a", "b"], 30)}).to_csv(src, index=False)
    table = tmp_path / "round.csv"
    code, _, err = run_cli(capsys, "queue", src, "--col", "text=response", "--calibration", 8,
                           "-o", table)
    assert code == 0, err
    return table


def test_push_sends_only_the_allowed_columns(capsys, tmp_path, ws_dir, fake):
    """Issue 32 item 5: tasks carry the id, the rank, the text and the --show columns."""
    table = _round(tmp_path, capsys)
    code, _, err = run_cli(capsys, "labelstudio", "push", table, "--url", fake.url,
                           "--show", "topic")
    assert code == 0, err
    tasks = fake.projects[1]["tasks"]
    assert len(tasks) == 8
    assert {k for t in tasks for k in t["data"]} == {"sample_id", "queue_rank", "response",
                                                     "topic"}
    assert sorted(t["data"]["queue_rank"] for t in tasks) == list(range(1, 9))
    config = fake.projects[1]["label_config"]  # annotators see the chosen column too
    assert 'value="$response"' in config and 'value="$topic"' in config


@pytest.mark.parametrize("cell", ["first", "1.5", "0", "inf"])
def test_push_with_a_queue_rank_that_is_not_a_position_exits_2(capsys, tmp_path, ws_dir, fake,
                                                              cell):
    """A text queue_rank was a ValueError traceback. Exit 2 naming the column and the row; no
    project is created."""
    table = _round(tmp_path, capsys)
    t = pd.read_csv(table)
    row = int(np.flatnonzero(t["queue_rank"].notna().to_numpy())[0])
    t["queue_rank"] = t["queue_rank"].astype(object)
    t.loc[row, "queue_rank"] = cell
    bare = tmp_path / "bare.csv"  # a table of no round: its queue_rank column is read
    t.to_csv(bare, index=False)
    code, out, err = run_cli(capsys, "labelstudio", "push", bare, "--url", fake.url)
    assert code == 2 and "Traceback" not in err
    assert "'queue_rank'" in err and f"row {row + 1}" in err
    assert fake.projects == {}


def expected_title(workspace, round_id: int) -> str:
    """The round's project title worked out from its definition: the SHA-256 of the resolved
    workspace folder, a unit separator and the round id, first 8 hex digits."""
    import hashlib
    from pathlib import Path

    text = f"{Path(workspace).resolve()}\x1f{round_id}"
    return f"HMCEval · round {round_id} · {hashlib.sha256(text.encode()).hexdigest()[:8]}"


def test_push_and_pull_use_the_pages_default_title(capsys, tmp_path, ws_dir, fake):
    """Issue 32: the page titled a round's project 'HMCEval · <data> · round <id>' and the CLI
    'HMCEval · round <key>', so neither pulled what the other pushed. Both use the round's
    title now (tests/app/test_page_evaluate.py checks the page's default against the same
    definition); a pull from a copy of the table under another name finds it."""
    table = _round(tmp_path, capsys)
    code, out, err = run_cli(capsys, "labelstudio", "push", table, "--url", fake.url)
    assert code == 0, err
    assert fake.projects[1]["title"] == expected_title(ws_dir, 1)
    copy = tmp_path / "copy.csv"
    code, _, err = run_cli(capsys, "labelstudio", "pull", table, "--url", fake.url, "-o", copy)
    assert code == 0, err
    code, _, err = run_cli(capsys, "labelstudio", "pull", "--round", 1, copy, "--url", fake.url,
                           "-o", tmp_path / "again.csv")
    assert code == 0, err
    assert len(fake.projects) == 1


def test_pull_finds_a_project_pushed_under_the_earlier_default(capsys, tmp_path, ws_dir, fake):
    """Projects pushed before keep working: 'HMCEval · <file name>' is looked for too."""
    table = _round(tmp_path, capsys)
    code, _, err = run_cli(capsys, "labelstudio", "push", table, "--url", fake.url,
                           "--project", "HMCEval · round.csv")
    assert code == 0, err
    code, _, err = run_cli(capsys, "labelstudio", "pull", table, "--url", fake.url,
                           "-o", tmp_path / "l.csv")
    assert code == 0, err
