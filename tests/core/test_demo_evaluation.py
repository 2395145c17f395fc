"""The app's default dataset (``core.demo.evaluation.make_demo``): a function of its seed,
dialogues of 2 to 8 turns with one sample per response turn, valid under the data contract,
informative but imperfect machine labels."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.data import prepare
from core.demo import make_demo


def test_make_demo_is_a_function_of_the_seed():
    from core.demo import SYSTEMS, TOPICS

    a = make_demo(20, seed=1)
    assert a.equals(make_demo(20, seed=1))
    assert not a.equals(make_demo(20, seed=2))
    assert a["dialogue_id"].nunique() == 20
    # every response turn of a dialogue is one sample: its rows are turns 1..turns
    for _, d in a.groupby("dialogue_id"):
        assert d["turn"].tolist() == list(range(1, int(d["turns"].iat[0]) + 1))
        assert 2 <= d["turns"].iat[0] <= 8
    assert a["sample_id"].tolist() == list(range(1, len(a) + 1))
    assert set(a["system"]) <= set(SYSTEMS) and set(a["topic"]) <= set(TOPICS)
    assert set(a["human_label"]) <= {0, 1} and set(a["machine_label"]) <= {0, 1}
    conf = a[["confidence_ts", "confidence_mcp", "confidence_tcp"]].to_numpy()
    assert np.all((conf >= 0) & (conf <= 1))


def test_demo_is_deterministic_and_valid():
    a, b = make_demo(), make_demo()
    pd.testing.assert_frame_equal(a, b)
    d = prepare(a)
    assert 3000 < d.M < 4500
    assert d.has_gold and d.has_effort and d.effort_source == "predicted_effort"
    assert set(d.subgroup_columns) >= {"system", "topic"}
    assert d.roles["human_label_2"] == "human_label_2"
    assert 0.2 < d.frame["human_label_2"].notna().mean() < 0.4
    acc = (d.frame["machine_label"] == d.frame["human_label"]).mean()
    assert 0.8 < acc < 0.95  # informative but imperfect
    assert len(d.confidence_columns) == 3


def test_make_demo_size_and_second_rater():
    d = make_demo(50, seed=3)
    assert d["dialogue_id"].nunique() == 50
    # turns of 2..8 per dialogue: between 100 and 400 samples
    assert 100 <= len(d) <= 400
    second = d["human_label_2"].dropna()
    assert set(second) <= {0, 1} and 0 < len(second) < len(d)
    assert pd.api.types.is_integer_dtype(d["sample_id"])
