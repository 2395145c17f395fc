"""The annotators of a round: how much they agree, how good each one is, how long they take.

:func:`annotator_report` reads the votes behind a round's labels (a
:class:`core.evaluation.labels.imports.JoinedLabels`: every (row, annotator, label, seconds) and each
row's aggregate) and gives one JSON-ready dict, the one form of ``hmceval labels --json``,
``hmceval annotators`` and the workspace:

* ``krippendorff_alpha``: ``estimate``, ``ci_low``, ``ci_high`` (percentile bootstrap over the
  rows), ``level`` (:mod:`core.evaluation.annotators.alpha`);
* ``fleiss_kappa`` and ``percent_agreement`` over the rows with two or more labels
  (:func:`core.evaluation.annotators.agreement.fleiss_kappa`);
* ``pairwise``: Cohen's kappa and the share of agreement of every pair of annotators on the
  rows both labelled (:func:`core.evaluation.annotators.agreement.pair_kappa`);
* ``per_annotator``: rows labelled, agreement with the aggregate (on rows another annotator
  also labelled, so that a row labelled once does not count as agreeing with itself), with the
  gold rows (the gold annotator's labels), the confusion matrix against the aggregate (rows:
  the aggregate's class, columns: the annotator's label) and the median seconds per label.

The gold annotator (an adjudicator, an expert) is left out of the agreement statistics: their
labels are the reference.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from core.evaluation.annotators.agreement import fleiss_kappa, pair_kappa
from core.evaluation.annotators.alpha import LEVELS, alpha_interval

__all__ = ["annotator_report", "class_values"]


def class_values(classes: list, level: str) -> np.ndarray:
    """The number each class stands for in Krippendorff's alpha: its position for
    ``nominal``; its numeric value for ``ordinal``/``interval`` when every class is a number,
    else its position in the dataset's class order."""
    if level != "nominal":
        try:
            return np.array([float(c) for c in classes], dtype=float)
        except (TypeError, ValueError):
            pass
    return np.arange(len(classes), dtype=float)


def _nan_none(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and np.isnan(x)) else float(x)


def annotator_report(joined, classes: list, *, level: str = "nominal", n_boot: int = 1000,
                     seed: int = 0, confidence: float = 0.95) -> dict[str, Any]:
    """Agreement and quality of a round's annotators.

    Parameters
    ----------
    joined : core.evaluation.labels.imports.JoinedLabels
        The round's votes joined to its rows (its ``votes``, ``label``, ``gold_annotator``).
    classes : list
        The dataset's class values (the votes' labels are among them).
    level : {"nominal", "ordinal", "interval"}, default="nominal"
        Krippendorff's alpha's level of measurement (:func:`class_values`).
    n_boot : int, default=1000
    seed : int, default=0
    confidence : float, default=0.95

    Returns
    -------
    dict
        ``n_rows`` (rows with a label), ``n_labels``, ``n_annotators`` (gold annotator not
        counted), ``aggregate``, ``gold_annotator``, ``n_gold``, ``krippendorff_alpha``,
        ``fleiss_kappa``, ``percent_agreement``, ``n_multi`` (rows with two or more labels),
        ``pairwise`` (list), ``per_annotator`` (list); undefined values are None.
    """
    if level not in LEVELS:
        from core.errors import DataError

        raise DataError(f"level of measurement '{level}' is not one of {', '.join(LEVELS)}")
    votes: pd.DataFrame = joined.votes
    gold_name = joined.gold_annotator
    is_gold = votes["annotator"].to_numpy(dtype=object) == gold_name if gold_name is not None \
        else np.zeros(len(votes), dtype=bool)
    gold = {int(r): lab for r, lab in zip(votes["row"][is_gold], votes["label"][is_gold])}
    v = votes[~is_gold]
    names = sorted(set(v["annotator"]), key=str)
    rows = sorted(set(int(r) for r in v["row"]))
    col = {r: j for j, r in enumerate(rows)}
    code = {c: i for i, c in enumerate(classes)}
    values = class_values(list(classes), level)
    data = np.full((len(names), len(rows)), np.nan)
    who = {a: i for i, a in enumerate(names)}
    for r, a, lab in zip(v["row"], v["annotator"], v["label"]):
        data[who[a], col[int(r)]] = values[code[lab]]
    alpha = alpha_interval(data, level=level, n_boot=n_boot, seed=seed, confidence=confidence)
    per_row: dict[int, dict[str, Any]] = {}
    for r, a, lab in zip(v["row"], v["annotator"], v["label"]):
        per_row.setdefault(int(r), {})[a] = lab
    p_bar, fk = fleiss_kappa(list(per_row.values()))
    pairwise = []
    for a, b in combinations(names, 2):
        both = [it for it in per_row.values() if a in it and b in it]
        if not both:
            continue
        la, lb = [it[a] for it in both], [it[b] for it in both]
        pairwise.append({"annotators": [str(a), str(b)], "n_items": len(both),
                         "agreement": float(np.mean([x == y for x, y in zip(la, lb)])),
                         "cohen_kappa": _nan_none(pair_kappa(la, lb))})
    agg = joined.label.to_numpy(dtype=object)
    per_annotator = []
    for a in names:
        mine = v[v["annotator"] == a]
        r_arr = mine["row"].to_numpy(dtype=np.int64)
        lab = mine["label"].to_numpy(dtype=object)
        multi = np.array([len(per_row[int(r)]) >= 2 for r in r_arr], dtype=bool)
        ref = agg[r_arr]
        has_ref = np.array([x is not None for x in ref], dtype=bool)
        cmp = has_ref & multi
        g_mask = np.array([int(r) in gold for r in r_arr], dtype=bool)
        conf = np.zeros((len(classes), len(classes)), dtype=np.int64)
        for x, y in zip(ref[has_ref], lab[has_ref]):
            conf[code[x], code[y]] += 1
        secs = mine["seconds"].to_numpy(dtype=float)
        secs = secs[~np.isnan(secs)]
        per_annotator.append({
            "annotator": str(a), "items": int(len(mine)),
            "agreement_with_aggregate": _nan_none(float(np.mean(lab[cmp] == ref[cmp]))
                                                  if cmp.any() else np.nan),
            "n_compared": int(cmp.sum()),
            "agreement_with_gold": _nan_none(float(np.mean(
                [lab[i] == gold[int(r_arr[i])] for i in np.flatnonzero(g_mask)]))
                if g_mask.any() else np.nan),
            "n_gold": int(g_mask.sum()),
            "confusion": {"classes": [str(c) for c in classes], "rows": "aggregate",
                          "columns": "annotator", "matrix": conf.tolist()},
            "median_seconds": _nan_none(float(np.median(secs)) if len(secs) else np.nan),
            "n_timed": int(len(secs))})
    alpha_d = alpha.as_dict()
    for k in ("estimate", "ci_low", "ci_high"):
        alpha_d[k] = _nan_none(alpha_d[k])
    return {"n_rows": len(rows), "n_labels": int(len(v)), "n_annotators": len(names),
            "aggregate": joined.aggregate, "gold_annotator": gold_name, "n_gold": len(gold),
            "krippendorff_alpha": alpha_d, "fleiss_kappa": _nan_none(fk),
            "percent_agreement": _nan_none(p_bar),
            "n_multi": int(sum(len(it) >= 2 for it in per_row.values())),
            "pairwise": pairwise, "per_annotator": per_annotator}


def describe(report: dict[str, Any]) -> list[str]:
    """Plain lines for a terminal: alpha with its interval, then one line per annotator."""
    a = report["krippendorff_alpha"]
    if a["estimate"] is None:
        lines = [f"Krippendorff's alpha: undefined ({report['n_multi']} rows labelled twice "
                 "or more)"]
    else:
        ci = "" if a["ci_low"] is None else \
            f" ({a['confidence']:.0%} bootstrap interval {a['ci_low']:.3f} to {a['ci_high']:.3f})"
        lines = [f"Krippendorff's alpha ({a['level']}) = {a['estimate']:.3f}{ci} on "
                 f"{a['n_units']:,} rows labelled twice or more"]
    for p in report["per_annotator"]:
        bits = [f"{p['items']:,} labels"]
        if p["agreement_with_aggregate"] is not None:
            bits.append(f"agrees with the {report['aggregate']} label on "
                        f"{p['agreement_with_aggregate']:.1%} of {p['n_compared']:,}")
        if p["agreement_with_gold"] is not None:
            bits.append(f"with gold on {p['agreement_with_gold']:.1%} of {p['n_gold']:,}")
        if p["median_seconds"] is not None:
            bits.append(f"median {p['median_seconds']:.1f} s")
        lines.append(f"  annotator {p['annotator'] or '(unnamed)'}: " + ", ".join(bits))
    return lines
