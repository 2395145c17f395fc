"""The annotators of a round kept in the workspace: their agreement, quality and time.

:func:`round_annotators` reads the round's stored votes (every annotator's latest label of each
row, with its seconds: :func:`core.workspace.rounds.stored_votes`), aggregates them
(:func:`core.evaluation.labels.imports.join_labels`: majority or Dawid-Skene) and returns
:func:`core.evaluation.annotators.report.annotator_report`'s dict, the one form of ``hmceval
annotators``: the Evaluate page and the HTML report show it. Nothing is written; the round's
stored labels are not changed by the aggregate chosen here.
"""

from __future__ import annotations

from typing import Any

from core.workspace.rounds import round_design, stored_votes
from core.workspace.store import Workspace

__all__ = ["round_annotators", "several_annotators"]


def round_annotators(ws: Workspace, round_id: int, *, aggregate: str = "majority",
                     gold_annotator: str | None = None, level: str = "nominal",
                     n_boot: int = 1000, seed: int = 0) -> dict[str, Any] | None:
    """The annotator report of a workspace round (None when the round holds no vote).

    Parameters
    ----------
    ws : Workspace
    round_id : int
    aggregate : {"majority", "dawid-skene"}, default="majority"
        The aggregate each annotator is compared with.
    gold_annotator : str, optional
        The annotator whose labels are gold (left out of the agreement).
    level : {"nominal", "ordinal", "interval"}, default="nominal"
        Krippendorff's alpha's level of measurement.
    n_boot, seed : int
        Bootstrap replicates and seed of alpha's interval.

    Returns
    -------
    dict or None
        :func:`core.evaluation.annotators.report.annotator_report`'s dict plus ``adjudication`` (the
        sample ids tied under ``aggregate``).
    """
    from core.evaluation.annotators import annotator_report
    from core.evaluation.labels import join_labels
    from core.evaluation.labels import LabelImport

    _, design = round_design(ws, round_id)
    votes = stored_votes(ws, round_id, design)
    if not len(votes):
        return None
    imported = LabelImport(source="stored", sample_id=tuple(votes["sample_id"]),
                           annotator=tuple(votes["annotator"]), label=tuple(votes["label"]),
                           where=tuple(f"stored vote {i + 1}" for i in range(len(votes))),
                           n_tasks=len(votes), seconds=tuple(votes["seconds"].astype(float)))
    classes = list(design.data.labels)
    joined = join_labels(imported, sample_ids=design.sample_ids(), classes=classes,
                         aggregate=aggregate, gold_annotator=gold_annotator)
    report = annotator_report(joined, classes, level=level, n_boot=n_boot, seed=seed)
    report["adjudication"] = list(joined.adjudication)
    return report


def several_annotators(report: dict[str, Any] | None) -> bool:
    """Whether a report has votes from two or more annotators (gold annotator not counted):
    what agreement needs."""
    return report is not None and report["n_annotators"] >= 2
