"""A labelling stream: a queue whose every prefix is a sample with known draw probabilities.

``hmceval queue --stream`` orders the rows to label so that a user may label in batches, look
at the interval after every import and stop whenever it is good enough
(:mod:`core.evaluation.estimate.anytime` gives the intervals, valid however often they are looked at).

The order is a *successive sample*: draw one row with probability proportional to its weight
``w_i`` among the rows not drawn yet, then the next, and so on (sampling without replacement
with unequal probabilities). Draw t picks row ``I_t`` with the per-draw probability

    p_t = w_{I_t} / sum_{j not drawn before t} w_j,

known when the queue is written (it depends only on the order), so every prefix of the queue
is a sample whose probabilities are known, and the Des Raj-type estimator of
:mod:`core.evaluation.estimate.anytime` is unbiased at every draw. Uniform weights give a simple random
sample without replacement (p_t = 1 / (M - t + 1)). Weighted streams favour the rows whose
labels the machine is least sure of (they inform the estimate most, and labelling them improves
the final labels most), per unit of predicted effort, mixed with the uniform weight
(``floor``) so that no row is nearly impossible to draw: an overconfident judge then costs a
bounded loss of efficiency, never validity.

The order is drawn with exponential keys: row i gets ``E_i / w_i`` with ``E_i`` a standard
exponential; sorting the keys gives exactly the successive sample (the smallest of independent
exponentials with rates ``w`` is row i with probability ``w_i / sum w``, and what remains is
again such a race).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import DataError

__all__ = ["DRAW_PROBABILITY", "DRAW_WEIGHT", "STREAM_DESIGNS", "replan_stream",
           "DEFAULT_STREAM_DESIGN", "STREAM_FLOOR", "StreamPlan", "stream_weights",
           "draw_stream", "draw_probabilities"]

#: Column of a stream's table: p_t of each queued row (empty on rows not queued).
DRAW_PROBABILITY = "draw_probability"
#: Column of a stream's table: every row's draw weight.
DRAW_WEIGHT = "draw_weight"
#: The stream's designs: ``uniform`` (every row equally likely at each draw) and ``weighted``.
STREAM_DESIGNS = ("uniform", "weighted")
#: The default design of ``hmceval queue --stream`` (see bench/anytime.py for the measurement).
DEFAULT_STREAM_DESIGN = "weighted"
#: The weighted design's share of uniform weight: w = (1 - floor) * u / mean(u) + floor.
STREAM_FLOOR = 0.5


@dataclass(frozen=True)
class StreamPlan:
    """A stream's queue.

    Attributes
    ----------
    order : int array of shape (n,)
        The rows in queue order (queue position t = index + 1).
    draw_probability : float array of shape (n,)
        p_t, the probability with which draw t picked ``order[t]`` among the rows not drawn
        before it.
    weights : float array of shape (M,)
        The weights the rows were drawn with (mean 1).
    design : str
        ``"uniform"`` or ``"weighted"``.
    """

    order: np.ndarray
    draw_probability: np.ndarray
    weights: np.ndarray
    design: str
    replans: tuple = ()

    @property
    def segments(self) -> list[tuple[int, np.ndarray]]:
        """``(first queue index, weights)`` of every stretch of the queue drawn with one set of
        weights: the first draw's, then each re-plan's (:func:`replan_stream`)."""
        return [(0, self.weights)] + [(int(t), np.asarray(w, dtype=float))
                                      for t, w in self.replans]


def replan_stream(plan: StreamPlan, labelled: int, weights: np.ndarray, *,
                  seed: int = 0) -> StreamPlan:
    """The rest of a stream drawn again with new weights, after its first ``labelled`` draws.

    The first ``labelled`` rows of the queue and their draw probabilities stay; the queue's
    other rows go back to the pool, and as many rows are drawn from the rows not labelled with
    ``weights`` (a successive sample again). New weights computed from the labels of those
    first draws only (recalibrated probabilities) are fixed before any later draw, so every
    later term of the sequence keeps its mean: the stream stays valid.

    Parameters
    ----------
    plan : StreamPlan
    labelled : int
        The labelled prefix's length, 0 <= labelled < the queue's length.
    weights : array of shape (M,)
        The new weights (:func:`stream_weights`).
    seed : int

    Returns
    -------
    StreamPlan
        The same length; ``replans`` gains ``(labelled, weights)``.
    """
    n = len(plan.order)
    if not 0 <= int(labelled) < n:
        raise DataError(f"a re-plan keeps the labelled prefix and draws the rest: the prefix "
                        f"({labelled:,}) must be shorter than the queue ({n:,})")
    keep = np.asarray(plan.order[: int(labelled)], dtype=np.int64)
    exclude = np.zeros(len(weights), dtype=bool)
    exclude[keep] = True
    rest = draw_stream(weights, n - int(labelled), seed=seed, exclude=exclude)
    return StreamPlan(order=np.concatenate([keep, rest.order]),
                      draw_probability=np.concatenate([plan.draw_probability[: int(labelled)],
                                                       rest.draw_probability]),
                      weights=plan.weights, design=plan.design,
                      replans=tuple(plan.replans) + ((int(labelled), rest.weights),))


def stream_weights(probabilities: np.ndarray, effort: np.ndarray | None = None, *,
                   design: str = DEFAULT_STREAM_DESIGN, floor: float = STREAM_FLOOR) -> np.ndarray:
    """The draw weights of a stream.

    Parameters
    ----------
    probabilities : array of shape (M, K)
        The class probabilities of every row (the machine's confidences as probabilities, or
        recalibrated on labels).
    effort : array of shape (M,), optional
        Predicted effort per row (> 0); the weighted design divides by its square root (the
        optimal allocation of a fixed effort budget), none gives equal effort.
    design : {"uniform", "weighted"}
    floor : float in [0, 1]
        The weighted design's share of uniform weight.

    Returns
    -------
    ndarray of shape (M,)
        Weights with mean 1: all 1 for ``uniform``; for ``weighted``
        ``(1 - floor) * u / mean(u) + floor`` with ``u_i = sqrt(1 - sum_c P_ic^2) /
        sqrt(effort_i)`` (the standard deviation of a row's class indicators: the Neyman
        allocation of the difference estimator's variance, summed over classes).
    """
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 2 or len(p) == 0:
        raise DataError("the stream needs class probabilities for at least one row")
    if design not in STREAM_DESIGNS:
        raise DataError(f"stream design must be one of {', '.join(STREAM_DESIGNS)}, got {design!r}")
    if not 0 <= floor <= 1:
        raise DataError(f"the stream's floor must be in [0, 1], got {floor}")
    m = len(p)
    if design == "uniform":
        return np.ones(m)
    u = np.sqrt(np.clip(1.0 - (p ** 2).sum(axis=1), 0.0, None))
    if effort is not None:
        e = np.asarray(effort, dtype=float)
        if len(e) != m or not np.all(np.isfinite(e)):
            raise DataError("the effort must be a finite number on every row")
        positive = e > 0
        e = np.where(positive, e, e[positive].min() if positive.any() else 1.0)
        u = u / np.sqrt(e / e.mean())
    if not u.any():  # the machine is sure of every row: nothing to weigh by
        return np.ones(m)
    return (1 - floor) * u / u.mean() + floor


def draw_probabilities(weights: np.ndarray, order: np.ndarray) -> np.ndarray:
    """p_t for a given order: ``w[order[t]] / (sum of w over rows not drawn before t)``."""
    w = np.asarray(weights, dtype=float)
    taken = w[np.asarray(order, dtype=np.int64)]
    before = np.concatenate([[0.0], np.cumsum(taken)[:-1]])
    remaining = w.sum() - before
    # guard the last draws against cancellation: what remains is at least the row drawn
    return taken / np.maximum(remaining, taken)


def draw_stream(weights: np.ndarray, n: int, *, seed: int = 0,
                exclude: np.ndarray | None = None) -> StreamPlan:
    """Draw the first ``n`` rows of a successive sample with the given weights.

    Parameters
    ----------
    weights : array of shape (M,)
        Positive weights (:func:`stream_weights`).
    n : int
        Queue length (at most the rows that can be drawn).
    seed : int
    exclude : bool array of shape (M,), optional
        Rows never drawn (weight 0).

    Returns
    -------
    StreamPlan
    """
    w = np.asarray(weights, dtype=float).copy()
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise DataError("stream weights must be finite and >= 0")
    if exclude is not None:
        w[np.asarray(exclude, dtype=bool)] = 0.0
    drawable = int((w > 0).sum())
    if not 1 <= int(n) <= drawable:
        raise DataError(f"the stream's length (--labels) must be between 1 and the {drawable:,} "
                        f"rows that can be drawn, got {n}")
    rng = np.random.default_rng(seed)
    keys = np.full(len(w), np.inf)
    pos = w > 0
    keys[pos] = rng.standard_exponential(int(pos.sum())) / w[pos]
    order = np.argsort(keys, kind="stable")[: int(n)]
    design = "uniform" if np.allclose(w[pos], w[pos][0]) else "weighted"
    return StreamPlan(order=order, draw_probability=draw_probabilities(w, order),
                      weights=w, design=design)
