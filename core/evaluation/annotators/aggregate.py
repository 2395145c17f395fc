"""One label per item from several annotators: majority vote or Dawid-Skene.

:func:`aggregate_labels` takes coded votes (item, annotator, class) and gold items (adjudicated
labels, or an expert's) and returns each item's label and state:

* ``"majority"``: the most frequent label; a tie leaves the item unlabelled for adjudication
  (:func:`core.evaluation.annotators.agreement.majority_vote`);
* ``"dawid-skene"``: Dawid and Skene (1979), EM over each annotator's confusion matrix
  ``e[a, l, c] = P(annotator a says l | true class c)`` and the class priors, started from the
  vote shares; gold items keep a fixed one-hot posterior in every step, so they teach the
  confusion matrices (crowd-kit's ``DawidSkene(n_iter=100).fit(data, true_labels)``, the tests'
  oracle, computed in the same order: M-step clipped at 1e-10, E-step in logs, stopped when the
  evidence lower bound per vote rises by less than ``tol``). An item's label is its most
  probable class; two classes within 1e-9 of each other's posterior are a tie.

A gold item's label is its gold label under either method.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import DataError

__all__ = ["AGGREGATES", "Aggregate", "aggregate_labels", "dawid_skene"]

AGGREGATES = ("majority", "dawid-skene")
_EPS = 1e-10


@dataclass(frozen=True, eq=False)
class Aggregate:
    """Each item's aggregated label.

    Attributes
    ----------
    label : numpy.ndarray of shape (n_items,), int64
        The class code, -1 where there is none (no vote, or a tie).
    tie : numpy.ndarray of shape (n_items,), bool
        Votes but no single winner: needs adjudication.
    posterior : numpy.ndarray of shape (n_items, n_classes)
        Vote shares (majority) or Dawid-Skene posteriors; rows of items without votes are 0.
    confusion : numpy.ndarray of shape (n_annotators, n_classes, n_classes) or None
        Dawid-Skene's ``e[a, said, true]`` (None for majority).
    priors : numpy.ndarray of shape (n_classes,) or None
    method : str
    n_iter : int
        EM iterations run (0 for majority).
    """

    label: np.ndarray
    tie: np.ndarray
    posterior: np.ndarray
    confusion: np.ndarray | None
    priors: np.ndarray | None
    method: str
    n_iter: int = 0


def _check(item, annotator, label, n_items, n_annotators, n_classes):
    item = np.asarray(item, dtype=np.int64)
    annotator = np.asarray(annotator, dtype=np.int64)
    label = np.asarray(label, dtype=np.int64)
    if not (len(item) == len(annotator) == len(label)):
        raise DataError(f"{len(item)} items, {len(annotator)} annotators and {len(label)} labels "
                        "(one of each per vote)")
    for name, arr, top in (("item", item, n_items), ("annotator", annotator, n_annotators),
                           ("label", label, n_classes)):
        if len(arr) and (arr.min() < 0 or arr.max() >= top):
            raise DataError(f"a vote's {name} code is outside 0..{top - 1}")
    return item, annotator, label


def _shares(item, label, n_items, n_classes) -> np.ndarray:
    counts = np.zeros((n_items, n_classes))
    np.add.at(counts, (item, label), 1.0)
    total = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, total, out=np.zeros_like(counts), where=total > 0)


def dawid_skene(item, annotator, label, *, n_items: int, n_annotators: int, n_classes: int,
                gold: np.ndarray | None = None, n_iter: int = 100,
                tol: float = 1e-5) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Dawid-Skene EM on coded votes.

    Parameters
    ----------
    item, annotator, label : int arrays of shape (n_votes,)
        One vote each: item code, annotator code, class code.
    n_items, n_annotators, n_classes : int
    gold : int array of shape (n_items,), optional
        The gold class code of an item, -1 where there is none: a fixed posterior.
    n_iter : int, default=100
    tol : float, default=1e-5

    Returns
    -------
    (posterior, confusion, priors, iterations)
        ``posterior`` of shape (n_items, n_classes) (rows of items without a vote are 0 unless
        gold), ``confusion[a, said, true]``, ``priors`` over the items with votes.
    """
    item, annotator, label = _check(item, annotator, label, n_items, n_annotators, n_classes)
    voted = np.zeros(n_items, dtype=bool)
    voted[item] = True
    fixed = np.zeros((n_items, n_classes))
    has_gold = np.zeros(n_items, dtype=bool)
    if gold is not None:
        gold = np.asarray(gold, dtype=np.int64)
        has_gold = gold >= 0
        fixed[np.flatnonzero(has_gold), gold[has_gold]] = 1.0

    if not voted.any():  # no vote outside the gold items: nothing to learn, gold stands
        priors = (fixed[has_gold].mean(axis=0) if has_gold.any()
                  else np.full(n_classes, 1.0 / n_classes))
        return fixed, np.tile(np.eye(n_classes), (n_annotators, 1, 1)), priors, 0

    def correct(p):
        p[has_gold & voted] = fixed[has_gold & voted]
        return p

    def m_step(p):
        err = np.zeros((n_annotators, n_classes, n_classes))
        np.add.at(err, (annotator, label), p[item])
        err = np.clip(err, _EPS, None)
        return err / err.sum(axis=1, keepdims=True)

    p = correct(_shares(item, label, n_items, n_classes))
    priors = p[voted].mean(axis=0)
    err = m_step(p)
    loss = -np.inf
    done = 0
    for done in range(1, n_iter + 1):
        log_err = np.log(err)
        log_prior = np.log(np.clip(priors, _EPS, None))
        ll = np.zeros((n_items, n_classes))
        np.add.at(ll, item, log_err[annotator, label])
        ll += log_prior
        ll -= ll.max(axis=1, keepdims=True)
        p = np.exp(ll)
        p /= p.sum(axis=1, keepdims=True)
        p[~voted] = 0.0
        p = correct(p)
        priors = p[voted].mean(axis=0)
        err = m_step(p)
        log_prior = np.log(np.clip(priors, _EPS, None))
        joint = float((p[item] * (np.log(err)[annotator, label] + log_prior)).sum())
        q = np.clip(p[voted], _EPS, None)
        new_loss = (joint - float((np.log(q) * q).sum())) / max(len(item), 1)
        if new_loss - loss < tol:
            break
        loss = new_loss
    p[has_gold] = fixed[has_gold]
    return p, err, priors, done


def aggregate_labels(item, annotator, label, *, n_items: int, n_annotators: int,
                     n_classes: int, method: str = "majority",
                     gold: np.ndarray | None = None, n_iter: int = 100) -> Aggregate:
    """Each item's label from its annotators' votes.

    Parameters
    ----------
    item, annotator, label : int arrays of shape (n_votes,)
        Coded votes (at most one per item and annotator).
    n_items, n_annotators, n_classes : int
    method : {"majority", "dawid-skene"}, default="majority"
    gold : int array of shape (n_items,), optional
        Gold (adjudicated) class codes, -1 where none: those items take their gold label.
    n_iter : int, default=100
        Dawid-Skene's EM iterations at most.

    Returns
    -------
    Aggregate
    """
    if method not in AGGREGATES:
        raise DataError(f"aggregation '{method}' is not one of {', '.join(AGGREGATES)}")
    item, annotator, label = _check(item, annotator, label, n_items, n_annotators, n_classes)
    g = np.full(n_items, -1, dtype=np.int64) if gold is None else np.asarray(gold, np.int64)
    if len(g) != n_items:
        raise DataError(f"{len(g)} gold codes for {n_items} items")
    confusion = priors = None
    iters = 0
    if method == "majority":
        post = _shares(item, label, n_items, n_classes)
    else:
        post, confusion, priors, iters = dawid_skene(
            item, annotator, label, n_items=n_items, n_annotators=n_annotators,
            n_classes=n_classes, gold=g, n_iter=n_iter)
    has = post.sum(axis=1) > 0
    top = post.max(axis=1, initial=0.0)
    tol = 1e-12 if method == "majority" else 1e-9
    tie = has & ((post >= top[:, None] - tol).sum(axis=1) > 1)
    out = np.where(has & ~tie, post.argmax(axis=1), -1)
    with_gold = g >= 0
    out[with_gold] = g[with_gold]
    tie &= ~with_gold
    return Aggregate(label=out.astype(np.int64), tie=tie, posterior=post, confusion=confusion,
                     priors=priors, method=method, n_iter=iters)
