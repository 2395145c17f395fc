"""``hmceval estimate --anytime``: a stream's confidence sequences, from its table or its round."""

from __future__ import annotations

import argparse
import math


def check_anytime(args: argparse.Namespace) -> None:
    """The options of a stream's estimate, checked before any work."""
    from core.errors import DataError
    from core.evaluation.estimate import parse_decision

    if args.annotator_error is not None:
        raise DataError("--anytime reports relative to the annotators' labels; "
                        "--annotator-error is not supported with it yet")
    if not 1 <= args.trace_every <= 10**9:
        raise DataError(f"--trace-every must be a whole number >= 1, got {args.trace_every}")
    h = args.target_half_width
    if h is not None and not (math.isfinite(h) and 0 < h < 0.5):
        raise DataError(f"--target-half-width must be a share in (0, 0.5), got {h}")
    if args.decide is not None:
        parse_decision(args.decide)


def is_stream_round(ref) -> bool:
    """Whether the workspace round ``ref`` (``(workspace, round id)``) is a labelling stream."""
    from core.workspace.stream_rounds import is_stream

    ws, rid = ref
    return is_stream(ws.round(rid)["settings"])


def is_stream_table(design) -> bool:
    """Whether a round table of no workspace round is a stream's (it has ``draw_probability``):
    the fixed-n estimators would misread its unequal draws, so ``hmceval estimate`` reads it
    with its confidence sequences, ``--anytime`` or not."""
    from core.evaluation.sampling import DRAW_PROBABILITY

    return DRAW_PROBABILITY in {str(c).strip().lower() for c in design.data.raw.columns}


def stream_round_result(args: argparse.Namespace, ref, design, path: str | None) -> dict:
    """The sequences of the stream round ``ref``, after taking in the labels written into its
    table ``path`` (``design``; None for ``--round ID``)."""
    from core.cli.rounds import round_lock, take_table_labels
    from core.cli.step import one_step
    from core.workspace.stream_rounds import anytime_round

    check_anytime(args)
    ws, rid = ref
    with round_lock(ws, rid), one_step(ws):  # the labels taken in and the result: together
        if design is not None:
            take_table_labels(ws, rid, design, path)
        return anytime_round(ws, rid, groups=args.group, confidence=args.confidence,
                             trace_every=args.trace_every,
                             target_half_width=args.target_half_width, decide=args.decide,
                             method=args.sequence)


def stream_table_result(args: argparse.Namespace, design, path: str) -> dict:
    """The sequences of a stream's table of no workspace round (its own columns)."""
    check_anytime(args)
    import numpy as np

    from core.errors import DataError
    from core.evaluation.estimate import stream_design_estimate
    from core.evaluation.sampling import DRAW_PROBABILITY, DRAW_WEIGHT

    raw = design.data.raw
    cols = {str(c).strip().lower(): c for c in raw.columns}
    for need in ("queue_rank", DRAW_PROBABILITY):
        if need not in cols:
            raise DataError(f"{path}: --anytime needs the column '{need}' of a stream's table "
                            "(hmceval queue --stream)")
    rank = np.asarray(raw[cols["queue_rank"]].astype(float), dtype=float)
    p = np.asarray(raw[cols[DRAW_PROBABILITY]].astype(float), dtype=float)
    queued = np.flatnonzero(np.isfinite(rank))
    order = queued[np.argsort(rank[queued], kind="stable")]
    if len(order) and not np.array_equal(np.sort(rank[order]), np.arange(1, len(order) + 1)):
        raise DataError(f"{path}: 'queue_rank' must number the queued rows 1, 2, 3, ... "
                        "without gaps or repeats")
    bad = order[~((p[order] > 0) & (p[order] <= 1))]
    if len(bad):
        raise DataError(f"{path}: '{DRAW_PROBABILITY}' must be in (0, 1] on every queued row; "
                        f"row {int(bad[0]) + 2} has {p[bad[0]]}")
    weights = None
    if DRAW_WEIGHT in cols:
        weights = np.asarray(raw[cols[DRAW_WEIGHT]].astype(float), dtype=float)
        if not np.all(np.isfinite(weights) & (weights >= 0)):
            raise DataError(f"{path}: '{DRAW_WEIGHT}' must be a number >= 0 on every row")
    return stream_design_estimate(design, order=order, draw_probability=p[order],
                                  weights=weights, groups=args.group, confidence=args.confidence,
                                  trace_every=args.trace_every,
                                  target_half_width=args.target_half_width, decide=args.decide, method=args.sequence)


def print_stream(path: str, res: dict) -> None:
    """A stream's estimate as ``hmceval estimate`` prints it."""
    from core.cli.common import print_accuracy

    def fmt(v):
        return "n/a" if v is None else f"{v:.4f}"

    level = f"{res['confidence']:.0%}"
    print(f"{path}: {res['labels']:,} of {res['queue']:,} queued rows labelled (in queue order), "
          f"M = {res['M']:,}; intervals valid at every number of labels at once ({level})")
    for label, s in res["class_shares"].items():
        print(f"  share of {label!s:>10}: {fmt(s['estimate'])}  [{fmt(s['ci_low'])}, "
              f"{fmt(s['ci_high'])}]")
    print_accuracy(res, fmt)
    if res.get("stop"):
        st = res["stop"]
        print(f"  stop: {'yes' if st['reached'] else 'not yet'} ({st['reason']})")
    if res.get("price") and res["price"].get("ratio"):
        print(f"  price of looking at every label: the interval is {res['price']['ratio']:.2f}x "
              "as wide as a fixed-n interval on the same labels")
    for note in res["notes"]:
        print(f"  note: {note}")


def run_anytime(args: argparse.Namespace) -> int:
    """hmceval estimate --anytime PATH... or --round ID: every table read as a stream's."""
    from core.cli.rounds import each_table, open_round, print_results
    from core.errors import DataError

    check_anytime(args)
    if args.round_id is not None:
        if args.paths:
            raise DataError("give round tables (PATH...) or --round ID, not both")
        ref = open_round(args, None)
        args.paths = [f"round #{ref[1]}"]
        results = [stream_round_result(args, ref, None, None)]
    elif not args.paths:
        raise DataError("give one or more stream tables (PATH...) or --round ID")
    else:
        results = each_table(args, args.paths,
                             lambda ref, design, path: stream_round_result(args, ref, design,
                                                                           path),
                             lambda design, path: stream_table_result(args, design, path))
    print_results(args, results, print_stream)
    return 0
