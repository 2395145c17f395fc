"""Input checks shared by the agreement, true-score and fairness statistics: score arrays,
pairs, subgroup labels, numeric columns."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable

import numpy as np
import numpy.typing as npt
import pandas as pd

from core.errors import DataError, describe_rows
from core.validate import REPORT, numeric_values


#: Most distinct labels a subgroup column may have (more is most likely an id column).
MAX_GROUPS = 100
#: Largest score magnitude the report takes (squares and products of scores stay finite),
#: kept in core.defaults with the CLI's bound.
from core.defaults import MAX_SCORE  # noqa: E402


try:  # scikit-learn's dependency; optional here
    from threadpoolctl import ThreadpoolController as _ThreadpoolController
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = _ThreadpoolController = None
#: The loaded thread pools, found once (finding them reads the process' memory map: ~3 ms a call).
_CONTROLLER: list = []


def _float_array(x: npt.ArrayLike, name: str) -> np.ndarray:
    """A 1-D float array; missing values (None, NaN, ``pd.NA``) become NaN."""
    if isinstance(x, (pd.Series, pd.Index)):
        if pd.api.types.is_numeric_dtype(x.dtype) or pd.api.types.is_bool_dtype(x.dtype):
            x = x.to_numpy(dtype=float, na_value=np.nan)
        else:
            x = x.to_numpy(dtype=object)
    arr = np.asarray(x)
    if arr.dtype == object:
        missing = pd.isna(arr)
        if missing.any():
            arr = np.where(missing, np.nan, arr)
    try:
        arr = np.asarray(arr, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name}: scores must be numeric ({exc})") from None
    if arr.ndim != 1:
        raise DataError(f"{name}: expected a 1-D array of scores, got shape {arr.shape}")
    return arr


def as_scores(x: npt.ArrayLike, name: str) -> np.ndarray:
    """A 1-D float array without NaN/inf; ``DataError`` naming ``name`` and the rows otherwise."""
    arr = _float_array(x, name)
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise DataError(f"{name}: missing or non-finite score in {describe_rows(bad)}")
    return arr


def optional_scores(x: npt.ArrayLike, n: int, name: str) -> np.ndarray:
    """Like :func:`as_scores` but missing values stay NaN (a second rating that may be absent)."""
    arr = _float_array(x, name)
    if arr.shape[0] != n:
        raise DataError(f"{name}: expected {n} ratings, got {arr.shape[0]}")
    bad = np.flatnonzero(np.isinf(arr))
    if bad.size:
        raise DataError(f"{name}: infinite rating in {describe_rows(bad)}")
    return arr


def check_pair(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, *, allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``y_true`` and ``y_pred`` as finite float arrays of one length, non-empty unless
    ``allow_empty``; DataError otherwise."""
    h = as_scores(y_true, "y_true")
    m = as_scores(y_pred, "y_pred")
    if h.shape[0] != m.shape[0]:
        raise DataError(f"y_true and y_pred differ in length ({h.shape[0]} vs {m.shape[0]})")
    if h.shape[0] == 0 and not allow_empty:
        raise DataError("no responses to evaluate (y_true and y_pred are empty)")
    return h, m


def one_blas_thread():
    """Context limiting BLAS to one thread.

    The work here is memory-bound vector arithmetic and thin least squares; on a busy machine
    a multi-threaded BLAS spins for each tiny call and runs up to 100x slower (measured with
    ``bench/agreement.py``), so the report functions run single-threaded.
    """
    if _threadpool_limits is None:  # pragma: no cover
        import contextlib

        return contextlib.nullcontext()
    if not _CONTROLLER:
        _CONTROLLER.append(_ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def sample_sd(x: np.ndarray, ddof: int = 1) -> float:
    """Standard deviation; NaN (silently) when there are not more than ``ddof`` values."""
    n = x.shape[0]
    if n - ddof <= 0:
        return math.nan
    return float(np.std(x, ddof=ddof))


def is_constant(x: np.ndarray) -> bool:
    """Whether every value of the non-empty array ``x`` equals the first."""
    return bool(np.all(x == x[0]))


def group_order(groups: npt.ArrayLike | pd.Series) -> list[Hashable]:
    """Group labels ordered by size (largest first), ties broken by label in ascending order.

    The first label is RSMTool's reference (base) category; labels keep their type.

    Parameters
    ----------
    groups : array-like of shape (n_samples,)
        Group membership.

    Returns
    -------
    list
        Distinct labels.
    """
    return group_codes(groups)[1]


def by_label(labels: Iterable[Hashable]) -> list[Hashable]:
    """Group labels in the order rsmeval lists the rows of its by-group tables: by their text.

    rsmeval reads subgroup labels as text and computes ``eval_by_<group>``,
    ``consistency_by_<group>`` and ``disattenuated_correlations_by_<group>`` over
    ``groupby(<group>)`` of the responses plus a copy of them labelled ``All data``
    (``Analyzer.compute_metrics_by_group``), so its rows come sorted by their text, ``All data``
    among them: first for labels such as ``QUESTION_1``, after ``1`` or ``Aardvark``. The
    agreement report, the Fairness page and rsmeval's tables list groups in this order; the
    fairness models keep :func:`group_order` (the largest group is their reference).

    Parameters
    ----------
    labels : iterable of hashable
        Group labels (``All data`` may be among them).

    Returns
    -------
    list
        The labels sorted by ``str(label)`` (stable: labels of one text keep their order).
    """
    return sorted(labels, key=str)


def group_codes(groups: npt.ArrayLike | pd.Series) -> tuple[np.ndarray, list[Hashable]]:
    """Every label's position in :func:`group_order`, and that order, from one hashing pass.

    Parameters
    ----------
    groups : array-like of shape (n_samples,)
        Group membership; missing labels (None, NaN) get code -1 and are not listed.

    Returns
    -------
    codes : numpy.ndarray of shape (n_samples,)
        ``levels.index(label)`` of every sample (int64).
    levels : list
        Distinct labels in :func:`group_order`.
    """
    arr = groups
    if isinstance(arr, (pd.Series, pd.Index)) and isinstance(arr.dtype, np.dtype):
        arr = arr.to_numpy()
    if not (isinstance(arr, np.ndarray) and arr.dtype.kind in "biuf"):
        arr = np.asarray(arr, dtype=object)  # numeric arrays hash as numbers: faster, same classes
    codes, uniques = pd.factorize(arr)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
    # the labels as value_counts gives them (its index infers their type from the distinct values)
    labels = pd.Series(np.asarray(uniques, dtype=object), dtype=object).value_counts(sort=False).index.to_list()
    if len(labels) != len(uniques):  # pragma: no cover - both hash the same way
        raise AssertionError("group labels hashed differently")
    frame = pd.DataFrame({"label": labels, "count": counts})
    try:
        frame = frame.sort_values(["count", "label"], ascending=[False, True], kind="mergesort")
    except TypeError:  # labels of mixed types: order ties by their text
        frame["text"] = frame["label"].map(str)
        frame = frame.sort_values(["count", "text"], ascending=[False, True], kind="mergesort")
    order = frame.index.to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    out = np.where(codes >= 0, rank[np.maximum(codes, 0)], -1) if len(order) else np.full(codes.shape, -1)
    return out.astype(np.int64, copy=False), frame["label"].to_list()


def check_groups(groups: npt.ArrayLike | pd.Series, n: int, name: str = "groups") -> np.ndarray:
    """Group labels as an object array of length ``n`` without missing labels; DataError
    naming ``name`` otherwise."""
    if isinstance(groups, (pd.Series, pd.Index)):
        g = groups.to_numpy(dtype=object)
    else:
        g = np.asarray(groups, dtype=object)
    if g.ndim != 1 or g.shape[0] != n:
        raise DataError(f"{name}: {g.shape[0] if g.ndim else 0} group labels for {n} responses")
    bad = np.flatnonzero(pd.isna(g))
    if bad.size:
        raise DataError(f"{name}: missing group label in {describe_rows(bad)}")
    return g


def group_levels(g: np.ndarray, name: str) -> list[Hashable]:
    """The labels of ``g`` in :func:`group_order`; DataError when there are more than
    :data:`MAX_GROUPS`."""
    levels = group_order(g)
    check_level_count(levels, name)
    return levels


def check_level_count(levels: list[Hashable], name: str) -> None:
    """DataError naming ``name`` when there are more than :data:`MAX_GROUPS` labels."""
    if len(levels) > MAX_GROUPS:
        raise DataError(
            f"{name}: {len(levels)} distinct labels; subgroup analyses take at most {MAX_GROUPS} "
            "(is it an id column?)"
        )


def check_magnitude(values: np.ndarray, label: str, rows: npt.ArrayLike | None = None) -> None:
    """DataError naming ``label`` and the rows when a finite value exceeds :data:`MAX_SCORE`.

    ``rows`` gives each value's 0-based data row (default: its position).
    """
    bad = np.flatnonzero(np.isfinite(values) & (np.abs(values) > MAX_SCORE))
    if bad.size:
        where = bad if rows is None else np.asarray(rows)[bad]
        raise DataError(
            f"{label}: score {values[bad[0]]:g} in {describe_rows(where)} is beyond {MAX_SCORE:g} "
            "in magnitude; the agreement statistics square the scores and would overflow"
        )


def numeric_column(df: pd.DataFrame, col: str, *, allow_missing: bool) -> np.ndarray:
    """Column ``col`` of ``df`` as floats (missing values NaN).

    Raises DataError naming the column and rows for an absent column, non-numeric or infinite
    values, values beyond :data:`MAX_SCORE` in magnitude and, unless ``allow_missing``, missing
    values.
    """
    if col not in df.columns:
        raise DataError(f"column {col!r} not found (columns: {', '.join(map(str, df.columns))})")
    values = numeric_values(df[col], label=f"column {col!r}", wording=REPORT, allow_missing=allow_missing)
    check_magnitude(values, f"column {col!r}")
    return values
