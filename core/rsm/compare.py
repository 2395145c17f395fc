"""What to compare on the active dataset: machine vs gold, collaborative result vs gold, second vs first rater."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from core.errors import DataError, describe_rows
from core.rsm.degradation import ALL_DATA


#: Comparison key -> description.
COMPARISONS: dict[str, str] = {
    "machine": "Machine evaluator vs gold",
    "collaborative": "Collaborative result (current N and λ) vs gold",
    "raters": "Second vs first human rater",
}
#: Column names of :func:`comparison_frame`.
GOLD, SYSTEM, SECOND = "_h1", "_sys", "_h2"


#: Statistics that read labels as points on a scale: undefined for unordered labels (e.g.
#: safe/unsafe/borderline), where only counts, exact agreement and Cohen's kappa apply.
ORDINAL_STATISTICS: frozenset[str] = frozenset({
    "h_mean", "h_sd", "h_min", "h_max", "sys_mean", "sys_sd", "sys_min", "sys_max",
    "h1_mean", "h1_sd", "h1_min", "h1_max", "h2_mean", "h2_sd", "h2_min", "h2_max",
    "corr", "wtkappa", "R2", "adj_agr", "SMD", "RMSE", "DSM",
    "variance_of_errors", "true_score_var", "mse_true", "prmse_true"})
#: What a report of unordered labels says instead of the ordinal statistics.
NOMINAL_NOTE = ("The labels have no order (text classes such as safe / unsafe / borderline), so "
                "only exact agreement and Cohen's kappa are reported: correlations, weighted "
                "kappa, adjacent agreement, mean differences (SMD, DSM), PRMSE and the "
                "regression analyses would read the classes' alphabetical codes as a scale.")


def subgroup_rows(rows: Mapping[Hashable, Any]) -> dict[Hashable, Any]:
    """The rows of a ``*_by_<group>`` table of the report without rsmeval's whole-set row
    (:data:`core.rsm.degradation.ALL_DATA`, "All data"): the subgroups a page draws and flags."""
    return {k: v for k, v in rows.items() if k != ALL_DATA}


def _nominal_row(row: Any) -> Any:
    if not isinstance(row, Mapping):
        return row
    return {k: (None if k in ORDINAL_STATISTICS else v) for k, v in row.items()}


def nominal_only(report: Mapping[str, Any]) -> dict[str, Any]:
    """A report of :func:`agreement_report` with every ordinal statistic
    (:data:`ORDINAL_STATISTICS`) set to None (missing), for unordered labels.

    The tables keep their shape (a page reads them as before): per-group rows lose their ordinal
    values (so no group is flagged by DSM), the regression analyses (``fairness_by_<group>``)
    keep their reference group but have no R², p-value or coefficients and say why in their
    ``note``; ``degradation`` and the disattenuated correlations become None. Adds
    ``ordered: False`` and ``nominal_note`` (:data:`NOMINAL_NOTE`).
    """
    out: dict[str, Any] = {}
    for key, value in report.items():
        if key in ("eval", "consistency", "true_score"):
            out[key] = _nominal_row(value)
        elif key.startswith(("eval_by_", "consistency_by_")) and isinstance(value, Mapping):
            out[key] = {g: _nominal_row(row) for g, row in value.items()}
        elif key.startswith("fairness_by_") and isinstance(value, Mapping):
            out[key] = {k: ({"R2": math.nan, "sig": math.nan, "estimates": {},
                             "note": "not computed: the labels have no order"}
                            if k in ("osa", "osd", "csd") else v) for k, v in value.items()}
        elif key in ("degradation", "disattenuated_correlations") or key.startswith(
                "disattenuated_correlations_by_"):
            out[key] = None
        else:
            out[key] = value
    out["ordered"] = False
    out["nominal_note"] = NOMINAL_NOTE
    return out


def labels_ordered(labels: Sequence[Hashable]) -> bool:
    """Whether labels lie on a scale, so that ordinal statistics (Pearson r, quadratic weighted
    kappa, adjacent agreement, mean differences, DSM, PRMSE, the regression analyses) mean
    something: numbers do (1 < 2 < 3), two classes do (any statistic of a 0/1 coding is one of
    the two classes' shares), text labels of three or more classes do not (``safe``,
    ``unsafe``, ``borderline`` coded 0/1/2 in sort order are not a scale).

    >>> labels_ordered([1, 2, 3]), labels_ordered(["no", "yes"]), labels_ordered(["b", "s", "u"])
    (True, True, False)
    """
    labels = list(labels)
    if len(labels) <= 2:
        return True
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
               for v in labels)


def label_scores(values: npt.ArrayLike, labels: Sequence[Hashable], *, name: str = "labels") -> tuple[np.ndarray, dict | None]:
    """Scores of labels for the agreement statistics.

    Parameters
    ----------
    values : array-like of shape (n_samples,)
        Labels; missing values (None/NaN/NA) become NaN.
    labels : sequence
        All class labels in order (e.g. :attr:`core.data.EvalData.labels`).
    name : str, default="labels"
        Used in error messages.

    Returns
    -------
    scores : ndarray of shape (n_samples,)
        Numeric labels as they are; text labels coded 0..K-1 in the order of ``labels``.
    mapping : dict or None
        label -> code for text labels, None for numeric labels.

    Raises
    ------
    DataError
        A label that is not one of ``labels`` (text labels).
    """
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in labels)
    if numeric and isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        return values.astype(float), None  # numbers as they are (NaN stays missing), no object round trip
    arr = np.asarray(pd.Series(values, dtype=object).to_numpy(), dtype=object)
    missing = pd.isna(arr)
    if numeric:
        out = np.full(arr.shape[0], np.nan)
        try:
            out[~missing] = arr[~missing].astype(float)
        except (TypeError, ValueError):
            raise DataError(f"{name}: non-numeric labels where the classes are numbers") from None
        return out, None
    mapping = {lab: i for i, lab in enumerate(labels)}
    text = {str(k): v for k, v in mapping.items()}
    out = np.full(arr.shape[0], np.nan)
    bad = []
    for i, v in enumerate(arr):
        if missing[i]:
            continue
        code = mapping.get(v, text.get(str(v).strip()))
        if code is None:
            bad.append(i)
        else:
            out[i] = code
    if bad:
        raise DataError(f"{name}: label {arr[bad[0]]!r} is not one of the classes "
                        f"({', '.join(map(str, labels))}) in {describe_rows(bad)}")
    return out, mapping


def comparison_frame(
    data: Any,
    *,
    compare: str,
    groups: Sequence[str] = (),
    human: npt.ArrayLike | None = None,
    second: npt.ArrayLike | None = None,
    second_name: str = "second rater",
    extra: Sequence[str] = (),
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The table that :func:`core.rsm.report.agreement_report` evaluates for one comparison.

    Parameters
    ----------
    data : core.data.EvalData
        The active dataset (needs gold labels, the first rater, for every comparison).
    compare : {"machine", "collaborative", "raters"}
        Machine labels vs gold; collaborative labels (gold where ``human``, the machine's label
        elsewhere) vs gold; or the second rater vs the first (on the double-scored rows only).
    groups : sequence of str
        Subgroup columns of ``data.frame`` to carry along.
    human : bool array-like of shape (M,), optional
        The assignment (True = sent to a human); required for ``"collaborative"``.
    second : array-like of shape (M,), optional
        Second human rating per sample (missing where not double-scored); required for
        ``"raters"``, optional otherwise (adds the consistency and true-score evaluations).
    second_name : str
        Name of the second rating, for messages.
    extra : sequence of str, default=()
        Further columns of ``data.raw`` to carry along unchanged (flag and candidate columns
        of :func:`core.rsm.agreement_report`).

    Returns
    -------
    frame : pandas.DataFrame
        Columns :data:`GOLD`, :data:`SYSTEM`, :data:`SECOND` (when ``second`` is given and
        ``compare`` is not ``"raters"``), the group columns and the ``extra`` columns.
    info : dict
        ``mapping`` (text label -> code, or None), ``binary`` (two classes), ``n_rows`` (rows
        evaluated), ``n_dropped`` (rows without a second rating in ``"raters"`` mode) and
        ``ordered`` (:func:`labels_ordered`; also ``frame.attrs["ordered"]``).

    Raises
    ------
    DataError
        No gold labels, missing assignment or second rating, unknown labels, bad group column.
    """
    if compare not in COMPARISONS:
        raise DataError(f"compare: expected one of {', '.join(COMPARISONS)}, got {compare!r}")
    f = data.frame
    if "human_label" not in f.columns:
        raise DataError("no gold (human) labels: map a column to the human_label role on the Data page")
    for col in groups:
        if col not in f.columns:
            raise DataError(f"subgroup column {col!r} is not in the active dataset")
        if col in (GOLD, SYSTEM, SECOND):
            raise DataError(f"subgroup column {col!r}: the name is reserved; rename the column")
    labels = list(data.labels)
    gold, mapping = label_scores(f["human_label"].to_numpy(), labels, name="human_label")
    machine, _ = label_scores(f["machine_label"].to_numpy(), labels, name="machine_label")
    sec = None
    if second is not None:
        second = np.asarray(pd.Series(second, dtype=object).to_numpy(), dtype=object)
        if second.shape[0] != data.M:
            raise DataError(f"{second_name}: {second.shape[0]} values for {data.M} samples")
        sec, _ = label_scores(second, labels, name=second_name)
    out = pd.DataFrame({GOLD: gold})
    n_dropped = 0
    if compare == "machine":
        out[SYSTEM] = machine
    elif compare == "collaborative":
        if human is None:
            raise DataError("the collaborative comparison needs an assignment (human mask)")
        hum = np.asarray(human, dtype=bool)
        if hum.shape != (data.M,):
            raise DataError(f"assignment: {hum.shape} for {data.M} samples")
        out[SYSTEM] = np.where(hum, gold, machine)
    else:
        if sec is None:
            raise DataError("the rater comparison needs a second human rating column")
        out[SYSTEM] = sec
    if sec is not None and compare != "raters":
        out[SECOND] = sec
    for col in groups:
        out[col] = f[col].to_numpy()
    for col in extra:
        if col in out.columns:
            continue
        if col not in data.raw.columns:
            raise DataError(f"column {col!r} is not in the active dataset")
        if len(data.raw) != data.M:
            raise DataError(f"column {col!r}: the loaded table has {len(data.raw)} rows for {data.M} samples")
        out[col] = data.raw[col].to_numpy()
    if compare == "raters":
        keep = ~np.isnan(sec)
        n_dropped = int((~keep).sum())
        if not keep.any():
            raise DataError(f"{second_name}: no sample has a second rating")
        out = out.loc[keep].reset_index(drop=True)
    ordered = labels_ordered(labels)
    info = {"mapping": mapping, "binary": len(labels) == 2, "n_rows": int(len(out)),
            "n_dropped": n_dropped, "ordered": ordered}
    # the frame carries whether its codes are a scale: core.rsm.agreement_report reads it and
    # reports nominal statistics only when they are not
    out.attrs["ordered"] = ordered
    return out, info


def subgroup_choices(data: Any) -> list[str]:
    """The subgroup columns the Fairness page offers.

    The dataset's subgroup columns, less every column mapped to a role (a machine-label column
    such as ``model_pred`` is what is evaluated: as a "subgroup" it would raise a meaningless
    |DSM| alarm) and every column whose name says it holds labels, predictions, probabilities,
    efforts or row ids (:func:`core.data.column_kind` in :data:`core.data.NOT_SUBGROUP_KINDS`,
    the one home of what is never a subgroup).

    Parameters
    ----------
    data : core.data.EvalData
        The active dataset.

    Returns
    -------
    list of str
        Column names, in the dataset's order.
    """
    from core.data import NOT_SUBGROUP_KINDS, column_kind

    mapped = {v for k, v in data.roles.items() if k not in ("subgroups", "text") and isinstance(v, str)}
    raw = data.raw
    return [c for c in data.subgroup_columns if c not in mapped
            and (c not in raw.columns or column_kind(c, raw[c]) not in NOT_SUBGROUP_KINDS)]
