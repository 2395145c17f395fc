"""CSV exports that a spreadsheet cannot run: formula cells neutralised (OWASP's advice).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as
a formula by spreadsheet programs (``=HYPERLINK(...)``, ``+SUM(A1:A9)``, ``@SUM(1)``). Such
cells get a leading single quote, which spreadsheets show as text. Numbers stay numbers: only
text cells (object or string columns, and text values in mixed columns) are changed, and a text
cell that is itself a plain number (``-3``, ``+1.5``) is left alone.
"""

from __future__ import annotations

import csv
import os
import re

import pandas as pd

__all__ = ["FORMULA_START", "neutralise_formulas", "to_csv_safe"]

#: First characters that make a spreadsheet treat a cell as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _cell(v):
    if isinstance(v, str) and v.startswith(FORMULA_START) and not _NUMBER.match(v):
        return "'" + v
    return v


def neutralise_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells cannot run as spreadsheet formulas.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)

    Returns
    -------
    pandas.DataFrame of the same shape; numeric columns unchanged.
    """
    out = df.copy()
    for col in out.columns:
        s = out[col]
        if s.dtype == object or isinstance(s.dtype, pd.StringDtype):
            out[col] = s.map(_cell, na_action="ignore")
    return out


def to_csv_safe(df: pd.DataFrame, path=None, **kwargs):
    """``DataFrame.to_csv`` after :func:`neutralise_formulas` (``index=False`` by default; text
    cells quoted, so a line break or carriage return inside a cell cannot split a row).

    A file path is written atomically (:func:`core.atomic.atomic_path`: a temporary beside it,
    fsync, rename): a killed process leaves the previous file whole; a path that cannot be
    written raises :class:`core.errors.DataError` naming it. ``None`` returns the text; an open
    file (``sys.stdout``) is written as it is.
    """
    kwargs.setdefault("index", False)
    kwargs.setdefault("quoting", csv.QUOTE_NONNUMERIC)  # a CR inside a cell stays inside it
    safe = neutralise_formulas(df)
    if isinstance(path, (str, os.PathLike)):
        from core.atomic import atomic_path

        with atomic_path(path) as tmp:
            safe.to_csv(tmp, **kwargs)
        return None
    return safe.to_csv(path, **kwargs)
