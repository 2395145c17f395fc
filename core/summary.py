"""Plain words for a result: the effort's unit and the sentences a manager reads first.

Pure functions (no streamlit): the Trade-off and Evaluate pages show their sentences, with the
technical figures (objective, Eq. 3, expected reliability) one click away.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


from core.data import effort_unit as unit_of_name
from core.format import lam as lam_text, pct

__all__ = ["UNKNOWN_UNIT", "effort_unit", "data_effort_unit", "per_unit",
           "TradeoffSummary", "tradeoff_summary", "round_sentence", "beyond_lambda_range",
           "certificate_totals"]

#: What an effort of unknown unit is called.
UNKNOWN_UNIT = "effort units"

def effort_unit(column: str | None) -> str:
    """The unit an effort column's name states, e.g. ``annot_seconds`` -> ``"seconds"``.

    The rule lives in :func:`core.data.effort_unit` (role detection uses it too); this wrapper
    names an unknown unit :data:`UNKNOWN_UNIT` for captions and axis titles.

    Parameters
    ----------
    column : str or None
        A column name.

    Returns
    -------
    str
        ``"milliseconds"``, ``"seconds"``, ``"minutes"``, ``"hours"`` or :data:`UNKNOWN_UNIT`.
    """
    if not column:
        return UNKNOWN_UNIT
    return unit_of_name(column) or UNKNOWN_UNIT


def data_effort_unit(data: Any) -> str:
    """The unit of the effort the optimiser uses (l_i) for a :class:`core.data.EvalData`.

    The column of ``data.effort_source`` (predicted or ground-truth effort) names it; uniform
    effort (1 per sample) and unrecognised names give :data:`UNKNOWN_UNIT`.
    """
    if data.effort_source not in ("predicted_effort", "human_effort"):
        return UNKNOWN_UNIT
    return effort_unit(data.roles.get(data.effort_source))


def per_unit(unit: str) -> str:
    """``"seconds"`` -> ``"per second"``, :data:`UNKNOWN_UNIT` -> ``"per effort unit"``."""
    return "per " + (unit[:-1] if unit.endswith("s") else unit)


def _whole_pct(x: float) -> str:
    """A change in percent: whole percents from 10 up, one decimal below (``"49%"``, ``"4.5%"``).

    Never rounds to 100% or 0% unless the value is exactly that: 99.8% stays ``"99.8%"``
    (humans still label something), 99.97% is ``"over 99.9%"``, 0.02% is ``"under 0.1%"``."""
    v = 100 * x
    if v == 100 or v == 0:
        return f"{v:.0f}%"
    if 99.95 <= abs(v) < 100:
        return "over 99.9%"
    if 0 < abs(v) < 0.05:
        return "under 0.1%"
    if round(abs(v), 1) >= 10 and round(abs(v)) != 100:
        return f"{v:.0f}%"
    return f"{v:.1f}%"


@dataclass(frozen=True)
class TradeoffSummary:
    """Plain sentences about one assignment.

    Attributes
    ----------
    headline : str
        What changes against the machine alone and against labelling everything.
    why : str or None
        In "at most N" mode when fewer than N samples go to humans: why the others stay with
        the machine. None otherwise.
    """

    headline: str
    why: str | None


def tradeoff_summary(res: dict[str, Any], *, unit: str = UNKNOWN_UNIT,
                     machine_expected: float | None = None) -> TradeoffSummary:
    """The plain-language summary of an assignment (:func:`core.assignment.report.assignment_json`).

    Parameters
    ----------
    res : dict
        Needs ``M``, ``N``, ``lambda``, ``mode``, ``n_human``, ``accuracy``, ``time_cost``,
        ``time_cost_predicted`` and ``machine_only`` (``None`` without gold labels).
    unit : str
        The effort's unit (:func:`data_effort_unit`), named in the "why" sentence.
    machine_expected : float, optional
        The machine's mean confidence over all samples, compared with ``expected_reliability``
        ("expected accuracy": what the confidences promise) when there are no gold labels.

    Returns
    -------
    TradeoffSummary

    Examples
    --------
    >>> res = {"M": 5673, "N": 2836, "lambda": 0.01, "mode": "at_most", "n_human": 1728,
    ...        "accuracy": 0.985, "time_cost": 0.51, "time_cost_predicted": 0.5,
    ...        "machine_only": {"accuracy": 0.862}}
    >>> print(tradeoff_summary(res, unit="seconds").headline)
    Accuracy rises from 86.2% to 98.5% while annotation effort falls by 49% compared with labelling everything (1,728 of 5,673 samples go to humans).
    """
    m, n_h, n_b = int(res["M"]), int(res["n_human"]), int(res["N"])
    lam = float(res["lambda"])
    mo = res.get("machine_only") or {}
    if res.get("time_cost") is not None and not _nan(res["time_cost"]):
        spent, what = float(res["time_cost"]), "annotation effort"
    elif res.get("time_cost_predicted") is not None and not _nan(res["time_cost_predicted"]):
        spent, what = float(res["time_cost_predicted"]), "predicted annotation effort"
    else:
        spent, what = n_h / m if m else 0.0, "the number of samples humans label"
    who = f"{n_h:,} of {m:,} samples go to humans"
    if res.get("accuracy") is not None and mo.get("accuracy") is not None:
        name, before, after = "Accuracy", float(mo["accuracy"]), float(res["accuracy"])
    elif machine_expected is not None and res.get("expected_reliability") is not None:
        # no gold labels: the accuracy the confidences promise
        name, before, after = ("Expected accuracy", float(machine_expected),
                               float(res["expected_reliability"]))
    else:
        name, before, after = None, None, None
    if n_h == 0:
        headline = (f"No sample goes to humans: the machine labels all {m:,}"
                    + (f" ({name.lower()} {pct(before)})." if name else "."))
    elif n_h == m:
        headline = (f"Humans label all {m:,} samples"
                    + (f": {name.lower()} {pct(after)}, at the effort of labelling everything."
                       if name else ", at the effort of labelling everything."))
    else:
        if name is None:
            change = "Humans label a part of the data"
        elif round(100 * (after - before), 1) == 0:  # the cards' "+0.0 points"
            change = f"{name} stays at {pct(after)}"
        elif pct(after) == pct(before):  # a change the one-decimal percentages hide
            change = (f"{name} {'rises' if after > before else 'falls'} by "
                      f"{abs(100 * (after - before)):.1f} points (to {pct(after)})")
        else:
            change = (f"{name} {'rises' if after > before else 'falls'} from {pct(before)} "
                      f"to {pct(after)}")
        headline = (f"{change} while {what} falls by {_whole_pct(1 - spent)} compared with "
                    f"labelling everything ({who}).")
    why = None
    if res.get("mode") == "at_most" and n_h < n_b:
        why = ((f"Only {n_h:,} of the {n_b:,} samples the budget allows go" if n_h else
                f"None of the {n_b:,} samples the budget allows goes") + " to humans: at "
               f"λ = {lam_text(lam)} ({per_unit(unit)}) the other samples' gain in confidence "
               f"does not pay for their effort (gain = (1 − confidence) − λ × effort ≤ 0), so "
               "they stay with the machine. Lower λ, or choose \"exactly N\", to send more.")
    return TradeoffSummary(headline=headline, why=why)


def _nan(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def effort_clause(effort: dict[str, Any]) -> str | None:
    """The effort of a round (planned or done) against labelling everything, in words, e.g.
    ``"41% of the annotation effort of labelling everything (59% saved)"``; None without an
    ``effort_share``. ``effort`` as :func:`core.workspace.rounds.effort_summary` gives it."""
    share = effort.get("effort_share")
    if share is None:
        return None
    what = ("annotation effort" if effort.get("effort_unit") == "human_effort"
            else "predicted annotation effort")
    return (f"{_whole_pct(share)} of the {what} of labelling everything "
            f"({_whole_pct(1 - share)} saved)")


def round_sentence(summary: dict[str, Any]) -> str:
    """The plain-language result of an evaluation round (:func:`core.workspace.rounds.round_summary`).

    Examples
    --------
    >>> s = {"effort": {"rows_labelled": 1900, "rows_total": 5673, "effort_share": 0.412,
    ...                 "effort_unit": "human_effort"},
    ...      "estimate": {"accuracy": {"estimate": 0.9876, "ci_low": 0.9812}}}
    >>> round_sentence(s)
    'Humans labelled 1,900 of 5,673 samples, 41% of the annotation effort of labelling everything (59% saved); the final labels are estimated 98.8% accurate (at least 98.1% with 95% confidence).'
    """
    eff = summary["effort"]
    text = f"Humans labelled {eff['rows_labelled']:,} of {eff['rows_total']:,} samples"
    if (clause := effort_clause(eff)) is not None:
        text += f", {clause}"
    acc = ((summary.get("estimate") or {}).get("accuracy") or {})
    if acc.get("estimate") is not None:
        text += f"; the final labels are estimated {pct(acc['estimate'])} accurate"
        if acc.get("ci_low") is not None:
            text += f" (at least {pct(acc['ci_low'])} with 95% confidence)"
    return text + "."


def beyond_lambda_range(n_beyond: int, mode: str) -> str:
    """What happens for lambda above the range's end (:class:`core.assignment.LambdaRange`), in words.

    >>> beyond_lambda_range(0, "at_most")
    'no sample goes to humans'
    >>> beyond_lambda_range(38, "at_most")
    "only the 38 samples whose effort is not above the machine's (e.g. 0) go to humans"
    """
    if mode == "exactly":
        return "the assignment no longer changes (the N samples of least effort go)"
    if n_beyond == 0:
        return "no sample goes to humans"
    one = n_beyond == 1
    return (f"only the {n_beyond:,} sample{'' if one else 's'} whose effort is not above the "
            f"machine's (e.g. 0) go{'es' if one else ''} to humans")



def certificate_totals(cert: dict[str, Any]) -> str | None:
    """Who labels what in a certified guarantee round, in the counts the result shows: the
    guarantee's sentence names the rows the machine keeps and the routed rows, not the audit
    drawn from the kept rows (humans label those too), so its "go to humans" was less than the
    result's "labelled by humans" (issue 33).

    Parameters
    ----------
    cert : dict
        The round's stored ``certify`` result (:func:`core.workspace.rounds.certify_round`):
        ``n_calibration``, ``n_human`` (routed), ``n_machine`` (kept), ``audit``.

    Returns
    -------
    str or None
        None without an audit (the sentence's counts are the result's) or without the counts.

    >>> certificate_totals({"n_calibration": 1000, "n_human": 956, "n_machine": 1601,
    ...                     "audit": 200})[:48]
    'Humans label 2,156 rows in all: the 1,000 calibr'
    """
    try:
        n_cal, routed = int(cert["n_calibration"]), int(cert["n_human"])
        kept, audit = int(cert["n_machine"]), int(cert.get("audit") or 0)
    except (KeyError, TypeError, ValueError):
        return None
    if audit <= 0:
        return None
    audit = min(audit, kept)
    return (f"Humans label {n_cal + routed + audit:,} rows in all: the {n_cal:,} calibration "
            f"rows, the {routed:,} routed and an audit of {audit:,} of the {kept:,} rows the "
            f"machine keeps (to measure the result); the machine's labels stand for the other "
            f"{kept - audit:,}.")
