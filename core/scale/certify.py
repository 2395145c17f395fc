"""``hmceval certify`` on large Parquet tables (the large-table path).

Both guarantees (the selective one, ``--alpha``, and the overall error, ``--overall-error``)
need every row's gain g_i = (b_i - lam l_i) - (a_i - lam k_i) at once: the thresholds are the
distinct gains of all M rows and the kept share is a rank among them, so the work is one
sort of M floats. The large-table path reads only the columns the guarantee needs, batch by
batch, as compact arrays (:func:`core.scale.parquet.read_columns`: a class code of two bytes
for each label, a float per confidence and effort, a one-byte selection code) into a
:class:`CompactDesign`, and runs the in-memory functions themselves
(:func:`core.evaluation.certify.certify`, :func:`core.evaluation.certify.certify_overall`) on
it: the same numbers by construction, from about 30 bytes a row instead of the loaded
table's hundreds (the text, every column as Python objects).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CompactDesign", "CompactInputs", "read_certify_design", "certify_large",
           "wants_scale_certify", "run_certify"]


@dataclass(frozen=True)
class CompactInputs:
    """The SAE inputs the guarantees read: a (machine confidence), l (effort), b, k."""

    a: np.ndarray
    l: np.ndarray  # noqa: E741 - the paper's name
    b: Any = 1.0
    k: Any = 0.0


@dataclass(frozen=True)
class CompactDesign:
    """The parts of :class:`core.evaluation.sampling.Design` the guarantees read, as compact
    arrays: class codes for the labels (-1 where a human label is missing), the selection
    words as one object array (shared strings), the inclusion probabilities or None."""

    codes: np.ndarray
    human_codes: np.ndarray
    selection: np.ndarray
    has_selection: bool
    confidence: np.ndarray
    effort: np.ndarray
    b: Any = 1.0
    k: Any = 0.0
    inclusion: np.ndarray | None = None

    @property
    def M(self) -> int:
        return len(self.codes)

    @property
    def machine_label(self) -> np.ndarray:
        return self.codes

    @property
    def human_label(self) -> np.ndarray:
        return self.human_codes

    @property
    def has_label(self) -> np.ndarray:
        return self.human_codes >= 0

    def inputs(self) -> CompactInputs:
        return CompactInputs(a=self.confidence, l=self.effort, b=self.b, k=self.k)


def read_certify_design(path: str, specs: list[str] | None = None) -> CompactDesign:
    """The compact design of a Parquet table: roles detected on its head as for a loaded
    table (``--col ROLE=NAME`` overriding them), the columns read batch by batch.

    Raises
    ------
    DataError
        No human label column; a value outside its range (naming the column and row); an
        inclusion probability that does not match the selection (as in memory).
    """
    import pandas as pd
    import pyarrow.parquet as pq

    from core.errors import DataError
    from core.evaluation.sampling import PROBABILITY_COLUMN, SELECTIONS, check_probabilities
    from core.scale.parquet import class_codes, detect_parquet_roles, effort_specs, read_columns

    roles = detect_parquet_roles(path, specs)
    human_col = roles.get("human_label")
    if human_col is None:
        raise DataError(f"{path}: no human label column: certify needs human labels on a "
                        "calibration sample (map one with --col human_label=NAME)")
    names = pq.ParquetFile(str(path)).schema_arrow.names
    classes = class_codes(path, [roles["machine_label"], human_col])
    spec: dict[str, tuple] = {"code": ("codes", roles["machine_label"], classes, False),
                              "human": ("codes", human_col, classes, True),
                              "q": ("float", roles["machine_confidence"], 0.0, 1.0)}
    optional, effort = effort_specs(roles)
    spec.update(optional)
    if roles.get("selection"):
        spec["sel"] = ("selection", roles["selection"])
    pi_col = next((c for c in names if str(c).strip().lower() == PROBABILITY_COLUMN), None)
    if pi_col is not None:
        spec["pi"] = ("nullable_float", pi_col)
    cols = read_columns(path, spec)
    m = len(cols["code"])
    if effort and not np.any(cols["effort"] > 0):
        raise DataError(f"column '{effort}' is 0 on every row: there is no effort to trade "
                        "off; give the real effort, or leave the column out (--col "
                        "predicted_effort=-)")
    words = np.array(list(SELECTIONS) + [""], dtype=object)
    # a take of the words (np.full of an object array passes through 63 bytes a row)
    selection = words[cols.pop("sel") if "sel" in cols else np.full(m, len(words) - 1, np.int8)]
    inclusion = None
    if pi_col is not None:
        inclusion = check_probabilities(pd.Series(cols.pop("pi")), selection, str(pi_col))
    return CompactDesign(codes=cols["code"], human_codes=cols["human"], selection=selection,
                         has_selection="sel" in spec, confidence=cols["q"],
                         effort=cols["effort"] if effort else np.ones(m),
                         b=cols.get("b", 1.0), k=cols.get("k", 0.0), inclusion=inclusion)


def certify_large(path: str, specs: list[str] | None = None, *, alpha: float | None,
                  overall_error: float | None, delta: float, lam: float = 0.0, seed: int = 0,
                  annotator_error: float = 0.0, steps: bool = True) -> dict:
    """The certificate of a large Parquet table: :func:`core.evaluation.certify.certify` (or
    :func:`~core.evaluation.certify.certify_overall` with ``overall_error``) on its
    :class:`CompactDesign`; the same dict, keys and numbers as on the loaded table
    (``steps=False``: the selective guarantee's ``steps`` None, not one row per distinct
    gain)."""
    from core.evaluation.certify import certify, certify_overall

    design = read_certify_design(path, specs)
    if overall_error is not None:
        return certify_overall(design, epsilon=overall_error, delta=delta, lam=lam, seed=seed,
                               annotator_error=annotator_error)
    return certify(design, alpha=alpha, delta=delta, lam=lam, annotator_error=annotator_error,
                   steps=steps)


def wants_scale_certify(args) -> bool:
    """The large-table path for ``hmceval certify``: a Parquet table of no workspace round
    (no ``--round``, no sidecar) given ``--engine``, or, without ``-o`` and ``--audit`` (not
    on the path yet), one the path wrote or of :data:`core.scale.cli.LARGE_ROWS` rows or
    more."""
    from pathlib import Path

    from core.cli.round_table import round_link
    from core.scale.cli import LARGE_ROWS
    from core.scale.parquet import is_parquet, parquet_rows, round_meta

    path = getattr(args, "path", None)
    if not is_parquet(path) or not Path(path).is_file():
        return False
    if getattr(args, "round_id", None) is not None or round_link(path) is not None:
        return False
    if getattr(args, "engine", None) is not None:
        return True
    if getattr(args, "output", None) or getattr(args, "audit", 0):
        return False  # not on this path yet: the in-memory path, as before
    try:  # a round table the large-table path wrote (its metadata), or a large table
        return round_meta(path) is not None or parquet_rows(path) >= LARGE_ROWS
    except Exception:  # noqa: BLE001 - an unreadable file: the in-memory path says why
        return False


def run_certify(args) -> dict:
    """``hmceval certify`` on the large-table path: the result dict of the in-memory path."""
    from core.errors import DataError

    if args.output or args.audit:
        raise DataError("-o and --audit are not on certify's large-table path yet (it prints "
                        "the certificate); certify a smaller table, or write the table as CSV "
                        "for these")
    return certify_large(args.path, args.col, alpha=args.alpha,
                         overall_error=args.overall_error, delta=args.delta, lam=args.lam,
                         seed=args.seed, annotator_error=args.annotator_error, steps=False)
