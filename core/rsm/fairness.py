"""RSMTool's additional fairness analyses (osa, osd, csd) and the collaborative result by subgroup."""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import statsmodels.api as sm

from core.errors import DataError
from core.rsm.checks import check_groups, check_pair, group_levels, group_order, one_blas_thread


#: Columns of each coefficient row (RSMTool's ``estimates_<analysis>_by_<group>``).
ESTIMATE_COLUMNS: tuple[str, ...] = ("estimate", "P>[t]", "[0.025", "0.975]")
#: The conditional analysis treats the human score as a category; beyond this many distinct
#: human scores (continuous scores) it is not computed and says so in its ``note``.
MAX_SCORE_LEVELS = 100
#: Columns of :func:`assignment_by_group`.
ASSIGNMENT_GROUP_COLUMNS: tuple[str, ...] = (
    "N", "n_human", "human_ratio", "time_cost", "accuracy", "f1", "machine_accuracy",
)
#: Analysis key -> RSMTool's long name.
ANALYSES: dict[str, str] = {
    "osa": "Overall score accuracy",
    "osd": "Overall score difference",
    "csd": "Conditional score difference",
}


def _indicators(values: np.ndarray, levels: list[Hashable]) -> np.ndarray:
    """Indicator columns for every level but the first (the reference level)."""
    out = np.empty((values.shape[0], len(levels) - 1), dtype=float)
    for j, level in enumerate(levels[1:]):
        out[:, j] = values == level
    return out


def _fit(y: np.ndarray, x: np.ndarray):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return sm.OLS(y, x, hasconst=True).fit()


def _r2_adj(fit) -> float:
    if fit.df_resid <= 0:
        return math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = float(fit.rsquared_adj)
    return value if math.isfinite(value) else math.nan


def _f_pvalue(fit) -> float:
    if fit.df_resid <= 0 or fit.df_model <= 0:
        return math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = float(fit.f_pvalue)
    return value if math.isfinite(value) else math.nan


def _compare_pvalue(full, null) -> float:
    """p-value of the nested F-test (``anova_lm(null, full)``)."""
    df_diff = full.df_model - null.df_model
    if full.df_resid <= 0 or df_diff <= 0 or full.ssr == 0:
        return math.nan
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = float(full.compare_f_test(null)[1])
    return value if math.isfinite(value) else math.nan


def _identifiable(x: np.ndarray, n_rows: int) -> np.ndarray:
    """Which of the first ``n_rows`` coefficients are estimable (``e_j`` in the row space of X)."""
    p = x.shape[1]
    xtx = x.T @ x
    projector = np.linalg.pinv(xtx) @ xtx
    eye = np.eye(p)
    return np.array([np.allclose(projector[:, j], eye[:, j], atol=1e-8) for j in range(n_rows)])


def _estimates(fit, x: np.ndarray, names: list[str]) -> dict[str, dict[str, float]]:
    n_rows = len(names)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        params = np.asarray(fit.params, dtype=float)
        pvalues = np.asarray(fit.pvalues, dtype=float)
        ci = np.asarray(fit.conf_int(0.05), dtype=float)
    ok = _identifiable(x, n_rows)
    out: dict[str, dict[str, float]] = {}
    for j in range(n_rows):
        if ok[j]:
            row = (params[j], pvalues[j], ci[j, 0], ci[j, 1])
        else:  # confounded with the other predictors: no estimate exists
            row = (math.nan, math.nan, math.nan, math.nan)
        out[names[j]] = dict(zip(ESTIMATE_COLUMNS, (float(v) for v in row)))
    return out


def fairness_analyses(
    y_true: npt.ArrayLike,
    y_pred: npt.ArrayLike,
    groups: npt.ArrayLike,
    *,
    base_group: Hashable | None = None,
    name: str = "groups",
) -> dict[str, Any]:
    """Overall score accuracy, overall score difference and conditional score difference.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Human (gold) scores H.
    y_pred : array-like of shape (n_samples,)
        System scores M.
    groups : array-like of shape (n_samples,)
        Group membership; at least two distinct labels.
    base_group : hashable, optional
        The reference group; by default the largest group (ties by label, ascending).
    name : str, default="groups"
        Name of the group variable, used in error messages.

    Returns
    -------
    dict
        ``base_category`` (the reference group), ``groups`` (the labels in model order) and
        ``osa``, ``osd``, ``csd``: each a dict with ``R2`` (float), ``sig`` (float), ``note``
        (None, or why the analysis could not be computed) and
        ``estimates`` (row name -> {``estimate``, ``P>[t]``, ``[0.025``, ``0.975]``}; the
        rows are ``Intercept (<base>)`` then every other group, labels as text). Degenerate
        fits (a constant error, as many parameters as responses) give NaN, and a coefficient
        that is confounded with the others (e.g. every member of a group has the same human
        score) has NaN estimate, p-value and interval: no estimate of it exists.

    Raises
    ------
    DataError
        Fewer than two groups, unknown ``base_group``, or invalid scores/labels.
    """
    with one_blas_thread():
        return _fairness_analyses(y_true, y_pred, groups, base_group=base_group, name=name)


def _fairness_analyses(y_true, y_pred, groups, *, base_group, name) -> dict[str, Any]:
    h, m = check_pair(y_true, y_pred)
    g = check_groups(groups, h.shape[0], name=name)
    levels = group_levels(g, name)
    if len(levels) < 2:
        only = levels[0] if levels else None
        raise DataError(
            f"{name}: a single group ({only!r}); the fairness analyses need at least two groups"
        )
    if base_group is not None:
        if base_group not in levels:
            raise DataError(f"{name}: reference group {base_group!r} does not occur")
        levels.insert(0, levels.pop(levels.index(base_group)))
    base = levels[0]
    texts = [str(level) for level in levels]
    if len(set(texts)) != len(texts):
        raise DataError(f"{name}: two different group labels print the same ({', '.join(texts)})")

    error = m - h
    squared = error**2
    score_levels = group_order(h)  # most frequent human score first, ties by value

    n = h.shape[0]
    const = np.ones((n, 1))
    xg = _indicators(g, levels)
    x_group = np.hstack([const, xg])
    names = [f"Intercept ({base})"] + texts[1:]

    osa = _fit(squared, x_group)
    osd = _fit(error, x_group)
    result: dict[str, Any] = {
        "base_category": base,
        "groups": list(levels),
        "osa": {"R2": _r2_adj(osa), "sig": _f_pvalue(osa), "estimates": _estimates(osa, x_group, names), "note": None},
        "osd": {"R2": _r2_adj(osd), "sig": _f_pvalue(osd), "estimates": _estimates(osd, x_group, names), "note": None},
    }
    if len(score_levels) > MAX_SCORE_LEVELS:
        nan_row = dict.fromkeys(ESTIMATE_COLUMNS, math.nan)
        result["csd"] = {
            "R2": math.nan,
            "sig": math.nan,
            "estimates": {k: dict(nan_row) for k in names},
            "note": (
                f"not computed: the human scores take {len(score_levels)} distinct values and the "
                f"conditional analysis treats them as categories (at most {MAX_SCORE_LEVELS})"
            ),
        }
        return result
    xs = _indicators(h.astype(object), score_levels)
    x_full = np.hstack([const, xg, xs])
    csd_null = _fit(error, np.hstack([const, xs]))
    csd = _fit(error, x_full)
    result["csd"] = {
        "R2": _r2_adj(csd) - _r2_adj(csd_null),
        "sig": _compare_pvalue(csd, csd_null),
        "estimates": _estimates(csd, x_full, names),
        "note": None,
    }
    return result


def estimates_frame(result: dict[str, Any], analysis: str) -> pd.DataFrame:
    """The coefficient table of one analysis as a DataFrame.

    Parameters
    ----------
    result : dict
        The output of :func:`fairness_analyses`.
    analysis : {"osa", "osd", "csd"}
        Which analysis.

    Returns
    -------
    pandas.DataFrame
        Rows ``Intercept (<base>)`` and the other groups; columns :data:`ESTIMATE_COLUMNS`.
    """
    if analysis not in ANALYSES:
        raise DataError(f"analysis: expected one of {', '.join(ANALYSES)}, got {analysis!r}")
    est = result[analysis]["estimates"]
    return pd.DataFrame.from_dict(est, orient="index", columns=list(ESTIMATE_COLUMNS))


def _label_codes(values: np.ndarray) -> tuple[np.ndarray, list]:
    """Codes of labels in the order :func:`core.reliability.classification_scores` sorts them
    (by type name, then value), and the sorted labels."""
    codes, uniques = pd.factorize(values)
    classes = sorted(uniques.tolist(), key=lambda v: (str(type(v)), v))
    rank = np.empty(len(uniques), dtype=np.int64)
    position = {v: i for i, v in enumerate(classes)}
    for i, v in enumerate(uniques.tolist()):
        rank[i] = position[v]
    return rank[codes], classes


def _scores(t: np.ndarray, p: np.ndarray, c: int) -> dict[str, float]:
    """:func:`core.reliability.classification_scores` of coded labels ``t`` (gold) and ``p``
    over the classes that occur in them (as it counts them: the same confusion matrix)."""
    from core.reliability import RELIABILITY_KEYS, scores_from_confusion

    cm = np.bincount(t * c + p, minlength=c * c).reshape(c, c)
    present = (cm.sum(axis=0) > 0) | (cm.sum(axis=1) > 0)
    s = scores_from_confusion(cm[np.ix_(present, present)])
    return {k: float(s[k]) for k in RELIABILITY_KEYS}


def assignment_by_group(
    human: npt.ArrayLike,
    groups: npt.ArrayLike,
    *,
    machine_label: npt.ArrayLike,
    human_label: npt.ArrayLike | None = None,
    human_effort: npt.ArrayLike | None = None,
) -> pd.DataFrame:
    """How a human/machine assignment treats each subgroup.

    Parameters
    ----------
    human : bool array-like of shape (n_samples,)
        True where the sample goes to a human.
    groups : array-like of shape (n_samples,)
        Group membership.
    machine_label : array-like of shape (n_samples,)
        The machine evaluator's labels.
    human_label : array-like of shape (n_samples,), optional
        Gold labels; without them the accuracy columns are None (unavailable).
    human_effort : array-like of shape (n_samples,), optional
        Ground-truth effort; without it ``time_cost`` is None.

    Returns
    -------
    pandas.DataFrame
        One row per group (:func:`group_order`), columns :data:`ASSIGNMENT_GROUP_COLUMNS`:
        ``N``, ``n_human``, ``human_ratio`` (``n_human / N``), ``time_cost`` (the group's effort
        sent to humans over the group's total effort; NaN when that total is 0), ``accuracy`` and
        ``f1`` (macro, over the classes occurring in the group) of the collaborative labels
        against gold, and ``machine_accuracy`` (the machine alone, same group).
    """
    from core.reliability import classification_scores, collaborative_labels

    hum = np.asarray(human)
    if hum.ndim != 1 or not (hum.dtype == bool or np.isin(hum, [0, 1]).all()):
        raise DataError("human: expected a 1-D boolean array (True = sent to a human)")
    hum = hum.astype(bool)
    n = hum.shape[0]
    g = check_groups(groups, n)
    ml = np.asarray(machine_label, dtype=object)
    if ml.shape != (n,):
        raise DataError(f"machine_label: expected {n} labels, got shape {ml.shape}")
    gold = None if human_label is None else np.asarray(human_label, dtype=object)
    if gold is not None and gold.shape != (n,):
        raise DataError(f"human_label: expected {n} labels, got shape {gold.shape}")
    effort = None
    if human_effort is not None:
        effort = np.asarray(human_effort, dtype=float)
        if effort.shape != (n,):
            raise DataError(f"human_effort: expected {n} values, got shape {effort.shape}")
    fast = gold is not None and not (pd.isna(gold).any() or pd.isna(ml).any())
    final = None if gold is None or fast else collaborative_labels(ml, gold, hum)
    if fast:  # labels coded once; each group's confusion counted, not its labels re-encoded
        # (coded from the arrays as given: numbers are factorised as numbers, much faster)
        raw = [np.asarray(human_label), np.asarray(machine_label)]
        numeric = all(r.dtype.kind in "iuf" for r in raw)
        codes, classes = _label_codes(np.concatenate(raw if numeric else [gold, ml]))
        t, m = codes[:n], codes[n:]
        c = len(classes)
        f = np.where(hum, t, m)
    gcodes, guniques = pd.factorize(g)
    code_of = {}
    for i, v in enumerate(guniques):
        code_of.setdefault(v, i)
    rows = {}
    for label in group_levels(g, "groups"):
        mask = gcodes == code_of[label]
        size = int(mask.sum())
        row: dict[str, Any] = {"N": size, "n_human": int(hum[mask].sum())}
        row["human_ratio"] = row["n_human"] / size
        if effort is None:
            row["time_cost"] = None
        else:
            total = float(effort[mask].sum())
            row["time_cost"] = float(effort[mask & hum].sum()) / total if total > 0 else math.nan
        if gold is None:
            row["accuracy"] = row["f1"] = row["machine_accuracy"] = None
        elif fast:
            tg = t[mask]
            collab = _scores(tg, f[mask], c)
            row["accuracy"] = collab["accuracy"]
            row["f1"] = collab["f1"]
            row["machine_accuracy"] = _scores(tg, m[mask], c)["accuracy"]
        else:  # missing labels: classification_scores names them
            collab = classification_scores(gold[mask], final[mask])
            row["accuracy"] = collab["accuracy"]
            row["f1"] = collab["f1"]
            row["machine_accuracy"] = classification_scores(gold[mask], ml[mask])["accuracy"]
        rows[label] = row
    index = pd.Index(list(rows), dtype=object, name="group")
    return pd.DataFrame(
        {c: pd.Series([rows[k][c] for k in rows], index=index, dtype=object if c in ("time_cost", "accuracy", "f1", "machine_accuracy") else None) for c in ASSIGNMENT_GROUP_COLUMNS},
        index=index,
    )
