"""``hmceval agreement``: RSMTool-style agreement and fairness statistics of one evaluator."""

from __future__ import annotations

import argparse

from core.agreement import evaluation_report
from core.cli.common import print_json

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``agreement`` subcommand."""
    p = subparsers.add_parser(
        "agreement",
        help="agreement (kappa, QWK, r, SMD, R2, RMSE, PRMSE) and fairness (DSM, OLS) statistics",
        description=(
            "Compare an evaluator's scores with the human (gold) scores in RSMTool's conventions: "
            "prints one JSON object with 'eval', 'consistency' (with --human2), 'true_score', and "
            "for every --group column 'eval_by_<group>' and 'fairness_by_<group>'. NaN is printed "
            "as NaN, a missing (undefined) value as null."
        ),
    )
    p.add_argument("path", help="the data table (CSV, TSV, JSON, JSONL, Parquet, Excel)")
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
    p.add_argument("--json", action="store_true", help="print JSON (the only output format)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Compute the report and print it as JSON."""
    table = _read_table(args.path)
    report = evaluation_report(
        table,
        human=args.human,
        system=args.system,
        human2=args.human2,
        groups=tuple(args.group),
        rounded=args.rounded,
    )
    print_json(report)
    return 0


def _read_table(path: str):
    """Read the table (temporary pandas reader until ``core.data.load_table`` lands)."""
    from pathlib import Path

    import pandas as pd

    from core.errors import DataError

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(2, "No such file", path)
    suffix = p.suffix.lower()
    try:
        if suffix in {".tsv", ".tab"}:
            return pd.read_csv(p, sep="\t")
        if suffix == ".json":
            return pd.read_json(p)
        if suffix == ".jsonl":
            return pd.read_json(p, lines=True)
        if suffix == ".parquet":
            return pd.read_parquet(p)
        return pd.read_csv(p)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read the table ({exc})") from None
