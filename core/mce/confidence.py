"""Confidence estimators of a machine evaluator: MCP, trust score and TCP.

Each estimator has a scikit-learn-like ``fit``/``predict`` API and returns, per sample, a
confidence in [0, 1] that the classifier's predicted label is correct.

- :class:`MCP` -- maximum class probability: the softmax probability of the predicted class.
- :class:`TrustScore` -- Jiang, Kim, Guan and Gupta (2018), "To trust or not to trust a
  classifier", applied as in HMCEval to the classifier's encoder features.
- :class:`TCP` -- true class probability (Corbiere et al., 2019): a confidence network of dense
  layers with a sigmoid output, trained with MSE against the classifier's probability of the
  true class.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.neighbors import NearestNeighbors

from core.errors import DataError, describe_rows

__all__ = [
    "MCP",
    "TrustScore",
    "TCP",
    "TrainingStopped",
    "true_class_probability",
]

ProgressCallback = Callable[[int, int, str], None]
StopCallback = Callable[[], bool]


class TrainingStopped(RuntimeError):
    """Raised when a training loop is stopped by its ``should_stop`` callback."""


def stop_requested(should_stop: Any) -> bool:
    """Whether training should stop: ``should_stop`` is None, an event (``is_set``) or a callable."""
    if should_stop is None:
        return False
    if hasattr(should_stop, "is_set"):  # threading.Event
        return bool(should_stop.is_set())
    return bool(should_stop())


def _as_matrix(X: Any, name: str = "X") -> np.ndarray:
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name} must be a numeric matrix") from None
    if arr.ndim != 2:
        raise DataError(f"{name} must be a 2-D matrix (n_samples, n_features), got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr).all(axis=1))
    if bad.size:
        raise DataError(f"{name} has NaN or infinite values at {describe_rows(bad)}")
    return arr


def _as_proba(proba: Any) -> np.ndarray:
    p = _as_matrix(proba, "proba")
    if p.shape[1] < 2:
        raise DataError(f"proba must have one column per class (at least 2), got {p.shape[1]}")
    bad = np.flatnonzero(((p < 0) | (p > 1)).any(axis=1) | (np.abs(p.sum(axis=1) - 1) > 1e-4))
    if bad.size:
        raise DataError(f"proba rows must be probabilities summing to 1; not so at {describe_rows(bad)}")
    return p


def _as_index(y: Any, n_classes: int | None, name: str) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got shape {arr.shape}")
    try:
        f = arr.astype(float)
    except (TypeError, ValueError):
        raise DataError(f"{name} must hold integer class indices") from None
    bad = np.flatnonzero(~np.isfinite(f) | (f != np.round(f)) | (f < 0))
    if n_classes is not None:
        bad = np.union1d(bad, np.flatnonzero(np.isfinite(f) & (f >= n_classes)))
    if bad.size:
        rng = f" in 0..{n_classes - 1}" if n_classes is not None else ""
        raise DataError(f"{name} must hold integer class indices{rng}; invalid at {describe_rows(bad)}")
    return f.astype(int)


def true_class_probability(y_true: Any, proba: Any) -> np.ndarray:
    """Probability the classifier gives to the true class, ``proba[i, y_true[i]]``.

    Parameters
    ----------
    y_true : array-like of int, shape (n_samples,)
        True class indices (columns of ``proba``).
    proba : array-like of shape (n_samples, n_classes)
        Class probabilities.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    p = _as_proba(proba)
    y = _as_index(y_true, p.shape[1], "y_true")
    if y.size != p.shape[0]:
        raise DataError(f"y_true has {y.size} samples but proba has {p.shape[0]} rows")
    return p[np.arange(y.size), y]


# --------------------------------------------------------------------------------------- MCP
class MCP:
    """Maximum class probability: the probability of the predicted class.

    ``fit`` learns nothing (kept for a uniform API); ``predict(proba)`` returns
    ``proba.max(axis=1)``, which is the probability of the predicted (arg-max) class.
    """

    def fit(self, *args: Any, **kwargs: Any) -> "MCP":
        """No-op; returns ``self``."""
        return self

    def predict(self, proba: Any) -> np.ndarray:
        """Confidence of each prediction.

        Parameters
        ----------
        proba : array-like of shape (n_samples, n_classes)

        Returns
        -------
        ndarray of shape (n_samples,)
            Values in [1/n_classes, 1].
        """
        return _as_proba(proba).max(axis=1)


# ------------------------------------------------------------------------------- trust score
class TrustScore:
    """Trust score (Jiang et al., 2018) on feature vectors, min-max normalised to [0, 1].

    Fitting, per class ``c`` with training points ``X_c`` (Algorithm 1 of the paper):

    1. the k-NN radius ``r_k(x)`` of each ``x`` in ``X_c`` is the distance to its k-th nearest
       point of ``X_c`` *counting x itself* (the paper's ``inf{r : |B(x, r) & X_c| >= k}``),
       so with ``k = 1`` every radius is 0;
    2. with ``m = floor(alpha * |X_c|)``, ``eps`` is the (|X_c| - m)-th smallest radius and the
       alpha-high-density set is ``H_c = {x in X_c : r_k(x) <= eps}`` -- the ``m`` points with
       the largest radii are dropped (fewer when radii tie at ``eps``); ``alpha = 0`` keeps all.
       When a class has fewer than ``k`` points, ``k`` is reduced to the class size for it
       (recorded in ``k_per_class_``).

    Raw score of a sample ``x`` predicted as class ``p``:
    ``d(x, H_q) / d(x, H_p)`` where ``d(x, H)`` is the Euclidean distance from ``x`` to the
    nearest point of ``H`` and ``q`` is the class other than ``p`` whose set is nearest.
    ``0/0`` (x lies on both sets) counts as 1; ``a/0`` with ``a > 0`` is ``+inf``.

    Normalisation: ``(raw - lo) / (hi - lo)`` clipped to [0, 1], where ``lo``/``hi`` are the
    smallest/largest finite raw scores of the *training* points computed leave-one-out (a
    training point is left out of the sets when scoring itself; predicted classes given by
    ``y_pred`` in :meth:`fit`, default the true labels). New samples outside the training range
    are clipped to 0 or 1 and ``+inf`` becomes 1 (see :meth:`normalize` for ``hi == lo``).
    Training points whose leave-one-out score is undefined (their class set is only
    themselves) are left out of the range. ``predict(..., normalize=False)`` gives the raw
    ratios.

    Parameters
    ----------
    k : int, default=10
        Neighbours for the k-NN radius (the paper's default).
    alpha : float in [0, 1), default=0.0
        Fraction of each class dropped as low-density.
    """

    def __init__(self, k: int = 10, alpha: float = 0.0) -> None:
        self.k = k
        self.alpha = alpha

    # -- fitting
    def fit(self, X: Any, y: Any, *, y_pred: Any = None) -> "TrustScore":
        """Build the alpha-high-density set of each class and the normalisation range.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features.
        y : array-like of int, shape (n_samples,)
            True class indices ``0 .. n_classes-1``; every class ``0 .. max(y)`` must occur.
        y_pred : array-like of int, shape (n_samples,), optional
            The classifier's predictions on the training points, used for the normalisation
            range; default ``y``.

        Returns
        -------
        self
        """
        k = int(self.k)
        if k < 1:
            raise DataError(f"trust score k must be a positive integer, got {self.k}")
        alpha = float(self.alpha)
        if not (0.0 <= alpha < 1.0):
            raise DataError(f"trust score alpha must be in [0, 1), got {self.alpha}")
        X = _as_matrix(X)
        y = _as_index(y, None, "y")
        if y.size != X.shape[0]:
            raise DataError(f"y has {y.size} samples but X has {X.shape[0]} rows")
        if y.size < 2:
            raise DataError("trust score needs at least 2 training samples")
        n_classes = int(y.max()) + 1
        counts = np.bincount(y, minlength=n_classes)
        if n_classes < 2 or (counts == 0).any():
            missing = [c for c in range(n_classes) if counts[c] == 0]
            raise DataError(
                "trust score needs training samples of at least 2 classes and of every class "
                f"0..{n_classes - 1}; missing classes: {missing or [1]}"
            )
        self.n_classes_ = n_classes
        self.k_per_class_ = np.minimum(k, counts)
        self.high_density_sets_: list[np.ndarray] = []
        self._set_index: list[np.ndarray] = []  # training row of each set point
        self._nn: list[NearestNeighbors] = []
        for c in range(n_classes):
            rows = np.flatnonzero(y == c)
            keep = self._high_density(X[rows], int(self.k_per_class_[c]), alpha)
            self._set_index.append(rows[keep])
            self.high_density_sets_.append(X[rows[keep]])
            self._nn.append(NearestNeighbors(n_neighbors=1).fit(X[rows[keep]]))
        pred = y if y_pred is None else _as_index(y_pred, n_classes, "y_pred")
        if pred.size != y.size:
            raise DataError(f"y_pred has {pred.size} samples but X has {X.shape[0]} rows")
        train_raw = self._raw(X, pred, exclude=np.arange(X.shape[0]))
        finite = train_raw[np.isfinite(train_raw)]
        if finite.size == 0:
            raise DataError(
                "trust score: every leave-one-out training score is infinite or undefined (each training "
                "point has an exact duplicate in the set of its predicted class), so the normalisation range "
                "is undefined; remove duplicate training samples"
            )
        self.train_min_ = float(finite.min())
        self.train_max_ = float(finite.max())
        return self

    @staticmethod
    def _high_density(Xc: np.ndarray, k: int, alpha: float) -> np.ndarray:
        n = Xc.shape[0]
        m = int(math.floor(alpha * n + 1e-12))
        if m == 0:
            return np.arange(n)
        dist, _ = NearestNeighbors(n_neighbors=k).fit(Xc).kneighbors(Xc, n_neighbors=k)
        radii = dist[:, -1]  # k-th smallest distance, the point itself (distance 0) included
        eps = np.sort(radii)[n - m - 1]
        return np.flatnonzero(radii <= eps)

    def _distances(self, X: np.ndarray, exclude: np.ndarray | None) -> np.ndarray:
        """Distance of each row of X to each class set, shape (n, n_classes)."""
        d = np.empty((X.shape[0], self.n_classes_))
        for c, nn in enumerate(self._nn):
            if exclude is None:
                d[:, c] = nn.kneighbors(X, n_neighbors=1)[0][:, 0]
                continue
            kk = min(2, self._set_index[c].size)
            dist, ind = nn.kneighbors(X, n_neighbors=kk)
            owner = self._set_index[c][ind]  # training rows of the neighbours
            is_self = owner == exclude[:, None]
            # the first neighbour that is not the point itself
            first_other = np.argmax(~is_self, axis=1)
            has_other = (~is_self).any(axis=1)
            d[:, c] = np.where(has_other, dist[np.arange(X.shape[0]), first_other], np.inf)
        return d

    def _raw(self, X: np.ndarray, pred: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
        d = self._distances(X, exclude)
        rows = np.arange(X.shape[0])
        d_pred = d[rows, pred]
        d_other = d.copy()
        d_other[rows, pred] = np.inf
        d_near = d_other.min(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = d_near / d_pred
        raw[(d_near == 0) & (d_pred == 0)] = 1.0
        # an excluded single-point set gives inf/inf: undefined, left out of the range
        raw[np.isinf(d_near) & np.isinf(d_pred)] = np.nan
        return raw

    # -- prediction
    def predict(self, X: Any, y_pred: Any, *, normalize: bool = True) -> np.ndarray:
        """Trust score of each prediction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features of the samples to score.
        y_pred : array-like of int, shape (n_samples,)
            The classifier's predicted class indices.
        normalize : bool, default=True
            Min-max normalise with the training range and clip to [0, 1]; ``False`` returns
            the raw distance ratios (in [0, +inf]).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        if not hasattr(self, "train_min_"):
            raise DataError("trust score is not fitted: call fit first")
        X = _as_matrix(X)
        if X.shape[1] != self.high_density_sets_[0].shape[1]:
            raise DataError(
                f"X has {X.shape[1]} features but the trust score was fitted on "
                f"{self.high_density_sets_[0].shape[1]}"
            )
        pred = _as_index(y_pred, self.n_classes_, "y_pred")
        if pred.size != X.shape[0]:
            raise DataError(f"y_pred has {pred.size} samples but X has {X.shape[0]} rows")
        raw = self._raw(X, pred)
        if not normalize:
            return raw
        return self.normalize(raw)

    def normalize(self, raw: Any) -> np.ndarray:
        """Min-max normalise raw ratios with the training range, clipped to [0, 1].

        When the training range is a single value ``lo == hi``, a raw score below it maps to
        0, above it to 1 and equal to it to 0.5.
        """
        raw = np.asarray(raw, dtype=float)
        lo, hi = self.train_min_, self.train_max_
        if hi > lo:
            with np.errstate(invalid="ignore"):
                out = (raw - lo) / (hi - lo)
        else:
            out = np.where(raw > lo, 1.0, np.where(raw < lo, 0.0, 0.5))
        out = np.where(np.isposinf(raw), 1.0, out)
        return np.clip(out, 0.0, 1.0)


# ----------------------------------------------------------------------------------------- TCP
@dataclass
class TCP:
    """True-class-probability confidence network (Corbiere et al., 2019).

    A multilayer perceptron of ``n_layers`` dense layers (``n_features -> hidden -> ... ->
    hidden -> 1``, ReLU and dropout between them, sigmoid output) on the classifier's features.
    It is trained with the mean squared error against the true-class probability ``TCP(x) =
    p(y = y* | x)`` of the classifier (Adam), for at most ``max_epochs`` epochs, stopping when
    the validation loss has not improved for ``patience`` epochs; the weights of the best
    validation epoch are kept. Features are standardised with the training mean and standard
    deviation.

    Parameters
    ----------
    hidden : int, default=400
        Width of the hidden layers (400 in Corbiere et al.).
    n_layers : int, default=5
        Number of dense layers (the paper's 5).
    dropout : float, default=0.1
    learning_rate : float, default=5e-5
    batch_size : int, default=64
    max_epochs : int, default=30
    patience : int, default=10
    validation_fraction : float, default=0.1
        Share of the training data held out for early stopping when no validation set is
        given to :meth:`fit`.
    seed : int, default=0
    device : str or None, default=None
        ``"cpu"``/``"cuda"``; None picks the GPU when present.
    n_threads : int or None, default=1
        CPU threads torch may use while fitting and predicting (restored afterwards). The
        network is small, and one thread is several times faster than two on a shared CPU;
        None leaves torch's setting alone.
    """

    hidden: int = 400
    n_layers: int = 5
    dropout: float = 0.1
    learning_rate: float = 5e-5
    batch_size: int = 64
    max_epochs: int = 30
    patience: int = 10
    validation_fraction: float = 0.1
    seed: int = 0
    device: str | None = None
    n_threads: int | None = 1
    history_: list[dict[str, float]] = field(default_factory=list, init=False, repr=False)

    def _check_params(self) -> None:
        checks = [
            ("hidden", self.hidden >= 1),
            ("n_layers", self.n_layers >= 2),
            ("dropout", 0.0 <= self.dropout < 1.0),
            ("learning_rate", self.learning_rate >= 0),
            ("batch_size", self.batch_size >= 1),
            ("max_epochs", self.max_epochs >= 1),
            ("patience", self.patience >= 1),
            ("validation_fraction", 0.0 < self.validation_fraction < 1.0),
            ("n_threads", self.n_threads is None or int(self.n_threads) >= 1),
        ]
        for name, ok in checks:
            if not ok:
                raise DataError(f"TCP option {name} has an invalid value: {getattr(self, name)!r}")

    def _build(self, n_features: int) -> Any:
        import torch.nn as nn

        layers: list[Any] = []
        width_in = n_features
        for _ in range(self.n_layers - 1):
            layers += [nn.Linear(width_in, self.hidden), nn.ReLU(), nn.Dropout(self.dropout)]
            width_in = self.hidden
        layers += [nn.Linear(width_in, 1), nn.Sigmoid()]
        return nn.Sequential(*layers)

    def _threads(self) -> Any:
        import contextlib

        import torch

        @contextlib.contextmanager
        def limit() -> Any:
            if self.n_threads is None:
                yield
                return
            before = torch.get_num_threads()
            torch.set_num_threads(int(self.n_threads))
            try:
                yield
            finally:
                torch.set_num_threads(before)

        return limit()

    def fit(
        self,
        X: Any,
        target: Any,
        *,
        X_val: Any = None,
        target_val: Any = None,
        progress: ProgressCallback | None = None,
        should_stop: StopCallback | Any = None,
    ) -> "TCP":
        """Train the confidence network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Classifier features of the training samples.
        target : array-like of shape (n_samples,)
            True-class probabilities in [0, 1] (see :func:`true_class_probability`).
        X_val, target_val : optional
            Validation data for early stopping; when absent, ``validation_fraction`` of the
            training data is held out (seeded).
        progress : callable(done, total, message), optional
            Called after every epoch with ``total = max_epochs``.
        should_stop : callable() -> bool or threading.Event, optional
            Checked between batches; when true, :class:`TrainingStopped` is raised.

        Returns
        -------
        self
        """
        self._check_params()
        with self._threads():
            return self._fit(X, target, X_val, target_val, progress, should_stop)

    def _fit(self, X: Any, target: Any, X_val: Any, target_val: Any, progress: Any, should_stop: Any) -> "TCP":
        import torch

        X = _as_matrix(X)
        t = np.asarray(target, dtype=float).reshape(-1)
        if t.size != X.shape[0]:
            raise DataError(f"target has {t.size} values but X has {X.shape[0]} rows")
        bad = np.flatnonzero(~np.isfinite(t) | (t < 0) | (t > 1))
        if bad.size:
            raise DataError(f"TCP target must be probabilities in [0, 1]; invalid at {describe_rows(bad)}")
        rng = np.random.default_rng(self.seed)
        if X_val is None:
            if X.shape[0] < 2:
                raise DataError("TCP needs at least 2 training samples (one is held out for validation)")
            perm = rng.permutation(X.shape[0])
            n_val = max(1, int(round(self.validation_fraction * X.shape[0])))
            n_val = min(n_val, X.shape[0] - 1)
            val_idx, tr_idx = perm[:n_val], perm[n_val:]
            Xv, tv, X, t = X[val_idx], t[val_idx], X[tr_idx], t[tr_idx]
        else:
            Xv = _as_matrix(X_val, "X_val")
            tv = np.asarray(target_val, dtype=float).reshape(-1)
            if Xv.shape[1] != X.shape[1] or tv.size != Xv.shape[0]:
                raise DataError("X_val/target_val do not match X in shape")
            bad = np.flatnonzero(~np.isfinite(tv) | (tv < 0) | (tv > 1))
            if bad.size:
                raise DataError(f"TCP target_val must be probabilities in [0, 1]; invalid at {describe_rows(bad)}")
            if Xv.shape[0] == 0:
                raise DataError("TCP validation set is empty")

        torch.manual_seed(self.seed)
        device = torch.device(self.device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.mean_ = X.mean(axis=0)
        std = X.std(axis=0)
        self.scale_ = np.where(std > 0, std, 1.0)
        net = self._build(X.shape[1]).to(device)
        opt = torch.optim.Adam(net.parameters(), lr=self.learning_rate)
        loss_fn = torch.nn.MSELoss()
        Xt = torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float32, device=device)
        tt = torch.as_tensor(t, dtype=torch.float32, device=device)
        Xvt = torch.as_tensor((Xv - self.mean_) / self.scale_, dtype=torch.float32, device=device)
        tvt = torch.as_tensor(tv, dtype=torch.float32, device=device)
        gen = torch.Generator().manual_seed(self.seed)

        best_loss = math.inf
        best_state = copy.deepcopy(net.state_dict())
        best_epoch = 0
        self.history_ = []
        epoch = 0
        for epoch in range(1, self.max_epochs + 1):
            net.train()
            order = torch.randperm(Xt.shape[0], generator=gen).to(device)
            total = 0.0
            for start in range(0, Xt.shape[0], self.batch_size):
                if stop_requested(should_stop):
                    raise TrainingStopped("TCP training stopped")
                idx = order[start : start + self.batch_size]
                opt.zero_grad()
                loss = loss_fn(net(Xt[idx]).squeeze(-1), tt[idx])
                loss.backward()
                opt.step()
                total += loss.item() * idx.numel()
            net.eval()
            with torch.no_grad():
                val_loss = float(loss_fn(net(Xvt).squeeze(-1), tvt))
            self.history_.append({"epoch": epoch, "train_loss": total / Xt.shape[0], "val_loss": val_loss})
            if val_loss < best_loss:
                best_loss, best_epoch = val_loss, epoch
                best_state = copy.deepcopy(net.state_dict())
            if progress is not None:
                progress(epoch, self.max_epochs, f"TCP epoch {epoch}: val MSE {val_loss:.4f}")
            if epoch - best_epoch >= self.patience:
                break
        net.load_state_dict(best_state)
        net.eval()
        self.net_ = net
        self.device_ = device
        self.best_epoch_ = best_epoch
        self.n_epochs_ = epoch
        self.best_val_loss_ = best_loss
        self.n_features_ = X.shape[1]
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predicted true-class probability (the confidence) of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Values in [0, 1].
        """
        import torch

        if not hasattr(self, "net_"):
            raise DataError("TCP is not fitted: call fit first")
        X = _as_matrix(X)
        if X.shape[1] != self.n_features_:
            raise DataError(f"X has {X.shape[1]} features but TCP was fitted on {self.n_features_}")
        out = []
        with torch.no_grad(), self._threads():
            for start in range(0, X.shape[0], 4096):
                xb = torch.as_tensor(
                    (X[start : start + 4096] - self.mean_) / self.scale_, dtype=torch.float32, device=self.device_
                )
                out.append(self.net_(xb).squeeze(-1).cpu().numpy())
        return np.concatenate(out).astype(float) if out else np.empty(0)
