"""Numbers as a reader sees them: one function per kind of number, used by every page, the
report and the plain-language sentences.

| kind | function | examples |
| --- | --- | --- |
| a share (accuracy, human share, saving) | :func:`pct` | ``98.5%``, ``over 99.9%`` |
| a count (rows, labels, samples) | :func:`count` | ``1,210``, ``50,000`` |
| an effort (hours when it is a time) | :func:`format_effort` | ``20.1 h``, ``45 min`` |
| λ and other settings | :func:`lam` | ``4.6``, ``0.001471`` |
| a probability, confidence or score | :func:`prob` | ``0.779``, ``-0.05`` |
| a p-value | :func:`pvalue` | ``0.032``, ``< 0.001`` |
| any other quantity | :func:`plain_number` | ``72,340``, ``12.5``, ``0.0465`` |

Every function writes at most 4 significant digits (a count's digits aside, which are exact and
separated by thousands), never scientific notation, and ``n/a`` for a missing value (None, NaN),
never ``None`` or ``nan``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["MISSING", "missing", "pct", "count", "format_effort", "hours_per_unit", "lam",
           "prob", "pvalue", "plain_number", "setting_number"]

#: What a missing or undefined value reads as.
MISSING = "n/a"


def missing(x: Any) -> bool:
    """Whether ``x`` is a missing value: None, NaN, infinite, pandas' NA, or not a number."""
    if x is None:
        return True
    try:
        return not math.isfinite(float(x))
    except (TypeError, ValueError):
        return True


def pct(x: float | None, digits: int = 1) -> str:
    """A share in [0, 1] as a percentage with ``digits`` decimals: ``0.98456`` -> ``"98.5%"``.

    A share that is not exactly 0 or 1 never reads as one: ``0.99997`` -> ``"over 99.9%"``,
    ``0.0002`` -> ``"under 0.1%"``. Missing -> ``"n/a"``.

    >>> pct(0.98456), pct(0.99997), pct(0.0002), pct(1.0), pct(None), pct(0.01234, 2)
    ('98.5%', 'over 99.9%', 'under 0.1%', '100.0%', 'n/a', '1.23%')
    """
    if missing(x):
        return MISSING
    v = 100 * float(x)
    text = f"{v:.{digits}f}"
    step = 10.0 ** -digits
    if float(text) == 100 and v < 100:
        return f"over {100 - step:.{digits}f}%"
    if float(text) == 0 and v > 0:
        return f"under {step:.{digits}f}%"
    if float(text) == 0 and v < 0:
        return f"{0:.{digits}f}%"
    return f"{text}%"


def count(n: float | int | None) -> str:
    """A count with thousands separated: ``1210`` -> ``"1,210"``; missing -> ``"n/a"``.

    >>> count(1210), count(50000.0), count(7), count(None)
    ('1,210', '50,000', '7', 'n/a')
    """
    if missing(n):
        return MISSING
    return f"{int(round(float(n))):,}"


def hours_per_unit(unit: str) -> float | None:
    """Hours in one unit of effort, for a budget given in hours; None when the unit is not a
    time (``"effort units"``).

    >>> hours_per_unit("seconds") * 3600
    1.0
    >>> hours_per_unit("effort units") is None
    True
    """
    return {"milliseconds": 1 / 3_600_000, "seconds": 1 / 3600, "minutes": 1 / 60,
            "hours": 1.0}.get(unit)


def plain_number(x: float | None) -> str:
    """A number as a reader writes it, never in scientific notation: thousands separated and
    whole from 100 up (``72,340``), one decimal from 1 (``12.5``), three significant digits
    below (``0.0465``).

    >>> plain_number(72340.4), plain_number(12.54), plain_number(0.046452), plain_number(3.0)
    ('72,340', '12.5', '0.0465', '3')
    """
    if missing(x):
        return MISSING
    v = float(x)
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 1 or v == 0:
        text = f"{v:,.1f}"
        return text[:-2] if text.endswith(".0") else text
    return np.format_float_positional(v, precision=3, unique=True, fractional=False, trim="-")


def format_effort(value: float | None, unit: str) -> str:
    """An effort for a reader: hours (``"20.1 h"``), minutes under an hour (``"45 min"``),
    seconds under a minute (``"30 s"``) when the unit is a time; otherwise a plain number and
    the unit (``"1,234 effort units"``). Never scientific notation.

    >>> format_effort(72_340, "seconds"), format_effort(2_700, "seconds"), format_effort(30, "seconds")
    ('20.1 h', '45 min', '30 s')
    """
    if missing(value):
        return MISSING
    v = float(value)
    per_h = hours_per_unit(unit)
    if per_h is None:
        return f"{plain_number(v)} {unit}"
    hours = v * per_h
    if abs(hours) >= 1 or hours == 0:
        if abs(hours) >= 1000:
            return f"{hours:,.0f} h"
        return f"{hours:,.1f} h" if hours else "0 h"
    minutes = hours * 60
    if abs(minutes) >= 1:
        return f"{minutes:.1f} min" if abs(minutes) < 10 else f"{minutes:.0f} min"
    seconds = minutes * 60
    return f"{seconds:.1f} s" if abs(seconds) < 10 else f"{seconds:.0f} s"


def setting_number(x: float | None, digits: int = 4) -> str:
    """A setting as typed, to ``digits`` (at most 4) significant digits, never in scientific
    notation (``f"{x:g}"`` wrote 4.6e-05): ``4.6``, ``7.25``, ``0.00004645``, ``12,350``.

    >>> setting_number(4.6), setting_number(4.645e-05), setting_number(12345.6), setting_number(0)
    ('4.6', '0.00004645', '12,350', '0')
    """
    if missing(x):
        return MISSING
    v = float(x)
    text = np.format_float_positional(v, precision=min(int(digits), 4), unique=True,
                                      fractional=False, trim="-")
    whole, dot, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return f"{sign}{int(whole.lstrip('-') or 0):,}{dot}{frac}"


def lam(x: float | None) -> str:
    """λ, the weight of effort against confidence, to 4 significant digits:
    ``0.0014706064690026956`` -> ``"0.001471"``, ``4.6`` -> ``"4.6"``.

    >>> lam(0.0014706064690026956), lam(4.6), lam(0)
    ('0.001471', '4.6', '0')
    """
    return setting_number(x, 4)


def prob(x: float | None) -> str:
    """A probability, a confidence or a score such as AUC, kappa or r: three decimals below 10
    in size (``0.779``, ``-0.050``, ``1.234``), a plain number above; missing -> ``"n/a"``.

    >>> prob(0.77904), prob(-0.05), prob(1.23449), prob(None), prob(float("nan"))
    ('0.779', '-0.050', '1.234', 'n/a', 'n/a')
    """
    if missing(x):
        return MISSING
    v = float(x)
    if abs(v) >= 10:
        return plain_number(v)
    text = f"{v:.3f}"
    return "0.000" if text == "-0.000" else text


def pvalue(x: float | None) -> str:
    """A p-value: three decimals, ``< 0.001`` below (never ``1.2e-05``); missing -> ``"n/a"``.

    >>> pvalue(0.03217), pvalue(1.2e-05), pvalue(0.0005), pvalue(1.0), pvalue(None)
    ('0.032', '< 0.001', '< 0.001', '1.000', 'n/a')
    """
    if missing(x):
        return MISSING
    v = float(x)
    return "< 0.001" if v < 0.001 else f"{v:.3f}"
