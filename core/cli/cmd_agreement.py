"""``hmceval agreement``: RSMTool-style agreement and fairness statistics of one evaluator."""

from __future__ import annotations

import argparse
from pathlib import Path

from core.defaults import MAX_SCORE
from core.defaults import MAX_MIN_ITEMS_PER_CANDIDATE, TRIM_TOLERANCE

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``agreement`` subcommand."""
    p = subparsers.add_parser(
        "agreement",
        help="agreement (kappa, QWK, r, SMD, R2, RMSE, PRMSE) and fairness (DSM, OLS) statistics",
        description=(
            "Compare an evaluator's scores with the human (gold) scores in RSMTool's conventions: "
            "prints one JSON object with 'eval', 'consistency', 'degradation' and "
            "'disattenuated_correlations' (with --human2), 'true_score', and for every --group "
            "column 'eval_by_<group>', 'fairness_by_<group>' (and, with --human2, "
            "'consistency_by_<group>' and 'disattenuated_correlations_by_<group>', its first row "
            "'All data'), as RSMTool's rsmeval names them, after 'responses': how many rows were read, "
            "used, and excluded and why. Responses are selected as RSMTool's rsmeval selects "
            "them: a missing or non-numeric human or system score excludes the response (it is "
            "not an error), so do zero human scores unless --no-exclude-zero-scores, and the "
            "--flag and --candidate/--min-items-per-candidate options. With --raters the system "
            "column is a second human rater: 'consistency' compares it with --human and there "
            "is no 'true_score'. .jsonlines/.jsonl files are read as RSMTool reads them: nested "
            "objects become columns named by their keys (metadata.h1 is also accepted). "
            "The Fairness page prints the same report. NaN is printed as NaN, a missing "
            f"(undefined) value as null. Scores must be finite numbers of magnitude at most "
            f"{MAX_SCORE:g}."
        ),
    )
    p.add_argument("path", nargs="?",
                   help="the data table (CSV, TSV, JSON, JSON lines, Parquet or xlsx); not with --rsmeval-config")
    p.add_argument("--human", metavar="COL", help="column of the (first) human / gold scores (required "
                   "unless --rsmeval-config)")
    p.add_argument("--system", metavar="COL", help="column of the evaluator's scores (required unless "
                   "--rsmeval-config)")
    p.add_argument("--human2", metavar="COL", help="column of a second human rating (empty where absent)")
    p.add_argument(
        "--group", action="append", default=[], metavar="COL",
        help="subgroup column (repeatable)",
    )
    p.add_argument(
        "--rounded", action="store_true",
        help="round the system scores half to even to integers first (RSMTool's *_round scores)",
    )
    p.add_argument(
        "--raters", action="store_true",
        help="--system is a second human rater: human-human consistency tables, no true score",
    )
    p.add_argument(
        "--exclude-zero-scores", action=argparse.BooleanOptionalAction, default=None,
        help="exclude responses whose human score is 0 and treat a second human score of 0 as "
             "absent (RSMTool's exclude_zero_scores; default: on, as in RSMTool). Use "
             "--no-exclude-zero-scores for 0/1 labels",
    )
    p.add_argument("--trim-min", type=float, metavar="X",
                   help="lowest score point; with --trim-max the system scores are trimmed to "
                        "[trim_min - tolerance, trim_max + tolerance] (RSMTool's *_trim scores; "
                        f"with --rounded its *_trim_round scores). Finite, magnitude at most {MAX_SCORE:g}")
    p.add_argument("--trim-max", type=float, metavar="X", help="highest score point (with --trim-min)")
    p.add_argument("--trim-tolerance", type=float, metavar="X",
                   help=f"RSMTool's trim_tolerance (default {TRIM_TOLERANCE:g}; between 0 and {MAX_SCORE:g})")
    p.add_argument(
        "--flag", action="append", default=[], metavar="COL=V1,V2",
        help="keep only responses whose COL is one of the values (RSMTool's flag_column; numbers "
             "match as numbers: 1, 1.0 and \"1\" are equal); repeatable, all must hold",
    )
    p.add_argument("--candidate", metavar="COL", help="column of candidate ids (RSMTool's candidate_column)")
    p.add_argument(
        "--min-items-per-candidate", type=int, metavar="N",
        help="with --candidate: exclude candidates with fewer than N responses left "
             f"(RSMTool's option; 1 to {MAX_MIN_ITEMS_PER_CANDIDATE:,})",
    )
    t = p.add_argument_group(
        "rsmeval's tables",
        "With --tables DIR every table an rsmeval experiment writes is also written to DIR as "
        "<ID>_<table>.<FORMAT> (eval, eval_short, eval_by_<group> and consistency_by_<group> with "
        "their 'All data' row, consistency, degradation, disattenuated_correlations[_by_<group>], "
        "true_score_eval, confMatrix[_h1h2], score_dist, data_composition[_by_<group>], "
        "test_excluded_composition, estimates_<osa|osd|csd>_by_<group>, "
        "fairness_metrics_by_<group>, pred_processed), for every score type rsmeval reports "
        "(raw/scale x as given/trimmed/trimmed and rounded); needs --trim-min and --trim-max. "
        "The JSON report on stdout is unchanged.")
    t.add_argument("--tables", metavar="DIR", help="an existing folder to write rsmeval's tables into")
    t.add_argument("--file-format", choices=("csv", "tsv", "xlsx"),
                   help="rsmeval's file_format of the tables (default csv; xlsx: one workbook per table)")
    t.add_argument("--experiment-id", metavar="ID",
                   help="the tables' file-name prefix (rsmeval's experiment_id; letters, digits, - and _; "
                        "default 'agreement')")
    t.add_argument("--scale-with", metavar="asis|raw|PATH",
                   help="rsmeval's scale_with: 'asis' (the system scores are already scaled: the "
                        "'scale' score types), 'raw' (rsmeval's keyword: the 'raw' and 'scale' "
                        "types, the scale ones unscaled), or a table with columns 'prediction' "
                        "and 'sc1' whose means and sds scale them (the 'raw' and 'scale' types); "
                        "without it, 'raw' types only")
    t.add_argument("--id-column", metavar="COL", help="response ids: the index of pred_processed")
    t.add_argument("--rsmeval-config", metavar="FILE",
                   help="run an rsmeval configuration file (JSON) as it is, as RSMTool's rsmeval reads "
                        "it: its predictions_file and scale_with paths relative to the file, every "
                        "option from it (rsmeval's fields: experiment_id, predictions_file, "
                        "system_score_column, human_score_column, second_human_score_column, "
                        "id_column, trim_min, trim_max, trim_tolerance, scale_with, subgroups, "
                        "flag_column, exclude_zero_scores, candidate_column, "
                        "min_items_per_candidate, file_format; its report's fields are checked and "
                        "unused). Its tables go to --tables DIR, else to ./output (created), as "
                        "rsmeval writes them; the JSON report to stdout. An unknown field or a "
                        "value of the wrong kind exits 2 naming the field. Give no data option "
                        "with it")
    p.add_argument("--json", action="store_true", help="print JSON (the only output format)")
    p.set_defaults(func=run)


def _flags(specs: list[str]) -> dict[str, list[str]] | None:
    from core.errors import DataError

    out: dict[str, list[str]] = {}
    for spec in specs:
        col, sep, values = spec.partition("=")
        col = col.strip()
        if not sep or not col or not values.strip():
            raise DataError(f"--flag: expected COL=VALUE[,VALUE...], got {spec!r}")
        out.setdefault(col, []).extend(v.strip() for v in values.split(","))
    return out or None


def _check_magnitude(s, col: str, flag: str) -> None:
    """Refuse scores so large that their squares overflow, naming the option (the core check
    names the column and row too; this one runs first so the message names the option)."""
    import numpy as np
    import pandas as pd

    from core.errors import DataError, describe_rows

    vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(np.isfinite(vals) & (np.abs(vals) > MAX_SCORE))
    if len(bad):
        raise DataError(f"column '{col}' ({flag}) has scores beyond {MAX_SCORE:g} in magnitude in "
                        f"{describe_rows(bad)} (first value {vals[bad[0]]:g}); the agreement "
                        "statistics cannot square them")


def _check_score_points(s, col: str, flag: str) -> None:
    """Refuse a score column with more than ``core.data.contract.MAX_CLASSES`` distinct score
    points (its finite numbers rounded half to even, as kappa counts them): kappa's confusion
    table grows as K^2 (20,000 distinct scores asked for 3 GB at once)."""
    import numpy as np
    import pandas as pd

    from core.data.contract import MAX_CLASSES
    from core.errors import DataError

    vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    k = len(np.unique(np.rint(vals[np.isfinite(vals)])))
    if k > MAX_CLASSES:
        raise DataError(f"score column '{col}' ({flag}) holds {k:,} distinct score points "
                        f"(rounded to integers, as kappa counts them); at most {MAX_CLASSES:,} "
                        "are analysed (is an id or a free-number column given as a score?)")


def run(args: argparse.Namespace) -> int:
    """Compute the report and print it as JSON."""
    from core.cli.bounds import check_float, check_int
    from core.cli.common import print_json
    from core.rsm import agreement_report
    from core.rsm.io import resolve_column
    from core.errors import DataError
    from core.rsm.rsmeval import check_output, read_table

    cfg = None
    if args.rsmeval_config is not None:
        cfg = _from_config(args)
        flags, label = cfg.flag_column, _CONFIG_FIELDS
    else:
        missing = [n for n, v in (("path", args.path), ("--human", args.human), ("--system", args.system))
                   if v is None]
        if missing:
            raise DataError(f"the following arguments are required: {', '.join(missing)} (or give "
                            "--rsmeval-config FILE)")
        flags, label = _flags(args.flag), {k: k for k in _CONFIG_FIELDS}
    for key, value in (("exclude_zero_scores", True), ("trim_tolerance", TRIM_TOLERANCE),
                       ("file_format", "csv"), ("experiment_id", "agreement")):
        if getattr(args, key) is None:
            setattr(args, key, value)
    for name, value in (("--trim-min", args.trim_min), ("--trim-max", args.trim_max)):
        check_float(value, name, -MAX_SCORE, MAX_SCORE)
    check_float(args.trim_tolerance, "--trim-tolerance", 0.0, MAX_SCORE)
    check_int(args.min_items_per_candidate, "--min-items-per-candidate", 1, MAX_MIN_ITEMS_PER_CANDIDATE)
    scale_frame = None
    if args.tables is not None:  # every option checked before any work
        if args.trim_min is None or args.trim_max is None:
            raise DataError("--tables needs --trim-min and --trim-max (rsmeval's trim_min and trim_max)")
        if args.raters:
            raise DataError("--tables compares a system with human scores; it does not go with --raters")
        check_output(args.tables, experiment_id=args.experiment_id, file_format=args.file_format)
        if args.scale_with not in (None, "asis", "raw"):  # keywords, as rsmeval reads them
            scale_frame = read_table(args.scale_with)
    elif args.scale_with is not None or args.id_column is not None:
        raise DataError("--scale-with and --id-column apply to rsmeval's tables: give --tables DIR")
    table = read_table(args.path)  # rsmeval's formats: CSV, TSV, JSON lines, xlsx, ...
    col = lambda name: resolve_column(table, name)  # noqa: E731 - a JSON lines path such as metadata.h1
    if cfg is not None:
        _check_config_columns(cfg, table, col)
    for flag, name in (("--human", args.human), ("--system", args.system), ("--human2", args.human2)):
        if name is not None and col(name) in table.columns:
            _check_magnitude(table[col(name)], col(name), label[flag])
            _check_score_points(table[col(name)], col(name), label[flag])
    if args.id_column is not None and col(args.id_column) not in table.columns:
        raise DataError(f"id column {args.id_column!r} ({label['--id-column']}) not found in "
                        f"{Path(args.path).name} (columns: {', '.join(map(str, table.columns))})")
    report = agreement_report(
        table,
        human=col(args.human),
        system=col(args.system),
        human2=col(args.human2),
        groups=tuple(col(g) for g in args.group),
        rounded=args.rounded,
        raters=args.raters,
        exclude_zero_scores=args.exclude_zero_scores,
        trim_min=args.trim_min,
        trim_max=args.trim_max,
        trim_tolerance=args.trim_tolerance,
        flag_column=None if flags is None else {col(k): v for k, v in flags.items()},
        candidate_column=col(args.candidate),
        min_items_per_candidate=args.min_items_per_candidate,
    )
    if args.tables is not None:
        _write_tables(args, table, col, flags, scale_frame)
    print_json(report)
    return 0


#: The rsmeval configuration field behind each option (named in the messages of --rsmeval-config).
_CONFIG_FIELDS = {"--human": "human_score_column", "--system": "system_score_column",
                  "--human2": "second_human_score_column", "--id-column": "id_column"}


def _from_config(args: argparse.Namespace):
    """Fill ``args`` from an rsmeval configuration file (after refusing any data option given
    beside it); returns the configuration (core.rsm.rsmeval_config.RsmevalConfig)."""
    from core.errors import DataError
    from core.rsm.rsmeval_config import read_rsmeval_config

    given = [opt for opt, value in (
        ("path", args.path), ("--human", args.human), ("--system", args.system), ("--human2", args.human2),
        ("--group", args.group), ("--rounded", args.rounded), ("--raters", args.raters),
        ("--[no-]exclude-zero-scores", args.exclude_zero_scores is not None), ("--trim-min", args.trim_min),
        ("--trim-max", args.trim_max), ("--trim-tolerance", args.trim_tolerance), ("--flag", args.flag),
        ("--candidate", args.candidate), ("--min-items-per-candidate", args.min_items_per_candidate),
        ("--file-format", args.file_format), ("--experiment-id", args.experiment_id),
        ("--scale-with", args.scale_with), ("--id-column", args.id_column))
        if value is not None and value is not False and value != []]
    if given:
        raise DataError(f"--rsmeval-config takes every option from the configuration file; do not "
                        f"also give {', '.join(given)}")
    cfg = read_rsmeval_config(args.rsmeval_config)
    args.path, args.human, args.system, args.human2 = str(cfg.predictions_file), cfg.human, cfg.system, cfg.human2
    args.group, args.exclude_zero_scores = list(cfg.subgroups), cfg.exclude_zero_scores
    args.trim_min, args.trim_max, args.trim_tolerance = cfg.trim_min, cfg.trim_max, cfg.trim_tolerance
    args.candidate, args.min_items_per_candidate = cfg.candidate_column, cfg.min_items_per_candidate
    args.file_format, args.experiment_id = cfg.file_format, cfg.experiment_id
    args.scale_with, args.id_column = cfg.scale_with, cfg.id_column
    if args.tables is None:  # rsmeval's output folder: output/ under the current folder
        out = Path("output")
        if out.exists() and not out.is_dir():
            raise DataError(f"{out.resolve()} exists and is not a folder (rsmeval's output folder)")
        out.mkdir(exist_ok=True)
        args.tables = str(out)
    return cfg


def _check_config_columns(cfg, table, col) -> None:
    """Every column an rsmeval configuration names is in its predictions file, and in one role
    only (core.rsm.rsmeval.distinct_roles; a flag column may be any): else a DataError naming
    the field (before the report, whose messages name the columns only)."""
    from core.errors import DataError
    from core.rsm.rsmeval import distinct_roles

    for field, names in (("human_score_column", [cfg.human]), ("system_score_column", [cfg.system]),
                         ("second_human_score_column", [cfg.human2]), ("id_column", [cfg.id_column]),
                         ("subgroups", cfg.subgroups), ("candidate_column", [cfg.candidate_column]),
                         ("flag_column", list(cfg.flag_column or {}))):
        for name in names:
            if name is not None and col(name) not in table.columns:
                shown = ", ".join(map(str, table.columns[:50])) + (", ..." if len(table.columns) > 50 else "")
                raise DataError(f"rsmeval configuration {cfg.path.name}: field '{field}': column {name!r} not "
                                f"found in {cfg.predictions_file.name} (columns: {shown})")
    distinct_roles(human=col(cfg.human), system=col(cfg.system), human2=col(cfg.human2),
                   groups=[col(g) for g in cfg.subgroups], id_column=col(cfg.id_column),
                   candidate_column=col(cfg.candidate_column))


def _write_tables(args: argparse.Namespace, table, col, flags, scale_frame) -> None:
    """rsmeval's tables of the same responses and options, written to ``--tables``."""
    import sys

    from core.rsm.rsmeval import rsmeval_tables, write_tables

    tables = rsmeval_tables(
        table, human=col(args.human), system=col(args.system), human2=col(args.human2),
        groups=tuple(col(g) for g in args.group), scale_with=args.scale_with, scale_frame=scale_frame,
        trim_min=args.trim_min, trim_max=args.trim_max, trim_tolerance=args.trim_tolerance,
        exclude_zero_scores=args.exclude_zero_scores,
        flag_column=None if flags is None else {col(k): v for k, v in flags.items()},
        candidate_column=col(args.candidate), min_items_per_candidate=args.min_items_per_candidate,
        id_column=col(args.id_column),
    )
    written = write_tables(tables, args.tables, experiment_id=args.experiment_id, file_format=args.file_format)
    print(f"wrote {len(written)} tables to {args.tables}", file=sys.stderr)
