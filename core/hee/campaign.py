"""The effort model refitted on a campaign's own times.

An evaluation round records how long each label took (Label Studio's ``lead_time``, a label
table's ``seconds`` column: :mod:`core.evaluation.labels.votes`). :func:`refit_campaign_effort` takes a
dataset (:class:`core.data.EvalData`) and those times and

1. gives each labelled sample its time: the median over its annotators' seconds
   (:func:`campaign_seconds`; labels without a time are left out);
2. describes every sample by features the dataset has for all rows (:func:`campaign_features`):
   the prior predicted effort (the effort column the plan used), the machine's confidence and
   class, the turn and number of turns when known, the words and characters of each text
   column, and any numeric columns asked for;
3. fits the HEE random forest (:mod:`core.hee.model`'s settings: :data:`core.defaults.
   HEE_N_ESTIMATORS` trees, ``max_features`` :data:`core.defaults.HEE_MAX_FEATURES` or all
   features when fewer, seed :data:`core.defaults.HEE_RANDOM_STATE`) on the timed samples and
   predicts every sample's seconds: the next round's effort column;
4. measures, by shuffled k-fold cross-validation over the timed samples, how well the refit and
   the prior predict the held-out times: MAE and RMSE in seconds and Spearman's rank
   correlation. The prior effort is in its own unit (often a normalised time), so for MAE and
   RMSE it is first mapped to seconds by least squares (``a + b * prior``) on the same training
   folds, which gives the prior its best affine reading; Spearman needs no mapping.

The forest's target is the time in seconds; the HEE model min-max normalises its target, an
affine map that does not change a regression forest's splits, so the predictions are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.defaults import HEE_FOLDS, HEE_MAX_FEATURES, HEE_N_ESTIMATORS, HEE_RANDOM_STATE
from core.errors import DataError

__all__ = ["CAMPAIGN_COLUMN", "MIN_TIMED", "CampaignEffort", "campaign_seconds",
           "campaign_features", "refit_campaign_effort"]

#: The column the refitted effort is written to (its name says its unit: seconds).
CAMPAIGN_COLUMN = "campaign_predicted_seconds"
#: The fewest timed samples a refit takes.
MIN_TIMED = 10


def _key(v: Any) -> str:
    from core.data import label_key

    return label_key(v)


def campaign_seconds(times: pd.DataFrame, sample_ids: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Each sample's campaign time: the median of its annotators' seconds.

    Parameters
    ----------
    times : pandas.DataFrame
        ``sample_id`` and ``seconds`` (NaN: unknown, left out), one row per label (the votes of
        :mod:`core.evaluation.labels.votes`: ``OUT.labels.csv`` or a workspace round's).
    sample_ids : sequence, shape (M,)
        The dataset's sample ids.

    Returns
    -------
    seconds : numpy.ndarray of shape (M,)
        The median seconds, NaN for a sample without a timed label.
    n_timed : numpy.ndarray of shape (M,), int64
        The timed labels behind each median.

    Raises
    ------
    DataError
        A missing column, times negative or absurd (rows named), sample ids not in the dataset.
    """
    from core.evaluation.labels import check_seconds

    missing = [c for c in ("sample_id", "seconds") if c not in times.columns]
    if missing:
        raise DataError(f"the campaign times lack column {', '.join(missing)} (a labels file "
                        "written by hmceval labels or labelstudio pull: OUT.labels.csv)")
    secs = pd.to_numeric(times["seconds"], errors="coerce").to_numpy(dtype=float)
    text = times["seconds"].astype(str).str.strip()
    bad = np.flatnonzero(np.isnan(secs) & ~times["seconds"].isna().to_numpy()
                         & ~text.isin(["", "nan", "NaN", "None"]).to_numpy())
    if len(bad):
        raise DataError(f"column 'seconds' holds text in row {bad[0] + 2} "
                        f"({times['seconds'].iloc[bad[0]]!r}): times are seconds per label")
    check_seconds(secs, [f"row {i + 2} of the campaign times" for i in range(len(secs))])
    index = {_key(s): i for i, s in enumerate(sample_ids)}
    ids = [_key(s) for s in times["sample_id"]]
    unknown = sorted({s for s in ids if s not in index})
    if unknown:
        shown = ", ".join(f"'{s}'" for s in unknown[:5])
        raise DataError(f"{len(unknown)} sample ids of the campaign times are not in the "
                        f"dataset ({shown}{' …' if len(unknown) > 5 else ''}): the times belong "
                        "to another dataset")
    per: dict[int, list[float]] = {}
    for s, t in zip(ids, secs):
        if not np.isnan(t):
            per.setdefault(index[s], []).append(float(t))
    out = np.full(len(index), np.nan)
    n = np.zeros(len(index), dtype=np.int64)
    for i, ts in per.items():
        out[i] = float(np.median(ts))
        n[i] = len(ts)
    return out, n


def campaign_features(data: Any, *, extra: Sequence[str] = ()) -> pd.DataFrame:
    """The features of every sample the refit uses (see the module docstring).

    Parameters
    ----------
    data : core.data.EvalData
    extra : sequence of str
        Numeric columns of the dataset's table to use too.

    Returns
    -------
    pandas.DataFrame of shape (M, n_features)
        Finite numbers; constant columns are kept (the forest ignores them).
    """
    from core.validate import numeric_values

    f = data.frame
    cols: dict[str, np.ndarray] = {"prior_effort": f["predicted_effort"].to_numpy(dtype=float)}
    if "machine_confidence" in f.columns:
        cols["machine_confidence"] = f["machine_confidence"].to_numpy(dtype=float)
    code = {c: i for i, c in enumerate(data.labels)}
    cols["machine_class"] = np.array([code.get(v, -1) for v in f["machine_label"]], dtype=float)
    for c in ("turn", "n_turns"):
        if c in f.columns:
            v = pd.to_numeric(f[c], errors="coerce").to_numpy(dtype=float)
            if np.isfinite(v).all():
                cols[c] = v
    for t in data.text_columns:
        s = data.raw[t].fillna("").astype(str)
        cols[f"words_{t}"] = s.str.split().str.len().to_numpy(dtype=float)
        cols[f"chars_{t}"] = s.str.len().to_numpy(dtype=float)
    for c in extra:
        if c not in data.raw.columns:
            raise DataError(f"feature column {c!r} is not in the dataset; available: "
                            f"{', '.join(map(str, data.raw.columns))}")
        cols[str(c)] = numeric_values(data.raw[c], label=f"column {c!r}")
    return pd.DataFrame(cols)


@dataclass(frozen=True)
class CampaignEffort:
    """The effort refitted on a campaign's times (:func:`refit_campaign_effort`).

    Attributes
    ----------
    predicted : numpy.ndarray of shape (M,)
        Every sample's predicted seconds (the forest fitted on all timed samples).
    seconds : numpy.ndarray of shape (M,)
        The campaign's median seconds, NaN where untimed.
    n_timed : numpy.ndarray of shape (M,)
        Timed labels behind each median.
    features : list of str
    heldout : dict
        ``refit`` and ``prior``: ``mae``, ``rmse`` (seconds), ``spearman`` over the held-out
        folds; ``n_folds``, ``n_timed``.
    params : dict
    notices : list of str
    """

    predicted: np.ndarray
    seconds: np.ndarray
    n_timed: np.ndarray
    features: list[str]
    heldout: dict[str, Any]
    params: dict[str, Any]
    notices: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Plain dict for JSON output (no per-sample arrays)."""
        return {"column": CAMPAIGN_COLUMN, "n_samples": int(len(self.predicted)),
                "n_timed": int((self.n_timed > 0).sum()), "n_times": int(self.n_timed.sum()),
                "features": list(self.features), "heldout": self.heldout,
                "predicted_total_seconds": float(self.predicted.sum()),
                "params": self.params, "notices": list(self.notices)}


def _scores(y: np.ndarray, p: np.ndarray) -> dict[str, float | None]:
    from scipy.stats import spearmanr

    err = p - y
    rho = float(spearmanr(y, p).statistic) if np.ptp(p) > 0 and np.ptp(y) > 0 else None
    return {"mae": float(np.mean(np.abs(err))), "rmse": float(np.sqrt(np.mean(err ** 2))),
            "spearman": rho}


def _affine(x_tr: np.ndarray, y_tr: np.ndarray, x_te: np.ndarray) -> np.ndarray:
    if np.ptp(x_tr) == 0:
        return np.full(len(x_te), float(np.mean(y_tr)))
    b, a = np.polyfit(x_tr, y_tr, 1)
    return a + b * x_te


def refit_campaign_effort(data: Any, times: pd.DataFrame, *, extra_features: Sequence[str] = (),
                          n_splits: int = HEE_FOLDS, n_estimators: int = HEE_N_ESTIMATORS,
                          max_features: int | None = None,
                          random_state: int | None = HEE_RANDOM_STATE,
                          n_jobs: int | None = None) -> CampaignEffort:
    """Refit the effort model on a campaign's times (see the module docstring).

    Parameters
    ----------
    data : core.data.EvalData
        The dataset the next round is planned on.
    times : pandas.DataFrame
        ``sample_id``, ``seconds`` (one row per label; :func:`campaign_seconds`).
    extra_features : sequence of str
        Numeric columns of the dataset to use as features too.
    n_splits : int, default=5
        Folds of the held-out comparison (at most the number of timed samples).
    n_estimators, max_features, random_state, n_jobs
        The forest's settings (:func:`core.hee.model.cross_validate_effort`'s).

    Returns
    -------
    CampaignEffort

    Raises
    ------
    DataError
        Fewer than :data:`MIN_TIMED` timed samples, bad times or features, bad settings.
    """
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.model_selection import KFold

    from core.hee.model import check_model_settings

    check_model_settings(n_estimators=n_estimators, random_state=random_state, n_jobs=n_jobs,
                         permutation_repeats=0)
    ids = data.frame["sample_id"].to_numpy(dtype=object)
    seconds, n_timed = campaign_seconds(times, ids)
    timed = np.flatnonzero(n_timed > 0)
    if len(timed) < MIN_TIMED:
        raise DataError(f"only {len(timed)} labelled samples have a time: the refit needs at "
                        f"least {MIN_TIMED} (Label Studio's lead_time, or a 'seconds' column "
                        "in the label table)")
    n_splits = int(n_splits)
    if not 2 <= n_splits <= len(timed):
        raise DataError(f"folds must be 2 to the {len(timed)} timed samples, got {n_splits}")
    X = campaign_features(data, extra=extra_features)
    names = list(X.columns)
    Xa = X.to_numpy(dtype=float)
    if not np.isfinite(Xa).all():
        bad = sorted({names[j] for j in np.flatnonzero(~np.isfinite(Xa).all(axis=0))})
        raise DataError(f"feature {', '.join(bad)} has missing or infinite values")
    mf = min(HEE_MAX_FEATURES, Xa.shape[1]) if max_features is None else int(max_features)
    if not 1 <= mf <= Xa.shape[1]:
        raise DataError(f"max_features={mf} but there are {Xa.shape[1]} features: choose 1.."
                        f"{Xa.shape[1]}")

    def forest():
        return RandomForestRegressor(n_estimators=int(n_estimators), max_features=mf,
                                     random_state=random_state, n_jobs=n_jobs)

    Xt, yt, prior = Xa[timed], seconds[timed], Xa[timed, 0]
    oof_refit, oof_prior = np.empty(len(timed)), np.empty(len(timed))
    for tr, te in KFold(n_splits, shuffle=True, random_state=random_state).split(Xt):
        oof_refit[te] = forest().fit(Xt[tr], yt[tr]).predict(Xt[te])
        oof_prior[te] = _affine(prior[tr], yt[tr], prior[te])
    refit, base = _scores(yt, oof_refit), _scores(yt, oof_prior)
    # Spearman of the prior is that of its own values (an increasing map changes no rank)
    base["spearman"] = _scores(yt, prior)["spearman"]
    predicted = forest().fit(Xt, yt).predict(Xa)
    notices = []
    if np.ptp(Xa[:, 0]) == 0:
        notices.append("the dataset has no effort column (every sample costs 1): the prior "
                       "predicts the mean time")
    return CampaignEffort(
        predicted=predicted, seconds=seconds, n_timed=n_timed, features=names,
        heldout={"refit": refit, "prior": base, "n_folds": n_splits, "n_timed": int(len(timed))},
        params={"n_estimators": int(n_estimators), "max_features": mf,
                "random_state": random_state, "target": "median seconds over annotators"},
        notices=notices)
