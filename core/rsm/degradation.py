"""RSMTool's degradation and disattenuated correlations (``Analyzer.compute_degradation_and_disattenuated_correlations``,
``compute_disattenuated_correlations``): how much worse the system agrees with the first human
rater than a second rater does, and the human-system correlation corrected for the raters'
unreliability."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

__all__ = ["DEGRADATION_COLUMNS", "DISATTENUATED_COLUMNS", "ALL_DATA", "degradation",
           "disattenuated_correlation", "disattenuated_by_group"]

#: Columns of the degradation table (RSMTool's ``degradation``: human-system minus human-human).
DEGRADATION_COLUMNS: tuple[str, ...] = ("corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD")
#: Columns of the disattenuated correlations (RSMTool's ``disattenuated_correlations`` and
#: ``disattenuated_correlations_by_<group>``).
DISATTENUATED_COLUMNS: tuple[str, ...] = ("corr_HM", "corr_HH", "sqrt_HH", "corr_disattenuated")
#: The row of the whole evaluation set in RSMTool's ``*_by_<group>`` tables (``eval``, ``consistency``,
#: ``disattenuated_correlations``).
ALL_DATA = "All data"


def degradation(eval_row: Mapping[str, Any], consistency_row: Mapping[str, Any] | None) -> dict[str, float] | None:
    """How much worse the system agrees with H than a second rater does (RSMTool's ``degradation``).

    RSMTool's ``compute_degradation_and_disattenuated_correlations`` (``use_all_responses``): each
    of :data:`DEGRADATION_COLUMNS` of the human-system row over all responses minus the same
    column of the human-human row over the double-scored ones (SMD: unpooled minus pooled).

    Parameters
    ----------
    eval_row : mapping
        The ``eval`` row (:func:`eval_metrics`).
    consistency_row : mapping or None
        The ``consistency`` row (:func:`consistency_metrics`); None when nothing is double-scored.

    Returns
    -------
    dict or None
        :data:`DEGRADATION_COLUMNS` -> difference; None when ``consistency_row`` is None.
    """
    if consistency_row is None:
        return None
    return {c: float(eval_row[c]) - float(consistency_row[c]) for c in DEGRADATION_COLUMNS}


def disattenuated_correlation(corr_hm: float, corr_hh: float) -> dict[str, float]:
    """The human-system correlation corrected for the human raters' unreliability.

    RSMTool's ``compute_disattenuated_correlations``: ``sqrt_HH = sqrt(corr_HH)`` (NaN when
    ``corr_HH`` is negative or NaN) and ``corr_disattenuated = corr_HM / sqrt_HH`` (numpy's
    division, as pandas': ``inf`` when ``sqrt_HH`` is 0 and ``corr_HM`` is not, NaN for 0/0).

    Parameters
    ----------
    corr_hm : float
        Pearson r between H and the system scores.
    corr_hh : float
        Pearson r between the two human ratings.

    Returns
    -------
    dict
        :data:`DISATTENUATED_COLUMNS` -> value.
    """
    hm, hh = np.float64(corr_hm), np.float64(corr_hh)
    with np.errstate(invalid="ignore", divide="ignore"):
        root = np.sqrt(hh)
        return {"corr_HM": float(hm), "corr_HH": float(hh), "sqrt_HH": float(root),
                "corr_disattenuated": float(hm / root)}


def disattenuated_by_group(whole: tuple[float, float], eval_rows: Mapping[Hashable, Mapping[str, Any]],
                            cons_rows: Mapping[Hashable, Mapping[str, Any]]) -> dict[Hashable, dict[str, float]]:
    """RSMTool's ``disattenuated_correlations_by_<group>``: the whole set (:data:`ALL_DATA`) first,
    then every group, its ``corr_HM`` from ``eval_by_<group>`` and ``corr_HH`` from
    ``consistency_by_<group>`` (NaN for a group without a double-scored response)."""
    out: dict[Hashable, dict[str, float]] = {ALL_DATA: disattenuated_correlation(*whole)}
    for label, row in eval_rows.items():
        if label != ALL_DATA:
            out[label] = disattenuated_correlation(row["corr"], cons_rows[label]["corr"])
    return out
