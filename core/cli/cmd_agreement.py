"""``hmceval agreement``: RSMTool-style agreement and fairness statistics of one evaluator."""

from __future__ import annotations

import argparse

from core.cli.bounds import MAX_SCORE

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``agreement`` subcommand."""
    p = subparsers.add_parser(
        "agreement",
        help="agreement (kappa, QWK, r, SMD, R2, RMSE, PRMSE) and fairness (DSM, OLS) statistics",
        description=(
            "Compare an evaluator's scores with the human (gold) scores in RSMTool's conventions: "
            "prints one JSON object with 'eval', 'consistency' (with --human2), 'true_score', and "
            "for every --group column 'eval_by_<group>', 'fairness_by_<group>' (and, with "
            "--human2, 'consistency_by_<group>'). With --raters the system column is a second "
            "human rater: 'consistency' compares it with --human and there is no 'true_score'. "
            "The Fairness page prints the same report. NaN is printed as NaN, a missing "
            f"(undefined) value as null. Scores must be finite numbers of magnitude at most "
            f"{MAX_SCORE:g}."
        ),
    )
    p.add_argument("path", help="the data table (CSV, TSV, JSON, JSON lines or Parquet)")
    p.add_argument("--human", required=True, metavar="COL", help="column of the (first) human / gold scores")
    p.add_argument("--system", required=True, metavar="COL", help="column of the evaluator's scores")
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
    p.add_argument("--json", action="store_true", help="print JSON (the only output format)")
    p.set_defaults(func=run)


def _check_magnitude(s, col: str, flag: str) -> None:
    """Refuse scores so large that their squares overflow (the statistics square them)."""
    import numpy as np
    import pandas as pd

    from core.errors import DataError, describe_rows

    vals = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(np.isfinite(vals) & (np.abs(vals) > MAX_SCORE))
    if len(bad):
        raise DataError(f"column '{col}' ({flag}) has scores beyond {MAX_SCORE:g} in magnitude in "
                        f"{describe_rows(bad)} (first value {vals[bad[0]]:g}); the agreement "
                        "statistics cannot square them")


def run(args: argparse.Namespace) -> int:
    """Compute the report and print it as JSON."""
    from core.cli.common import print_json
    from core.data import load_table
    from core.rsm import agreement_report

    table = load_table(args.path)
    for flag, col in (("--human", args.human), ("--system", args.system), ("--human2", args.human2)):
        if col is not None and col in table.columns:
            _check_magnitude(table[col], col, flag)
    report = agreement_report(
        table,
        human=args.human,
        system=args.system,
        human2=args.human2,
        groups=tuple(args.group),
        rounded=args.rounded,
        raters=args.raters,
    )
    print_json(report)
    return 0

