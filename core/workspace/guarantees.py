"""A guarantee round's two guarantees, before any label is read: which one a round's settings
name (:func:`guarantee_level`) and what each would keep on similar data, by simulation
(:func:`certify_preview`, :func:`guarantee_previews`; the Evaluate page's guarantee mode).

The guarantees themselves are :func:`core.evaluation.certify.selective.certify` (the machine's error
rate on the rows it keeps <= alpha) and :func:`core.evaluation.certify.overall.certify_overall` (the final
labels' overall error <= epsilon); :func:`core.workspace.rounds.certify_round` certifies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.data import EvalData
from core.errors import DataError

__all__ = ["GUARANTEES", "guarantee_level", "certify_preview", "guarantee_previews"]


#: The two guarantees of a guarantee round, in plain words (the page's choice and sentences).
GUARANTEES = {
    "kept": "Rows the machine keeps: its error rate on them is at most α",
    "overall": "Whole dataset: at most ε of all final labels are wrong",
}


def guarantee_level(settings: dict[str, Any]) -> dict[str, float | None]:
    """``{"alpha": ..., "overall_error": ...}`` of a guarantee round's settings: exactly one
    is a number (``guarantee`` ``"overall"`` takes ``overall_error``; ``"kept"``, the default
    of rounds planned before there was a choice, takes ``alpha``)."""
    which = settings.get("guarantee", "kept")
    if which not in GUARANTEES:
        raise DataError(f"guarantee must be one of {sorted(GUARANTEES)}, got {which!r}")
    if which == "overall":
        return {"alpha": None, "overall_error": float(settings["overall_error"])}
    return {"alpha": float(settings["alpha"]), "overall_error": None}


def _truth(data: EvalData, seed: int) -> tuple[Any, np.ndarray, str]:
    """The rows' inputs, the machine's errors the simulation takes as the truth, and their
    source in words: the gold labels where every row has one, else errors drawn as if the
    confidences were calibrated."""
    from core.assignment import SAEInputs
    from core.evaluation.certify import confidence_implied_errors

    inp = SAEInputs.from_data(data)
    if data.has_gold:
        errors = (data.frame["machine_label"].to_numpy(dtype=object)
                  != data.frame["human_label"].to_numpy(dtype=object))
        return inp, errors, "the gold labels"
    return (inp, confidence_implied_errors(inp.a, seed=seed),
            "errors drawn as if the confidences were calibrated (no gold labels)")


def _simulate(m: int, inp, errors: np.ndarray, basis: str, settings: dict[str, Any], *,
              rounds: int, seed: int) -> dict[str, Any]:
    from core.evaluation.certify import simulate_certify

    level = guarantee_level(settings)
    n_cal = int(settings["calibration"])
    sim = simulate_certify(inp, errors=errors, alpha=level["alpha"],
                           epsilon=level["overall_error"], delta=float(settings["delta"]),
                           calibration=n_cal, lam=float(settings.get("lam", 0.0)),
                           rounds=rounds, seed=seed)
    s = dict(sim.summary)
    s["median_saving"] = s["median_machine_share"] * (m - n_cal) / m
    s["guarantee"] = "overall" if level["overall_error"] is not None else "kept"
    s["basis"] = basis
    return s


def certify_preview(data: EvalData, settings: dict[str, Any], *, rounds: int = 100,
                    seed: int = 0) -> dict[str, Any]:
    """How much a guarantee round would certify on similar data, by simulation.

    The guarantee is the one ``settings`` names (:func:`guarantee_level`). With gold labels
    on every row the truth is the gold; otherwise errors are drawn as if the confidences were
    calibrated (``basis`` says which). Each simulated round draws a new simple random
    calibration sample of ``settings["calibration"]`` rows and certifies it.

    Returns
    -------
    dict
        :func:`core.evaluation.certify.simulate.simulate_certify`'s summary, plus ``median_saving``
        (kept rows / all rows), ``guarantee`` (``"kept"`` or ``"overall"``) and ``basis``.
    """
    inp, errors, basis = _truth(data, seed)
    return _simulate(data.M, inp, errors, basis, settings, rounds=rounds, seed=seed)


def guarantee_previews(data: EvalData, settings: dict[str, Any], *,
                       rounds: int = 100, seed: int = 0) -> pd.DataFrame:
    """Both guarantees side by side on similar data (:func:`certify_preview` for each, on
    one truth), with the calibration size, δ and λ of ``settings`` and each guarantee's own
    level (``alpha``, ``overall_error``): what the page shows before any label is read.

    Returns
    -------
    pandas.DataFrame
        One row per guarantee: ``guarantee`` (its plain words), ``level``, ``median_kept``
        (rows the machine keeps, median over the simulated rounds), ``median_saving`` (kept
        rows / all rows), ``certified_rate``, ``violation_rate``, ``delta``, ``basis``.
    """
    inp, errors, basis = _truth(data, seed)
    rest = data.M - int(settings["calibration"])
    out = []
    for which in GUARANTEES:
        sim = _simulate(data.M, inp, errors, basis, {**settings, "guarantee": which},
                        rounds=rounds, seed=seed)
        out.append({"guarantee": GUARANTEES[which],
                    "level": float(settings["overall_error" if which == "overall" else "alpha"]),
                    "median_kept": int(round(sim["median_machine_share"] * rest)),
                    "median_saving": float(sim["median_saving"]),
                    "certified_rate": float(sim["certified_rate"]),
                    "violation_rate": float(sim["violation_rate"]),
                    "delta": float(settings["delta"]), "basis": basis})
    return pd.DataFrame(out)
