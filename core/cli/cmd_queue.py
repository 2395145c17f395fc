"""``hmceval queue``: plan an annotation round (calibration, routed, audit) and write the queue."""

from __future__ import annotations

import argparse
import sys

from core.cli.step import one_step
from core.defaults import LAMBDA

DESIGN_CHOICES = ("active", "routing", "random", "pilot")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "queue", help="plan who labels what: calibration sample, exact SAE routing, audit",
        description="Draw a calibration sample (a simple random sample of all rows), route the "
                    "other rows with the exact SAE (the same N and tie rule as assign; N counts "
                    "the rows outside the calibration sample), draw an audit (a simple random "
                    "sample of the rows the machine keeps) and write the round's table: every "
                    "original column, 'selection' and 'queue_rank' (calibration rows first, then "
                    "audit rows, both in random order, then routed rows by descending gain); "
                    "hmceval labels, labelstudio and estimate read it. Beside it, OUT_to_label.csv "
                    "is what annotators receive: the rows to label in queue order, with the "
                    "sample id, queue_rank, the text columns and the --show columns only. The round is kept in the workspace (as one "
                    "planned on the Evaluate page: hmceval report and the page show it); the "
                    "table's sidecar OUT.round.json names it, so certify, labels, labelstudio "
                    "and estimate continue it. With --round ID (and no PATH): write the table "
                    "of a round already in the workspace, e.g. one planned on the page.")
    p.add_argument("path", nargs="?", help="CSV, TSV, Parquet or JSON table of scored samples")
    p.add_argument("--calibration", type=int, default=0, metavar="N_C",
                   help="size of a new calibration sample (default 0)")
    p.add_argument("--design", choices=DESIGN_CHOICES, default=None,
                   help="active: every row gets an inclusion probability from the optimiser "
                        "(routed rows with probability 1, the rest drawn independently; the "
                        "inclusion_probability column is written), the default with --labels "
                        "or --effort-budget; with so few labels that it is expected to be worth "
                        "less than PPI++'s interval on random labels, plain random labelling "
                        "is planned in its place, and said; routing: today's exact SAE routing "
                        "plus a uniform "
                        "audit, the default with --human-share or --human-count; random: plain "
                        "random labelling with equal probabilities; pilot: the first of two "
                        "batches (20 %% of the --labels budget, half of it towards the rows the "
                        "machine is less sure of); come back with --calibrate-on ID for the "
                        "rest, planned on the confidences recalibrated on its labels")
    p.add_argument("--labels", type=float, metavar="B",
                   help="active/random design: the budget in expected labels")
    p.add_argument("--effort-budget", type=float, metavar="E",
                   help="active/random design: the budget in expected predicted effort (the "
                        "effort column's unit)")
    p.add_argument("--width-ratio", type=float, default=None, metavar="R",
                   help="active design: recommend the most accurate design whose interval is "
                        "expected at most R times as wide as PPI++'s with the same number of "
                        "random labels (default 0.95); a large R reaches the frontier's most "
                        "accurate end, routing less the 40 labels a valid interval needs")
    p.add_argument("--calibrate-on", type=int, default=None, metavar="ID",
                   help="active/random design: plan on the labels of round ID of the workspace "
                        "(the same table, e.g. a small pilot round): the confidences are "
                        "recalibrated on them, and its labelled rows are carried into the new "
                        "round (labelled for sure, outside the budget); after a --design pilot "
                        "round, --labels defaults to what its labels left of its budget")
    p.add_argument("--lam", type=float, default=None,
                   help=f"lambda of the gain that ranks rows for humans (default {LAMBDA} for "
                        "routing; 0 for the active design, where effort enters through the "
                        "budget)")
    p.add_argument("--json", action="store_true",
                   help="print the plan as JSON (the design, its expectations and, for the "
                        "active design, the frontier with the recommended design marked)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--human-share", type=float, metavar="Q",
                   help="route N = int(Q * M') rows, M' = rows outside the calibration sample")
    g.add_argument("--human-count", type=int, metavar="N", help="route N rows")
    p.add_argument("--exactly", action="store_true", help="route exactly N rows")
    p.add_argument("--audit", type=int, default=0, metavar="N_A",
                   help="audit size, drawn from the rows the machine keeps (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random draws (default 0)")
    p.add_argument("--double", type=int, default=0, metavar="K",
                   help="K random rows of the queue get a second label: the round table marks "
                        "them (column 'double'), the annotators' file gives every row to "
                        "annotator 1 and the K rows to annotator 2 as well (nothing says which "
                        "are double); hmceval estimate --annotator-error auto measures the "
                        "annotators' error rate on them (default 0)")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role to a column (repeatable); --col selection=NAME too")
    p.add_argument("-o", "--output", required=True, help="where to write the round's table")
    p.add_argument("--format", choices=("csv", "labelstudio"), default="csv",
                   help="csv: the round's whole table, and the rows to label for annotators "
                        "beside it (*_to_label.csv: the sample id, queue_rank, the text and the "
                        "--show columns); "
                        "labelstudio: Label Studio's task import JSON for the rows to label (and "
                        "the labelling config beside it, *.xml)")
    st = p.add_argument_group("labelling stream (--stream)")
    st.add_argument("--stream", action="store_true",
                    help="a labelling stream: up to --labels MAX rows in a queue whose every "
                         "prefix is a sample with known draw probabilities (column "
                         "draw_probability), so hmceval estimate --anytime gives intervals "
                         "valid however often you look and whenever you stop")
    st.add_argument("--stream-design", choices=("uniform", "weighted"), default=None,
                    help="uniform: every row equally likely at each draw; weighted (default): "
                         "rows the machine is less sure of, per unit of predicted effort, "
                         "more likely, half the weight uniform")
    st.add_argument("--replan", action="store_true",
                    help="with --round ID or a stream's table as PATH: draw the rest of a "
                         "weighted stream again with the confidences recalibrated on its "
                         "labelled prefix (at least 30 labels in queue order); the labelled "
                         "rows stay, the intervals stay valid")
    st.add_argument("--target-half-width", type=float, default=None, metavar="H",
                    help="stop when the widest class share's half-width is at most H (the "
                         "sequence is tuned to the labels this is expected to take)")
    st.add_argument("--decide", default=None, metavar="EXPR",
                    help="a question the stream decides, e.g. \"share(unsafe) <= 0.05\" or "
                         "\"accuracy >= 0.9\": decided when the sequence lies wholly on one "
                         "side")
    from core.cli.common import add_show_arg
    from core.cli.rounds import add_round_args

    from core.scale.cli import add_engine_args

    add_show_arg(p)
    add_round_args(p, verb="write the table of")
    add_engine_args(p)  # the large-table path (-o OUT.parquet, --engine)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import math

    from core.cli.common import check_fraction, load_round
    from core.errors import DataError

    from core.cli.common import check_output
    from core.scale.cli import run_queue, wants_scale_queue

    if wants_scale_queue(args):  # -o OUT.parquet or --engine: the large-table path
        return run_queue(args)
    check_output(args.output, args.format)  # csv, or labelstudio's .json: before the work
    _check_double(args)
    if args.replan:
        from core.cli.queue_stream import run_replan

        return run_replan(args, write_round_files)
    if args.stream:
        from core.cli.queue_stream import run_stream

        return run_stream(args, write_round_files)
    if args.round_id is not None or args.path is None:
        return _write_existing(args)
    design_kind = _design_kind(args)
    if design_kind != "routing":
        return _run_weighted(args, design_kind)
    if args.lam is None:
        args.lam = LAMBDA
    if not math.isfinite(args.lam) or args.lam < 0:
        raise DataError(f"--lam must be a finite number >= 0, got {args.lam}")
    if args.human_share is not None:
        check_fraction(args.human_share, "--human-share", open_interval=False)
    for name in ("calibration", "audit", "human_count"):
        value = getattr(args, name)
        if value is not None and value < 0:
            raise DataError(f"--{name.replace('_', '-')} must be >= 0, got {value}")
    if not 0 <= args.seed < 2**63:
        raise DataError(f"--seed must be in [0, 2^63), got {args.seed}")
    design = load_round(args.path, args.col)
    budget = args.human_share is not None or args.human_count is not None
    if not (design.selection != "").any():  # a new round: planned and kept in the workspace
        from core.workspace.round_settings import RoundSettings

        if budget:  # the round's settings, checked once (the page makes the same value)
            settings = RoundSettings(
                lam=float(args.lam), mode="exactly" if args.exactly else "at_most",
                audit=int(args.audit), seed=int(args.seed), calibration=int(args.calibration),
                share=None if args.human_share is None else float(args.human_share),
                n_human=None if args.human_share is not None else int(args.human_count))
        else:
            settings = RoundSettings(calibration=int(args.calibration), seed=int(args.seed))
        kind = "budget" if budget else "guarantee"
        ws = _open_workspace(args, design)
        with one_step(ws):  # the round and its files, together or not at all
            ws, rid = _plan(args, design, kind, settings, ws)
            out, sent, plan_counts, wd, rank = write_round_files(args, ws, rid)
        _note_nothing_routed(args, design, budget, plan_counts)
        _print_plan(args, kind, design.M, plan_counts, rank, out, sent, ws, rid)
        _note_labels_present(design, rank)
        return 0
    # rows already decided in the input (a calibration sample drawn before): the table's round
    # (a table of no round recorded first, its labels with it) is planned on, in the workspace
    if args.double:
        raise DataError("--double K is drawn when a new round is planned: the table already "
                        "has a selection (clear the column to plan a new round)")
    _open_workspace(args, design, open_it=False)  # a bad --show before anything is stored
    from core.cli.table_round import round_step

    with round_step(args, args.path, design, purpose="plan") as (ws, rid):
        plan = _plan_on_round(args, ws, rid, budget, design.selection)
        out, sent, _, _, _ = write_round_files(args, ws, rid)
    _note_nothing_routed(args, design, budget, plan.counts)
    _print_plan(args, "budget" if budget else "guarantee", design.M, plan.counts,
                plan.queue_rank, out, sent, ws, rid)
    _note_labels_present(design, plan.queue_rank)
    return 0


def _plan_on_round(args: argparse.Namespace, ws, rid: int, budget: bool, selection):
    """Plan the queue of round ``rid`` on the table's ``selection`` (a calibration sample drawn
    before) and the round's labels (:func:`core.evaluation.sampling.plan_queue`, as a new round
    is planned: the same table gives the same queue however often it is planned) and store it
    as the round's plan with the settings asked (:meth:`Workspace.update_plan`). Returns the
    plan."""
    from dataclasses import replace

    from core.evaluation.sampling import plan_queue
    from core.workspace.rounds import round_design

    rnd, design = round_design(ws, rid)
    plan = plan_queue(replace(design, selection=selection), calibration=args.calibration, lam=args.lam if budget else None,
                      share=args.human_share, n_human=args.human_count,
                      mode="exactly" if args.exactly else "at_most", audit=args.audit,
                      seed=args.seed)
    asked = {"calibration": int(args.calibration), "seed": int(args.seed)}
    if budget:
        asked.update(lam=float(args.lam), mode="exactly" if args.exactly else "at_most",
                     audit=int(args.audit),
                     share=None if args.human_share is None else float(args.human_share),
                     n_human=None if args.human_share is not None else int(args.human_count))
    ws.update_plan(rid, plan.selection, plan.queue_rank, action="planned",
                   detail={k: v for k, v in asked.items() if v is not None},
                   settings=rnd["settings"].with_(**asked))
    return plan


def _print_plan(args: argparse.Namespace, kind: str, m: int, counts: dict, rank, out, sent,
                ws, rid: int | None, design: str = "routing") -> None:
    """What a routing or guarantee plan (or a round written again) did, as one line or, with
    ``--json``, one JSON object: ``design``, ``kind``, ``M``, ``counts``, ``rows_to_label``,
    ``seed``, ``lambda``, ``output``, ``to_label``, ``round_id``, ``workspace``."""
    import numpy as np

    from core.cli.common import print_json
    from core.cli.rounds import round_note

    n = int(np.isfinite(np.asarray(rank, dtype=float)).sum())
    if args.json:
        print_json({"design": design, "kind": kind, "M": int(m),
                    "counts": {k: int(v) for k, v in counts.items() if k},
                    "rows_to_label": n, "seed": int(args.seed),
                    "lambda": None if args.lam is None else float(args.lam),
                    "output": str(out), "to_label": None if sent is None else str(sent),
                    "round_id": rid, "workspace": None if ws is None else str(ws.root)})
        return
    shown = ", ".join(f"{k} {v}" for k, v in counts.items() if k and v)
    print(f"{n} rows to label ({shown}); round table written to {out}"
          + (f"; for annotators: {sent}" if sent is not None else "")
          + (f"; {round_note(ws, rid)}" if ws is not None else ""))


def write_labelstudio(out, design, queue_rank, *, show: list[str] | None = None) -> None:
    """The rows to label as Label Studio's task import JSON (``out``, blind: the ``show``
    columns besides the text) and its labelling config beside it (``out`` with ``.xml``), both
    written atomically; a warning on stderr when no column is mapped as free text."""
    from core.atomic import write_text
    from core.evaluation import labelstudio

    task_list = labelstudio.tasks(design, queue_rank, show=show)
    write_text(out, labelstudio.task_json(task_list), encoding="utf-8")
    no_text = labelstudio.text_warning(task_list, design.data.text_columns)
    if no_text:
        print(f"warning: {no_text}", file=sys.stderr)
    write_text(out.with_suffix(".xml"),
               labelstudio.labelling_config(design.data.labels,
                                            labelstudio.shown_fields(design, show)),
               encoding="utf-8")


def _note_nothing_routed(args, design, budget: bool, counts: dict) -> None:
    from core.cli.common import note_nothing_routed

    if budget and not counts.get("routed") and (args.human_share or args.human_count):
        from core.assignment import SAEInputs, lambda_range, n_from_share
        from core.summary import data_effort_unit

        inp = SAEInputs.from_data(design.data)
        n = args.human_count if args.human_count is not None else n_from_share(args.human_share, inp.M)
        if n > 0:
            rng = lambda_range(inp, n_human=min(n, inp.M), mode="exactly" if args.exactly else "at_most")
            note_nothing_routed(args.lam, rng.upper, data_effort_unit(design.data))


def _open_workspace(args: argparse.Namespace, design, *, open_it: bool = True):
    """The workspace a new round goes into, after the checks that need no workspace (a column
    annotators may not see is refused before anything is stored)."""
    from core.cli.cmd_workspace import open_workspace
    from core.cli.common import shown
    from core.evaluation.sampling import shown_columns

    shown_columns(design.data, shown(args), selection_column=design.selection_column,
                  hidden=design.hidden)
    return open_workspace(args) if open_it else None


def _plan(args: argparse.Namespace, design, kind: str, settings, ws):
    """Plan the round in the workspace ``ws`` (:func:`core.workspace.rounds.plan_round`, what
    the Evaluate page calls) on the table as loaded; it becomes the workspace's active dataset,
    as when the page plans. Returns ``(workspace, round_id)``. Call it inside
    :func:`core.cli.step.one_step` with the writing of the round's files."""
    from core.workspace.active_rounds import find_dataset_id
    from core.workspace.rounds import plan_round

    if getattr(args, "double", 0):  # K rows labelled twice (plan_round draws them)
        settings = settings.with_(double=int(args.double))
    rid = plan_round(ws, design.data, kind=kind, settings=settings, source="cli")
    ws.remember_active(find_dataset_id(ws, design.data))
    return ws, rid



def write_round_files(args: argparse.Namespace, ws, rid: int):
    """Write round ``rid`` as ``--format`` asks: the round's table and the annotators' file
    (csv), or Label Studio's tasks and config. Returns ``(out, sent, counts, design, rank)``."""
    from pathlib import Path

    import numpy as np

    from core.cli.common import shown
    from core.cli.rounds import export_round
    from core.workspace.rounds import round_design

    out = Path(args.output)
    rnd, wd = round_design(ws, rid)
    rank = np.asarray(rnd["queue_rank"], dtype=float)
    counts = {v: int((wd.selection == v).sum()) for v in
              ("calibration", "routed", "audit", "machine", "")}
    sent = None
    if args.format == "csv":
        sent = export_round(ws, rid, out, show=shown(args))
    else:
        write_labelstudio(out, wd, rank, show=shown(args))
        print(f"note: round #{rid} is kept in the workspace; hmceval labels --round {rid} "
              "takes its labels back (and hmceval queue --round "
              f"{rid} -o TABLE.csv writes its table)", file=sys.stderr)
    return out, sent, counts, wd, rank


def _write_existing(args: argparse.Namespace) -> int:
    """hmceval queue --round ID -o OUT: write a round of the workspace (planned on the page, or
    earlier)."""
    from core.cli.rounds import open_round
    from core.errors import DataError

    if args.path is not None:
        raise DataError("give a table to plan a new round, or --round ID to write an existing "
                        "round's table, not both")
    ws, rid = open_round(args, None)
    with one_step(ws):  # the table, its sidecar and the annotators' file: all or none
        out, sent, counts, wd, rank = write_round_files(args, ws, rid)
    rnd = ws.round(rid)
    _print_plan(args, rnd["kind"], wd.M, counts, rank, out, sent, ws, rid,
                design=rnd["settings"].get("design") or "routing")
    from core.cli.rounds import gold_warning

    warning = gold_warning(ws, rid, out) if args.format == "csv" else None
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _note_labels_present(design, queue_rank) -> None:
    """One line on stderr when the human label column already holds labels on rows to label:
    hmceval estimate would read them as returned labels (a gold column standing in for a
    finished round) and print a result before anyone labelled."""
    import sys

    import numpy as np

    queued = np.isfinite(np.asarray(queue_rank, dtype=float))
    n = int((queued & design.has_label).sum())
    if n:
        col = design.data.roles.get("human_label")
        print(f"warning: column '{col}' (human label) already holds a label on {n:,} of the "
              f"{int(queued.sum()):,} rows to label; hmceval estimate reads them as returned "
              "labels (a gold column stands in for a finished round): for a real round, drop "
              "that column before hmceval queue", file=sys.stderr)


def _design_kind(args: argparse.Namespace) -> str:
    """The design asked for: --design, else active with a budget in labels or effort, else
    routing."""
    from core.errors import DataError

    weighted_budget = args.labels is not None or args.effort_budget is not None
    routing_budget = args.human_share is not None or args.human_count is not None
    # --calibrate-on alone continues a pilot round: the active design
    pilot_rest = args.calibrate_on is not None and not routing_budget
    kind = args.design or ("active" if weighted_budget or pilot_rest else "routing")
    if args.calibrate_on is not None and (kind == "routing" or args.calibration):
        raise DataError("--calibrate-on plans an active or random round (--labels or "
                        "--effort-budget) on an earlier round's labels; routing and a guarantee "
                        "round's calibration sample do not take it")
    if kind == "routing" and weighted_budget:
        raise DataError("--labels and --effort-budget set the budget of the active or random "
                        "design; routing takes --human-share or --human-count")
    if kind != "routing":
        if routing_budget or args.audit or args.exactly:
            raise DataError(f"--design {kind} takes its budget from --labels or "
                            "--effort-budget; --human-share, --human-count, --audit and "
                            "--exactly belong to --design routing")
        if args.calibration:
            if kind != "active" or weighted_budget:
                raise DataError("--calibration with a design draws a guarantee round's "
                                "calibration sample with the active design's probabilities: "
                                "use --design active --calibration N_C without --labels or "
                                "--effort-budget (or --design routing for a simple random "
                                "sample)")
            return kind
        if not weighted_budget and args.calibrate_on is None:  # a pilot's rest: its budget
            raise DataError(f"--design {kind} needs a budget: --labels B or --effort-budget E")
        if kind == "pilot" and (args.labels is None or args.calibrate_on is not None):
            raise DataError("--design pilot is the first of two batches: the whole budget as "
                            "--labels B, no --calibrate-on (the second batch takes it)")
        if args.labels is not None and args.effort_budget is not None:
            raise DataError("give the budget in labels (--labels) or in effort "
                            "(--effort-budget), not both")
    return kind


def _run_weighted(args: argparse.Namespace, kind: str) -> int:
    """hmceval queue --design active|random."""
    import math

    import numpy as np

    import pandas as pd

    from core.cli.common import load_round, print_json
    from core.cli.rounds import round_note
    from core.errors import DataError
    from core.evaluation.sampling import target_note

    lam = 0.0 if args.lam is None else args.lam
    if not math.isfinite(lam) or lam < 0:
        raise DataError(f"--lam must be a finite number >= 0, got {lam}")
    if not 0 <= args.seed < 2**63:
        raise DataError(f"--seed must be in [0, 2^63), got {args.seed}")
    for name in ("labels", "effort_budget", "width_ratio"):
        value = getattr(args, name)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise DataError(f"--{name.replace('_', '-')} must be a number > 0, got {value}")
    design = load_round(args.path, args.col)
    if args.calibration:
        return _run_active_calibration(args, design, lam)
    if args.effort_budget is not None and design.data.roles.get("predicted_effort") is None \
            and design.data.roles.get("human_effort") is None:
        raise DataError("--effort-budget needs an effort column (predicted_effort or "
                        "human_effort; --col predicted_effort=NAME)")
    if (design.selection != "").any():
        raise DataError(f"--design {kind} plans a round on undecided rows: the table already "
                        "has a selection (clear the column to re-plan)")
    from core.workspace.round_settings import RoundSettings

    def given(value, kind):
        return None if value is None else kind(value)

    settings = RoundSettings(design=kind, seed=int(args.seed), lam=float(lam),
                             labels=given(args.labels, float),
                             effort_budget=(None if args.labels is not None
                                            else given(args.effort_budget, float)),
                             width_ratio=given(args.width_ratio, float),
                             calibrate_on=given(args.calibrate_on, int))
    ws = _open_workspace(args, design)
    if args.labels is None and args.effort_budget is None:  # a pilot's rest (the page's too)
        from core.workspace.pilot_rounds import pilot_rest

        settings = settings.with_(labels=pilot_rest(ws, design.data, args.calibrate_on))
    with one_step(ws):  # the round and its files, together or not at all
        ws, rid = _plan(args, design, "budget", settings, ws)  # the page's round service
        out, sent, counts, _, rank = write_round_files(args, ws, rid)
    record = ws.latest_result(rid, "design")
    summary = {k: v for k, v in record.items() if k not in ("frontier", "budget_unit", "strata")}
    n_to_label = int(np.isfinite(rank).sum())
    carried = (record.get("calibrated_on") or {}).get("labels", 0)
    basis = (record.get("calibrated_on") or {}).get("source")
    note = target_note(pd.DataFrame(record["frontier"]), calibrated_on=basis) \
        if record.get("frontier") else None
    if args.json:
        print_json({"design": kind, "M": design.M, "counts": counts, "carried": carried,
                    "rows_to_label": n_to_label, "seed": int(args.seed), "lambda": lam,
                    "budget": {"labels": args.labels, "effort": args.effort_budget},
                    "expected": summary, "frontier": record["frontier"] or [],
                    "targets_note": note,
                    "output": str(out), "to_label": None if sent is None else str(sent),
                    "round_id": rid, "workspace": str(ws.root)})
    else:
        shown = ", ".join(f"{k} {v}" + (f" ({carried:,} of them carried, labelled)"
                                          if k == "routed" and carried else "")
                          for k, v in counts.items() if k and v)
        hw = summary["expected_half_width"]
        if kind == "pilot":
            print(f"pilot (the first of two batches): {n_to_label} rows to label of a budget "
                  f"of {args.labels:g}; round table written to {out}"
                  + (f"; for annotators: {sent}" if sent is not None else "")
                  + f"; {round_note(ws, rid)}. Once they are labelled (hmceval labels), plan "
                  f"the rest on them: hmceval queue {args.path} --calibrate-on {rid} -o OUT")
            _note_labels_present(design, rank)
            return 0
        from core.format import count

        planned = summary.get("design", kind)
        said = f"{kind} design" if planned == kind else \
            f"{kind} design asked, plain {planned} labelling planned"
        print(f"{said}: {n_to_label} rows to label ({shown}); expected final "
              f"accuracy {summary['expected_accuracy']:.1%}, expected class-share half-width "
              f"{hw:.4f} (worth {count(summary['random_equivalent'])} random labels); round table "
              f"written to {out}" + (f"; for annotators: {sent}" if sent is not None else "")
              + f"; {round_note(ws, rid)}")
        if record.get("calibrated_on"):
            c = record["calibrated_on"]
            print(f"planned on the {c['labels']:,} labels of {c['source']} (the confidences "
                  "recalibrated on them; those rows carried into this round, labelled)")
        if note and kind == "active":
            print(note)
        from core.evaluation.sampling import range_sentence

        said = range_sentence(record.get("expected_range"), source=basis)
        if said:
            print(said)
    _note_labels_present(design, rank)
    return 0


def _run_active_calibration(args: argparse.Namespace, design, lam: float) -> int:
    """hmceval queue --calibration N_C --design active: a guarantee round whose calibration
    sample is drawn with the active design's unequal probabilities (written as
    ``inclusion_probability`` on every row; ``hmceval certify --overall-error`` weighs them)."""
    import numpy as np

    from core.cli.common import print_json
    from core.cli.rounds import round_note
    from core.errors import DataError

    if args.calibration < 1 or args.calibration > design.M:
        raise DataError(f"--calibration must be between 1 and the table's {design.M:,} rows, "
                        f"got {args.calibration}")
    if (design.selection != "").any():
        raise DataError("--calibration --design active draws a new round's calibration "
                        "sample: the table already has a selection (clear the column to "
                        "re-plan)")
    from core.workspace.round_settings import RoundSettings

    settings = RoundSettings(design="active", calibration=int(args.calibration),
                             seed=int(args.seed), lam=float(lam))
    ws = _open_workspace(args, design)
    with one_step(ws):  # the round and its files, together or not at all
        ws, rid = _plan(args, design, "guarantee", settings, ws)
        out, sent, counts, _, rank = write_round_files(args, ws, rid)
    pi = ws.round(rid)["inclusion"]
    if args.json:
        print_json({"design": "active", "kind": "guarantee", "M": design.M, "counts": counts,
                    "rows_to_label": int(np.isfinite(rank).sum()), "seed": int(args.seed),
                    "calibration": {"expected": int(args.calibration),
                                    "drawn": int(counts.get("calibration", 0)),
                                    "inclusion_min": float(np.min(pi)),
                                    "inclusion_max": float(np.max(pi))},
                    "output": str(out), "to_label": None if sent is None else str(sent),
                    "round_id": rid, "workspace": str(ws.root)})
    else:
        print(f"calibration sample drawn with unequal probabilities ({np.min(pi):.3g} to "
              f"{np.max(pi):.3g}): {counts.get('calibration', 0):,} rows of {design.M:,} to "
              f"label (expected {args.calibration:,}); certify with --overall-error EPS (the "
              f"selective guarantee needs a simple random sample); wrote {out}; "
              f"{round_note(ws, rid)}")
    return 0


def _check_double(args: argparse.Namespace) -> None:
    """--double K: an integer >= 0, on a new round written as CSV (checked before the work;
    K larger than the queue is refused when the queue is drawn, before anything is stored)."""
    from core.errors import DataError

    if args.double < 0:
        raise DataError(f"--double K: the number of rows labelled twice must be >= 0, got "
                        f"{args.double}")
    if args.double and args.round_id is not None:
        raise DataError("--double K is drawn when a round is planned; --round ID writes a "
                        "round already planned")
    if args.double and args.format != "csv":
        raise DataError("--double K writes the annotators' CSV file for two annotators; in "
                        "Label Studio set the project's overlap (annotations per task) "
                        "instead: hmceval estimate --annotator-error auto reads every row "
                        "labelled by two annotators")
