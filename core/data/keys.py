"""How a sample id, a label or a group value is written as text, and how a cell is missing.

:func:`label_key` is the one way a sample id, a label or a group value is written as text, so
that the integer ids of a table match the strings of a CSV or of Label Studio, and the keys of an
estimate (:func:`core.evaluation.estimate.shares.estimate`) read as a user wrote the class. Every
step of a round (the stratified design, returned labels, annotators, estimates) keys by it, so it
lives on the ground floor, below all of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["label_key", "is_missing", "some_values"]


def label_key(v: Any, *, strip: bool = True) -> str:
    """A sample id, label or group value as text.

    Parameters
    ----------
    v : object
        One value (a Python or numpy scalar, a string).
    strip : bool, default=True
        Strip surrounding white space from a string (a cell a user typed). An estimate's group
        keys keep the value as written (``strip=False``), so that ``"a "`` and ``"a"`` stay two
        groups.

    Returns
    -------
    str
        Integral finite floats lose their ``.0`` (CSV readers turn an integer column with gaps
        into floats: ``2.0`` -> ``"2"``), numpy integers and booleans read as Python's
        (``np.int64(3)`` -> ``"3"``, ``np.True_`` -> ``"True"``), anything else is ``str(v)``.
    """
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, np.integer):
        return str(int(v))
    return str(v).strip() if strip else str(v)


def is_missing(v: Any) -> bool:
    """True for an empty cell: None, ``pd.NA``, ``pd.NaT``, NaN or a blank string."""
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)) and math.isnan(v):
        return True
    return isinstance(v, str) and not v.strip()


def some_values(items: Sequence[Any], limit: int = 5) -> str:
    """The first ``limit`` items for a message (strings quoted), then ``and N more``."""
    items = list(items)
    shown = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
