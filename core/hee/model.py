"""The random-forest effort model: cross-validation, train/test split, and the whole estimate."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from core.defaults import HEE_FOLDS
from core.errors import DataError, describe_rows
from core.hee.columns import (
    DEFAULT_MAX_FEATURES, DEFAULT_N_ESTIMATORS, DEFAULT_RANDOM_STATE, ID_ALIASES, MAX_TURNS,
    OPTIONAL_FEATURES, check_feature_range, detect_column, detect_feature_columns, numeric_matrix,
    resolve_feature_set,
)
from core.hee.metrics import METRIC_NAMES, feature_correlations, minmax_normalise, regression_metrics


@dataclass(frozen=True)
class EffortResult:
    """Result of the effort model (cross-validation or train/test split); frozen: built whole
    by :func:`cross_validate_effort`, :func:`split_effort` or :func:`estimate_effort`.

    Attributes
    ----------
    feature_set : str
        Name of the feature set.
    features : list of str
        Feature columns used.
    labels : list of str
        Their display names.
    mode : {"cv", "split"}
    folds : pandas.DataFrame
        One row per fold (``fold``, ``n_train``, ``n_test``, ``mse``, ``rmse``, ``mae``,
        ``r2``); a single row ``fold = 1`` in split mode. Metrics on the normalised time.
    metrics : dict
        Mean of each metric over the folds.
    predictions : pandas.DataFrame of shape (n, ...)
        One row per input row, in input order: ``row`` (0-based position), ``fold`` (the fold
        that held the row out; NA for training rows in split mode), ``subset``
        (``"test"`` when the row has an out-of-sample prediction, ``"train"`` otherwise),
        ``time`` (seconds), ``time_norm``, ``predicted_norm`` (NaN for training rows in split
        mode) and ``predicted_time`` (back in seconds).
    time_min, time_max : float
        Normalisation range of the time (whole table).
    params : dict
        Model settings used (n_estimators, max_features, random_state, n_splits, ...).
    importances : pandas.DataFrame or None
        ``feature``, ``label``, ``impurity`` (mean over fold models), ``permutation``,
        ``permutation_std`` (decrease of R2 on the held-out rows, mean and standard deviation
        over folds x repeats; NaN when not computed).
    correlations : pandas.DataFrame or None
        :func:`feature_correlations` of the features with the real time over all rows.
    notices : list of str
    """

    feature_set: str
    features: list[str]
    labels: list[str]
    mode: str
    folds: pd.DataFrame
    metrics: dict[str, float]
    predictions: pd.DataFrame
    time_min: float
    time_max: float
    params: dict[str, Any]
    importances: pd.DataFrame | None = None
    correlations: pd.DataFrame | None = None
    notices: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        corr = {}
        if self.correlations is not None:
            for r in self.correlations.itertuples(index=False):
                corr[str(r.feature)] = {"pearson": r.pearson, "pearson_p": r.pearson_p,
                                        "spearman": r.spearman, "spearman_p": r.spearman_p}
        out: dict[str, Any] = {
            "feature_set": self.feature_set,
            "features": list(self.features),
            "mode": self.mode,
            **{k: self.metrics[k] for k in METRIC_NAMES},
            "folds": self.folds.to_dict(orient="records"),
            "correlations": corr,
            "params": dict(self.params),
            "time_min": self.time_min,
            "time_max": self.time_max,
            "notices": list(self.notices),
        }
        if self.importances is not None:
            out["importances"] = self.importances.to_dict(orient="records")
        return out


def _resolve_max_features(max_features: int | float | None, n_features: int) -> int | float:
    if max_features is None:
        return min(DEFAULT_MAX_FEATURES, n_features)
    if isinstance(max_features, bool):
        raise DataError("max_features must be a number")
    if isinstance(max_features, (int, np.integer)):
        if not 1 <= int(max_features) <= n_features:
            raise DataError(f"max_features={int(max_features)} but the feature set has "
                            f"{n_features} feature(s): choose 1..{n_features}")
        return int(max_features)
    mf = float(max_features)
    if not 0.0 < mf <= 1.0:
        raise DataError(f"max_features={max_features!r}: a fraction must be in (0, 1]")
    return mf


def _forest(n_estimators: int, max_features: int | float, random_state: int | None,
            n_jobs: int | None):
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=int(n_estimators), max_features=max_features,
                                 random_state=random_state, n_jobs=n_jobs)


#: Bounds of the forest's settings (app and CLI alike), kept in core.defaults: the seed is
#: NumPy's 32-bit seed range.
from core.defaults import MAX_JOBS, MAX_PERMUTATION_REPEATS, MAX_TREES, SEED_MAX  # noqa: E402


def check_model_settings(*, n_estimators: Any, random_state: Any, n_jobs: Any,
                         permutation_repeats: Any) -> None:
    """Refuse forest settings outside their bounds, naming the setting.

    Trees 1 to :data:`MAX_TREES`; seed None or 0 to :data:`SEED_MAX`; parallel jobs None, -1
    (every processor) or 1 to :data:`MAX_JOBS`; permutation repeats 0 to
    :data:`MAX_PERMUTATION_REPEATS`.

    Raises
    ------
    DataError
    """
    def whole(v: Any) -> bool:
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

    checks = [
        ("number of trees", n_estimators, whole(n_estimators) and 1 <= n_estimators <= MAX_TREES,
         f"a whole number from 1 to {MAX_TREES:,}"),
        ("seed", random_state, random_state is None or (whole(random_state) and 0 <= random_state <= SEED_MAX),
         f"a whole number from 0 to {SEED_MAX:,}"),
        ("parallel jobs", n_jobs, n_jobs is None or (whole(n_jobs) and (n_jobs == -1 or 1 <= n_jobs <= MAX_JOBS)),
         f"-1 (every processor) or a whole number from 1 to {MAX_JOBS}"),
        ("permutation-importance repeats", permutation_repeats,
         whole(permutation_repeats) and 0 <= permutation_repeats <= MAX_PERMUTATION_REPEATS,
         f"a whole number from 0 to {MAX_PERMUTATION_REPEATS:,}"),
    ]
    for name, value, ok, rule in checks:
        if not ok:
            raise DataError(f"the {name} must be {rule}, got {value!r}")


def _check_xy(X: np.ndarray, y: np.ndarray) -> None:
    if X.ndim != 2 or X.shape[1] == 0:
        raise DataError("no feature column chosen")
    if len(X) != len(y):
        raise DataError(f"the features have {len(X)} rows but the time has {len(y)} values")
    bad = np.flatnonzero(y < 0)
    if len(bad):
        raise DataError(f"the annotation time must be >= 0; {describe_rows(bad)} are negative")


def _permutation(model, X: np.ndarray, y: np.ndarray, repeats: int, seed: int | None) -> np.ndarray:
    """scikit-learn's ``permutation_importance(model, X, y, n_repeats=repeats,
    random_state=seed, scoring="r2").importances``, the same numbers computed with one
    prediction of every permuted copy stacked, instead of one per copy.

    Same permutations (its seed drawn from ``seed``, each column shuffled ``repeats`` times in
    a row by one generator started from it) and the same R² per copy; a forest predicts each
    row alone, so stacking changes nothing. One call instead of features x repeats: on the
    demo's folds the forest's per-call cost was most of the Effort page's first visit
    (issue 33: 110 calls, about 9 s on 2 cores).
    """
    from sklearn.metrics import r2_score
    from sklearn.utils import check_random_state

    # Single-threaded: the forest's predict parallelises with threads, which costs more than
    # it saves on held-out folds of this size.
    model.set_params(n_jobs=None)
    X = np.asarray(X, dtype=float)
    repeats = int(repeats)
    n, p = X.shape
    random_seed = check_random_state(seed).randint(np.iinfo(np.int32).max + 1)
    baseline = r2_score(y, model.predict(X))
    scores = np.empty((p, repeats))
    # the copies of a few columns at a time: about _PERMUTED_ROWS rows a prediction
    per_call = max(1, _PERMUTED_ROWS // max(1, n * repeats))
    for first in range(0, p, per_call):
        cols = range(first, min(p, first + per_call))
        copies = np.empty((len(cols), repeats, n, p))
        for i, col in enumerate(cols):
            rng = check_random_state(random_seed)  # a generator per column, from the one seed
            permuted = X.copy()
            order = np.arange(n)
            for r in range(repeats):
                rng.shuffle(order)
                permuted[:, col] = permuted[order, col]
                copies[i, r] = permuted
        pred = model.predict(copies.reshape(-1, p)).reshape(len(cols), repeats, n)
        for i, col in enumerate(cols):
            scores[col] = [r2_score(y, q) for q in pred[i]]
    return baseline - scores  # (n_features, repeats)


#: Rows of permuted copies predicted in one call by :func:`_permutation` (memory: 8 bytes x
#: features per row).
_PERMUTED_ROWS = 200_000


def _importance_frame(features, labels, impurity, perms) -> pd.DataFrame:
    imp = np.mean(np.vstack(impurity), axis=0)
    if perms:
        allp = np.concatenate(perms, axis=1)
        pm, ps = allp.mean(axis=1), allp.std(axis=1, ddof=0)
    else:
        pm = ps = np.full(len(features), np.nan)
    return pd.DataFrame({"feature": list(features), "label": list(labels), "impurity": imp,
                         "permutation": pm, "permutation_std": ps})


def _run(X: np.ndarray, time: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], *,
         mode: str, features: Sequence[str], labels: Sequence[str], feature_set: str,
         n_estimators: int, max_features: int | float | None, random_state: int | None,
         n_jobs: int | None, permutation_repeats: int, extra_params: dict[str, Any]) -> EffortResult:
    yn, lo, hi = minmax_normalise(time)
    mf = _resolve_max_features(max_features, X.shape[1])
    n = len(X)
    pred = np.full(n, np.nan)
    fold_of = pd.array([pd.NA] * n, dtype="Int64")
    rows, impurity, perms = [], [], []
    for k, (tr, te) in enumerate(splits, start=1):
        model = _forest(n_estimators, mf, random_state, n_jobs)
        model.fit(X[tr], yn[tr])
        p = model.predict(X[te])
        pred[te] = p
        fold_of[te] = k
        m = regression_metrics(yn[te], p)
        rows.append({"fold": k, "n_train": int(len(tr)), "n_test": int(len(te)), **m})
        impurity.append(model.feature_importances_)
        if permutation_repeats and permutation_repeats > 0 and len(te) >= 2:
            perms.append(_permutation(model, X[te], yn[te], permutation_repeats, random_state))
    folds = pd.DataFrame(rows, columns=["fold", "n_train", "n_test", *METRIC_NAMES])
    metrics = {k: float(folds[k].mean(skipna=False)) for k in METRIC_NAMES}
    tested = ~np.isnan(pred)
    predictions = pd.DataFrame({
        "row": np.arange(n),
        "fold": fold_of,
        "subset": np.where(tested, "test", "train"),
        "time": time,
        "time_norm": yn,
        "predicted_norm": pred,
        "predicted_time": pred * (hi - lo) + lo,
    })
    params = {"n_estimators": int(n_estimators), "max_features": mf,
              "random_state": random_state, "target": "min-max normalised time (whole table)",
              **extra_params}
    return EffortResult(
        feature_set=feature_set, features=list(features), labels=list(labels), mode=mode,
        folds=folds, metrics=metrics, predictions=predictions, time_min=lo, time_max=hi,
        params=params,
        importances=_importance_frame(features, labels, impurity, perms),
    )


def _as_xy(X, time, features):
    if isinstance(X, pd.DataFrame):
        feats = list(features) if features is not None else [str(c) for c in X.columns]
        Xa = numeric_matrix(X, list(X.columns))
    else:
        Xa = np.asarray(X, dtype=float)
        if Xa.ndim != 2:
            raise DataError("X must be a 2-D table of features")
        if not np.all(np.isfinite(Xa)):
            raise DataError("the features hold missing or infinite values")
        feats = list(features) if features is not None else [f"x{j}" for j in range(Xa.shape[1])]
    if Xa.ndim == 2 and len(feats) == Xa.shape[1]:
        check_feature_range(Xa, feats)
    ta = np.asarray(time, dtype=float).ravel()
    return Xa, ta, feats


def cross_validate_effort(
    X: pd.DataFrame | np.ndarray,
    time: Sequence[float] | np.ndarray,
    *,
    n_splits: int = HEE_FOLDS,
    shuffle: bool = True,
    random_state: int | None = DEFAULT_RANDOM_STATE,
    n_estimators: int = DEFAULT_N_ESTIMATORS,
    max_features: int | float | None = None,
    n_jobs: int | None = None,
    permutation_repeats: int = 0,
    features: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    feature_set: str = "custom",
) -> EffortResult:
    """k-fold cross-validation of the random-forest effort model.

    Parameters
    ----------
    X : DataFrame or array of shape (n_dialogues, n_features)
    time : array-like of shape (n_dialogues,)
        Annotation time per dialogue (seconds, >= 0); min-max normalised over all rows.
    n_splits : int, default=5
    shuffle : bool, default=True
        Shuffle before splitting (``KFold(shuffle=True, random_state=random_state)``).
    random_state : int or None, default=397
        Seeds both the fold shuffling and the forest (the authors' seed).
    n_estimators : int, default=100
    max_features : int, float or None
        Features considered per split; ``None``: 8, or all features when fewer than 8.
    n_jobs : int, optional
        Parallel trees (results do not depend on it).
    permutation_repeats : int, default=0
        Repeats of the permutation importance on each held-out fold (0: not computed).
    features, labels : sequence of str, optional
        Feature names and display names (default: the DataFrame's columns).
    feature_set : str
        Name stored in the result.

    Returns
    -------
    EffortResult
    """
    from sklearn.model_selection import KFold

    check_model_settings(n_estimators=n_estimators, random_state=random_state, n_jobs=n_jobs,
                         permutation_repeats=permutation_repeats)
    Xa, ta, feats = _as_xy(X, time, features)
    _check_xy(Xa, ta)
    n_splits = int(n_splits)
    if n_splits < 2:
        raise DataError(f"Folds (the number of cross-validation folds) must be at least 2, got {n_splits}")
    if n_splits > len(Xa):
        raise DataError(f"{n_splits}-fold cross-validation needs at least {n_splits} dialogues; "
                        f"the table has {len(Xa)}")
    kf = KFold(n_splits=n_splits, shuffle=bool(shuffle),
               random_state=random_state if shuffle else None)
    splits = list(kf.split(Xa))
    res = _run(Xa, ta, splits, mode="cv", features=feats,
               labels=list(labels) if labels is not None else feats, feature_set=feature_set,
               n_estimators=n_estimators, max_features=max_features, random_state=random_state,
               n_jobs=n_jobs, permutation_repeats=permutation_repeats,
               extra_params={"n_splits": n_splits, "shuffle": bool(shuffle)})
    return res


def split_effort(
    X: pd.DataFrame | np.ndarray,
    time: Sequence[float] | np.ndarray,
    split: Sequence[Any] | np.ndarray,
    *,
    train_label: Any = "train",
    test_label: Any = "test",
    random_state: int | None = DEFAULT_RANDOM_STATE,
    n_estimators: int = DEFAULT_N_ESTIMATORS,
    max_features: int | float | None = None,
    n_jobs: int | None = None,
    permutation_repeats: int = 0,
    features: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    feature_set: str = "custom",
    split_name: str = "split",
) -> EffortResult:
    """Train on the rows labelled ``train_label``, evaluate on ``test_label``.

    Parameters
    ----------
    split : array-like of shape (n_dialogues,)
        Subset of each row; every value must be ``train_label`` or ``test_label``.

    Other parameters as :func:`cross_validate_effort`. The time is min-max normalised over all
    rows (train and test), as in the authors' scripts.

    Returns
    -------
    EffortResult
        One fold; ``predictions.predicted_norm`` is NaN for training rows.
    """
    check_model_settings(n_estimators=n_estimators, random_state=random_state, n_jobs=n_jobs,
                         permutation_repeats=permutation_repeats)
    Xa, ta, feats = _as_xy(X, time, features)
    _check_xy(Xa, ta)
    s = pd.Series(np.asarray(split, dtype=object))
    if len(s) != len(Xa):
        raise DataError(f"the split column has {len(s)} values for {len(Xa)} rows")
    key = s.map(lambda v: str(v).strip() if v is not None and not (isinstance(v, float) and math.isnan(v)) else None)
    tr_l, te_l = str(train_label), str(test_label)
    bad = np.flatnonzero(~key.isin([tr_l, te_l]).to_numpy())
    if len(bad):
        raise DataError(f"column '{split_name}' must hold only {tr_l!r} or {te_l!r}; "
                        f"{describe_rows(bad)} hold {s.iloc[bad[0]]!r}")
    tr = np.flatnonzero((key == tr_l).to_numpy())
    te = np.flatnonzero((key == te_l).to_numpy())
    if len(tr) < 2:
        raise DataError(f"column '{split_name}' has {len(tr)} {tr_l!r} row(s): at least 2 are needed")
    if len(te) < 1:
        raise DataError(f"column '{split_name}' has no {te_l!r} row")
    return _run(Xa, ta, [(tr, te)], mode="split", features=feats,
                labels=list(labels) if labels is not None else feats, feature_set=feature_set,
                n_estimators=n_estimators, max_features=max_features, random_state=random_state,
                n_jobs=n_jobs, permutation_repeats=permutation_repeats,
                extra_params={"split_column": split_name, "train_label": tr_l, "test_label": te_l})


def estimate_effort(
    df: pd.DataFrame,
    *,
    time_col: str,
    features: str | Sequence[str] = "D",
    n_splits: int = HEE_FOLDS,
    split_col: str | None = None,
    train_label: str = "train",
    test_label: str = "test",
    id_col: str | None = None,
    turns_col: str | None = None,
    mapping: dict[str, str] | None = None,
    optional_features: Sequence[str] = OPTIONAL_FEATURES,
    random_state: int | None = DEFAULT_RANDOM_STATE,
    n_estimators: int = DEFAULT_N_ESTIMATORS,
    max_features: int | float | None = None,
    n_jobs: int | None = None,
    permutation_repeats: int = 0,
) -> EffortResult:
    """The whole HEE analysis on a per-dialogue table (what the CLI and the Effort page run).

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_dialogues, n_columns)
        One row per dialogue with feature columns and the annotation time.
    time_col : str
        Annotation time (seconds).
    features : str or sequence of str, default="D"
        ``"D"``, ``"D+W"``, ``"W"`` or feature columns (see :func:`resolve_feature_set`).
    n_splits : int, default=5
        Folds of the shuffled cross-validation (ignored when ``split_col`` is given).
    split_col : str, optional
        Use the train/test split of this column instead of cross-validation.
    id_col : str, optional
        Dialogue id (detected by name, e.g. ``dialogue_id`` or the release's ``Number``; row
        number 1..n otherwise).
    turns_col : str, optional
        Number of turns (detected as the ``total_turns`` feature); needed for the per-sample
        effort.
    mapping : dict, optional
        canonical feature -> column, overriding detection.
    optional_features : sequence of str, default=("perplexity",)
        Features a group (D, W) may lack; each one skipped is named in ``notices``.

    Other parameters as :func:`cross_validate_effort`.

    Returns
    -------
    EffortResult
        ``predictions`` gains ``dialogue_id`` and, when the number of turns is known,
        ``n_turns``, ``human_effort`` (time_norm / n_turns) and ``predicted_effort``
        (predicted_norm / n_turns); ``correlations`` is filled.
    """
    if df is None or len(df) == 0:
        raise DataError("the table has no rows")
    df = df.reset_index(drop=True)
    if time_col not in df.columns:
        raise DataError(f"time column {time_col!r} is not in the table; available: "
                        f"{', '.join(map(str, df.columns))}")
    fs = resolve_feature_set(features, df.columns, mapping=mapping, optional=optional_features)
    if time_col in fs.columns:
        raise DataError(f"the time column {time_col!r} cannot also be a feature")
    for c in (split_col, id_col):
        if c is not None and c in fs.columns:
            raise DataError(f"column {c!r} cannot be both a feature and the split/id column")
    X = numeric_matrix(df, fs.columns)
    time = numeric_matrix(df, [time_col], what="time")[:, 0]
    common = dict(random_state=random_state, n_estimators=n_estimators, max_features=max_features,
                  n_jobs=n_jobs, permutation_repeats=permutation_repeats, features=fs.columns,
                  labels=fs.labels, feature_set=fs.name)
    if split_col is not None:
        if split_col not in df.columns:
            raise DataError(f"split column {split_col!r} is not in the table; available: "
                            f"{', '.join(map(str, df.columns))}")
        res = split_effort(X, time, df[split_col].to_numpy(), train_label=train_label,
                           test_label=test_label, split_name=split_col, **common)
    else:
        res = cross_validate_effort(X, time, n_splits=n_splits, **common)
    notices = list(fs.notices)
    correlations = feature_correlations(pd.DataFrame(X, columns=fs.columns), time, labels=fs.labels)
    predictions, params = res.predictions.copy(), dict(res.params)
    # ids and turns
    if id_col is None:
        id_col = detect_column(df.columns, ID_ALIASES)
    if id_col is not None:
        if id_col not in df.columns:
            raise DataError(f"dialogue id column {id_col!r} is not in the table")
        ids = df[id_col]
        miss = np.flatnonzero(ids.isna().to_numpy())
        if len(miss):
            raise DataError(f"column {id_col!r} (dialogue id) has missing values in {describe_rows(miss)}")
        dup = np.flatnonzero(ids.duplicated().to_numpy())
        if len(dup):
            raise DataError(f"column {id_col!r} (dialogue id) repeats ids in {describe_rows(dup)}: "
                            "the effort table needs one row per dialogue")
        predictions.insert(1, "dialogue_id", ids.to_numpy())
        params["id_column"] = id_col
    else:
        predictions.insert(1, "dialogue_id", np.arange(1, len(df) + 1))
        notices.append("no dialogue id column: dialogues are numbered by row (1..n)")
    if turns_col is None:
        turns_col = (mapping or {}).get("total_turns") or detect_feature_columns(df.columns).get("total_turns")
    if turns_col is not None:
        nt = numeric_matrix(df, [turns_col], what="number-of-turns")[:, 0]
        bad = np.flatnonzero((nt < 1) | (nt > MAX_TURNS) | (nt != np.round(nt)))
        if len(bad):
            raise DataError(f"column {turns_col!r} (number of turns) must hold whole numbers >= 1 and "
                            f"<= {MAX_TURNS}; {describe_rows(bad)} do not (first value {nt[bad[0]]:g})")
        pr = predictions
        pr["n_turns"] = nt.astype(int)
        pr["human_effort"] = pr["time_norm"] / nt
        pr["predicted_effort"] = pr["predicted_norm"] / nt
        params["turns_column"] = turns_col
    else:
        notices.append("no number-of-turns column: the per-sample effort (time per turn) "
                       "is unavailable")
    params["time_column"] = time_col
    params["n_dialogues"] = int(len(df))
    return replace(res, predictions=predictions, params=params, correlations=correlations, notices=notices)
