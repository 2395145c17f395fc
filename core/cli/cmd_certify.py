"""``hmceval certify``: guarantee mode, a certified error bound on the rows the machine keeps
(``--alpha``), or on the overall error of the final labels (``--overall-error``)."""

from __future__ import annotations

import argparse
import sys

from core.cli.common import check_fraction, load_round, print_json, shown


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "certify", help="certify the machine's error rate on the rows it keeps (guarantee mode)",
        description="Choose the largest share of rows the machine may keep such that, with "
                    "probability at least 1 - delta over the calibration sample, its error rate "
                    "on them is at most alpha (fixed-sequence testing over the distinct "
                    "scores with one-sided Clopper-Pearson bounds); or, with --overall-error "
                    "EPS, such that the final labels (machine on kept rows, humans elsewhere) "
                    "differ from the annotators' labels on at most EPS of all rows (exact "
                    "hypergeometric bound; needs a simple random calibration sample). Both are "
                    "relative to the annotators' labels. Calibration rows: selection == "
                    "calibration with a human label (without a selection column: every row "
                    "with a human label). A round planned by hmceval queue (its table's sidecar "
                    "names it) or given by --round is certified in the workspace, as on the "
                    "Evaluate page: labels written into the table are taken into the round "
                    "first; -o writes the certified round's table. A table of no round is "
                    "recorded as a round of its calibration sample first (--workspace, else "
                    "$HMCEVAL_WORKSPACE, else hmceval-workspace beside the table).")
    p.add_argument("path", nargs="?", help="CSV, TSV, Parquet or JSON table with machine labels, "
                                "confidences and human labels on the calibration rows")
    p.add_argument("--alpha", type=float,
                   help="largest error rate allowed on kept rows, in (0, 1)")
    p.add_argument("--overall-error", type=float, metavar="EPS",
                   help="instead of --alpha: largest overall error of the final labels "
                        "(machine errors on kept rows / all rows), in (0, 1)")
    p.add_argument("--annotator-error", type=float, default=0.0, metavar="ETA",
                   help="a known or measured upper bound on the annotators' error rate (e.g. "
                        "from double-labelled or gold items): the guarantee then holds against "
                        "the truth, certified at alpha - ETA (or EPS - ETA); default 0: the "
                        "guarantee is relative to the annotators' labels")
    p.add_argument("--delta", type=float, required=True,
                   help="allowed probability that the guarantee fails, in (0, 1)")
    p.add_argument("--lam", type=float, default=0.0,
                   help="lambda of the ranking gains (default 0: rank by confidence alone)")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role to a column, e.g. --col human_label=gold or "
                        "--col selection=split (repeatable)")
    p.add_argument("--audit", type=int, default=0, metavar="N_A",
                   help="after certifying, draw an audit of N_A rows from the rows the machine "
                        "keeps (so that hmceval estimate can give intervals); default 0")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the audit draw and, with --overall-error, of the order of "
                        "tied scores (default 0)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("-o", "--output", help="write the whole table with its new selection and "
                   "queue_rank as CSV (calibration rows keep their rank, then the audit, then "
                   "routed rows by descending gain), and beside it OUT_to_label.csv: the rows "
                   "still to label (not the labelled calibration rows) in queue order: the "
                   "sample id, queue_rank, the text and the --show columns)")
    from core.cli.common import add_show_arg
    from core.cli.rounds import add_round_args

    add_show_arg(p)
    add_round_args(p, verb="certify")
    from core.scale.cli import add_local_engine_arg

    add_local_engine_arg(p, "certify")
    p.set_defaults(func=run)


def _check_show(args: argparse.Namespace, design) -> None:
    """A ``--show`` column annotators may not see is refused before anything is stored (on the
    round's dataset when the table names a round, else on the table)."""
    from core.cli.rounds import open_round
    from core.evaluation.sampling import shown_columns

    if not shown(args) or not args.output:
        return
    ref = open_round(args, args.path)
    if ref is not None:
        from core.workspace.rounds import round_design

        design = round_design(*ref)[1]
    shown_columns(design.data, shown(args), selection_column=design.selection_column,
                  hidden=design.hidden)


def run(args: argparse.Namespace) -> int:
    from core.errors import DataError
    from core.evaluation.certify import CERTIFY_KEYS, PAC_KEYS

    overall = args.overall_error is not None
    if overall == (args.alpha is not None):
        raise DataError("give exactly one of --alpha (error on the rows the machine keeps) and "
                        "--overall-error (overall error of the final labels)")
    check_fraction(args.overall_error if overall else args.alpha,
                   "--overall-error" if overall else "--alpha")
    check_fraction(args.delta, "--delta")
    from core.cli.common import check_output

    check_output(args.output, "csv")  # a bad -o fails before the work
    if args.audit < 0 or not 0 <= args.seed < 2**63:
        raise DataError("--audit must be >= 0 and --seed in [0, 2^63)")
    if args.audit and not args.output:
        raise DataError("--audit needs -o: the audit is written into the output table")
    from core.scale.certify import run_certify, wants_scale_certify

    large = wants_scale_certify(args)
    if getattr(args, "engine", None) is not None and not large:
        raise DataError("--engine takes certify's large-table path: a Parquet table of no "
                        "workspace round (no --round, no sidecar)")
    ref = None
    if large:
        res = run_certify(args)
    else:  # the certificate, the new plan and the files: all or nothing
        design = load_round(args.path, args.col) if args.path is not None else None
        _check_show(args, design)  # before the certificate is stored
        res, ref = _certify_round(args, design)
    keys = PAC_KEYS if overall else CERTIFY_KEYS
    out = {k: res[k] for k in keys}
    if not overall:
        out["n_required"] = res["n_required"]
        out["n_start"] = res["n_start"]
    level = "epsilon_annotators" if overall else "alpha_annotators"
    out["annotator_error"] = res["annotator_error"]
    out[level] = res[level]
    out["notes"] = res["notes"]
    if args.json:
        print_json(out)
    else:
        print(out["guarantee"])
        for key in keys[:-1]:
            value = out[key]
            print(f"{key:>24}: {value:.6g}" if isinstance(value, float) else f"{key:>24}: {value}")
        for note in out["notes"]:
            print(f"note: {note}")
    if ref is not None and not args.json:
        from core.cli.rounds import round_note

        print(f"certified: {round_note(*ref)}")
    return 0


def _certify_round(args: argparse.Namespace, design) -> tuple[dict, tuple]:
    """Certify the round of the table ``args.path`` (read as ``design``; None with ``--round
    ID``; a table of no round is taken in first as a guarantee round of its calibration sample:
    :func:`core.cli.table_round.round_step`) with :func:`core.workspace.rounds.certify_round`,
    what the Evaluate page calls, after taking in the labels written into its table; with
    ``-o`` write the certified round's files. The labels taken in, the new plan, the
    certificate and the files commit together or not at all (:func:`core.cli.step.one_step`:
    a kill -9 at any moment leaves the round uncertified and the files as before, or both
    done). Returns ``(certificate, (workspace, round_id))``."""
    from core.cli.rounds import export_round, take_table_labels
    from core.cli.table_round import round_step
    from core.workspace.rounds import certify_round

    with round_step(args, args.path, design, purpose="certify",
                    take_labels=False) as (ws, rid):
        done = _certified_alike(ws, rid, args)
        if done is not None:  # its files lost (or asked again): written again, not certified
            if args.output:
                export_round(ws, rid, args.output, show=shown(args))
            print(f"note: round #{rid} is certified already with these settings; its "
                  "certificate is the stored one" + (" and its files are written again"
                  if args.output else ""), file=sys.stderr)
            return done, (ws, rid)
        if design is not None:
            take_table_labels(ws, rid, design, args.path)
        res = certify_round(ws, rid, alpha=args.alpha, delta=args.delta, lam=args.lam,
                            audit=args.audit, seed=args.seed,
                            overall_error=args.overall_error,
                            annotator_error=args.annotator_error)
        if args.output:
            export_round(ws, rid, args.output, show=shown(args))
    return res, (ws, rid)


def _certified_alike(ws, rid: int, args: argparse.Namespace) -> dict | None:
    """The round's stored certificate when it was certified with the settings asked now (the
    level, delta, lambda, audit, seed and annotator error), else None: a certify whose files
    were lost can be run again and gives the same files; other settings are refused by the
    round (certified once)."""
    done = ws.latest_result(rid, "certify")
    if done is None:
        return None
    s = ws.round(rid)["settings"]
    asked = {"alpha": args.alpha, "overall_error": args.overall_error, "delta": args.delta,
             "lam": args.lam, "audit": args.audit, "seed": args.seed}
    same = all((s.get(k) is None and v is None) or (s.get(k) is not None and v is not None
                                                    and float(s[k]) == float(v))
               for k, v in asked.items())
    return done if same and float(done.get("annotator_error", 0.0)) == float(
        args.annotator_error) else None
