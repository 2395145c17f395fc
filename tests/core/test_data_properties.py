"""Issue 12, property-based: any generated input to the loader and the data contract ends in
a result or a DataError (never another exception); labels are never merged. Bounded examples,
derandomised, so the run is short and reproducible."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.data import load_table, prepare
from core.errors import DataError

PROPERTY = settings(max_examples=80, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20)

CELL = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                 st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
                 st.sampled_from(["0", "1", "0.5", "true", "=SUM(A1)", "", " ", "nan", "1e400"]),
                 st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
                 st.lists(st.integers(), max_size=2))


def _result_or_data_error(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except DataError as exc:
        assert str(exc)  # a message, never empty
        return None


@PROPERTY
@given(st.binary(max_size=300), st.sampled_from(["x.csv", "x.tsv", "x.json", "x.jsonl",
                                                 "x.parquet", "x.txt", None]))
def test_load_table_any_bytes(data, name):
    df = _result_or_data_error(load_table, data, name=name)
    if df is not None:
        assert isinstance(df, pd.DataFrame) and df.shape[0] > 0 and df.shape[1] > 0


@PROPERTY
@given(JSON)
def test_load_table_any_json(value):
    df = _result_or_data_error(load_table, json.dumps(value).encode(), name="x.json")
    if df is not None:  # every cell is a scalar: the app's content hash works
        pd.util.hash_pandas_object(df, index=False)


@PROPERTY
@given(st.lists(st.tuples(CELL, CELL, CELL), min_size=1, max_size=8))
def test_prepare_any_cells(rows):
    records = [{"machine_label": a, "confidence": b, "human_label": c} for a, b, c in rows]
    try:
        df = load_table(json.dumps(records, default=str).encode(), name="x.json")
    except DataError:
        return
    data = _result_or_data_error(prepare, df)
    if data is None:
        return
    conf = data.frame["machine_confidence"].to_numpy(dtype=float)
    assert np.all(np.isfinite(conf)) and np.all((conf >= 0) & (conf <= 1))
    assert len(data.labels) >= 2 and list(data.labels) == sorted(data.labels)
    # labels are never merged: as many distinct labels as distinct texts in the file
    texts = {str(v).strip() for col in ("machine_label", "human_label")
             for v in df[col] if not (v is None or (isinstance(v, float) and math.isnan(v)))}
    assert len(data.labels) <= len(texts)


@PROPERTY
@given(st.lists(st.integers(-2**64, 2**64), min_size=2, max_size=6))
def test_integer_labels_are_never_merged(labels):
    df = pd.DataFrame({"machine_label": pd.Series(labels, dtype=object),
                       "confidence": [0.5] * len(labels)})
    data = _result_or_data_error(prepare, df)
    if data is not None:
        assert len(data.labels) == len(set(labels))


# ------------------------------------------------------------------ issue 13: role detection
NAMES = st.sampled_from(["pred", "model_pred", "llm_label", "prob", "score", "p_unsafe", "logit",
                         "gold", "label", "target", "annot_seconds", "time_s", "duration",
                         "system", "topic", "worker_id", "dialogue_id", "turn", "response",
                         "notes", "x", "Model Pred", "label_2"])
COLUMN = st.one_of(
    st.lists(st.sampled_from(["safe", "unsafe"]), min_size=6, max_size=6),
    st.lists(st.floats(0, 1), min_size=6, max_size=6),
    st.lists(st.floats(-5, 500) | st.just(math.nan), min_size=6, max_size=6),
    st.lists(st.integers(0, 3), min_size=6, max_size=6),
    st.lists(st.text(max_size=50), min_size=6, max_size=6),
    st.lists(st.booleans(), min_size=6, max_size=6),
    st.lists(st.sampled_from(["a", None, 1, 2.5]), min_size=6, max_size=6))


@PROPERTY
@given(st.dictionaries(NAMES, COLUMN, min_size=1, max_size=7))
def test_detection_is_consistent_on_any_table(columns):
    from core.data import NOT_SUBGROUP_KINDS, REQUIRED_ROLES, ROLES, detect_columns

    df = pd.DataFrame(columns)
    det = detect_columns(df)
    mapped = [det.roles[r] for r in ROLES if det.roles[r] is not None]
    assert len(mapped) == len(set(mapped))  # one role per column
    assert set(det.roles["subgroups"]) <= set(det.subgroup_options)
    assert not set(det.subgroup_options) & set(mapped)
    assert not set(det.subgroup_options) & set(det.roles["text"])
    assert all(det.kinds.get(c) not in NOT_SUBGROUP_KINDS for c in det.subgroup_options)
    for ask in det.asks:  # a question names real columns; the chosen one is the mapped one
        assert set(ask.candidates) <= set(df.columns)
        assert ask.chosen == det.roles[ask.role]
        assert ask.chosen is None or ask.chosen == ask.candidates[0]
    for role in REQUIRED_ROLES:  # never silent: a required role is found or asked about
        assert det.roles[role] is not None or any(a.role == role for a in det.asks)
    # prepare on the detected mapping: a result or a DataError, never another exception
    _result_or_data_error(prepare, df, det.roles)
