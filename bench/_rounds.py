"""One simulated round of a design against PPI++ on as many random labels, for the design
benches (``bench/design.py``, ``bench/design_unseen.py``)."""

from __future__ import annotations

import numpy as np

from core.evaluation.sampling import srs_size_for_half_width
from core.evaluation.estimate import weighted_estimates


def worth(m: int, p: float, half: float) -> float:
    """Random labels (without replacement) giving a share p the half-width ``half``."""
    return srs_size_for_half_width(m, p * (1 - p), half) if 0 < p < 1 else 0


class Rounds:
    """Rounds of one design on one table: our intervals, PPI++'s on the same number of random
    labels, coverage and the final labels' accuracy; :meth:`summary` compares them.

    Parameters
    ----------
    mach, gold : int arrays of shape (M,)
    q : array of shape (M,)
        The machine's confidences.
    f : array of shape (M, K)
        The machine's class probabilities (PPI++'s control).
    rng : numpy Generator
        Draws PPI++'s random labels.
    """

    def __init__(self, mach, gold, q, f, rng):
        self.mach, self.gold, self.q, self.f, self.rng = mach, gold, q, f, rng
        self.k = f.shape[1]
        self.m = len(q)
        self.truth = np.bincount(gold, minlength=self.k) / self.m
        self.ours, self.ppi, self.cover, self.acc, self.n = [], [], [], [], []

    def add(self, xi: np.ndarray, pi: np.ndarray, result: dict | None = None) -> dict:
        """One round: ``xi`` the rows labelled, ``pi`` their design. Returns our estimate
        (``result`` when given: an estimate made otherwise, e.g. two batches combined)."""
        from ppi_py import ppi_mean_ci

        mach, gold, f = self.mach, self.gold, self.f
        res = result if result is not None else \
            weighted_estimates(mach, np.where(xi, gold, -1), xi, pi, self.q, n_classes=self.k)
        sh = res["class_shares"]
        self.ours.append([x["half_width"] for x in sh])
        self.cover.append([x["ci_low"] <= self.truth[c] <= x["ci_high"]
                           for c, x in enumerate(sh)])
        self.acc.append((np.where(xi, gold, mach) == gold).mean())
        n = int(xi.sum())
        self.n.append(n)
        lab = self.rng.choice(self.m, size=n, replace=False)
        unl = np.setdiff1d(np.arange(self.m), lab)
        halves = []
        for c in range(self.k):
            lo, hi = ppi_mean_ci((gold[lab] == c).astype(float), f[lab, c], f[unl, c],
                                 alpha=0.05)
            halves.append((hi[0] - lo[0]) / 2)
        self.ppi.append(halves)
        return res

    def summary(self, acc_route: float) -> dict:
        """``ratio`` (smallest over classes of our worth / PPI++'s), ``ratios``, ``dacc``
        (final accuracy less ``acc_route``), ``cov`` (lowest class coverage), ``labels``
        (mean labelled rows), ``ours`` and ``ppi_half`` (mean half-widths per class)."""
        oh, ph = np.mean(self.ours, axis=0), np.mean(self.ppi, axis=0)
        ratios = [worth(self.m, self.truth[c], oh[c]) /
                  max(1, worth(self.m, self.truth[c], ph[c])) for c in range(self.k)]
        return {"ratio": min(ratios), "ratios": ratios,
                "dacc": float(np.mean(self.acc) - acc_route),
                "cov": float(np.mean(self.cover, axis=0).min()),
                "labels": float(np.mean(self.n)), "ours": oh, "ppi_half": ph,
                "acc": float(np.mean(self.acc)), "coverage": np.mean(self.cover, axis=0)}
