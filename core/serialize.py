"""JSON for results: one form for the command line's ``--json`` and the dashboard's downloads.

NaN stays a float NaN (printed as ``NaN``); ``None`` and ``pd.NA`` become ``None`` (printed as
``null``), so "undefined" (NaN) and "missing" (null) stay distinct.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["to_jsonable", "dumps"]


def to_jsonable(obj: Any) -> Any:
    """Convert numpy/pandas containers and scalars to plain Python for ``json``.

    NaN stays a float NaN (printed as ``NaN``); ``None`` and ``pd.NA`` become ``None``
    (printed as ``null``), so "missing" and "NaN" stay distinct.
    """
    if obj is None or obj is pd.NA:
        return None
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, pd.DataFrame):
        return [to_jsonable(r) for r in obj.to_dict(orient="records")]
    if isinstance(obj, pd.Series):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj)
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    return obj


def dumps(obj: Any, *, indent: int | None = 2) -> str:
    """Serialise ``obj`` to JSON text (``NaN`` allowed, ``null`` for missing)."""
    return json.dumps(to_jsonable(obj), indent=indent, allow_nan=True)
