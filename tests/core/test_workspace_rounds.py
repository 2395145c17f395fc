"""core.workspace.rounds: what a round's summary counts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.data import prepare
from core.evaluation.sampling.design import load_design
from core.workspace.rounds import effort_summary


def test_effort_summary_counts_the_rows_labelled_so_far():
    """Ten rows, six queued for humans (routed 1-4, audit 5-6), effort = row number in seconds;
    four of the six labelled so far: 4 rows and 1 + 2 + 5 + 6 = 14 of 55 seconds spent (the
    other two queued rows are not labelled yet, so they are not counted)."""
    m = 10
    sel = ["routed"] * 4 + ["audit"] * 2 + ["machine"] * 4
    human = [1, 0, np.nan, np.nan, 1, 0] + [np.nan] * 4
    df = pd.DataFrame({"sample_id": np.arange(1, m + 1), "machine_label": [0, 1] * 5,
                       "machine_confidence": np.linspace(0.5, 0.95, m),
                       "human_label": human, "human_effort_seconds": np.arange(1, m + 1),
                       "selection": sel})
    design = load_design(df)
    out = effort_summary(design)
    assert out["rows_labelled"] == 4 and out["rows_total"] == 10
    assert out["effort_spent"] == 14.0 and out["effort_all"] == 55.0
    assert out["effort_share"] == 14 / 55
    # every queued row labelled: the six rows and 21 seconds
    df["human_label"] = [1, 0, 1, 1, 1, 0] + [np.nan] * 4
    out = effort_summary(load_design(df))
    assert out["rows_labelled"] == 6 and out["effort_spent"] == 21.0
