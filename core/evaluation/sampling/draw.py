"""Poisson sampling of a round planned with inclusion probabilities, and the checks of a round
table's probabilities.

Row i is drawn with its probability pi_i, independently of the others (:func:`draw`);
:func:`draw_queue` turns a draw into a round's selection and queue, and
:func:`check_probabilities` validates the ``inclusion_probability`` column of a round table
against its selection.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows

__all__ = ["DRAW_SALT", "draw", "earlier_stage", "draw_queue", "check_probabilities"]

#: Salt of the Poisson draw's seed.
DRAW_SALT = 0x4D43E


def draw(pi: np.ndarray, *, seed: int = 0, stage: int = 0) -> np.ndarray:
    """Poisson sampling: row i is drawn with probability pi_i, independently. Bool (M,).

    ``stage`` (0: none) sets a stream of its own for a round planned on an earlier round's
    labels (:func:`earlier_stage`): with the earlier round's seed and stream, the rows it did
    not draw would all have uniforms above its probabilities, and a row whose new probability
    is no larger could never be drawn."""
    pi = np.asarray(pi, dtype=float)
    # the seed is salted: data generated from default_rng(seed)'s own first draws (a
    # simulation, a demo) would otherwise line up with the draw and make it a fixed cut-off
    entropy = [int(seed), DRAW_SALT] + ([int(stage)] if stage else [])
    rng = np.random.default_rng(np.random.SeedSequence(entropy))
    return (rng.random(len(pi)) < pi) | (pi >= 1)


def earlier_stage(rows: np.ndarray) -> int:
    """The draw's ``stage`` of a round planned on the labels of ``rows`` (an earlier round's
    labelled rows): a 63-bit digest of the sorted rows, never 0, the same from the page and the
    command line, and another for each earlier round's rows."""
    import hashlib

    key = np.sort(np.asarray(rows, dtype=np.int64)).astype("<i8").tobytes()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "little") >> 1 | 1


def draw_queue(pi: np.ndarray, gain: np.ndarray, *, seed: int = 0,
               done: np.ndarray | None = None, stage: int = 0
               ) -> tuple[np.ndarray, np.ndarray]:
    """Draw a round from its inclusion probabilities and rank the rows to label.

    Parameters
    ----------
    pi : array of shape (M,)
    gain : array of shape (M,)
        Routed rows are queued by descending gain (ties to the earlier row).
    seed : int
        Seed of the Poisson draw (:func:`draw`) and of the audit's random order.
    done : bool array of shape (M,), optional
        Rows labelled already (carried from an earlier round, pi = 1): ``routed``, not queued.
    stage : int, default=0
        The Poisson draw's own stream (:func:`draw`; :func:`earlier_stage` for a round planned
        on an earlier round's labels).

    Returns
    -------
    (selection, queue_rank)
        ``routed`` where pi = 1, ``audit`` where drawn, ``machine`` elsewhere; ranks 1..n over
        the audit rows (random order, so any labelled prefix is still a random subsample of
        them) then the routed rows not ``done``, NaN elsewhere.
    """
    pi = np.asarray(pi, dtype=float)
    g = np.asarray(gain, dtype=float)
    drawn = draw(pi, seed=int(seed), stage=int(stage))
    sel = np.where(pi >= 1, "routed", np.where(drawn, "audit", "machine")).astype(object)
    rng = np.random.default_rng(int(seed) + 1)
    audit = np.flatnonzero(sel == "audit")
    routed = np.flatnonzero(sel == "routed")
    if done is not None:
        routed = routed[~np.asarray(done, dtype=bool)[routed]]
    routed = routed[np.argsort(-g[routed], kind="stable")]
    queue = np.concatenate([audit[rng.permutation(len(audit))], routed]).astype(np.int64)
    rank = np.full(len(pi), np.nan)
    rank[queue] = np.arange(1, len(queue) + 1)
    return sel, rank


def check_probabilities(values: pd.Series, selection: np.ndarray, column: str) -> np.ndarray:
    """Validate a round table's inclusion probabilities against its selection.

    Parameters
    ----------
    values : pandas.Series of shape (M,)
        The column as loaded.
    selection : array of shape (M,)
        The selection words.
    column : str
        The column's name, for messages.

    Returns
    -------
    ndarray of shape (M,)
        The probabilities (NaN on calibration and undecided rows, where none is needed).

    Raises
    ------
    DataError
        Text or values outside (0, 1]; a missing value on a routed, audit or machine row;
        a routed row below 1, or an audit or machine row at 1 (the column no longer matches
        the selection: edited by hand?). Each names the rows.
    """
    num = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    text = np.flatnonzero(values.notna().to_numpy() & np.isnan(num))
    if len(text):
        raise DataError(f"column '{column}' must hold numbers in (0, 1]; {describe_rows(text)} "
                        f"hold text such as {values.iloc[text[0]]!r}")
    sel = np.asarray(selection, dtype=object)
    planned = np.isin(sel, ("routed", "audit", "machine"))
    missing = np.flatnonzero(planned & np.isnan(num))
    if len(missing):
        raise DataError(f"column '{column}' has no inclusion probability on "
                        f"{describe_rows(missing)} (routed, audit or machine rows need one); "
                        "the table no longer matches its plan")
    out = np.flatnonzero(~np.isnan(num) & ~((num > 0) & (num <= 1)))
    if len(out):
        raise DataError(f"column '{column}' must hold probabilities in (0, 1]; "
                        f"{describe_rows(out)} hold {num[out[0]]:g}")
    routed_low = np.flatnonzero((sel == "routed") & (num < 1))
    drawn_one = np.flatnonzero(np.isin(sel, ("audit", "machine")) & (num >= 1))
    if len(routed_low) or len(drawn_one):
        rows = np.sort(np.concatenate([routed_low, drawn_one]))
        raise DataError(f"column '{column}' does not match column 'selection' on "
                        f"{describe_rows(rows)}: a routed row has probability 1, an audit or "
                        "machine row less than 1 (edited by hand?); re-plan the round")
    return num
