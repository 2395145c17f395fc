"""The one error type for bad user input."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["DataError", "describe_rows", "plain_value"]


class DataError(ValueError):
    """Bad user input (file, column, value, option).

    The message names the offending column, row(s) or field so that the app can show it
    with ``st.error`` and the CLI can print it to stderr unchanged.
    """


def describe_rows(rows: Sequence[int], *, limit: int = 5) -> str:
    """Format the first offending row numbers for an error message.

    Parameters
    ----------
    rows : sequence of int
        0-based positional row indices of the data table (header excluded).
    limit : int, default=5
        How many rows to list before summarising the rest.

    Returns
    -------
    str
        For example ``"rows 3, 7 (of 2 rows)"``; numbers are 1-based data rows.
    """
    rows = list(rows)
    shown = ", ".join(str(int(r) + 1) for r in rows[:limit])
    word = "row" if len(rows) == 1 else "rows"
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    return f"{word} {shown}{more}"


def plain_value(v: Any) -> Any:
    """Plain Python value for messages (``1`` rather than ``np.int64(1)``)."""
    return v.item() if isinstance(v, np.generic) else v
