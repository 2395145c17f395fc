"""core.hee.columns, split from tests/core/test_hee.py (tests named after the module they test)."""

from __future__ import annotations

import pytest
from core.errors import DataError
from core.hee import (
    resolve_feature_set,
)
from tests.core.hee_support import (  # noqa: F401  (pytest fixtures)
    release,
    RELEASE_D,
)


# --------------------------------------------------------------------------------------------
# Column mapping
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# The HMCEval release
# --------------------------------------------------------------------------------------------


def test_resolve_feature_sets_on_release_columns(release):
    fs = resolve_feature_set("D", release.columns)
    assert fs.columns == RELEASE_D and fs.notices == []
    fs = resolve_feature_set("d+w", release.columns)
    assert fs.name == "D+W" and fs.columns == RELEASE_D + ["worker_score", "lifetime_ranking"]
    assert fs.labels[-1] == "approval rate ranking"
    assert resolve_feature_set("W", release.columns).columns == ["worker_score", "lifetime_ranking"]
    fs = resolve_feature_set("turns, worker_score,malevolent_turns", release.columns)
    assert fs.columns == ["turns", "worker_score", "Mal_number"]


def test_resolve_feature_set_optional_and_missing(release):
    cols = [c for c in release.columns if c != "dialogue_bert_pp"]
    fs = resolve_feature_set("D", cols)
    assert "dialogue_bert_pp" not in fs.columns and len(fs.columns) == 9
    assert "perplexity" in fs.notices[0]
    cols = [c for c in release.columns if c not in ("RewriteCount", "lifetime_ranking")]
    with pytest.raises(DataError, match="paraphrased_turns.*approval_ranking"):
        resolve_feature_set("D+W", cols)
    with pytest.raises(DataError, match="'nope' is not in the table"):
        resolve_feature_set("turns,nope", release.columns)
    with pytest.raises(DataError, match="listed twice"):
        resolve_feature_set("turns,total_turns", release.columns)
    fs = resolve_feature_set("D", ["my_turns"] + cols + ["RewriteCount"],
                             mapping={"total_turns": "my_turns"})
    assert fs.columns[0] == "my_turns"
