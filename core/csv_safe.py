"""CSV exports that a spreadsheet cannot run: formula cells neutralised (OWASP's advice).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as
a formula by spreadsheet programs (``=HYPERLINK(...)``, ``+SUM(A1:A9)``, ``@SUM(1)``). Such
cells get a leading single quote, which spreadsheets show as text. Numbers stay numbers: only
text cells (object, string and categorical columns, and text values in mixed columns) and the
column names are changed, and a text cell that is itself a plain number (``-3``, ``+1.5``) is
left alone.

The quote round-trips: :func:`restore_formulas` (applied by :func:`core.data.load_table` to
every CSV/TSV it reads) takes it off again, so a class named ``+`` written to a round table
comes back as ``+``. For that, a cell that already starts with a quote followed by a formula
character or another quote gets one more quote (``'=x`` is written ``''=x``), and reading
takes one quote off exactly those cells: ``restore_formulas(neutralise_formulas(df))`` equals
``df`` for every text.
"""

from __future__ import annotations

import csv
import os
import re

import pandas as pd

__all__ = ["FORMULA_START", "neutralise_formulas", "restore_formulas", "safe_text",
           "restored_text", "to_csv_safe"]

#: First characters that make a spreadsheet treat a cell as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


_QUOTED = FORMULA_START + ("'",)


def safe_text(v):
    """One cell or column name as written: a text a spreadsheet would run gets a leading quote
    (a quote already there before a formula character or a quote gets one more); anything else
    is returned as it is."""
    if isinstance(v, str) and ((v.startswith(FORMULA_START) and not _NUMBER.match(v))
                               or (v.startswith("'") and v[1:].startswith(_QUOTED))):
        return "'" + v
    return v


def restored_text(v):
    """The inverse of :func:`safe_text`: one leading quote off a text whose rest starts with a
    formula character or a quote."""
    if isinstance(v, str) and v.startswith("'") and v[1:].startswith(_QUOTED):
        return v[1:]
    return v


def _map_text(df: pd.DataFrame, fn) -> pd.DataFrame:
    out = df.copy()
    out.columns = [fn(c) for c in out.columns]
    for i in range(out.shape[1]):
        s = out.iloc[:, i]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cats = s.cat.categories
            if cats.dtype == object or pd.api.types.is_string_dtype(cats):
                out.isetitem(i, s.cat.rename_categories([fn(c) for c in cats]))
        elif s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            out.isetitem(i, s.map(fn, na_action="ignore"))
    return out


def neutralise_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells cannot run as spreadsheet formulas.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)

    Returns
    -------
    pandas.DataFrame of the same shape; numeric columns unchanged; column names and the
    categories of categorical columns neutralised too.
    """
    return _map_text(df, safe_text)


def restore_formulas(df: pd.DataFrame) -> pd.DataFrame:
    """The table :func:`neutralise_formulas` was given, from the table it returned (column
    names, text and categorical cells); numeric columns unchanged. Only cells starting with a
    quote are looked at (a vectorised test), so reading a large CSV costs little more."""
    out = df.copy()
    out.columns = [restored_text(c) for c in out.columns]
    for i in range(out.shape[1]):
        s = out.iloc[:, i]
        if isinstance(s.dtype, pd.CategoricalDtype):
            out.isetitem(i, s.cat.rename_categories([restored_text(c) for c in s.cat.categories]))
            continue
        if not (s.dtype == object or pd.api.types.is_string_dtype(s.dtype)):
            continue
        try:
            quoted = s.str.startswith("'", na=False).to_numpy(dtype=bool)
        except AttributeError:  # an object column without text
            continue
        if quoted.any():
            values = s.to_numpy(dtype=object, copy=True)
            values[quoted] = [restored_text(v) for v in values[quoted].tolist()]
            out.isetitem(i, pd.Series(values, index=s.index, dtype=s.dtype, name=s.name))
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
