"""``hmceval queue`` and ``hmceval estimate`` on large Parquet tables (the large-table path).

``hmceval queue TABLE.parquet --design active|random --labels B -o OUT.parquet`` plans and
draws the round from the table's compact columns (:mod:`core.scale.design`) and writes the
round's table batch by batch (:mod:`core.scale.parquet`): every original column, then
``selection``, ``queue_rank``, ``inclusion_probability``, a ``sample_id`` (the row number)
when the table has none and an empty ``human_label`` column when it has no human label, to
be filled for the rows to label; beside it ``OUT_to_label.csv`` for the annotators. The
round is recorded in the file's metadata, not in the workspace (which keeps whole tables).
``hmceval estimate OUT.parquet`` recognises such a table and estimates it in passes
(:mod:`core.scale.estimate`). ``--engine ray`` runs the passes on Ray
(:mod:`core.scale.ray_engine`); ``--engine local`` (the default) in this process.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["LARGE_ROWS", "add_engine_args", "add_local_engine_arg", "wants_scale_queue", "run_queue", "wants_scale_estimate",
           "estimate_results"]


def add_engine_args(p: argparse.ArgumentParser) -> None:
    """``--engine`` and ``--address`` (the large-table path)."""
    g = p.add_argument_group("large tables (Parquet)")
    g.add_argument("--engine", choices=("local", "ray"), default=None,
                   help="the large-table path for Parquet (chosen by itself for -o "
                        "OUT.parquet or a round table it wrote): local (default) runs the "
                        "per-row passes in this process, chunk by chunk; ray on Ray Data "
                        "(pip install -e \".[scale]\"): a local Ray it starts, or --address")
    g.add_argument("--address", default=None, metavar="ADDR",
                   help="with --engine ray: the Ray cluster to join (e.g. ray://host:10001 "
                        "or auto); default: start a local Ray")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="with --engine ray and no --address: CPUs of the local Ray "
                        "(default: all)")


def add_local_engine_arg(p: argparse.ArgumentParser, verb: str) -> None:
    """``--engine local``: the large-table path of a command whose work is one pass and a sort
    in this process (``assign``, ``certify``: Ray would add nothing), taken by itself for a
    Parquet table of :data:`LARGE_ROWS` rows or more."""
    p.add_argument("--engine", choices=("local",), default=None,
                   help=f"the large-table path for a Parquet table ({verb} reads only the "
                        "columns it needs, as compact arrays; taken by itself from "
                        f"{LARGE_ROWS:,} rows)")


def _check_ray(args) -> None:
    """--engine ray without Ray: exit 2 before any work, saying how to install it."""
    if getattr(args, "engine", None) != "ray":
        return
    from core.errors import DataError
    from core.scale.ray_engine import RAY_MISSING

    try:
        import ray  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError:
        raise DataError(RAY_MISSING) from None


def _engine(args, columns: dict):
    from core.errors import DataError

    from core.scale.engine import LocalEngine

    if args.engine != "ray" and (args.address is not None or args.workers is not None):
        raise DataError("--address and --workers go with --engine ray")
    if args.engine == "ray":  # Ray imported only here, when asked for
        from core.scale.ray_engine import RayEngine

        return RayEngine(columns, address=args.address, workers=args.workers)
    return LocalEngine(columns)


def wants_scale_queue(args) -> bool:
    """The large-table path: a Parquet table written to ``-o OUT.parquet``, or ``--engine``
    (a CSV table to ``-o OUT.parquet`` is refused by the in-memory path's own check)."""
    from core.scale.parquet import is_parquet

    return (is_parquet(getattr(args, "output", None)) and is_parquet(getattr(args, "path", None))
            ) or getattr(args, "engine", None) is not None


def _check_queue_args(args) -> str:
    from core.errors import DataError

    from core.scale.parquet import is_parquet

    if args.path is None or not is_parquet(args.path):
        raise DataError("the large-table path (-o OUT.parquet, --engine) plans a round of a "
                        "Parquet table: give TABLE.parquet (or write the round as CSV)")
    if not is_parquet(args.output):
        raise DataError("the large-table path writes the round's table as Parquet: -o "
                        "OUT.parquet")
    refused = [flag for flag, on in (
        ("--stream", args.stream), ("--replan", args.replan), ("--round", args.round_id
                                                              is not None),
        ("--calibration", args.calibration), ("--calibrate-on", args.calibrate_on is not None),
        ("--double", args.double), ("--human-share", args.human_share is not None),
        ("--human-count", args.human_count is not None), ("--audit", args.audit),
        ("--exactly", args.exactly), ("--format labelstudio", args.format != "csv")) if on]
    if refused:
        raise DataError(f"{', '.join(refused)}: not on the large-table path yet (it plans "
                        "--design active or random with --labels or --effort-budget); write "
                        "the round as CSV for these; nothing was written")
    kind = args.design or "active"
    if kind == "routing":
        raise DataError("--design routing is not on the large-table path yet: --design "
                        "active or random")
    if (args.labels is None) == (args.effort_budget is None):
        raise DataError("the large-table path needs a budget: --labels B or --effort-budget E "
                        "(one of them)")
    if not 0 <= args.seed < 2**63:
        raise DataError(f"--seed must be in [0, 2^63), got {args.seed}")
    return kind


def _read_design_columns(path: str, roles: dict[str, Any]) -> tuple[dict, list]:
    """The compact columns of the design and the classes."""
    from core.errors import DataError

    import numpy as np

    from core.scale.parquet import class_codes, effort_specs, read_columns

    label_cols = [roles["machine_label"]] + ([roles["human_label"]]
                                             if roles.get("human_label") else [])
    classes = class_codes(path, label_cols)
    optional, effort = effort_specs(roles)
    spec: dict[str, tuple] = {"code": ("codes", roles["machine_label"], classes, False),
                              "q": ("float", roles["machine_confidence"], 0.0, 1.0), **optional}
    cols = read_columns(path, spec)
    if effort and not np.any(cols["effort"] > 0):
        raise DataError(f"column '{effort}' is 0 on every row: there is no effort to trade "
                        "off; give the real effort, or leave the column out (--col "
                        "predicted_effort=-)")
    return cols, classes


def run_queue(args) -> int:
    """hmceval queue on the large-table path."""
    from core.errors import DataError

    import time

    import numpy as np
    import pyarrow as pa

    from core.atomic import check_writable
    from core.cli.common import print_json, shown
    from core.evaluation.sampling import SELECTIONS
    from core.evaluation.estimate import estimator_half_width
    from core.scale.design import plan_scaled
    from core.scale.kernels import design_pi
    from core.scale.parquet import (detect_parquet_roles, parquet_rows, queued_view,
                                    read_columns, write_round_parquet)

    t0 = time.time()
    if args.calibration and args.design is None and args.labels is None \
            and args.effort_budget is None:
        return _run_calibration_queue(args)  # guarantee mode's calibration sample
    kind = _check_queue_args(args)
    _check_ray(args)
    check_writable(args.output)  # before the work
    lam = 0.0 if args.lam is None else float(args.lam)
    if not (np.isfinite(lam) and lam >= 0):
        raise DataError(f"--lam must be a finite number >= 0, got {lam}")
    roles = detect_parquet_roles(args.path, args.col)
    if roles.get("selection"):
        sel = read_columns(args.path, {"s": ("selection", roles["selection"])})["s"]
        if (sel != len(SELECTIONS)).any():  # "" is the code after the words
            raise DataError(f"--design {kind} plans a round on undecided rows: column "
                            f"'{roles['selection']}' already has a selection (clear it to "
                            "re-plan)")
        del sel
    cols, classes = _read_design_columns(args.path, roles)
    engine = _engine(args, cols)
    try:
        plan = plan_scaled(engine, n_classes=len(classes), labels=args.labels,
                           effort_budget=args.effort_budget, lam=lam, kind=kind,
                           width_ratio=args.width_ratio, seed=int(args.seed),
                           width_model=estimator_half_width)
    finally:
        engine.close()
    m = parquet_rows(args.path)
    queue = np.concatenate([plan.audit, plan.routed])
    order = np.argsort(queue, kind="stable")
    q_rows, q_rank = queue[order], order + 1
    audit_sorted = np.sort(plan.audit)
    id_col = roles.get("sample_id") or "sample_id"
    new_id = roles.get("sample_id") is None
    human_col = roles.get("human_label")
    sel_col = roles.get("selection") or "selection"
    picked: list[tuple[np.ndarray, Any]] = []
    labelled_queue = [0]
    show = [c for c in ([id_col] if not new_id else []) + list(roles.get("text") or [])
            + shown(args)]
    show = list(dict.fromkeys(show))

    def per_batch(b, start: int) -> dict:
        n = b.num_rows
        ch = {k: v[start:start + n] for k, v in cols.items()}
        pi = design_pi(ch, plan.spec)
        lo, hi = np.searchsorted(q_rows, [start, start + n])
        rank = np.zeros(n, dtype=np.int64)
        mask = np.zeros(n, dtype=bool)
        rank[q_rows[lo:hi] - start] = q_rank[lo:hi]
        mask[q_rows[lo:hi] - start] = True
        a_lo, a_hi = np.searchsorted(audit_sorted, [start, start + n])
        words = np.where(pi >= 1, "routed", "machine").astype(object)
        words[audit_sorted[a_lo:a_hi] - start] = "audit"
        extra = {}
        if new_id:
            extra["sample_id"] = pa.array(np.arange(start + 1, start + n + 1, dtype=np.int64))
        extra[sel_col] = pa.array(words.tolist(), type=pa.string())
        extra["queue_rank"] = pa.array(rank, mask=~mask)
        extra["inclusion_probability"] = pa.array(pi)
        if human_col is None:
            extra["human_label"] = pa.nulls(n, type=pa.string())
        if human_col is not None and mask.any():
            present = b.column(b.schema.names.index(human_col)).is_valid().to_numpy(
                zero_copy_only=False)
            labelled_queue[0] += int((present & mask).sum())
        if mask.any():
            picked.append((rank[mask], queued_view(b, mask, show, start=start, new_id=new_id)))
        return extra

    meta = {"format": "hmceval-large-round", "version": 1, "design": kind, "M": m,
            "seed": int(args.seed), "lambda": lam,
            "budget": {"labels": args.labels, "effort": args.effort_budget},
            "classes": [str(c) for c in classes], "engine": engine.name}
    out = Path(args.output)
    write_round_parquet(args.path, out, per_batch, meta=meta)
    sent = out.with_name(f"{out.stem}_to_label.csv")
    _write_to_label(picked, sent, id_col)
    summary = plan.design.summary()
    counts = {k: v for k, v in plan.counts.items() if k}
    if labelled_queue[0]:
        print(f"warning: column '{human_col}' (human label) already holds a label on "
              f"{labelled_queue[0]:,} of the {len(queue):,} rows to label; hmceval estimate "
              "reads them as returned labels (a gold column stands in for a finished round): "
              "for a real round, drop that column before hmceval queue", file=sys.stderr)
    if args.json:
        print_json({"design": kind, "M": m, "counts": counts, "rows_to_label": len(queue),
                    "seed": int(args.seed), "lambda": lam,
                    "budget": {"labels": args.labels, "effort": args.effort_budget},
                    "expected": summary, "frontier": plan.frontier.to_dict("records"),
                    "output": str(out), "to_label": str(sent), "engine": engine.name,
                    "passes": plan.passes, "seconds": round(time.time() - t0, 2)})
        return 0
    said = ", ".join(f"{k} {v:,}" for k, v in counts.items() if v)
    from core.format import count

    print(f"{kind} design: {len(queue):,} rows to label ({said}); expected final accuracy "
          f"{summary['expected_accuracy']:.1%}, expected class-share half-width "
          f"{summary['expected_half_width']:.4f} (worth {count(summary['random_equivalent'])} random "
          f"labels); round table written to {out}; for annotators: {sent}")
    print(f"large-table path: {m:,} rows in {plan.passes} passes ({engine.name} engine, "
          f"{time.time() - t0:.1f} s); the round is recorded in the table, not in the "
          f"workspace: fill column '{human_col or 'human_label'}' on the rows to label (or "
          "hmceval labels), then hmceval estimate " + str(out), file=sys.stderr)
    return 0


def _run_calibration_queue(args) -> int:
    """``hmceval queue TABLE.parquet --calibration N_C -o OUT.parquet``: guarantee mode's
    calibration sample, a simple random sample of N_C rows drawn and ranked with the in-memory
    path's draws (:func:`core.evaluation.sampling.plan_queue`: the seed's generator chooses the
    rows, then permutes them into the queue), written batch by batch: every original column,
    ``selection`` (``calibration`` or empty), ``queue_rank``, a ``sample_id`` when the table
    has none and an empty ``human_label`` column when it has no human label."""
    from core.errors import DataError

    import numpy as np
    import pyarrow as pa

    from core.atomic import check_writable
    from core.cli.common import print_json, shown
    from core.evaluation.sampling import SELECTIONS
    from core.scale.parquet import (detect_parquet_roles, is_parquet, parquet_rows,
                                    queued_view, read_columns, write_round_parquet)

    if not is_parquet(args.path) or not is_parquet(args.output):
        raise DataError("the large-table path draws a calibration sample of a Parquet table "
                        "into -o OUT.parquet")
    refused = [flag for flag, on in (
        ("--stream", args.stream), ("--replan", args.replan),
        ("--round", args.round_id is not None), ("--calibrate-on", args.calibrate_on is not None),
        ("--double", args.double), ("--human-share", args.human_share is not None),
        ("--human-count", args.human_count is not None), ("--audit", args.audit),
        ("--format labelstudio", args.format != "csv"),
        ("--engine ray", getattr(args, "engine", None) == "ray")) if on]
    if refused:
        raise DataError(f"{', '.join(refused)}: not with --calibration on the large-table path "
                        "yet (it draws guarantee mode's calibration sample); nothing was "
                        "written")
    if not 0 <= args.seed < 2**63:
        raise DataError(f"--seed must be in [0, 2^63), got {args.seed}")
    check_writable(args.output)
    roles = detect_parquet_roles(args.path, args.col)
    m = parquet_rows(args.path)
    if not 1 <= args.calibration <= m:
        raise DataError(f"--calibration must be between 1 and the table's {m:,} rows, got "
                        f"{args.calibration}")
    if roles.get("selection"):
        sel = read_columns(args.path, {"s": ("selection", roles["selection"])})["s"]
        if (sel != len(SELECTIONS)).any():
            raise DataError(f"column '{roles['selection']}' already has a selection; a "
                            "calibration sample is drawn on undecided rows (clear it)")
        del sel
    rng = np.random.default_rng(int(args.seed))
    rows = np.sort(rng.choice(m, size=int(args.calibration), replace=False))
    queue = rows[rng.permutation(len(rows))]
    q_rows, q_rank = np.sort(queue), np.argsort(queue, kind="stable") + 1
    id_col = roles.get("sample_id") or "sample_id"
    new_id = roles.get("sample_id") is None
    human_col = roles.get("human_label")
    sel_col = roles.get("selection") or "selection"
    show = list(dict.fromkeys(([id_col] if not new_id else []) + list(roles.get("text") or [])
                              + shown(args)))
    picked: list = []

    def per_batch(b, start: int) -> dict:
        n = b.num_rows
        lo, hi = np.searchsorted(q_rows, [start, start + n])
        rank = np.zeros(n, dtype=np.int64)
        mask = np.zeros(n, dtype=bool)
        rank[q_rows[lo:hi] - start] = q_rank[lo:hi]
        mask[q_rows[lo:hi] - start] = True
        extra = {}
        if new_id:
            extra["sample_id"] = pa.array(np.arange(start + 1, start + n + 1, dtype=np.int64))
        extra[sel_col] = pa.array(np.where(mask, "calibration", "").tolist(), type=pa.string())
        extra["queue_rank"] = pa.array(rank, mask=~mask)
        if human_col is None:
            extra["human_label"] = pa.nulls(n, type=pa.string())
        if mask.any():
            picked.append((rank[mask], queued_view(b, mask, show, start=start, new_id=new_id)))
        return extra

    meta = {"format": "hmceval-large-round", "version": 1, "design": "calibration", "M": m,
            "seed": int(args.seed), "calibration": int(args.calibration), "engine": "local"}
    out = Path(args.output)
    write_round_parquet(args.path, out, per_batch, meta=meta)
    sent = out.with_name(f"{out.stem}_to_label.csv")
    _write_to_label(picked, sent, id_col)
    if args.json:
        print_json({"design": "calibration", "M": m, "counts": {"calibration": len(rows)},
                    "rows_to_label": len(rows), "seed": int(args.seed), "output": str(out),
                    "to_label": str(sent)})
        return 0
    print(f"{len(rows):,} rows to label (calibration {len(rows):,}); round table written to "
          f"{out}; for annotators: {sent}")
    print(f"large-table path: the calibration sample is recorded in the table, not in the "
          f"workspace: fill column '{human_col or 'human_label'}' on its rows (or hmceval "
          f"labels), then hmceval certify {out}", file=sys.stderr)
    return 0


def _write_to_label(picked: list, sent: Path, id_col: str) -> None:
    """The annotators' file: the rows to label in queue order (id, queue_rank, shown)."""
    import pandas as pd

    from core.csv_safe import to_csv_safe

    if picked:
        parts = [pd.DataFrame({**sub, "queue_rank": rank}) for rank, sub in picked]
        df = pd.concat(parts, ignore_index=True).sort_values("queue_rank", kind="stable")
    else:
        df = pd.DataFrame({id_col: [], "queue_rank": []})
    first = [id_col, "queue_rank"]
    df = df[[c for c in first if c in df.columns] + [c for c in df.columns if c not in first]]
    to_csv_safe(df, sent)


#: Rows from which a Parquet round table without a workspace round is estimated on the
#: large-table path by itself (the in-memory path would hold the whole table).
LARGE_ROWS = 500_000


def wants_scale_estimate(args, path: str) -> bool:
    """The large-table path for ``hmceval estimate``: ``--engine`` on a Parquet table, or a
    Parquet round table (selection and inclusion probabilities) of no workspace round that
    the large-table path wrote (its metadata says so) or of :data:`LARGE_ROWS` rows or more
    (a table whose metadata a rewrite dropped)."""
    from core.cli.round_table import round_link
    from core.scale.parquet import is_parquet, parquet_rows, round_meta

    if not is_parquet(path) or not Path(path).is_file():
        return False
    if getattr(args, "engine", None) is not None:
        return True
    if round_link(path) is not None:
        return False
    try:
        if round_meta(path) is not None:
            return True
        import pyarrow.parquet as pq

        names = set(pq.ParquetFile(str(path)).schema_arrow.names)
    except Exception:  # noqa: BLE001 - an unreadable file: the in-memory path says why
        return False
    return "inclusion_probability" in names and parquet_rows(path) >= LARGE_ROWS


def estimate_results(args, path: str) -> dict:
    """The estimate of a large round table (``hmceval estimate --json``'s object)."""
    from core.errors import DataError

    import numpy as np

    from core.evaluation.sampling import SELECTIONS
    from core.scale.estimate import estimate_scaled
    from core.scale.parquet import class_codes, detect_parquet_roles, read_columns

    _check_ray(args)
    if args.anytime or args.annotator_error == "auto":
        raise DataError("--anytime and --annotator-error auto are not on the large-table path "
                        "yet (--annotator-error ETA is)")
    roles = detect_parquet_roles(path, args.col)
    if roles.get("selection") is None:
        raise DataError(f"{path} has no 'selection' column; plan the round first (hmceval "
                        "queue ... -o OUT.parquet)")
    import pyarrow.parquet as pq

    names = pq.ParquetFile(path).schema_arrow.names
    if "inclusion_probability" not in names:
        raise DataError(f"{path} has no inclusion_probability column: the large-table path "
                        "estimates rounds planned with --design active or random")
    human_col = roles.get("human_label") or ("human_label" if "human_label" in names else None)
    if human_col is None:
        raise DataError("no human label column: map a column to the human_label role "
                        "(--col human_label=NAME)")
    classes = class_codes(path, [roles["machine_label"], human_col])
    spec = {"code": ("codes", roles["machine_label"], classes, False),
            "q": ("float", roles["machine_confidence"], 0.0, 1.0),
            "human": ("codes", human_col, classes, True),
            "sel": ("selection", roles["selection"]),
            "pi": ("nullable_float", "inclusion_probability")}
    groups = {}
    for g in args.group or []:
        if g not in names:
            raise DataError(f"group column '{g}' is not in the table; available: "
                            f"{', '.join(names)}")
        groups[g] = class_codes_any(path, g)
        spec[f"group:{g}"] = ("codes", g, groups[g], True)
    cols = read_columns(path, spec)
    for g, vals in groups.items():  # a missing value is its own group, as in memory
        code = cols[f"group:{g}"]
        if (code < 0).any():
            vals.append("(missing)")
            code[code < 0] = len(vals) - 1
    words = list(SELECTIONS) + [""]
    sel = cols.pop("sel")
    undecided = np.flatnonzero(sel == words.index(""))
    if len(undecided):
        raise DataError(f"{len(undecided):,} rows have no selection (row "
                        f"{undecided[0] + 1:,}...); plan them first")
    if (sel == words.index("calibration")).any():
        raise DataError("a calibration sample in a round planned with inclusion "
                        "probabilities is not supported yet")
    labelled_word = np.isin(sel, [words.index(w) for w in ("calibration", "routed", "audit")])
    has = cols["human"] >= 0
    missing = np.flatnonzero((sel == words.index("routed")) & ~has)
    if len(missing):
        raise DataError(f"{len(missing):,} routed rows have no human label (row "
                        f"{missing[0] + 1:,}...); label them before estimating")
    pi = cols["pi"]
    bad = np.flatnonzero(~((pi > 0) & (pi <= 1)))
    if len(bad):
        raise DataError(f"column 'inclusion_probability' must hold probabilities in (0, 1]; "
                        f"row {bad[0] + 1:,} holds {float(pi[bad[0]])!r}")
    lab = has & labelled_word
    kind = "random" if not (pi >= 1).any() and float(pi.max() - pi.min()) == 0 else "active"
    audit = sel == words.index("audit")
    n_audit, n_done = int(audit.sum()), int((audit & lab).sum())
    notes = []
    if n_done < n_audit:
        frac = n_done / n_audit if n_audit else 0.0
        np.multiply(pi, np.where(pi < 1, max(frac, 1e-12), 1.0), out=pi)
        notes.append(f"{n_audit - n_done:,} of the {n_audit:,} drawn audit rows have no "
                     "human label yet: the labelled ones are taken as a random subsample "
                     f"of them (inclusion probabilities scaled by {frac:.3f}; valid if "
                     "they were labelled in queue order)")
    del audit, labelled_word
    rows = np.flatnonzero(lab)
    human_lab = cols.pop("human")[rows].astype(np.int64)
    sel_lab = np.array(words, dtype=object)[sel[rows]]
    counts = {w: int((sel == i).sum()) for i, w in enumerate(words)}
    del sel, has
    cols["lab"] = lab
    effort = roles.get("predicted_effort") or roles.get("human_effort")
    if groups and effort:
        cols["effort"] = read_columns(path, {"e": ("float", effort, 0.0, None)})["e"]
    if groups:
        notes.append("the covariates control (group indicators) is not fitted on the "
                     "large-table path: the intervals rest on the other controls")
    engine = _engine(args, cols)
    try:
        res = estimate_scaled(engine, classes=classes, labelled_rows=rows,
                              human_lab=human_lab, selection_lab=sel_lab, counts_sel=counts,
                              kind=kind, confidence=args.confidence, groups=groups,
                              notes=notes)
    finally:
        engine.close()
    from core.evaluation.annotators import correct_estimate, given_error, mark_uncorrected

    if args.annotator_error is None:
        return mark_uncorrected(res)
    return correct_estimate(res, given_error(args.annotator_error,
                                             n_classes=len(res["class_shares"]),
                                             confidence=args.confidence))


def class_codes_any(path: str, col: str) -> list:
    """A group column's distinct values (at most 200), sorted."""
    from core.errors import DataError

    import pyarrow.compute as pc

    from core.scale.parquet import iter_batches

    seen: set = set()
    for b in iter_batches(path, [col]):
        seen.update(v for v in pc.unique(b.column(0)).to_pylist() if v is not None)
        if len(seen) > 200:
            raise DataError(f"group column '{col}' has more than 200 distinct values; a group "
                            "column needs at most 200")
    try:
        return sorted(seen)
    except TypeError:
        return sorted(seen, key=str)
