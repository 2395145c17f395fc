"""The one home of the numeric-column check: a table column as floats, or a ``DataError``
naming the column and the offending rows.

Three parts of the library read numeric columns of a user's table: the data contract
(:mod:`core.data`: confidences and efforts), the effort model (:mod:`core.hee.columns`: features
and times) and RSMTool's report (:mod:`core.rsm.checks`: human and system scores). They share
:func:`numeric_values`; each keeps the wording its messages always had, a :class:`Wording`
(:data:`TABLE` for the first two, :data:`REPORT` for RSMTool's), including which problem is
reported first when a column has several.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows

__all__ = ["Wording", "TABLE", "REPORT", "numeric_values", "label_text", "label_texts"]


@dataclass(frozen=True)
class Wording:
    """Messages of :func:`numeric_values` (``str.format`` templates) and the order of the checks.

    Placeholders: ``{label}`` (e.g. ``column 'x'``), ``{rows}`` (:func:`core.errors.describe_rows`)
    and, for ``text``, ``{example}`` (the first offending value, ``repr``-ed).
    """

    text: str
    missing: str
    infinite: str
    order: tuple[str, ...] = ("text", "missing", "infinite")
    bool_column: str = "{label} must be numeric; it holds true/false values"
    bool_cells: str = "{label} must be numeric; true/false in {rows}"


#: The data contract's and the effort model's messages.
TABLE = Wording(text="{label} must be numeric; {rows} hold text such as {example!r}",
                missing="{label} has missing values (NaN) in {rows}",
                infinite="{label} has infinite values in {rows}")

#: RSMTool's report's messages (infinite values are reported before missing ones).
REPORT = Wording(text="{label}: non-numeric value {example!r} in {rows}",
                 missing="{label}: missing value in {rows}",
                 infinite="{label}: infinite value in {rows}",
                 order=("text", "infinite", "missing"))


def numeric_values(s: pd.Series, *, label: str, wording: Wording = TABLE,
                   bools: Literal["number", "refuse"] = "number", allow_missing: bool = False,
                   lo: float | None = None, hi: float | None = None) -> np.ndarray:
    """A column as a float array, refusing text, missing (unless allowed) and infinite values.

    Parameters
    ----------
    s : pandas.Series of shape (n_rows,)
        The column.
    label : str
        How messages name the column, e.g. ``"column 'time'"``.
    wording : Wording, default=TABLE
        The messages and the order of the checks.
    bools : {"number", "refuse"}, default="number"
        A true/false column: read as 1/0, or refused (also true/false cells of a mixed column).
    allow_missing : bool, default=False
        Keep missing values as NaN instead of refusing them.
    lo, hi : float, optional
        Inclusive bounds every value must respect.

    Returns
    -------
    ndarray of shape (n_rows,), float

    Raises
    ------
    DataError
        Naming the column (``label``) and the offending rows.
    """
    if pd.api.types.is_bool_dtype(s):
        if bools == "refuse":
            raise DataError(wording.bool_column.format(label=label))
        s = s.astype(float)
    elif bools == "refuse" and s.dtype == object:
        flags = np.flatnonzero(s.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool))
        if len(flags):
            raise DataError(wording.bool_cells.format(label=label, rows=describe_rows(flags)))
    num = pd.to_numeric(s, errors="coerce")
    arr = num.to_numpy(dtype=float, na_value=np.nan)
    missing = s.isna().to_numpy()
    problems = {
        "text": np.flatnonzero(np.isnan(arr) & ~missing),
        "missing": np.array([], dtype=int) if allow_missing else np.flatnonzero(missing),
        "infinite": np.flatnonzero(np.isinf(arr)),
    }
    for kind in wording.order:
        rows = problems[kind]
        if len(rows):
            template = getattr(wording, kind)
            raise DataError(template.format(label=label, rows=describe_rows(rows),
                                            example=s.iloc[int(rows[0])] if kind == "text" else None))
    if lo is not None or hi is not None:
        mask = np.zeros(len(arr), dtype=bool)
        if lo is not None:
            mask |= arr < lo
        if hi is not None:
            mask |= arr > hi
        bad = np.flatnonzero(mask)
        if len(bad):
            rng = f"[{lo:g}, {hi:g}]" if lo is not None and hi is not None else (
                f">= {lo:g}" if lo is not None else f"<= {hi:g}")
            verb = "is" if len(bad) == 1 else "are"
            raise DataError(f"{label} must be in {rng}; {describe_rows(bad)} {verb} outside "
                            f"(first value {arr[bad[0]]:g})")
    return arr


_INTEGER = re.compile(r"[+-]?[0-9]+")


def label_text(v: Any) -> str | None:
    """The one typed rule by which two labels are equal, as the text that represents a label.

    Numbers compare as numbers, whatever their written form: ``1``, ``1.0``, ``"1"``, ``" 1.0 "``
    and ``np.int64(1)`` are all ``"1"``, ``0.5`` and ``"0.50"`` are ``"0.5"`` (so one text cell
    in a label column no longer turns every comparison into text: ``"1.0" != "1"``). Integers
    written as text keep every digit (beyond 2**53 too); booleans are ``"True"``/``"False"``;
    any other text is compared stripped of surrounding white space; ``"nan"`` or ``"inf"``
    written in a cell stay text. A missing value (None, NaN, pd.NA, a blank cell) is ``None``.
    """
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return None
        if math.isfinite(f) and f.is_integer():
            return str(int(f))
        return repr(f)
    text = str(v).strip()
    if not text:
        return None
    if _INTEGER.fullmatch(text):
        return str(int(text))
    try:
        f = float(text)
    except ValueError:
        return text
    if not math.isfinite(f):
        return text
    return str(int(f)) if f.is_integer() else repr(f)


def label_texts(s: pd.Series) -> pd.Series:
    """:func:`label_text` of every cell (computed once per distinct value), missing as None."""
    try:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
    except TypeError:  # unhashable cells: value by value
        return pd.Series([label_text(v) for v in s.tolist()], index=s.index, dtype=object)
    per_value = np.array([label_text(v) for v in np.asarray(uniques, dtype=object)] + [None],
                         dtype=object)
    return pd.Series(per_value[codes], index=s.index, dtype=object)
