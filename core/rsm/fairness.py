"""RSMTool's additional fairness analyses (osa, osd, csd) and the collaborative result by subgroup."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats

from core.errors import DataError
from core.rsm.checks import by_label, check_groups, check_level_count, check_pair, group_codes, one_blas_thread


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


def _fit(y: np.ndarray, x: np.ndarray):
    import statsmodels.api as sm  # only for the cases the exact fast path leaves to it

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return sm.OLS(y, x, hasconst=True).fit()


class _CellFit:
    """OLS of ``y`` on a design whose rows take few distinct values ("cells"), with the
    statistics the analyses read, named and computed as statsmodels' ``OLS(...).fit()`` names
    and computes them (``pinv`` method, a constant, non-robust covariance, t inference).

    Rows of one cell share a design row, so ``X'X`` and ``X'y`` are those of the cells'
    design rows weighted by the square roots of their counts, against the cells' sums over
    those square roots: the least-squares solution and ``pinv(X) pinv(X)'`` are those of that
    small weighted matrix (one SVD of cells x parameters instead of rows x parameters). The
    residuals are taken over the rows, as statsmodels takes them.
    """

    def __init__(self, y: np.ndarray, cell: np.ndarray, xc: np.ndarray, rank: int):
        counts = np.bincount(cell, minlength=xc.shape[0]).astype(float)
        sums = np.bincount(cell, weights=y, minlength=xc.shape[0])
        root = np.sqrt(counts)
        u, sv, vt = np.linalg.svd(xc * root[:, None], full_matrices=False)
        inv = np.zeros_like(sv)
        keep = sv > 1e-15 * sv.max()
        inv[keep] = 1.0 / sv[keep]
        pinv = (vt.T * inv) @ u.T
        self.params = pinv @ (sums / root)
        self.normalized_cov_params = pinv @ pinv.T
        self.fitted = (xc @ self.params)[cell]
        resid = y - self.fitted
        self.ssr = np.float64(resid @ resid)
        mean = y.mean()
        centered = y - mean
        self.centered_tss = np.float64(centered @ centered)
        # the explained sum of squares from the fitted values: statsmodels' centered_tss - ssr
        # (equal with an intercept) cancels to ~1e-9 relative when the groups explain little
        explained = self.fitted - mean
        self.ess = np.float64(explained @ explained)
        self.nobs = np.float64(y.shape[0])
        self.df_model = float(rank - 1)
        self.df_resid = self.nobs - rank

    @property
    def _bse(self) -> np.ndarray:
        return np.sqrt(np.diag(self.normalized_cov_params) * (self.ssr / self.df_resid))

    @property
    def pvalues(self) -> np.ndarray:
        return stats.t.sf(np.abs(self.params / self._bse), self.df_resid) * 2

    def conf_int(self, alpha: float = 0.05) -> np.ndarray:
        q = stats.t.ppf(1 - alpha / 2, self.df_resid)
        bse = self._bse
        return np.column_stack([self.params - q * bse, self.params + q * bse])

    @property
    def rsquared_adj(self) -> float:
        # statsmodels' 1 - (nobs - 1) / df_resid * (1 - rsquared), rearranged with ctss = ess + ssr
        # so that no two numbers close to 1 are subtracted
        return (self.ess - self.df_model / self.df_resid * self.ssr) / self.centered_tss

    @property
    def f_pvalue(self) -> float:
        if self.df_model == 0:
            return math.nan
        fvalue = (self.ess / self.df_model) / (self.ssr / self.df_resid)
        return float(stats.f.sf(fvalue, self.df_model, self.df_resid))

    def compare_f_test(self, restricted: Any) -> tuple[float, float, float]:
        df_diff = restricted.df_resid - self.df_resid
        if isinstance(restricted, _CellFit):  # nested: ssr_restricted - ssr = |fitted - fitted_restricted|^2
            gap = self.fitted - restricted.fitted
            f_value = float(gap @ gap) / df_diff / self.ssr * self.df_resid
        else:
            f_value = (restricted.ssr - self.ssr) / df_diff / self.ssr * self.df_resid
        return f_value, float(stats.f.sf(f_value, df_diff, self.df_resid)), df_diff


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


def _estimates(fit, ok: np.ndarray, names: list[str]) -> dict[str, dict[str, float]]:
    n_rows = len(names)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        params = np.asarray(fit.params, dtype=float)
        pvalues = np.asarray(fit.pvalues, dtype=float)
        ci = np.asarray(fit.conf_int(0.05), dtype=float)
    out: dict[str, dict[str, float]] = {}
    for j in range(n_rows):
        if ok[j]:
            row = (params[j], pvalues[j], ci[j, 0], ci[j, 1])
        else:  # confounded with the other predictors: no estimate exists
            row = (math.nan, math.nan, math.nan, math.nan)
        out[names[j]] = dict(zip(ESTIMATE_COLUMNS, (float(v) for v in row)))
    return out


def _cell_design(codes: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """The distinct design rows of an intercept plus indicators of every level but the first of
    each coded factor, each sample's row among them, and the design's rank.

    The rank is exact: indicators of two factors are collinear exactly when the graph linking
    the levels that occur together falls apart (rank = levels - components + 1).
    """
    combined = codes[0].astype(np.int64)
    for c, k in zip(codes[1:], sizes[1:]):
        combined = combined * k + c
    total = math.prod(sizes)
    present = np.flatnonzero(np.bincount(combined, minlength=total))
    index = np.full(total, -1, dtype=np.int64)
    index[present] = np.arange(present.size)
    parts, rest = [np.ones((present.size, 1))], present
    levels = []
    for k in reversed(sizes):
        levels.append(rest % k)
        rest = rest // k
    levels.reverse()
    for lv, k in zip(levels, sizes):
        parts.append(np.eye(k)[lv, 1:])
    rank = 1 + sum(k - 1 for k in sizes)
    if len(sizes) == 2:  # connected components of the bipartite graph groups - scores
        parent = list(range(sizes[0] + sizes[1]))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, b in zip(levels[0].tolist(), (levels[1] + sizes[0]).tolist()):
            parent[root(a)] = root(b)
        rank -= len({root(i) for i in range(len(parent))}) - 1
    return np.hstack(parts), index[combined], rank


def _ols(y: np.ndarray, codes: list[np.ndarray], sizes: list[int], x: Callable[[], np.ndarray]) -> tuple[Any, np.ndarray]:
    """The fit of ``y`` on the indicator design of ``codes`` and which coefficients exist.

    Exact and fast from the cells (:class:`_CellFit`) when the design has full rank, more rows
    than parameters and a residual that is not vanishing against ``y`` (or ``y`` is exactly
    0); otherwise statsmodels on the full design matrix ``x()``, as before.
    """
    xc, cell, rank = _cell_design(codes, sizes)
    p = xc.shape[1]
    if rank == p and y.shape[0] > rank:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            fit = _CellFit(y, cell, xc, rank)
        yy = float(y @ y)
        if yy == 0 or fit.ssr > 1e-10 * yy:
            return fit, np.ones(p, dtype=bool)
    full = x()
    return _fit(y, full), _identifiable(full, p)


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


def fairness_by_codes(h: np.ndarray, m: np.ndarray, coded: tuple[np.ndarray, list], *, name: str) -> dict[str, Any]:
    """:func:`fairness_analyses` of checked scores and groups already coded by
    :func:`core.rsm.checks.group_codes` (what :func:`core.rsm.report.evaluation_report` has)."""
    with one_blas_thread():
        return _fairness_analyses(h, m, None, base_group=None, name=name, coded=coded)


def _fairness_analyses(y_true, y_pred, groups, *, base_group, name, coded=None) -> dict[str, Any]:
    h, m = check_pair(y_true, y_pred)
    if coded is None:
        coded = group_codes(check_groups(groups, h.shape[0], name=name))
    gcodes, levels = coded[0], list(coded[1])
    check_level_count(levels, name)
    if len(levels) < 2:
        only = levels[0] if levels else None
        raise DataError(
            f"{name}: a single group ({only!r}); the fairness analyses need at least two groups"
        )
    if base_group is not None:
        if base_group not in levels:
            raise DataError(f"{name}: reference group {base_group!r} does not occur")
        first = levels.index(base_group)
        levels.insert(0, levels.pop(first))
        gcodes = np.where(gcodes == first, 0, gcodes + (gcodes < first))
    base = levels[0]
    texts = [str(level) for level in levels]
    if len(set(texts)) != len(texts):
        raise DataError(f"{name}: two different group labels print the same ({', '.join(texts)})")

    error = m - h
    squared = error**2
    scodes, score_levels = group_codes(h)  # most frequent human score first, ties by value
    k_g, k_s = len(levels), len(score_levels)

    n = h.shape[0]
    names = [f"Intercept ({base})"] + texts[1:]

    def indicators(codes: np.ndarray, k: int) -> np.ndarray:
        return (codes[:, None] == np.arange(1, k)).astype(float)

    def x_group() -> np.ndarray:
        return np.hstack([np.ones((n, 1)), indicators(gcodes, k_g)])

    def summary(fit, ok) -> dict[str, Any]:
        return {"R2": _r2_adj(fit), "sig": _f_pvalue(fit), "estimates": _estimates(fit, ok, names), "note": None}

    result: dict[str, Any] = {
        "base_category": base,
        "groups": list(levels),
        "osa": summary(*_ols(squared, [gcodes], [k_g], x_group)),
        "osd": summary(*_ols(error, [gcodes], [k_g], x_group)),
    }
    if k_s > MAX_SCORE_LEVELS:
        nan_row = dict.fromkeys(ESTIMATE_COLUMNS, math.nan)
        result["csd"] = {
            "R2": math.nan,
            "sig": math.nan,
            "estimates": {k: dict(nan_row) for k in names},
            "note": (
                f"not computed: the human scores take {k_s} distinct values and the "
                f"conditional analysis treats them as categories (at most {MAX_SCORE_LEVELS})"
            ),
        }
        return result
    csd_null, _ = _ols(error, [scodes], [k_s], lambda: np.hstack([np.ones((n, 1)), indicators(scodes, k_s)]))
    csd, ok = _ols(error, [gcodes, scodes], [k_g, k_s], lambda: np.hstack([x_group(), indicators(scodes, k_s)]))
    result["csd"] = {
        "R2": _r2_adj(csd) - _r2_adj(csd_null),
        "sig": _compare_pvalue(csd, csd_null),
        "estimates": _estimates(csd, ok, names),
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
    """Codes of labels in the order :func:`core.assignment.reliability.classification_scores` sorts them
    (by type name, then value), and the sorted labels."""
    codes, uniques = pd.factorize(values)
    classes = sorted(uniques.tolist(), key=lambda v: (str(type(v)), v))
    rank = np.empty(len(uniques), dtype=np.int64)
    position = {v: i for i, v in enumerate(classes)}
    for i, v in enumerate(uniques.tolist()):
        rank[i] = position[v]
    return rank[codes], classes


def _scores_cm(cm: np.ndarray) -> dict[str, float]:
    """:func:`core.assignment.reliability.classification_scores` of one confusion matrix (gold in rows)
    over the classes that occur in it (as it counts them)."""
    from core.assignment import RELIABILITY_KEYS, scores_from_confusion

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
        One row per group (by label: :func:`core.rsm.checks.by_label`, the agreement report's
        order), columns :data:`ASSIGNMENT_GROUP_COLUMNS`:
        ``N``, ``n_human``, ``human_ratio`` (``n_human / N``), ``time_cost`` (the group's effort
        sent to humans over the group's total effort; NaN when that total is 0), ``accuracy`` and
        ``f1`` (macro, over the classes occurring in the group) of the collaborative labels
        against gold, and ``machine_accuracy`` (the machine alone, same group).
    """
    from core.assignment import classification_scores, collaborative_labels

    hum = np.asarray(human)
    if hum.ndim != 1 or not (hum.dtype == bool or np.isin(hum, [0, 1]).all()):
        raise DataError("human: expected a 1-D boolean array (True = sent to a human)")
    hum = hum.astype(bool)
    n = hum.shape[0]
    g = check_groups(groups, n)

    def labels(values: npt.ArrayLike) -> np.ndarray:  # numbers stay numbers (no object copy)
        arr = np.asarray(values)
        return arr if arr.dtype.kind in "iuf" else np.asarray(values, dtype=object)

    ml = labels(machine_label)
    if ml.shape != (n,):
        raise DataError(f"machine_label: expected {n} labels, got shape {ml.shape}")
    gold = None if human_label is None else labels(human_label)
    if gold is not None and gold.shape != (n,):
        raise DataError(f"human_label: expected {n} labels, got shape {gold.shape}")
    effort = None
    if human_effort is not None:
        effort = np.asarray(human_effort, dtype=float)
        if effort.shape != (n,):
            raise DataError(f"human_effort: expected {n} values, got shape {effort.shape}")
    fast = gold is not None and not (pd.isna(gold).any() or pd.isna(ml).any())
    if gold is not None and not fast:  # missing labels: classification_scores names them
        gold, ml = np.asarray(gold, dtype=object), np.asarray(ml, dtype=object)
    final = None if gold is None or fast else collaborative_labels(ml, gold, hum)
    gcodes, levels = group_codes(g)
    check_level_count(levels, "groups")
    k = len(levels)
    sizes = np.bincount(gcodes, minlength=k)
    humans = np.bincount(gcodes[hum], minlength=k)
    if fast:  # labels coded once; every group's confusion counted in one pass
        # (coded from the arrays as given: numbers are factorised as numbers, much faster)
        numeric = gold.dtype.kind in "iuf" and ml.dtype.kind in "iuf"
        codes, classes = _label_codes(np.concatenate([gold, ml] if numeric else
                                                     [np.asarray(gold, dtype=object), np.asarray(ml, dtype=object)]))
        t, m = codes[:n], codes[n:]
        c = len(classes)
        cell = gcodes * (c * c) + t * c
        cm_final = np.bincount(cell + np.where(hum, t, m), minlength=k * c * c).reshape(k, c, c)
        cm_machine = np.bincount(cell + m, minlength=k * c * c).reshape(k, c, c)
    rows = {}
    for j, label in enumerate(levels):
        mask = gcodes == j if effort is not None or not fast else None
        size = int(sizes[j])
        row: dict[str, Any] = {"N": size, "n_human": int(humans[j])}
        row["human_ratio"] = row["n_human"] / size
        if effort is None:
            row["time_cost"] = None
        else:
            total = float(effort[mask].sum())
            row["time_cost"] = float(effort[mask & hum].sum()) / total if total > 0 else math.nan
        if gold is None:
            row["accuracy"] = row["f1"] = row["machine_accuracy"] = None
        elif fast:
            collab = _scores_cm(cm_final[j])
            row["accuracy"] = collab["accuracy"]
            row["f1"] = collab["f1"]
            row["machine_accuracy"] = _scores_cm(cm_machine[j])["accuracy"]
        else:  # missing labels: classification_scores names them
            collab = classification_scores(gold[mask], final[mask])
            row["accuracy"] = collab["accuracy"]
            row["f1"] = collab["f1"]
            row["machine_accuracy"] = classification_scores(gold[mask], ml[mask])["accuracy"]
        rows[label] = row
    rows = {label: rows[label] for label in by_label(rows)}  # the report's and rsmeval's order
    index = pd.Index(list(rows), dtype=object, name="group")
    return pd.DataFrame(
        {c: pd.Series([rows[k][c] for k in rows], index=index, dtype=object if c in ("time_cost", "accuracy", "f1", "machine_accuracy") else None) for c in ASSIGNMENT_GROUP_COLUMNS},
        index=index,
    )
