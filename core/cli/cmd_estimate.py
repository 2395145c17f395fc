"""``hmceval estimate``: final class shares and accuracy of a round, with valid intervals."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "estimate", help="final class shares and accuracy with confidence intervals",
        description="Read tables with a 'selection' column and human labels on the calibration, "
                    "routed and audit rows; print the share of each class among the true labels "
                    "of all rows and the accuracy of the final labels, with intervals, overall "
                    "and per group, and name every group whose final labels are significantly "
                    "worse than the rest (notes). Routing rounds: difference estimator with a "
                    "smoothed normal interval, exact hypergeometric accuracy bounds. Rounds with "
                    "an inclusion_probability column (hmceval queue --design active|random): "
                    "inverse-probability weighting with a control from the machine's "
                    "confidences (PPI++ exactly for plain random labelling). A round kept in the "
                    "workspace (planned by hmceval queue, named by the table's sidecar; or "
                    "--round ID, one planned on the Evaluate page too) is estimated there, by "
                    "the page's own call, after taking in labels written into its table; the "
                    "result is stored with the round (hmceval report shows it). A table of no "
                    "round is recorded as a round first (--workspace, else $HMCEVAL_WORKSPACE, "
                    "else hmceval-workspace beside the table) and its sidecar written.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="one or more round tables")
    p.add_argument("--group", action="append", metavar="COL", help="break down by this column "
                   "(repeatable)")
    p.add_argument("--confidence", type=float, default=0.95,
                   help="confidence level of the intervals, in (0, 1) (default 0.95)")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role to a column (repeatable); --col selection=NAME too")
    p.add_argument("--json", action="store_true", help="print one JSON object per PATH (a list "
                   "when several)")
    p.add_argument("--annotator-error", metavar="auto|ETA", default=None,
                   help="report against the true label, not the annotators': ETA is the "
                        "annotators' error rate in [0, 0.5); auto measures it on the round's "
                        "double-labelled rows (hmceval queue --double K) or, with "
                        "--gold-annotator, on gold items, and its uncertainty widens the "
                        "intervals (relative_to in the JSON says which). Without it the results "
                        "are relative to the annotators' labels")
    p.add_argument("--gold-annotator", metavar="NAME", default=None,
                   help="with --annotator-error auto: the annotator whose labels are gold items")
    a = p.add_argument_group("labelling stream (a table of hmceval queue --stream)")
    a.add_argument("--anytime", action="store_true",
                   help="confidence sequences: intervals that hold at every number of labels "
                        "at once, so you may look after every import and stop when you like "
                        "(the labelled prefix of the queue, in queue order)")
    a.add_argument("--sequence", choices=("asymptotic", "betting"), default="asymptotic",
                   help="with --anytime: asymptotic (default; the Gaussian-mixture sequence, as "
                        "GLIDE computes it) or betting (valid in finite samples, no normal "
                        "approximation: for small streams; slower, usually a little wider)")
    a.add_argument("--trace-every", type=int, default=10, metavar="K",
                   help="with --anytime: the trace's step in labels (default 10)")
    a.add_argument("--target-half-width", type=float, default=None, metavar="H",
                   help="with --anytime: say when the widest class share's half-width first "
                        "reached H (default: the stream's own)")
    a.add_argument("--decide", default=None, metavar="EXPR",
                   help="with --anytime: a question, e.g. \"share(unsafe) <= 0.05\" (default: "
                        "the stream's own)")
    from core.cli.rounds import add_round_args

    from core.scale.cli import add_engine_args

    add_round_args(p, verb="estimate")
    add_engine_args(p)  # a round table of the large-table path (Parquet)
    p.set_defaults(func=run)


def _print_text(path: str, res: dict) -> None:
    from core.cli.common import print_accuracy

    def fmt(v):
        return "n/a" if v is None else f"{v:.4f}"

    print(f"{path}: M = {res['M']:,}; calibration {res['n_calibration']:,}, routed "
          f"{res['n_routed']:,}, audit {res['n_audit']:,}, machine {res['n_machine']:,}")
    level = f"{res['confidence']:.0%}"
    rel = res.get("relative_to", "annotators")
    print(f"  relative to: {rel}" + (" (their labels taken as the truth; --annotator-error "
                                     "auto|ETA reports against the true label)"
                                     if rel == "annotators" else ""))
    for label, s in res["class_shares"].items():
        print(f"  share of {label!s:>10}: {fmt(s['estimate'])}  [{fmt(s['ci_low'])}, "
              f"{fmt(s['ci_high'])}] ({level})  machine only {fmt(s['machine_only'])}")
    print_accuracy(res, fmt, f" ({level})")
    for note in res["notes"]:
        print(f"  note: {note}")


def run(args: argparse.Namespace) -> int:
    from core.cli.common import check_fraction, load_round
    from core.cli.rounds import print_results
    from core.errors import DataError

    check_fraction(args.confidence, "--confidence")
    _check_annotator_error(args)
    from core.cli.anytime_estimate import print_stream, run_anytime

    from core.scale.cli import estimate_results, wants_scale_estimate

    if args.paths and args.round_id is None and all(wants_scale_estimate(args, p)
                                                    for p in args.paths):
        print_results(args, [estimate_results(args, p) for p in args.paths], _print_text)
        return 0
    if args.anytime:
        return run_anytime(args)
    if args.round_id is not None:
        if args.paths:
            raise DataError("give round tables (PATH...) or --round ID, not both")
        args.paths = [f"round #{args.round_id}"]
        results = [_estimate(args, None, None)]
    elif not args.paths:
        raise DataError("give one or more round tables (PATH...) or --round ID")
    else:  # each table: its workspace round's estimate (a table of no round taken in first)
        results = [_estimate(args, path, load_round(path, args.col)) for path in args.paths]
    print_results(args, results,
                  lambda path, res: (print_stream if res.get("anytime") else _print_text)(path, res))
    return 0


def _refuse_stream_options(args: argparse.Namespace) -> None:
    """--target-half-width and --decide belong to a stream's sequences."""
    from core.errors import DataError

    for flag, given in (("--target-half-width", args.target_half_width is not None),
                        ("--decide", args.decide is not None)):
        if given:
            raise DataError(f"{flag} goes with --anytime (a stream's confidence sequences)")


def _estimate(args: argparse.Namespace, path: str | None, design) -> dict:
    """The estimate of the round of the table ``path`` (read as ``design``; both None for
    ``--round ID``): :func:`core.workspace.rounds.estimate_round`, the page's call, stored with
    the round, after taking in the labels written into the table (a table of no round taken
    in as a round first: :func:`core.cli.table_round.round_step`); a stream's round is read
    with its confidence sequences, ``--anytime`` or not. A gold column of the table is named
    in the notes."""
    from core.cli.anytime_estimate import anytime_result, is_stream_round
    from core.cli.round_table import round_link
    from core.cli.table_round import round_step
    from core.evaluation.estimate import check_selection, gold_column_note
    from core.workspace.adopt import stream_draw
    from core.workspace.rounds import estimate_round

    if design is not None and args.round_id is None and round_link(path) is None \
            and stream_draw(design, path) is None:
        _refuse_stream_options(args)
        check_selection(design)  # a table of no round and no selection: nothing to estimate
    with round_step(args, path, design) as ref:  # the labels taken in and the result: together
        if is_stream_round(ref):
            return anytime_result(args, ref)
        _refuse_stream_options(args)
        ws, rid = ref
        res = estimate_round(ws, rid, groups=args.group, confidence=args.confidence,
                             annotator_error=args.annotator_error,
                             gold_annotator=args.gold_annotator)
    gold = None if design is None else gold_column_note(design)
    if gold is not None:
        res["notes"] = res["notes"] + [gold]
    return res


def _check_annotator_error(args: argparse.Namespace) -> None:
    """--annotator-error is 'auto' or a number in [0, 0.5) (checked before any work)."""
    from core.errors import DataError
    from core.evaluation.annotators import given_error

    value = args.annotator_error
    if args.gold_annotator is not None and value != "auto":
        raise DataError("--gold-annotator goes with --annotator-error auto")
    if value is None or value == "auto":
        return
    try:
        number = float(value)
    except ValueError:
        raise DataError("--annotator-error: the annotators' error rate must be 'auto' or a "
                        f"number in [0, 0.5), got {value!r}") from None
    given_error(number, n_classes=2)  # the range check
    args.annotator_error = number
