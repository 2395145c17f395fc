"""core.serialize: the one JSON form of results (NaN stays NaN, missing is null)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from core.serialize import dumps, to_jsonable


def test_nan_and_missing_stay_distinct():
    text = dumps({"undefined": float("nan"), "missing": None, "na": pd.NA}, indent=None)
    assert text == '{"undefined": NaN, "missing": null, "na": null}'


def test_numpy_and_pandas_become_plain_python():
    obj = {"i": np.int64(3), "f": np.float32(0.5), "b": np.bool_(True), "a": np.array([1, 2]),
           "s": pd.Series([1.5], index=["x"]), "df": pd.DataFrame({"c": [1, 2]}), 7: "key"}
    out = to_jsonable(obj)
    assert out == {"i": 3, "f": 0.5, "b": True, "a": [1, 2], "s": {"x": 1.5},
                   "df": [{"c": 1}, {"c": 2}], "7": "key"}
    assert type(out["i"]) is int and type(out["f"]) is float and type(out["b"]) is bool


def test_round_trip_keeps_nan():
    back = json.loads(dumps([1.0, float("nan")]))
    assert back[0] == 1.0 and math.isnan(back[1])


def test_cli_prints_the_one_json_form(capsys):
    from core.cli.common import print_json

    print_json({"x": float("nan"), "y": None})
    assert capsys.readouterr().out == dumps({"x": float("nan"), "y": None}) + "\n"
