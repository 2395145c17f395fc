"""What a design's expectations rest on: the class probabilities, recalibrated on earlier labels
where there are some, and the interval PPI++ is expected to give with random labels.

The active design (:mod:`core.evaluation.sampling.active`) plans on the machine's confidences taken as
probabilities. Judges are often over- or underconfident, so its expectations (final accuracy,
half-widths) can be off, and the design with them. Where humans already labelled some rows (an
earlier round, a pilot), :func:`calibrated_probabilities` recalibrates the confidences on them;
:func:`ppi_expected_half_width` is the reference every design is compared with: PPI++ on the
same number of random labels, the machine's own probabilities its control.
"""

from __future__ import annotations

import math

import numpy as np

from core.errors import DataError
from core.evaluation.sampling.audit import z_value

__all__ = ["MIN_CALIBRATION_LABELS", "CALIBRATION_PRIOR", "calibrated_probabilities",
           "ppi_expected_half_width"]

#: Fewest earlier labels the confidences are recalibrated on.
MIN_CALIBRATION_LABELS = 30
#: Strength of the recalibration's prior towards the confidences as they are, in rows.
CALIBRATION_PRIOR = 2.0


def calibrated_probabilities(machine_codes: np.ndarray, confidence: np.ndarray,
                             n_classes: int, *, rows: np.ndarray, human_codes: np.ndarray,
                             weights: np.ndarray | None = None,
                             prior: float = CALIBRATION_PRIOR) -> np.ndarray:
    """The machine's class probabilities recalibrated on rows humans already labelled.

    The chance the machine is right on row i is modelled as
    ``sigmoid(a_c + b * logit(q_i))`` with c the machine's class (Platt scaling with one
    intercept per class: a judge is often surer of one class than it should be), fitted by
    weighted maximum likelihood with a Gaussian prior of ``prior`` rows' strength towards the
    confidences as they are (a = 0, b = 1), by Newton's method. Where the machine is wrong,
    the true class is spread over the others as the labelled errors of that machine class
    are (weighted counts plus one per class).

    Parameters
    ----------
    machine_codes : int array of shape (M,)
    confidence : array of shape (M,)
        q_i, the machine's confidence in its label.
    n_classes : int
    rows : int array of shape (n,)
        The labelled rows.
    human_codes : int array of shape (n,)
        Their human classes, 0..K-1.
    weights : array of shape (n,), optional
        1 / inclusion probability of each labelled row (default 1): a sample drawn with
        unequal probabilities stands for the table.
    prior : float, default=:data:`CALIBRATION_PRIOR`
        Strength of the prior, in rows (weights are scaled to sum to n).

    Returns
    -------
    ndarray of shape (M, K)
        Rows sum to 1.

    Raises
    ------
    DataError
        Fewer than :data:`MIN_CALIBRATION_LABELS` labels, or labels on which the machine is
        always right or always wrong (nothing to calibrate on).
    """
    codes = np.asarray(machine_codes, dtype=np.int64)
    q = np.clip(np.asarray(confidence, dtype=float), 1e-3, 1 - 1e-3)
    k = max(int(n_classes), 2)
    rows = np.asarray(rows, dtype=np.int64)
    y = np.asarray(human_codes, dtype=np.int64)
    n = len(rows)
    if n < MIN_CALIBRATION_LABELS:
        raise DataError(f"the confidences are recalibrated on at least "
                        f"{MIN_CALIBRATION_LABELS} labelled rows; {n} given")
    right = (y == codes[rows]).astype(float)
    if right.all() or not right.any():
        raise DataError(f"the machine is {'right' if right.all() else 'wrong'} on all {n} "
                        "labelled rows: its confidences cannot be recalibrated on them")
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if len(w) != n or not np.all(np.isfinite(w) & (w > 0)):
        raise DataError("the calibration weights must be numbers > 0, one per labelled row")
    w = w * n / w.sum()
    # features: one intercept per machine class, then logit(q)
    x = np.zeros((n, k + 1))
    x[np.arange(n), codes[rows]] = 1.0
    x[:, k] = np.log(q[rows] / (1 - q[rows]))
    centre = np.r_[np.zeros(k), 1.0]
    beta = centre.copy()
    # the prior's strength in rows: per parameter, ``prior`` times the Fisher information of
    # one labelled row (that has the feature) at the centre, so that it weighs as ``prior``
    # rows whatever the confidences' spread (a precision of ``prior`` itself weighed as
    # prior / q (1 - q) rows: some 20 with judges right 90 % of the time, which pulled a
    # recalibration on 100 labels half-way back to the confidences as reported)
    info = w * q[rows] * (1 - q[rows])
    has = x != 0
    strength = prior * np.array([float((info[has[:, j]] * x[has[:, j], j] ** 2).mean())
                                 if has[:, j].any() else 1.0 for j in range(k + 1)])
    from scipy.special import expit

    def objective(b: np.ndarray) -> float:  # the penalised log-likelihood (concave)
        eta = x @ b
        return float((w * (right * eta - np.logaddexp(0.0, eta))).sum()
                     - 0.5 * (strength * (b - centre) ** 2).sum())

    current = objective(beta)
    for _ in range(100):
        p = expit(x @ beta)
        grad = x.T @ (w * (right - p)) - strength * (beta - centre)
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(strength)
        step = np.linalg.solve(hess, grad)
        # damped Newton: halve a step that does not raise the objective (a weak prior and
        # labels the machine is always right on can make a full step overshoot)
        for _ in range(50):
            trial = objective(beta + step)
            if trial >= current - 1e-12 * abs(current):
                break
            step = step / 2
        beta = beta + step
        current = objective(beta)
        if np.max(np.abs(step)) < 1e-10:
            break
    allx = np.zeros((len(codes), k + 1))
    allx[np.arange(len(codes)), codes] = 1.0
    allx[:, k] = np.log(q / (1 - q))
    p_right = expit(allx @ beta)
    # where wrong, the true class as the labelled errors of that machine class spread
    wrong = right == 0
    out = np.zeros((len(codes), k))
    for c in range(k):
        counts = np.bincount(y[wrong & (codes[rows] == c)], weights=w[wrong & (codes[rows] == c)],
                             minlength=k) + 1.0
        counts[c] = 0.0
        split = counts / counts.sum()
        mine = codes == c
        out[mine] = (1 - p_right[mine])[:, None] * split[None, :]
        out[mine, c] = p_right[mine]
    return out


def ppi_expected_half_width(probabilities: np.ndarray, control: np.ndarray, n: float, *,
                            confidence: float = 0.95) -> float:
    """The expected half-width of PPI++'s interval for the widest class share.

    PPI++ on n random labels, with ``control`` (the machine's own probabilities) as its
    prediction and the power-tuned coefficient lambda = Cov(P_c, f_c) / Var(f_c) clipped to
    [0, 1], when the true class probabilities are ``probabilities``: variance
    (mean_i P_ic (1 - P_ic) + Var_i(P_ic - lambda f_ic)) / n, the largest over classes. With
    P = f it is mean_i f_ic (1 - f_ic) / n: plain random labelling's without the
    finite-population correction.

    Parameters
    ----------
    probabilities, control : arrays of shape (M, K)
    n : float
        Random labels, > 0.
    confidence : float, default=0.95

    Returns
    -------
    float
    """
    P = np.asarray(probabilities, dtype=float)
    f = np.asarray(control, dtype=float)
    worst = 0.0
    for c in range(P.shape[1]):
        vf = float(f[:, c].var())
        lam = 0.0
        if vf > 0:
            cov = float(np.mean((P[:, c] - P[:, c].mean()) * (f[:, c] - f[:, c].mean())))
            lam = min(1.0, max(0.0, cov / vf))
        var = float(np.mean(P[:, c] * (1 - P[:, c])) + np.var(P[:, c] - lam * f[:, c]))
        worst = max(worst, var)
    return z_value(confidence) * math.sqrt(worst / n)
