"""Bounds of the numeric command-line options (each documented in its option's --help).

Light on purpose (no numpy or pandas at import): the ``cmd_<name>`` modules read these
constants to build their --help.

Every numeric option is checked before any work starts: a value outside its bounds is a
:class:`core.errors.DataError` naming the option (exit code 2), never a traceback from numpy,
scikit-learn or the solver, and never a grid or a resample count that would take gigabytes.
"""

from __future__ import annotations

import math

__all__ = ["MAX_GRID_POINTS", "MAX_SWEEP_POINTS", "MAX_BOOTSTRAP", "MAX_BINS", "check_int",
           "check_float", "parse_range"]

#: Points of one axis of a ``START:STOP:STEP`` grid.
MAX_GRID_POINTS = 10_001
#: Points of a whole ``sweep`` grid (lambda values x human shares).
MAX_SWEEP_POINTS = 250_000
#: Bootstrap resamples of ``turns``.
MAX_BOOTSTRAP = 10_000
#: Bins of the expected calibration error (``confidence --bins``).
MAX_BINS = 10_000
#: The bounds shared with the app (the seed range, the effort forest's trees, jobs and permutation
#: repeats, the general ILP's samples, the agreement report's largest score, the forest's float32
#: range) have one home, core.defaults: the commands import them from there.


def check_int(value: int | None, name: str, lo: int, hi: int | None = None) -> int | None:
    """``value`` if it is in [lo, hi] (``None`` passes), else a :class:`DataError`."""
    from core.errors import DataError

    if value is None:
        return None
    if value < lo or (hi is not None and value > hi):
        rng = f"between {lo:,} and {hi:,}" if hi is not None else f"at least {lo:,}"
        raise DataError(f"{name} must be {rng}, got {value}")
    return value


def check_float(value: float | None, name: str, lo: float | None = None,
                hi: float | None = None) -> float | None:
    """``value`` if it is finite and in [lo, hi] (``None`` passes), else a :class:`DataError`."""
    from core.errors import DataError

    if value is None:
        return None
    if not math.isfinite(value) or (lo is not None and value < lo) or (hi is not None and value > hi):
        if lo is not None and hi is not None:
            rng = f"a finite number in [{lo:g}, {hi:g}]"
        elif lo is not None:
            rng = f"a finite number >= {lo:g}"
        elif hi is not None:
            rng = f"a finite number <= {hi:g}"
        else:
            rng = "a finite number"
        raise DataError(f"{name} must be {rng}, got {value}")
    return value


def parse_range(text: str, name: str, *, max_points: int = MAX_GRID_POINTS):
    """Parse ``START:STOP:STEP`` (inclusive STOP) or a single number into a grid.

    The numbers must be finite and the grid at most ``max_points`` long.
    """
    import numpy as np

    from core.errors import DataError

    try:
        parts = [float(p) for p in text.split(":")]
    except ValueError:
        raise DataError(f"{name} must be a number or START:STOP:STEP, got {text!r}") from None
    if not all(math.isfinite(p) for p in parts):
        raise DataError(f"{name} must hold finite numbers (no nan or inf), got {text!r}")
    if len(parts) == 1:
        return np.array(parts)
    if len(parts) != 3 or parts[2] <= 0 or parts[1] < parts[0]:
        raise DataError(f"{name} must be START:STOP:STEP with STEP > 0 and STOP >= START, got {text!r}")
    start, stop, step = parts
    span = (stop - start) / step
    if not math.isfinite(span) or span + 1 > max_points:
        raise DataError(f"{name} {text!r} would have {span + 1:,.0f} grid points; at most "
                        f"{max_points:,} are allowed (use a larger STEP)")
    n = int(math.floor(span + 1e-9)) + 1
    return np.round(start + step * np.arange(n), 10)
