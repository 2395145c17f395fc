"""``hmceval sweep``: every metric over a grid of lambda x human share."""

from __future__ import annotations

import argparse
import sys

from core.cli.common import load_dataset, parse_range
from core.sae import SAEInputs, sweep


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="metrics over a grid of lambda and human share",
                       description="One row per grid point: lambda, human_share, N and every metric.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples")
    p.add_argument("--lam", default="0:45:0.1", help="START:STOP:STEP (inclusive) or one value")
    p.add_argument("--human-share", default="0:1:0.05", help="START:STOP:STEP or one value")
    p.add_argument("--exactly", action="store_true", help="send exactly N samples to humans")
    p.add_argument("--col", action="append", metavar="ROLE=NAME", help="map a role to a column")
    p.add_argument("-o", "--output", help="CSV file (default: standard output)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = load_dataset(args.path, args.col)
    lams = parse_range(args.lam, "--lam")
    shares = parse_range(args.human_share, "--human-share")
    if (shares < 0).any() or (shares > 1).any():
        from core.errors import DataError
        raise DataError(f"--human-share values must be in [0, 1], got {args.human_share}")
    table = sweep(SAEInputs.from_data(data), lams=lams, shares=shares,
                  mode="exactly" if args.exactly else "at_most")
    if args.output:
        table.to_csv(args.output, index=False)
    else:
        table.to_csv(sys.stdout, index=False)
    return 0
