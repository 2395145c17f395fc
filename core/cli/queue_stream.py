"""``hmceval queue --stream``: plan a labelling stream (:mod:`core.workspace.stream_rounds`)."""

from __future__ import annotations

import argparse
import math

from core.cli.step import one_step


def run_stream(args: argparse.Namespace, write_round_files) -> int:
    """Plan the stream on ``args.path`` in the workspace and write its table (``-o``) and the
    annotators' file beside it with ``write_round_files`` (``hmceval queue``'s writer, passed
    in: this module sits below the command); print the plan (``--json``: one object)."""
    import numpy as np

    from core.cli.cmd_workspace import open_workspace
    from core.cli.common import load_round, print_json
    from core.cli.rounds import round_note
    from core.errors import DataError
    from core.evaluation.estimate import parse_decision
    from core.evaluation.sampling import DEFAULT_STREAM_DESIGN
    from core.workspace.active_rounds import find_dataset_id
    from core.workspace.stream_rounds import expected_labels, plan_stream_round, stream_of

    if args.path is None or args.round_id is not None:
        raise DataError("--stream plans a new stream on a table: give PATH (not --round)")
    for flag, bad in (("--design", args.design is not None), ("--calibration", args.calibration),
                      ("--human-share", args.human_share is not None),
                      ("--human-count", args.human_count is not None),
                      ("--effort-budget", args.effort_budget is not None),
                      ("--audit", args.audit), ("--double", args.double),
                      ("--calibrate-on", args.calibrate_on is not None)):
        if bad:
            raise DataError(f"--stream does not take {flag}: a stream is one queue drawn "
                            "with known probabilities, labelled for as long as needed")
    if args.labels is None or not math.isfinite(args.labels) or args.labels < 1 \
            or args.labels != int(args.labels):
        raise DataError(f"--stream needs --labels MAX, a whole number >= 1, got {args.labels}")
    if not 0 <= args.seed < 2**63:
        raise DataError(f"--seed must be in [0, 2^63), got {args.seed}")
    h = args.target_half_width
    if h is not None and not (math.isfinite(h) and 0 < h < 0.5):
        raise DataError(f"--target-half-width must be a share in (0, 0.5), got {h}")
    question = None if args.decide is None else parse_decision(args.decide)  # before storing
    design = load_round(args.path, args.col)
    if (design.selection != "").any():
        raise DataError("--stream plans a round on undecided rows: the table already has a "
                        "selection (clear the column to re-plan)")
    if int(args.labels) > design.M:
        raise DataError(f"--labels {int(args.labels):,} is more than the table's "
                        f"{design.M:,} rows")
    if question is not None and question.kind == "share":
        names = {str(v) for v in design.data.labels}
        if question.label not in names:
            raise DataError(f"--decide: class {question.label!r} is not one "
                            f"of the table's classes: {', '.join(sorted(names))}")
    from core.workspace.round_settings import RoundSettings

    settings = RoundSettings(design="stream", labels=int(args.labels), seed=int(args.seed),
                             stream_design=args.stream_design or DEFAULT_STREAM_DESIGN,
                             target_half_width=None if h is None else float(h),
                             decide=None if args.decide is None else str(args.decide))
    ws = open_workspace(args)
    with one_step(ws):  # the stream's round and its files, together or not at all
        rid = plan_stream_round(ws, design.data, settings, source="cli")
        ws.remember_active(find_dataset_id(ws, design.data))
        out, sent, counts, _, rank = write_round_files(args, ws, rid)
    plan = stream_of(ws, rid)
    expected = None if h is None else min(expected_labels(design.data, h), int(args.labels))
    out_obj = {"design": "stream", "stream_design": plan.design, "M": design.M,
               "rows_to_label": int(np.isfinite(rank).sum()), "seed": int(args.seed),
               "target_half_width": h, "decide": args.decide,
               "expected_labels_for_target": expected,
               "output": str(out), "to_label": None if sent is None else str(sent),
               "round_id": rid, "workspace": str(ws.root),
               "note": "the expectation rests on the judge's confidences taken as "
                       "probabilities; the stream's intervals rest on the labels only"}
    if args.json:
        print_json(out_obj)
    else:
        print(f"stream of {out_obj['rows_to_label']:,} rows ({plan.design} draws) written to "
              f"{out}" + (f"; for annotators: {sent}" if sent is not None else "")
              + f"; {round_note(ws, rid)}")
        if expected is not None:
            print(f"  the target half-width {h:g} is expected after about {expected:,} labels "
                  "(on the judge's confidences; the labels will tell)")
        print("  label in queue order; hmceval estimate OUT --anytime after every import")
    return 0


def run_replan(args: argparse.Namespace, write_round_files) -> int:
    """``hmceval queue --replan`` (``--round ID``, or PATH a stream's table): re-plan the rest
    of the stream on its labelled prefix, then write its table as ``write_round_files`` does."""
    from core.cli.common import print_json
    from core.cli.rounds import open_round, round_lock, round_note, take_table_labels
    from core.errors import DataError
    from core.workspace.stream_replan import replan_stream_round

    if args.round_id is None and args.path is None:
        raise DataError("--replan needs the stream: --round ID, or its table as PATH")
    ref = open_round(args, args.path if args.round_id is None else None)
    if ref is None:
        raise DataError(f"{args.path}: --replan re-plans a stream kept in the workspace; this "
                        "table names no round (its sidecar .round.json is missing)")
    ws, rid = ref
    with round_lock(ws, rid), one_step(ws):  # the new plan and its files, together or not
        if args.path is not None and args.round_id is None:
            from core.cli.common import load_round

            take_table_labels(ws, rid, load_round(args.path, args.col), args.path)
        info = replan_stream_round(ws, rid, seed=args.seed if args.seed else None)
        out, sent, _, _, _ = write_round_files(args, ws, rid)
    if args.json:
        print_json({**info, "round_id": rid, "output": str(out),
                    "to_label": None if sent is None else str(sent), "workspace": str(ws.root)})
    else:
        print(f"re-planned on {info['labelled']:,} labels in queue order: {info['redrawn']:,} "
              f"rows drawn again ({info['moved']:,} rows of the old queue left it); written to "
              f"{out}" + (f"; for annotators: {sent}" if sent is not None else "")
              + f"; {round_note(ws, rid)}")
    return 0
