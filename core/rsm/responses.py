"""Which responses RSMTool evaluates (rsmeval's preprocessing) and its trimmed scores.

RSMTool does not refuse a response whose score it cannot use: it sets it aside and says how many
(its ``test_excluded_responses`` and ``test_responses_with_excluded_flags`` files). This module
does the same, in rsmeval's order (``rsmtool.preprocessor.FeaturePreprocessor.process_data_rsmeval``):

1. ``flag_column``: only responses whose value in every flag column is one of the allowed values
   are kept (values compared as numbers when they read as numbers: ``"1"``, ``1`` and ``1.0``
   match);
2. human score H: missing, non-numeric or infinite values are excluded, and zeros when
   ``exclude_zero_scores`` (RSMTool's default, ``True``);
3. system score M: missing, non-numeric or infinite values are excluded (zeros are kept);
4. ``candidate_column`` with ``min_items_per_candidate``: the responses of candidates with fewer
   remaining responses are excluded (a response without a candidate id counts as one without a
   candidate with enough responses, as pandas' ``value_counts`` leaves it out);
5. second human score H2: non-numeric values become missing, and zeros too when
   ``exclude_zero_scores`` (the response stays, single-scored).

Every step that leaves no response is a :class:`~core.errors.DataError` (RSMTool raises
``ValueError``), as is a kept score beyond :data:`MAX_SCORE` in magnitude (its square would
overflow the statistics), naming the column and the data row (1-based, as in the file).

Trimming (``trim_scores``) is RSMTool's ``trim``: scores are clipped to
``[trim_min - tolerance, trim_max + tolerance]`` (``tolerance`` 0.4998 by default), the
``*_trim`` scores; rounding them half to even gives the ``*_trim_round`` scores.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from core import defaults as _defaults
from core.errors import DataError
from core.rsm.checks import MAX_SCORE, check_magnitude

__all__ = ["TRIM_TOLERANCE", "MAX_MIN_ITEMS", "NO_INFO", "EXCLUSION_REASONS", "trim_scores",
           "flag_key", "as_numbers", "select_responses"]

#: RSMTool's default ``trim_tolerance`` (``rsmtool.utils.constants.DEFAULTS``; home: core.defaults).
TRIM_TOLERANCE = _defaults.TRIM_TOLERANCE
#: Largest ``min_items_per_candidate`` accepted (home: core.defaults).
MAX_MIN_ITEMS = _defaults.MAX_MIN_ITEMS_PER_CANDIDATE
#: What RSMTool writes for an empty subgroup label (``check_subgroups``).
NO_INFO = "No info"
#: Key of each exclusion count -> what it means (in the order RSMTool applies the steps).
EXCLUSION_REASONS: dict[str, str] = {
    "flag": "a flag column's value is not one of the allowed values",
    "human_missing": "the human score is missing or not a number",
    "human_zero": "the human score is 0 (exclude_zero_scores)",
    "system_missing": "the system score is missing or not a number",
    "system_zero": "the second rater's score is 0 (exclude_zero_scores, rater comparison)",
    "candidate": "the candidate has fewer than min_items_per_candidate responses",
}

_BLANK = re.compile(r"^\s*$")


def trim_scores(
    y_pred: npt.ArrayLike, *, trim_min: float, trim_max: float, tolerance: float = TRIM_TOLERANCE
) -> np.ndarray:
    """RSMTool's trimmed scores: clip to ``[trim_min - tolerance, trim_max + tolerance]``.

    Parameters
    ----------
    y_pred : array-like of shape (n_samples,)
        System scores (NaN stays NaN).
    trim_min, trim_max : float
        Lowest and highest score point of the scale (finite, ``trim_min <= trim_max``).
    tolerance : float, default=0.4998
        Added to ``trim_max`` and subtracted from ``trim_min`` (finite, at least 0).

    Returns
    -------
    ndarray of shape (n_samples,), float
        For ``trim_min=1, trim_max=6``: ``-3 -> 0.5002``, ``9 -> 6.4998``, ``3.2 -> 3.2``.
    """
    for name, value in (("trim_min", trim_min), ("trim_max", trim_max), ("trim_tolerance", tolerance)):
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                or not math.isfinite(float(value)) or abs(float(value)) > MAX_SCORE:
            raise DataError(f"{name} must be a finite number of magnitude at most {MAX_SCORE:g}, got {value!r}")
    if trim_min > trim_max:
        raise DataError(f"trim_min ({trim_min:g}) is larger than trim_max ({trim_max:g})")
    if tolerance < 0:
        raise DataError(f"trim_tolerance must be at least 0, got {tolerance:g}")
    arr = np.array(y_pred, dtype=float, copy=True)
    low, high = float(trim_min) - float(tolerance), float(trim_max) + float(tolerance)
    arr[arr > high] = high
    arr[arr < low] = low
    return arr


def flag_key(value: Any) -> Any:
    """How a flag value is compared: a number (as float) when it reads as one, else the value.

    ``"1"``, ``1`` and ``1.0`` give ``1.0``; ``"yes"`` stays ``"yes"``; missing gives None.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return value
    return value


def as_numbers(s: pd.Series) -> np.ndarray:
    """A column as floats, as :func:`select_responses` reads scores (text and missing: NaN)."""
    if pd.api.types.is_bool_dtype(s):
        return s.astype(float).to_numpy(copy=True)
    return np.array(pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan), copy=True)


def _need(df: pd.DataFrame, col: str, what: str) -> None:
    if col not in df.columns:
        raise DataError(f"{what} column {col!r} not found (columns: {', '.join(map(str, df.columns))})")


def select_responses(
    df: pd.DataFrame,
    *,
    human: str,
    system: str,
    human2: str | None = None,
    groups: Sequence[str] = (),
    exclude_zero_scores: bool = True,
    exclude_zero_system: bool = False,
    flag_column: Mapping[str, Any] | None = None,
    candidate_column: str | None = None,
    min_items_per_candidate: int | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The responses RSMTool evaluates, and how many were set aside and why.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The evaluation set as read.
    human, system : str
        Columns of the human score H and the system score M.
    human2 : str, optional
        Column of a second human score H2.
    groups : sequence of str, default=()
        Subgroup columns: blank text labels become ``"No info"`` (RSMTool's ``check_subgroups``).
    exclude_zero_scores : bool, default=True
        Exclude responses whose human score is 0, and treat a second score of 0 as missing.
    exclude_zero_system : bool, default=False
        Also exclude responses whose system score is 0 (when the system is a second human rater).
    flag_column : mapping, optional
        Column -> allowed value or list of allowed values.
    candidate_column : str, optional
        Column of candidate ids.
    min_items_per_candidate : int, optional
        With ``candidate_column``: keep only candidates with at least this many responses left
        (1 to :data:`MAX_MIN_ITEMS`).

    Returns
    -------
    frame : pandas.DataFrame
        The kept rows, their index the 0-based row of ``df``; ``human`` and ``system`` as
        floats, ``human2`` as floats with NaN where not double-scored.
    summary : dict
        ``N_total`` (rows read), ``N`` (kept), ``excluded`` (:data:`EXCLUSION_REASONS` key ->
        count, every key present), ``human2_set_missing`` (second scores that were
        non-numeric or zero and now count as absent; only with ``human2``) and ``options``
        (the options used).

    Raises
    ------
    DataError
        A column that does not exist, an invalid option, no response left after a step, or a
        kept score beyond :data:`MAX_SCORE` in magnitude.
    """
    if not isinstance(df, pd.DataFrame):
        raise DataError("expected a table (pandas DataFrame)")
    if df.shape[0] == 0:
        raise DataError("the table has no rows")
    _need(df, human, "human score")
    _need(df, system, "system score")
    if human == system:
        raise DataError(f"the human and the system score are the same column ({human!r})")
    if human2 is not None:
        _need(df, human2, "second human score")
        if human2 == human:
            raise DataError(f"the human and the second human score are the same column ({human!r})")
    for g in groups:
        _need(df, g, "group")
    flags = _flag_dict(df, flag_column)
    if candidate_column is not None:
        _need(df, candidate_column, "candidate")
    if min_items_per_candidate is not None:
        if candidate_column is None:
            raise DataError("min_items_per_candidate needs a candidate_column")
        if isinstance(min_items_per_candidate, bool) or not isinstance(min_items_per_candidate, (int, np.integer)) \
                or not 1 <= int(min_items_per_candidate) <= MAX_MIN_ITEMS:
            raise DataError(f"min_items_per_candidate must be a whole number between 1 and "
                            f"{MAX_MIN_ITEMS:,}, got {min_items_per_candidate!r}")

    frame = df.copy()
    frame.index = pd.RangeIndex(len(df))
    n_total = len(frame)
    excluded = dict.fromkeys(EXCLUSION_REASONS, 0)

    # 1. flag columns
    if flags:
        keep = np.ones(len(frame), dtype=bool)
        for col, allowed in flags.items():
            keys = frame[col].map(flag_key)
            keep &= keys.map(lambda k: k is not None and k in allowed).to_numpy(dtype=bool)
        excluded["flag"] = int((~keep).sum())
        frame = frame[keep]
        if frame.empty:
            raise DataError("no responses left after filtering on the flag columns "
                            f"({_flag_text(flags)})")

    # 2. human score
    h = as_numbers(frame[human])
    bad = ~np.isfinite(h)
    excluded["human_missing"] = int(bad.sum())
    zero = np.zeros_like(bad)
    if exclude_zero_scores:
        zero = ~bad & (h == 0)
        excluded["human_zero"] = int(zero.sum())
    frame = frame[~bad & ~zero].copy()
    frame[human] = h[~bad & ~zero]
    if frame.empty:
        raise DataError(f"no responses left after excluding missing or non-numeric"
                        f"{' or zero' if exclude_zero_scores else ''} human scores (column {human!r})")

    # 3. system score
    m = as_numbers(frame[system])
    bad = ~np.isfinite(m)
    excluded["system_missing"] = int(bad.sum())
    zero = np.zeros_like(bad)
    if exclude_zero_system:
        zero = ~bad & (m == 0)
        excluded["system_zero"] = int(zero.sum())
    frame = frame[~bad & ~zero].copy()
    frame[system] = m[~bad & ~zero]
    if frame.empty:
        raise DataError(f"no responses left after excluding missing or non-numeric system scores "
                        f"(column {system!r})")

    # 4. candidates with too few responses
    if min_items_per_candidate is not None:
        counts = frame[candidate_column].value_counts()
        chosen = counts.index[counts >= int(min_items_per_candidate)]
        keep = frame[candidate_column].isin(chosen).to_numpy(dtype=bool)
        excluded["candidate"] = int((~keep).sum())
        frame = frame[keep]
        if frame.empty:
            raise DataError(f"no candidate (column {candidate_column!r}) has "
                            f"{int(min_items_per_candidate):,} or more responses left")

    rows = frame.index.to_numpy()
    check_magnitude(frame[human].to_numpy(dtype=float), f"column {human!r}", rows)
    check_magnitude(frame[system].to_numpy(dtype=float), f"column {system!r}", rows)

    summary: dict[str, Any] = {"N_total": n_total, "N": int(len(frame)), "excluded": excluded}

    # 5. second human score: unusable values become "not double-scored"
    if human2 is not None:
        raw2 = frame[human2]
        h2 = as_numbers(raw2)
        text = int((np.isnan(h2) & ~raw2.isna().to_numpy()).sum() + np.isinf(h2).sum())
        h2[~np.isfinite(h2)] = np.nan
        zeros2 = 0
        if exclude_zero_scores:
            zeros2 = int((h2 == 0).sum())
            h2[h2 == 0] = np.nan
        check_magnitude(h2, f"column {human2!r}", rows)
        frame = frame.copy()
        frame[human2] = h2
        summary["human2_set_missing"] = {"non_numeric": text, "zero": zeros2}

    # subgroups: blank labels are RSMTool's "No info"
    for g in groups:
        s = frame[g]
        if s.dtype == object or pd.api.types.is_string_dtype(s.dtype):
            # tested once per distinct value (a group column has a handful), not once per row
            codes, uniques = pd.factorize(s, use_na_sentinel=True)
            blank_u = np.fromiter((isinstance(v, str) and bool(_BLANK.match(v)) for v in uniques),
                                  dtype=bool, count=len(uniques))
            blank = np.r_[blank_u, False][codes]
            if blank.any():
                frame = frame.copy()
                frame[g] = s.astype(object).where(~blank, NO_INFO)

    summary["options"] = {
        "exclude_zero_scores": bool(exclude_zero_scores),
        "flag_column": {k: sorted(v, key=str) for k, v in flags.items()} or None,
        "candidate_column": candidate_column,
        "min_items_per_candidate": None if min_items_per_candidate is None else int(min_items_per_candidate),
    }
    return frame, summary


def _flag_dict(df: pd.DataFrame, flag_column: Mapping[str, Any] | None) -> dict[str, set[Hashable]]:
    if flag_column is None:
        return {}
    if not isinstance(flag_column, Mapping):
        raise DataError("flag_column must be a mapping of column -> allowed value(s), e.g. {'ok': [1]}")
    out: dict[str, set[Hashable]] = {}
    for col, allowed in flag_column.items():
        _need(df, col, "flag")
        values = list(allowed) if isinstance(allowed, (list, tuple, set)) else [allowed]
        if not values:
            raise DataError(f"flag column {col!r}: no allowed value given")
        keys = set()
        for v in values:
            k = flag_key(v)
            if k is None or isinstance(k, (dict, list)):
                raise DataError(f"flag column {col!r}: allowed values must be numbers or text, got {v!r}")
            keys.add(k)
        out[col] = keys
    return out


def _flag_text(flags: Mapping[str, set]) -> str:
    return "; ".join(f"{c} in {{{', '.join(sorted(map(str, v)))}}}" for c, v in flags.items())
