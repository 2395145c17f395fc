"""RSMTool's tables (eval, consistency, true score, by subgroup) and the whole evaluation report."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from core.errors import DataError, describe_rows
from core.rsm.checks import (
    as_scores, by_label, check_groups, check_level_count, check_pair, group_codes, group_levels, numeric_column,
    one_blas_thread, optional_scores, sample_sd,
)
from core.rsm.compare import nominal_only
from core.rsm.degradation import (
    ALL_DATA, degradation, disattenuated_by_group,
    disattenuated_correlation,
)
from core.rsm.fairness import fairness_by_codes
from core.rsm.responses import TRIM_TOLERANCE, select_responses, trim_scores
from core.rsm.metrics import (
    agreement, cohen_kappa, difference_of_standardized_means, pearson_r,
    quadratic_weighted_kappa, r2_score, root_mean_squared_error, standardized_mean_difference,
)
from core.rsm.true_score import mse_true, prmse_true, ratings_matrix, true_score_variance, variance_of_errors


#: Columns of the human-system evaluation table (RSMTool's ``eval`` file, in its order).
EVAL_COLUMNS: tuple[str, ...] = (
    "N", "h_mean", "h_sd", "h_min", "h_max", "sys_mean", "sys_sd", "sys_min", "sys_max",
    "corr", "wtkappa", "R2", "kappa", "exact_agr", "adj_agr", "SMD", "RMSE",
)
#: Columns of the per-subgroup table: the evaluation columns plus DSM.
EVAL_BY_GROUP_COLUMNS: tuple[str, ...] = EVAL_COLUMNS + ("DSM",)
#: Columns of the human-human consistency table (RSMTool's ``consistency`` file).
CONSISTENCY_COLUMNS: tuple[str, ...] = (
    "N", "h1_mean", "h1_sd", "h1_min", "h1_max", "h2_mean", "h2_sd", "h2_min", "h2_max",
    "corr", "wtkappa", "kappa", "exact_agr", "adj_agr", "SMD",
)
#: Columns of the human-human consistency table by subgroup (RSMTool's
#: ``consistency_by_<group>`` has DSM in place of SMD; both are given here).
CONSISTENCY_BY_GROUP_COLUMNS: tuple[str, ...] = CONSISTENCY_COLUMNS + ("DSM",)
#: Columns of the true-score evaluation.
TRUE_SCORE_COLUMNS: tuple[str, ...] = (
    "N", "N raters", "N_single", "N_multiple", "variance_of_errors", "true_score_var", "mse_true", "prmse_true",
)
#: Our true-score column -> RSMTool's name in its ``true_score_eval`` table.
TRUE_SCORE_RSMTOOL_NAMES: dict[str, str] = {
    "N": "N", "N raters": "N raters", "N_single": "N single", "N_multiple": "N multiple",
    "variance_of_errors": "Variance of errors", "true_score_var": "True score var",
    "mse_true": "MSE true", "prmse_true": "PRMSE true",
}


#: RSMTool's column name -> (a plain header, what it means): the dashboard shows the header and
#: keeps RSMTool's name in the tooltip. "%" columns are percentages 0-100.
COLUMN_DESCRIPTIONS: dict[str, tuple[str, str]] = {
    "N": ("Responses", "number of responses evaluated"),
    "h_mean": ("Reference mean", "mean of the reference (human) scores"),
    "h_sd": ("Reference sd", "standard deviation of the reference scores (ddof = 1)"),
    "h_min": ("Reference min", "lowest reference score"),
    "h_max": ("Reference max", "highest reference score"),
    "sys_mean": ("Evaluated mean", "mean of the evaluated scores"),
    "sys_sd": ("Evaluated sd", "standard deviation of the evaluated scores (ddof = 1)"),
    "sys_min": ("Evaluated min", "lowest evaluated score"),
    "sys_max": ("Evaluated max", "highest evaluated score"),
    "h1_mean": ("Rater 1 mean", "mean of the first human rater's scores"),
    "h1_sd": ("Rater 1 sd", "standard deviation of the first rater's scores (ddof = 1)"),
    "h1_min": ("Rater 1 min", "lowest score of the first rater"),
    "h1_max": ("Rater 1 max", "highest score of the first rater"),
    "h2_mean": ("Rater 2 mean", "mean of the second human rater's scores"),
    "h2_sd": ("Rater 2 sd", "standard deviation of the second rater's scores (ddof = 1)"),
    "h2_min": ("Rater 2 min", "lowest score of the second rater"),
    "h2_max": ("Rater 2 max", "highest score of the second rater"),
    "corr": ("Pearson r", "Pearson correlation between the two sides"),
    "wtkappa": ("Weighted kappa (QWK)", "quadratic weighted kappa (Haberman's formula for continuous scores)"),
    "R2": ("R²", "proportional reduction in mean squared error (observed scores)"),
    "kappa": ("Cohen's kappa", "unweighted Cohen's kappa on scores rounded to integers"),
    "exact_agr": ("Exact agreement", "percentage of responses where the two scores are equal"),
    "adj_agr": ("Adjacent agreement", "percentage of responses where the scores differ by at most 1"),
    "SMD": ("Mean gap (SMD)", "how much higher the evaluated scores are on average than the"
            " reference, in standard deviations of the reference (pooled sd for two human raters)"),
    "RMSE": ("RMSE", "root mean squared error"),
    "DSM": ("Group gap (DSM)", "in this subgroup, how much higher the evaluated scores run than the"
            " reference, in standard deviations of the whole set (difference of standardised means);"
            " beyond ±0.1 is conventionally a concern"),
    "N raters": ("Most ratings", "the most human ratings any response has"),
    "N_single": ("Single-scored", "responses with one human rating (RSMTool: N single)"),
    "N_multiple": ("Double-scored", "responses with two or more human ratings (RSMTool: N multiple)"),
    "variance_of_errors": ("Rater error variance", "variance of the human raters' errors (RSMTool: Variance of errors)"),
    "true_score_var": ("True-score variance", "estimated variance of the true scores (RSMTool: True score var)"),
    "mse_true": ("MSE vs true score", "mean squared error of the evaluated scores as a predictor of the true"
                 " score (RSMTool: MSE true)"),
    "prmse_true": ("Accuracy vs true score (PRMSE)", "how much of the true score's variation the evaluated"
                   " scores predict, 0 to 1, with the human raters' own errors taken out (proportional"
                   " reduction in mean squared error; RSMTool: PRMSE true)"),
}
#: Columns whose values are percentages 0-100.
PERCENT_COLUMNS: tuple[str, ...] = ("exact_agr", "adj_agr")



def eval_metrics(y_true: npt.ArrayLike, y_pred: npt.ArrayLike) -> dict[str, Any]:
    """The human-system evaluation row (RSMTool's ``eval``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human (gold) scores.
    y_pred : array-like of shape (n_samples,)
        System scores.

    Returns
    -------
    dict
        :data:`EVAL_COLUMNS` -> value (``N`` an int, the rest floats, NaN where undefined).
    """
    h, m = check_pair(y_true, y_pred)
    return _eval_row(h, m)


def _eval_row(h: np.ndarray, m: np.ndarray) -> dict[str, Any]:
    return {
        "N": int(h.shape[0]),
        "h_mean": float(h.mean()), "h_sd": sample_sd(h), "h_min": float(h.min()), "h_max": float(h.max()),
        "sys_mean": float(m.mean()), "sys_sd": sample_sd(m), "sys_min": float(m.min()), "sys_max": float(m.max()),
        "corr": pearson_r(h, m),
        "wtkappa": quadratic_weighted_kappa(h, m),
        "R2": r2_score(h, m),
        "kappa": cohen_kappa(h, m),
        "exact_agr": agreement(h, m, tolerance=0),
        "adj_agr": agreement(h, m, tolerance=1),
        "SMD": standardized_mean_difference(h, m, method="unpooled"),
        "RMSE": root_mean_squared_error(h, m),
    }


def _group_rows(h: np.ndarray, m: np.ndarray, g: np.ndarray,
                coded: tuple[np.ndarray, list] | None = None) -> dict[Hashable, dict[str, Any]]:
    """Every group's evaluation row and DSM (:func:`core.rsm.metrics.dsm_by_group`'s), the groups found once
    (``coded``: :func:`group_codes` of ``g`` when the caller has it)."""
    codes, levels = group_codes(g) if coded is None else coded
    check_level_count(levels, "groups")
    pop = dict(
        population_true_mean=float(h.mean()), population_true_sd=sample_sd(h),
        population_pred_mean=float(m.mean()), population_pred_sd=sample_sd(m),
    )
    rows: dict[Hashable, dict[str, Any]] = {}
    for j, label in enumerate(levels):
        mask = codes == j
        hg, mg = h[mask], m[mask]
        row = _eval_row(hg, mg)
        row["DSM"] = difference_of_standardized_means(hg, mg, **pop)
        rows[label] = row
    return rows


def eval_by_group(y_true: npt.ArrayLike, y_pred: npt.ArrayLike, groups: npt.ArrayLike) -> pd.DataFrame:
    """The evaluation row of every subgroup, with DSM (RSMTool's ``eval_by_<group>``).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Human and system scores of the whole evaluation set.
    groups : array-like of shape (n_samples,)
        Group membership (any hashable labels; dots and spaces allowed).

    Returns
    -------
    pandas.DataFrame
        One row per group (index: the labels in :func:`group_order`), columns
        :data:`EVAL_BY_GROUP_COLUMNS`. ``DSM`` has object dtype so that a missing value stays
        ``None``, distinct from NaN.
    """
    h, m = check_pair(y_true, y_pred)
    g = check_groups(groups, h.shape[0])
    rows = _group_rows(h, m, g)
    index = pd.Index(list(rows), dtype=object, name="group")
    table = pd.DataFrame(
        {c: [rows[k][c] for k in rows] for c in EVAL_COLUMNS}, index=index, columns=list(EVAL_COLUMNS)
    )
    table["DSM"] = pd.Series([rows[k]["DSM"] for k in rows], index=index, dtype=object)
    return table


def consistency_metrics(y_true: npt.ArrayLike, y_true2: npt.ArrayLike) -> dict[str, Any] | None:
    """Human-human agreement on the double-scored responses (RSMTool's ``consistency``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        First human rating H (complete).
    y_true2 : array-like of shape (n_samples,)
        Second human rating H2; NaN where the response was not double-scored.

    Returns
    -------
    dict or None
        :data:`CONSISTENCY_COLUMNS` -> value over the ``N_2`` responses with both ratings
        (SMD with the pooled denominator); None when no response has both ratings.
    """
    h = as_scores(y_true, "y_true")
    h2 = optional_scores(y_true2, h.shape[0], "y_true2")
    both = ~np.isnan(h2)
    if not both.any():
        return None
    a, b = h[both], h2[both]
    return {
        "N": int(a.shape[0]),
        "h1_mean": float(a.mean()), "h1_sd": sample_sd(a), "h1_min": float(a.min()), "h1_max": float(a.max()),
        "h2_mean": float(b.mean()), "h2_sd": sample_sd(b), "h2_min": float(b.min()), "h2_max": float(b.max()),
        "corr": pearson_r(a, b),
        "wtkappa": quadratic_weighted_kappa(a, b),
        "kappa": cohen_kappa(a, b),
        "exact_agr": agreement(a, b, tolerance=0),
        "adj_agr": agreement(a, b, tolerance=1),
        "SMD": standardized_mean_difference(a, b, method="pooled"),
    }


def consistency_by_group(
    y_true: npt.ArrayLike, y_true2: npt.ArrayLike, groups: npt.ArrayLike
) -> dict[Hashable, dict[str, Any]]:
    """Human-human agreement within every subgroup (RSMTool's ``consistency_by_<group>``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        First human rating H (complete).
    y_true2 : array-like of shape (n_samples,)
        Second human rating H2; NaN where absent.
    groups : array-like of shape (n_samples,)
        Group membership.

    Returns
    -------
    dict
        Group label (in :func:`group_order` over all responses) -> the
        :data:`CONSISTENCY_BY_GROUP_COLUMNS` of that group's double-scored responses. ``DSM`` is
        the mean of ``z_H2 - z_H`` with the population mean and sd (``ddof=1``) of H over all
        responses and of H2 over the double-scored ones (RSMTool's ``compute_metrics_by_group``);
        None (missing) when either population sd is within ``1e-7`` of 0. A group without a
        double-scored response is listed with ``N`` = 0 and NaN elsewhere, as RSMTool does.
    """
    h = as_scores(y_true, "y_true")
    h2 = optional_scores(y_true2, h.shape[0], "y_true2")
    g = check_groups(groups, h.shape[0])
    both = ~np.isnan(h2)
    pop = None
    if both.any():
        pop = dict(
            population_true_mean=float(h.mean()), population_true_sd=sample_sd(h),
            population_pred_mean=float(h2[both].mean()), population_pred_sd=sample_sd(h2[both]),
        )
    out: dict[Hashable, dict[str, Any]] = {}
    for label in group_levels(g, "groups"):
        mask = g == label
        row = consistency_metrics(h[mask], h2[mask])
        if row is None:
            row = dict.fromkeys(CONSISTENCY_BY_GROUP_COLUMNS, math.nan)
            row["N"] = 0
        else:
            sel = mask & both
            row["DSM"] = difference_of_standardized_means(h[sel], h2[sel], **pop)
        out[label] = row
    return out


def _by_label(rows: Mapping[Hashable, Any]) -> dict[Hashable, Any]:
    """Per-group rows in rsmeval's order (:func:`core.rsm.checks.by_label`)."""
    return {label: rows[label] for label in by_label(rows)}


def _consistency_with_whole(h: np.ndarray, h2: np.ndarray, g: np.ndarray) -> dict[Hashable, dict[str, Any]]:
    """:func:`consistency_by_group` with the whole set as :data:`ALL_DATA`, in rsmeval's rows and order."""
    whole = consistency_by_group(h, h2, np.full(h.shape[0], ALL_DATA, dtype=object))
    return _by_label({**whole, **consistency_by_group(h, h2, g)})


def true_score_metrics(human_scores: npt.ArrayLike, y_pred: npt.ArrayLike) -> dict[str, Any]:
    """True-score evaluation of the system (``true_score_eval``).

    Parameters
    ----------
    human_scores : array-like of shape (n_samples, n_ratings)
        Ratings per response, NaN where missing (at least one per response).
    y_pred : array-like of shape (n_samples,)
        System scores.

    Returns
    -------
    dict
        :data:`TRUE_SCORE_COLUMNS` -> value (``N raters``: the most ratings any response has,
        RSMTool's column of that name); the four estimates are None (missing) when no response
        has two or more ratings.
    """
    arr = ratings_matrix(human_scores)
    m = as_scores(y_pred, "y_pred")
    if m.shape[0] != arr.shape[0]:
        raise DataError(f"human_scores and y_pred differ in length ({arr.shape[0]} vs {m.shape[0]})")
    c = (~np.isnan(arr)).sum(axis=1)
    ve = variance_of_errors(arr)
    out: dict[str, Any] = {
        "N": int(arr.shape[0]),
        "N raters": int(c.max()),
        "N_single": int((c == 1).sum()),
        "N_multiple": int((c > 1).sum()),
        "variance_of_errors": ve,
        "true_score_var": None,
        "mse_true": None,
        "prmse_true": None,
    }
    if ve is not None:
        out["true_score_var"] = true_score_variance(arr, variance_errors=ve)
        out["mse_true"] = mse_true(arr, m, variance_errors=ve)
        out["prmse_true"] = prmse_true(arr, m, variance_errors=ve)
    return out


def evaluation_report(
    df: pd.DataFrame,
    *,
    human: str,
    system: str,
    human2: str | None = None,
    groups: Sequence[str] = (),
    rounded: bool = False,
) -> dict[str, Any]:
    """All agreement and fairness statistics of one evaluator against the human scores.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_samples, n_columns)
        The evaluation set.
    human : str
        Column of the (first) human / gold scores H; complete and numeric.
    system : str
        Column of the evaluator's scores M; complete and numeric.
    human2 : str, optional
        Column of a second human rating H2; empty where a response was not double-scored.
    groups : sequence of str, default=()
        Subgroup columns (complete; any labels).
    rounded : bool, default=False
        Round the system scores half to even to integers first (RSMTool's ``*_round`` scores).

    Returns
    -------
    dict
        ``eval`` (:data:`EVAL_COLUMNS`), ``consistency`` (only with ``human2``; None when no
        response is double-scored), ``true_score`` (:data:`TRUE_SCORE_COLUMNS`; missing
        estimates without double-scored responses), and for every group column ``g``:
        ``eval_by_g`` (label -> :data:`EVAL_BY_GROUP_COLUMNS`), ``fairness_by_g``
        (see :func:`core.rsm.fairness.fairness_analyses`) and, with ``human2``,
        ``consistency_by_g`` (label -> :data:`CONSISTENCY_BY_GROUP_COLUMNS`) and
        ``disattenuated_correlations_by_g`` (label -> :data:`DISATTENUATED_COLUMNS`); the
        ``_by_g`` rows are the whole set (:data:`ALL_DATA`) and every group, in rsmeval's order
        (:func:`core.rsm.checks.by_label`: by their text). With ``human2`` also ``degradation``
        (:func:`degradation`) and ``disattenuated_correlations`` (:func:`disattenuated_correlation`
        of the ``eval`` and ``consistency`` correlations), both None when nothing is double-scored.
    """
    with one_blas_thread():
        return _evaluation_report(df, human=human, system=system, human2=human2, groups=groups, rounded=rounded)


def _evaluation_report(
    df: pd.DataFrame, *, human: str, system: str, human2: str | None, groups: Sequence[str], rounded: bool,
    whole: bool = True,
) -> dict[str, Any]:
    """:func:`evaluation_report`; with ``whole=False`` only the ``*_by_<group>`` entries (the
    whole-set tables left out: the caller has them)."""
    if not isinstance(df, pd.DataFrame):
        raise DataError("expected a table (pandas DataFrame)")
    if df.shape[0] == 0:
        raise DataError("the table has no rows")
    h = numeric_column(df, human, allow_missing=False)
    m = numeric_column(df, system, allow_missing=False)
    if rounded:
        m = np.rint(m)
    report: dict[str, Any] = {"eval": _eval_row(h, m)} if whole else {}
    ratings = h.reshape(-1, 1)
    if human2 is not None:
        h2 = numeric_column(df, human2, allow_missing=True)
        if whole:
            report["consistency"] = consistency_metrics(h, h2)
            report["degradation"] = degradation(report["eval"], report["consistency"])
            report["disattenuated_correlations"] = None if report["consistency"] is None else \
                disattenuated_correlation(report["eval"]["corr"], report["consistency"]["corr"])
        ratings = np.column_stack([h, h2])
    if whole:
        report["true_score"] = true_score_metrics(ratings, m)
    for col in groups:
        if col not in df.columns:
            raise DataError(f"group column {col!r} not found (columns: {', '.join(map(str, df.columns))})")
        g = check_groups(df[col], h.shape[0], name=f"group column {col!r}")
        coded = group_codes(g)
        check_level_count(coded[1], f"group column {col!r}")
        if ALL_DATA in coded[1]:
            raise DataError(f"group column {col!r}: a group is named {ALL_DATA!r}, the name of the whole set's row")
        report[f"eval_by_{col}"] = _by_label({**_group_rows(h, m, g, (np.zeros(h.shape[0], dtype=np.intp), [ALL_DATA])),
                                              **_group_rows(h, m, g, coded)})
        report[f"fairness_by_{col}"] = fairness_by_codes(h, m, coded, name=f"group column {col!r}")
        if human2 is not None:
            cons = _consistency_with_whole(h, ratings[:, 1], g)
            report[f"consistency_by_{col}"] = cons
            both = ~np.isnan(ratings[:, 1])
            whole_hh = pearson_r(h[both], ratings[both, 1]) if both.any() else math.nan
            report[f"disattenuated_correlations_by_{col}"] = _by_label(disattenuated_by_group(
                (pearson_r(h, m), whole_hh), report[f"eval_by_{col}"], cons))
    return report


def agreement_report(
    df: pd.DataFrame,
    *,
    human: str,
    system: str,
    human2: str | None = None,
    groups: Sequence[str] = (),
    rounded: bool = False,
    raters: bool = False,
    group_errors: str = "raise",
    exclude_zero_scores: bool = True,
    trim_min: float | None = None,
    trim_max: float | None = None,
    trim_tolerance: float = TRIM_TOLERANCE,
    flag_column: Mapping[str, Any] | None = None,
    candidate_column: str | None = None,
    min_items_per_candidate: int | None = None,
    ordered: bool | None = None,
) -> dict[str, Any]:
    """The one agreement report of ``hmceval agreement`` and of the Fairness page.

    ``ordered=False`` (by default read from ``df.attrs["ordered"]``, which
    :func:`core.rsm.compare.comparison_frame` sets, else True) reports unordered labels with
    nominal statistics only (:func:`nominal_only`).

    The responses are first selected as rsmeval selects them
    (:func:`core.rsm.responses.select_responses`: flag columns, missing/non-numeric/zero human
    scores, missing/non-numeric system scores, candidates with too few responses); the counts are
    the report's ``responses`` entry. Then :func:`evaluation_report` on the kept responses, with
    the system scores trimmed first when ``trim_min``/``trim_max`` are given (RSMTool's ``*_trim``
    scores; with ``rounded`` the ``*_trim_round`` scores), plus the two choices the page offers:

    * ``group_errors="report"`` evaluates one group column at a time, so that an unusable column
      (too many labels, a missing label) becomes ``error_by_<group>`` (the DataError's message)
      instead of stopping the others; ``"raise"`` lets the DataError through;
    * ``raters=True`` says that ``system`` is a second human rater: the consistency tables
      (``consistency`` and ``consistency_by_<group>``) compare ``human`` with ``system`` and there
      is no ``true_score`` (one rating per side: no rater error variance to estimate), no
      ``degradation`` and no disattenuated correlations; with
      ``exclude_zero_scores`` its zero ratings are excluded too, as RSMTool's for a second rater.

    Parameters
    ----------
    df, human, system, human2, groups, rounded
        As :func:`evaluation_report`, except that unusable scores exclude their response
        instead of being refused.
    raters : bool, default=False
        ``system`` is a second human rater.
    group_errors : {"raise", "report"}, default="raise"
        What an unusable group column does.
    exclude_zero_scores : bool, default=True
        RSMTool's option of that name (and its default): responses with a human score of 0 are
        excluded and a second human score of 0 counts as absent. HMCEval's labels are often
        0/1: pass False to keep the zeros.
    trim_min, trim_max : float, optional
        Both or neither: the score scale's lowest and highest points (RSMTool's options).
    trim_tolerance : float, default=0.4998
        RSMTool's ``trim_tolerance``.
    flag_column : mapping, optional
        RSMTool's ``flag_column``: column -> allowed value(s); other responses are excluded.
    candidate_column : str, optional
        RSMTool's ``candidate_column``.
    min_items_per_candidate : int, optional
        RSMTool's option: candidates with fewer responses left are excluded.

    Returns
    -------
    dict
        ``responses`` (see :func:`core.rsm.responses.select_responses`, plus ``trim``: the
        trimming used or None), then the keys of :func:`evaluation_report` (in its order when no
        group column fails), plus ``error_by_<group>`` for the failed columns in ``"report"``
        mode. Row numbers in messages are the table's data rows (1-based).
    """
    if ordered is None:
        ordered = bool(getattr(df, "attrs", {}).get("ordered", True))
    if group_errors not in ("raise", "report"):
        raise DataError(f"group_errors: expected 'raise' or 'report', got {group_errors!r}")
    if (trim_min is None) != (trim_max is None):
        raise DataError("trim_min and trim_max go together: give both or neither")
    groups = list(groups)
    frame, summary = select_responses(
        df, human=human, system=system, human2=human2, groups=groups,
        exclude_zero_scores=exclude_zero_scores, exclude_zero_system=raters and exclude_zero_scores,
        flag_column=flag_column, candidate_column=candidate_column,
        min_items_per_candidate=min_items_per_candidate,
    )
    summary["trim"] = None
    if trim_min is not None:
        frame = frame.copy()
        frame[system] = trim_scores(frame[system].to_numpy(dtype=float), trim_min=trim_min,
                                    trim_max=trim_max, tolerance=trim_tolerance)
        summary["trim"] = {"trim_min": float(trim_min), "trim_max": float(trim_max),
                           "trim_tolerance": float(trim_tolerance)}
    rows = frame.index.to_numpy()
    frame = frame.reset_index(drop=True)
    group_problem: dict[str, str] = {}
    for g in groups:
        missing = np.flatnonzero(pd.isna(frame[g]).to_numpy())
        if missing.size:
            group_problem[g] = f"group column {g!r}: missing group label in {describe_rows(rows[missing])}"
            if group_errors == "raise":
                raise DataError(group_problem[g])
    report: dict[str, Any] = {"responses": summary}
    if group_errors == "raise":
        report.update(evaluation_report(frame, human=human, system=system, human2=human2, groups=groups,
                                        rounded=rounded))
    else:
        report.update(evaluation_report(frame, human=human, system=system, human2=human2, rounded=rounded))
        for g in groups:
            if g in group_problem:
                report[f"error_by_{g}"] = group_problem[g]
                continue
            try:
                with one_blas_thread():
                    part = _evaluation_report(frame, human=human, system=system, human2=human2, groups=[g],
                                              rounded=rounded, whole=False)
            except DataError as exc:
                report[f"error_by_{g}"] = str(exc)
                continue
            report.update({k: v for k, v in part.items() if k.endswith(f"_by_{g}")})
    if raters:
        h1 = frame[human].to_numpy(dtype=float)
        h2 = frame[system].to_numpy(dtype=float)
        report["consistency"] = consistency_metrics(h1, h2)
        for g in groups:
            if f"eval_by_{g}" in report:
                report[f"consistency_by_{g}"] = _consistency_with_whole(h1, h2, frame[g].to_numpy())
        del report["true_score"]
        for key in [k for k in report if k in ("degradation", "disattenuated_correlations")
                    or k.startswith("disattenuated_correlations_by_")]:
            del report[key]  # they compare the system with two raters; here it is one of them
    if not ordered:
        return nominal_only(report)
    return report
