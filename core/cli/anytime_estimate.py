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


def anytime_result(args: argparse.Namespace, ref) -> dict:
    """The sequences of the stream round ``ref`` on its labels so far (stored as its
    estimate); call it inside the step of :func:`core.cli.table_round.round_step`."""
    from core.workspace.stream_rounds import anytime_round

    check_anytime(args)
    ws, rid = ref
    return anytime_round(ws, rid, groups=args.group, confidence=args.confidence,
                         trace_every=args.trace_every, target_half_width=args.target_half_width,
                         decide=args.decide, method=args.sequence)


def stream_round_result(args: argparse.Namespace, path: str | None, design) -> dict:
    """The sequences of the stream round of the table ``path`` (``design``; both None for
    ``--round ID``), after taking in the labels written into the table; a stream's table of
    no round is taken in as a round first (:func:`core.cli.table_round.round_step`)."""
    from core.cli.round_table import round_link
    from core.cli.table_round import round_step
    from core.workspace.adopt import stream_draw

    check_anytime(args)
    if design is not None and args.round_id is None and round_link(path) is None:
        stream_draw(design, path, required=True)  # a stream's columns, before anything
    with round_step(args, path, design) as ref:  # the labels taken in and the result: together
        return anytime_result(args, ref)


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
    from core.cli.common import load_round
    from core.cli.rounds import print_results
    from core.errors import DataError

    check_anytime(args)
    if args.round_id is not None:
        if args.paths:
            raise DataError("give round tables (PATH...) or --round ID, not both")
        results = [stream_round_result(args, None, None)]
        args.paths = [f"round #{args.round_id}"]
    elif not args.paths:
        raise DataError("give one or more stream tables (PATH...) or --round ID")
    else:
        results = [stream_round_result(args, path, load_round(path, args.col))
                   for path in args.paths]
    print_results(args, results, print_stream)
    return 0
