"""One assignment as the user sees it: the metrics JSON and the per-sample table.

The dashboard's downloads and the ``hmceval assign`` command both call these functions, so
the two never compute the same thing two ways.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from core.assignment.lambdas import LambdaRange, lambda_range
from core.assignment.model import Assignment, Constraints, SAEInputs, evaluate, n_from_share, solve
from core.assignment.reliability import collaborative_labels, per_class_table, scores_from_confusion
from core.data import EvalData
from core.errors import DataError
from core.summary import data_effort_unit

__all__ = ["run_assignment", "assignment_json", "assignment_table", "per_class_report",
           "lambda_range_json", "ASSIGN_KEYS"]

#: Keys of the ``hmceval assign --json`` object (stable contract), in order.
ASSIGN_KEYS = ("M", "N", "lambda", "mode", "n_human", "human_ratio", "time_cost",
               "time_cost_predicted", "precision", "recall", "f1", "accuracy", "objective",
               "machine_only")


def run_assignment(data: EvalData, *, lam: float, share: float | None = None,
                   n_human: int | None = None, mode: str = "at_most",
                   constraints: Constraints | None = None) -> tuple[SAEInputs, Assignment]:
    """Solve the SAE problem on a dataset.

    Parameters
    ----------
    data : EvalData
    lam : float >= 0
    share : float in [0, 1], optional
        Human share; N = int(share * M). Exactly one of ``share`` and ``n_human``.
    n_human : int, optional
    mode : {"at_most", "exactly"}
    constraints : Constraints, optional

    Returns
    -------
    (SAEInputs, Assignment)
    """
    inp = SAEInputs.from_data(data)
    if (share is None) == (n_human is None):
        raise ValueError("give exactly one of share and n_human")
    n = n_from_share(share, data.M) if share is not None else int(n_human)
    return inp, solve(inp, lam=lam, n_human=n, mode=mode, constraints=constraints)


def assignment_json(data: EvalData, inp: SAEInputs, assignment: Assignment, *,
                    lam_range: LambdaRange | None = None) -> dict[str, Any]:
    """The metrics object of ``hmceval assign --json`` (keys :data:`ASSIGN_KEYS` first).

    Observed reliability is ``None`` (JSON ``null``) without gold labels, and so is the time
    cost without ground-truth effort. ``lambda_range`` is :func:`lambda_range_json` at the
    assignment's N and mode; ``lam_range``, when given, is that range already computed (a page
    caches it per dataset, N and mode) and must be :func:`core.assignment.lambda_range` at them.
    """
    res = evaluate(inp, assignment)
    out = {k: res[k] for k in ASSIGN_KEYS}
    out["method"] = res["method"]
    out["expected_reliability"] = res["expected_reliability"]
    out["effort_source"] = data.effort_source
    out["confidence_column"] = data.roles.get("machine_confidence")
    out["lambda_range"] = lambda_range_json(data, inp, n_human=assignment.n_budget,
                                            mode=assignment.mode, lam_range=lam_range)
    return out


def lambda_range_json(data: EvalData, inp: SAEInputs, *, n_human: int,
                      mode: str = "at_most", lam_range: LambdaRange | None = None
                      ) -> dict[str, Any]:
    """The range of lambda that changes the assignment (:func:`core.assignment.lambda_range`), as JSON.

    Returns
    -------
    dict
        ``upper`` (beyond it nothing changes; "at most N" with effort above the machine's: no
        sample goes to humans from it on), ``pivot`` (N samples go to humans below it; ``null``
        in "exactly" mode, and when N go at every lambda, ``n_beyond`` = N: strict JSON has no
        Infinity), ``first`` (the smallest
        gain/effort ratio), ``n_beyond`` (how many samples go to humans at every lambda above
        ``upper``: usually 0 in "at most" mode, more when some samples' effort is not above the
        machine's, e.g. 0) and ``effort_unit`` (from the effort column's name, else "effort
        units"), all for the problem without extra constraints.
    """
    r = lam_range
    if r is None or r.n_human != int(n_human) or r.mode != mode:
        r = lambda_range(inp, n_human=n_human, mode=mode)  # type: ignore[arg-type]
    pivot = r.pivot if r.pivot is None or math.isfinite(r.pivot) else None
    return {"upper": r.upper, "pivot": pivot, "first": r.first, "n_beyond": r.n_beyond,
            "effort_unit": data_effort_unit(data)}


def assignment_table(data: EvalData, assignment: Assignment) -> pd.DataFrame:
    """Every sample with its decision, confidence, effort and final label.

    Returns
    -------
    pandas.DataFrame of shape (M, n)
        ``row`` (1-based), ``sample_id``/``dialogue_id``/``turn`` when known, ``decision``
        (``human``/``machine``), ``machine_label``, ``machine_confidence``,
        ``predicted_effort``, ``human_effort`` when known, ``human_label`` when known and
        ``final_label`` (the human label for human samples, the machine label otherwise; empty
        for human samples when no gold label is available).
    """
    f = data.frame
    out = pd.DataFrame({"row": np.arange(1, data.M + 1)})
    for col in ("sample_id", "dialogue_id", "turn"):
        if col in f:
            out[col] = f[col].to_numpy()
    out["decision"] = np.where(assignment.human, "human", "machine")
    out["machine_label"] = f["machine_label"].to_numpy()
    out["machine_confidence"] = f["machine_confidence"].to_numpy()
    out["predicted_effort"] = f["predicted_effort"].to_numpy()
    if "human_effort" in f:
        out["human_effort"] = f["human_effort"].to_numpy()
    if "human_label" in f:
        out["human_label"] = f["human_label"].to_numpy()
        out["final_label"] = collaborative_labels(f["machine_label"].to_numpy(),
                                                  f["human_label"].to_numpy(), assignment.human)
    else:
        out["final_label"] = np.where(assignment.human, None, f["machine_label"].to_numpy().astype(object))
    return out


def per_class_report(data: EvalData, assignment: Assignment, *,
                     inputs: SAEInputs | None = None) -> pd.DataFrame:
    """Per-class precision, recall and F1 of the collaborative labels and of the machine alone.

    Parameters
    ----------
    data : EvalData
        A dataset with gold labels.
    assignment : Assignment
    inputs : SAEInputs, optional
        The dataset's inputs (:meth:`core.assignment.SAEInputs.from_data`): their labels, encoded once
        (:attr:`core.assignment.SAEInputs.label_codes`), give the same table without re-reading the
        labels one by one.

    Returns
    -------
    pandas.DataFrame with one row per class of ``data.labels``
        ``label``, ``precision``, ``recall``, ``f1``, ``support`` (gold count) of the
        collaborative labels, then ``precision (machine)``, ``recall (machine)``,
        ``f1 (machine)`` of the machine's labels (:func:`core.assignment.reliability.per_class_table`).

    Raises
    ------
    DataError
        The dataset has no gold labels.
    """
    if not data.has_gold:
        raise DataError("per-class scores need gold labels (map a human_label column)")
    codes = inputs.label_codes if inputs is not None else None
    if (codes is not None and list(codes.classes) == list(data.labels)
            and len(assignment.human) == len(codes.gold)):
        c = len(codes.classes)
        final = np.where(np.asarray(assignment.human, dtype=bool), codes.gold, codes.machine)
        tables = []
        for cm in (np.bincount(codes.gold * c + final, minlength=c * c).reshape(c, c),
                   codes.machine_cm):
            # the table core.assignment.reliability.per_class_table builds from the same counts
            s = scores_from_confusion(cm)
            tables.append(pd.DataFrame({"label": list(codes.classes),
                                        "precision": s["precision_per_class"],
                                        "recall": s["recall_per_class"], "f1": s["f1_per_class"],
                                        "support": s["support"].astype(int)}))
        return tables[0].merge(tables[1], on=["label", "support"], suffixes=("", " (machine)"))
    f = data.frame
    gold = f["human_label"].to_numpy()
    final = collaborative_labels(f["machine_label"].to_numpy(), gold, assignment.human)
    labels = list(data.labels)
    collab = per_class_table(gold, final, labels=labels)
    machine = per_class_table(gold, f["machine_label"].to_numpy(), labels=labels)
    return collab.merge(machine, on=["label", "support"], suffixes=("", " (machine)"))
