"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import pytest

from core.demo import make_demo


@pytest.fixture
def ws_dir(tmp_path, monkeypatch):
    """This test's own workspace, the default of every command (``$HMCEVAL_WORKSPACE``)."""
    folder = tmp_path / "ws"
    monkeypatch.setenv("HMCEVAL_WORKSPACE", str(folder))
    return folder


@pytest.fixture
def demo_csv(tmp_path):
    """The demo without its gold columns (a round's labels come from imports only) and the
    gold labels by sample id (columns ``sample_id``, ``label``)."""
    df = make_demo()
    gold = df[["sample_id", "human_label"]].rename(columns={"human_label": "label"})
    path = tmp_path / "demo.csv"
    df.drop(columns=["human_label", "human_label_2"]).to_csv(path, index=False)
    return path, gold
