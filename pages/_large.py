"""Large tables on the dashboard: exact numbers, charts from a seeded sample of rows.

A table of :data:`LARGE_ROWS` rows or more (the CLI's large-table threshold,
:data:`core.scale.cli.LARGE_ROWS`) keeps every figure the pages print exact: the assignment at
the current setting and its metrics are solved on every row (the top-N of
:func:`core.assignment.solve_fast`, what ``hmceval assign`` runs on such a table's compact
columns). The charts, each a sweep of the whole table over a grid of settings, are drawn
from a seeded sample of :data:`CHART_ROWS` rows (the same rows on every run), and say so
(:func:`sample_caption`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from core.assignment import SAEInputs
from core.format import count
from core.scale.cli import LARGE_ROWS

#: Rows of the seeded sample the charts of a large table are drawn from.
CHART_ROWS = 100_000
#: Seed of that sample.
CHART_SEED = 34


def is_large(m: int) -> bool:
    """A table whose charts are drawn from a sample (:data:`LARGE_ROWS` rows or more)."""
    return int(m) >= LARGE_ROWS


def sample_rows(m: int) -> np.ndarray:
    """The sample's rows: :data:`CHART_ROWS` of ``m`` without replacement, in row order,
    the same for every run (seed :data:`CHART_SEED`)."""
    rng = np.random.default_rng(CHART_SEED)
    return np.sort(rng.choice(int(m), size=min(CHART_ROWS, int(m)), replace=False))


def sample_inputs(inp: SAEInputs) -> SAEInputs:
    """The SAE inputs of the sample's rows (every per-row array cut to them)."""
    rows = sample_rows(inp.M)
    cut = {f.name: getattr(inp, f.name)[rows] for f in dataclasses.fields(inp)
           if isinstance(getattr(inp, f.name), np.ndarray)}
    return dataclasses.replace(inp, **cut)


def sample_budget(n: int, m: int) -> int:
    """The budget N of the whole table as the same share of the sample's rows."""
    k = min(CHART_ROWS, int(m))
    return int(round(int(n) * k / int(m))) if m else 0


def sample_caption(m: int) -> str:
    """The caption under a large table's charts."""
    k = min(CHART_ROWS, int(m))
    return (f"Large table: the charts are drawn from a seeded sample of {count(k)} of its "
            f"{count(int(m))} rows (budgets as the same share of the sample); every number "
            "printed on the page is exact, computed on all rows.")


def large_preview(data, settings: dict) -> dict | None:
    """The Evaluate page's preview of an active or random round of a large table, solved in
    chunked passes over its compact columns (:func:`core.scale.design.plan_scaled`, what
    ``hmceval queue -o OUT.parquet`` runs; its frontier equals the in-memory solve's to
    1e-11): ``{"summary", "frontier", "range": None, "large": True}``; None when the table is not large or
    the settings are not on that path (an earlier round's labels, a stratified design).

    The range of the expectations under miscalibrated confidences is not computed on this
    path (:data:`PREVIEW_NOTE` says so)."""
    if not is_large(data.M) or settings.get("calibrate_on") is not None \
            or settings.get("stratify") or settings.get("design") not in ("active", "random"):
        return None
    import pandas as pd

    from core.evaluation.estimate import estimator_half_width
    from core.scale.design import plan_scaled
    from core.scale.engine import LocalEngine
    from core.workspace.active_rounds import budget_of

    f = data.frame
    classes = list(data.labels)
    cols = {"q": f["machine_confidence"].to_numpy(float),
            "code": pd.Index(classes, dtype=object).get_indexer(
                f["machine_label"].astype(object)).astype(np.int16)}
    if data.effort_source != "uniform":
        cols["effort"] = f["predicted_effort"].to_numpy(float)
    ratio = settings.get("width_ratio")
    engine = LocalEngine(cols)
    try:
        plan = plan_scaled(engine, n_classes=len(classes), kind=settings["design"],
                           lam=float(settings.get("lam", 0.0)), seed=int(settings.get("seed", 0)),
                           width_ratio=None if ratio is None else float(ratio),
                           width_model=estimator_half_width, **budget_of(settings))
    finally:
        engine.close()
    return {"summary": plan.design.summary(), "frontier": plan.frontier, "range": None,
            "large": True}


#: The caption under a large table's design preview.
PREVIEW_NOTE = ("Large table: the design was solved in chunked passes over its compact columns "
                "(the large-table path of hmceval queue; the same design as in memory); the "
                "range of these expectations under miscalibrated confidences is not computed "
                "for a table this large.")
