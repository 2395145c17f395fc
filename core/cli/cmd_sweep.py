"""``hmceval sweep``: every metric over a grid of lambda x human share."""

from __future__ import annotations

import argparse
import sys

from core.cli.bounds import MAX_GRID_POINTS, MAX_SWEEP_POINTS, parse_range

_GRID = (f"START:STOP:STEP (inclusive) or one value; finite, at most {MAX_GRID_POINTS:,} points "
         f"(and at most {MAX_SWEEP_POINTS:,} lambda x share points in all)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="metrics over a grid of lambda and human share",
                       description="One row per grid point: lambda, human_share, N and every metric.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples")
    p.add_argument("--lam", default="0:45:0.1", help=f"lambda values >= 0: {_GRID} (default 0:45:0.1)")
    p.add_argument("--human-share", default="0:1:0.05",
                   help=f"human shares in [0, 1]: {_GRID} (default 0:1:0.05)")
    p.add_argument("--exactly", action="store_true", help="send exactly N samples to humans")
    p.add_argument("--col", action="append", metavar="ROLE=NAME", help="map a role to a column")
    p.add_argument("-o", "--output", help="CSV file (default: standard output); text cells that "
                   "a spreadsheet would run as formulas get a leading quote")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from core.cli.common import load_dataset
    from core.csv_safe import to_csv_safe
    from core.errors import DataError
    from core.sae import SAEInputs, sweep

    lams = parse_range(args.lam, "--lam")
    shares = parse_range(args.human_share, "--human-share")
    if (lams < 0).any():
        raise DataError(f"--lam values must be >= 0, got {args.lam}")
    if (shares < 0).any() or (shares > 1).any():
        raise DataError(f"--human-share values must be in [0, 1], got {args.human_share}")
    if len(lams) * len(shares) > MAX_SWEEP_POINTS:
        raise DataError(f"--lam x --human-share is {len(lams):,} x {len(shares):,} = "
                        f"{len(lams) * len(shares):,} grid points; at most {MAX_SWEEP_POINTS:,} "
                        "are allowed (use larger steps)")
    data = load_dataset(args.path, args.col)
    table = sweep(SAEInputs.from_data(data), lams=lams, shares=shares,
                  mode="exactly" if args.exactly else "at_most")
    to_csv_safe(table, args.output or sys.stdout)
    return 0
