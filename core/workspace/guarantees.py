"""A guarantee round's two guarantees, before any label is read: which one a round's settings
name (:func:`guarantee_level`) and what each would keep on similar data, by simulation
(:func:`certify_preview`, :func:`guarantee_previews`; the Evaluate page's guarantee mode).

The guarantees themselves are :func:`core.evaluation.guarantee.certify` (the machine's error
rate on the rows it keeps <= alpha) and :func:`core.evaluation.pac.certify_overall` (the final
labels' overall error <= epsilon); :func:`core.workspace.rounds.certify_round` certifies.
"""

from __future__ import annotations

from typing import Any

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


def certify_preview(data: EvalData, settings: dict[str, Any], *, rounds: int = 100,
                    seed: int = 0) -> dict[str, Any]:
    """How much a guarantee round would certify on similar data, by simulation.

    The guarantee is the one ``settings`` names (:func:`guarantee_level`). With gold labels
    on every row the truth is the gold; otherwise errors are drawn as if the confidences were
    calibrated (the result says which). Each simulated round draws a new simple random
    calibration sample of ``settings["calibration"]`` rows and certifies it.
    """
    from core.evaluation.simulate import confidence_implied_errors, simulate_certify
    from core.assignment import SAEInputs

    inp = SAEInputs.from_data(data)
    n_cal = int(settings["calibration"])
    level = guarantee_level(settings)
    if data.has_gold:
        errors = (data.frame["machine_label"].to_numpy(dtype=object)
                  != data.frame["human_label"].to_numpy(dtype=object))
        basis = "the gold labels"
    else:
        errors = confidence_implied_errors(inp.a, seed=seed)
        basis = "errors drawn as if the confidences were calibrated (no gold labels)"
    sim = simulate_certify(inp, errors=errors, alpha=level["alpha"],
                           epsilon=level["overall_error"], delta=float(settings["delta"]),
                           calibration=n_cal, lam=float(settings.get("lam", 0.0)),
                           rounds=rounds, seed=seed)
    s = dict(sim.summary)
    certified = sim.rounds.loc[sim.rounds["certified"], "machine_share"]
    s["median_share_when_certified"] = float(certified.median()) if len(certified) else None
    rest = data.M - n_cal
    s["median_saving"] = s["median_machine_share"] * rest / data.M
    s["guarantee"] = "overall" if level["overall_error"] is not None else "kept"
    s["sentence"] = (f"On {rounds} simulated calibration samples of {n_cal:,} rows (truth: "
                     f"{basis}), the machine would keep a median {s['median_machine_share']:.0%} "
                     f"of the other {rest:,} rows (about "
                     f"{int(round(s['median_machine_share'] * rest)):,}); something was "
                     f"certified in {s['certified_rate']:.0%} of them"
                     + (f" (keeping a median {s['median_share_when_certified']:.0%} when it was)"
                        if s["median_share_when_certified"] is not None else "")
                     + f" and the guarantee failed "
                     f"in {s['violation_rate']:.1%} (allowed: {float(settings['delta']):.0%}).")
    s["basis"] = basis
    return s


def guarantee_previews(data: EvalData, settings: dict[str, Any], *,
                       rounds: int = 100, seed: int = 0) -> pd.DataFrame:
    """Both guarantees side by side on similar data (:func:`certify_preview` for each), with
    the calibration size, δ and λ of ``settings`` and each guarantee's own level (``alpha``,
    ``overall_error``): what the page shows before any label is read.

    Returns
    -------
    pandas.DataFrame
        One row per guarantee: ``guarantee`` (its plain words), ``level``, ``median_kept``
        (rows the machine keeps, median over the simulated rounds), ``median_saving`` (kept
        rows / all rows), ``certified_rate``, ``violation_rate``, ``delta``, ``basis``.
    """
    out = []
    for which in GUARANTEES:
        sim = certify_preview(data, {**settings, "guarantee": which}, rounds=rounds, seed=seed)
        rest = data.M - int(settings["calibration"])
        out.append({"guarantee": GUARANTEES[which],
                    "level": float(settings["overall_error" if which == "overall" else "alpha"]),
                    "median_kept": int(round(sim["median_machine_share"] * rest)),
                    "median_saving": float(sim["median_saving"]),
                    "certified_rate": float(sim["certified_rate"]),
                    "violation_rate": float(sim["violation_rate"]),
                    "delta": float(settings["delta"]), "basis": sim["basis"]})
    return pd.DataFrame(out)
