"""``hmceval assign`` on large Parquet tables (the large-table path).

The assignment without extra constraints is the N first rows of the stable ranking by gain
(:func:`core.assignment.solve_fast`, a top-N found in O(M) without sorting) and its metrics are
sums over the rows and a confusion table of class codes. Neither needs the table: the
large-table path reads only the columns the assignment uses, batch by batch
(:func:`core.scale.parquet.read_columns`: two-byte class codes for the labels, a float per
confidence and effort) into :class:`core.assignment.SAEInputs`, and runs the in-memory
functions themselves (:func:`core.assignment.run_assignment`'s solve,
:func:`core.assignment.assignment_json`) on them: the same numbers by construction. The labels
enter as their codes among the sorted classes (the metrics are confusion counts, the same
whatever the classes are called).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["CompactData", "read_assign_inputs", "wants_scale_assign", "run_assign",
           "write_assignment_parquet"]


@dataclass(frozen=True)
class CompactData:
    """What :func:`core.assignment.assignment_json` reads of a :class:`core.data.EvalData`
    besides the inputs: the rows, the effort's source and the roles' columns."""

    M: int
    effort_source: str
    roles: dict = field(default_factory=dict)
    labels: tuple = ()


def read_assign_inputs(path: str, specs: list[str] | None = None):
    """``(CompactData, SAEInputs)`` of a Parquet table, read batch by batch.

    Raises
    ------
    DataError
        A missing value in a label column, a number out of range (naming column and row),
        an effort of 0 on every row: the loaded table's checks.
    """
    from core.assignment import SAEInputs
    from core.defaults import MAX_EFFORT
    from core.errors import DataError
    from core.scale.parquet import class_codes, detect_parquet_roles, read_columns

    roles = detect_parquet_roles(path, specs)
    roles.pop("selection", None)
    human = roles.get("human_label")
    classes = class_codes(path, [roles["machine_label"]] + ([human] if human else []))
    spec: dict[str, tuple] = {"code": ("codes", roles["machine_label"], classes, False),
                              "a": ("float", roles["machine_confidence"], 0.0, 1.0)}
    if human:
        spec["gold"] = ("codes", human, classes, False)
    for name, role, hi in (("b", "human_confidence", 1.0), ("k", "machine_effort", MAX_EFFORT),
                           ("l", "predicted_effort", MAX_EFFORT),
                           ("he", "human_effort", MAX_EFFORT)):
        if roles.get(role):
            spec[name] = ("float", roles[role], 0.0, hi)
    cols = read_columns(path, spec)
    for name, role in (("l", "predicted_effort"), ("he", "human_effort")):
        if name in cols and not np.any(cols[name] > 0):
            raise DataError(f"column '{roles[role]}' ({role}) is 0 on every row: there is no "
                            f"effort to trade off; give the real effort, or leave the column "
                            f"out (--col {role}=-) and every sample costs 1 unit")
    source = ("predicted_effort" if "l" in cols else "human_effort" if "he" in cols
              else "uniform")
    codes = tuple(range(len(classes)))
    inp = SAEInputs.from_arrays(cols["a"], cols.get("l", cols.get("he")), b=cols.get("b"),
                                k=cols.get("k"), machine_label=cols["code"],
                                human_label=cols.get("gold"), human_effort=cols.get("he"),
                                labels=codes)
    if "gold" in cols:  # the codes are the classes' indices: label_codes without objects
        from core.assignment import LabelCodes

        c = len(codes)
        t, p = cols["gold"].astype(np.int64), cols["code"].astype(np.int64)
        machine_cm = np.bincount(t * c + p, minlength=c * c).reshape(c, c)
        # SAEInputs.label_codes is a cached property: its value set as it would compute it
        # (pd.Index of M Python objects, 40 bytes a row at its peak)
        inp.__dict__["label_codes"] = LabelCodes(gold=t, machine=p, classes=codes,
                                                 machine_cm=machine_cm)
    return CompactData(M=len(cols["a"]), effort_source=source, roles=roles, labels=codes), inp


def wants_scale_assign(args) -> bool:
    """The large-table path for ``hmceval assign``: a Parquet table given ``--engine`` or
    ``-o OUT.parquet``, or, without ``-o OUT.csv``, a goal or extra constraints (not on the
    path yet), of :data:`core.scale.cli.LARGE_ROWS` rows or more."""
    from pathlib import Path

    from core.scale.cli import LARGE_ROWS
    from core.scale.parquet import is_parquet, parquet_rows

    path = getattr(args, "path", None)
    if not is_parquet(path) or not Path(path).is_file():
        return False
    if getattr(args, "engine", None) is not None or is_parquet(getattr(args, "output", None)):
        return True
    if getattr(args, "output", None) or any(getattr(args, k, None) is not None for k in (
            "target_accuracy", "effort_budget_hours", "effort_budget", "effort_budget_share",
            "group_share")):
        return False  # not on this path yet: the in-memory path, as before
    try:
        return parquet_rows(path) >= LARGE_ROWS
    except Exception:  # noqa: BLE001 - an unreadable file: the in-memory path says why
        return False


def run_assign(args) -> tuple[CompactData, Any, Any]:
    """``(data, inputs, assignment)`` of ``hmceval assign`` on the large-table path (N and
    lambda given; no goal, no extra constraints)."""
    from core.assignment import n_from_share, solve_fast
    from core.defaults import HUMAN_SHARE
    from core.errors import DataError
    from core.scale.parquet import is_parquet

    refused = [flag for flag, on in (
        ("-o OUT.csv (-o OUT.parquet is)", bool(args.output) and not is_parquet(args.output)),
        ("a goal", getattr(args, "target_accuracy", None) is not None
         or getattr(args, "effort_budget_hours", None) is not None),
        ("extra constraints", any(getattr(args, k, None) is not None for k in (
            "effort_budget", "effort_budget_share", "group_share")))) if on]
    if refused:
        raise DataError(f"{', '.join(refused)}: not on assign's large-table path yet (it "
                        "solves N and lambda in this process and prints the metrics); "
                        "nothing was written")
    data, inp = read_assign_inputs(args.path, args.col)
    if args.human_count is not None and not 0 <= args.human_count <= data.M:
        raise DataError(f"--human-count must be between 0 and M = {data.M}, got "
                        f"{args.human_count}")
    if args.human_count is not None:
        n = int(args.human_count)
    else:
        n = n_from_share(HUMAN_SHARE if args.human_share is None else args.human_share, data.M)
    mode = "exactly" if args.exactly else "at_most"
    return data, inp, solve_fast(inp, lam=args.lam, n_human=n, mode=mode)


def write_assignment_parquet(path: str, out: str, roles: dict, human: np.ndarray) -> None:
    """The per-sample assignment of a large table as Parquet, batch by batch: the columns of
    :func:`core.assignment.assignment_table` (``row``, the ids, ``decision``, the labels, the
    confidence, the efforts and ``final_label``) from the table's role columns."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from core.atomic import atomic_path
    from core.scale.parquet import iter_batches

    names = {r: roles[r] for r in ("sample_id", "dialogue_id", "turn", "machine_label",
                                   "machine_confidence", "predicted_effort", "human_effort",
                                   "human_label") if isinstance(roles.get(r), str)}
    cols = list(dict.fromkeys(names.values()))
    writer = None
    start = 0
    with atomic_path(out) as tmp:
        try:
            for b in iter_batches(path, cols):
                n = b.num_rows
                get = {r: b.column(cols.index(c)) for r, c in names.items()}
                h = human[start:start + n]
                table: dict = {"row": pa.array(np.arange(start + 1, start + n + 1))}
                for r in ("sample_id", "dialogue_id", "turn"):
                    if r in get:
                        table[r] = get[r]
                table["decision"] = pa.array(np.where(h, "human", "machine"))
                mach = get["machine_label"]
                gold = get.get("human_label")
                if gold is not None and gold.type != mach.type:  # compared as text
                    mach, gold = mach.cast(pa.string()), gold.cast(pa.string())
                table["machine_label"] = mach
                table["machine_confidence"] = get["machine_confidence"].cast(pa.float64())
                effort = get.get("predicted_effort", get.get("human_effort"))
                table["predicted_effort"] = (effort.cast(pa.float64()) if effort is not None
                                             else pa.array(np.ones(n)))
                if "human_effort" in get:
                    table["human_effort"] = get["human_effort"].cast(pa.float64())
                mask = pa.array(h)
                if gold is not None:
                    table["human_label"] = gold
                    table["final_label"] = pc.if_else(mask, gold, mach)
                else:
                    table["final_label"] = pc.if_else(mask, pa.nulls(n, mach.type), mach)
                t = pa.table(table)
                if writer is None:
                    writer = pq.ParquetWriter(str(tmp), t.schema)
                writer.write_table(t.cast(writer.schema))
                start += n
        finally:
            if writer is not None:
                writer.close()
