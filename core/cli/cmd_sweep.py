"""``hmceval sweep``: every metric over a grid of lambda x human share."""

from __future__ import annotations

import argparse

from core.cli.bounds import MAX_GRID_POINTS, MAX_SWEEP_POINTS, parse_range

_GRID = (f"START:STOP:STEP (inclusive) or one value; finite, at most {MAX_GRID_POINTS:,} points "
         f"(and at most {MAX_SWEEP_POINTS:,} lambda x share points in all)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="metrics over a grid of lambda and human share",
                       description="One row per grid point: lambda, human_share, N and every "
                       "metric. Written with -o (or printed with --all); without them a short "
                       "summary is printed. lambda's useful range depends on the effort's unit "
                       "(seconds, minutes, a normalised scale): --lam auto spans it.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples")
    p.add_argument("--lam", default="0:45:0.1",
                   help=f"lambda values >= 0: {_GRID}; or 'auto': 0, then 1-1.2-1.5-2-2.5-3-4-5-6-8 "
                        "steps per decade up to the value beyond which nothing changes on this "
                        "table (default 0:45:0.1, the paper's grid on its normalised effort)")
    p.add_argument("--human-share", default="0:1:0.05",
                   help=f"human shares in [0, 1]: {_GRID} (default 0:1:0.05)")
    p.add_argument("--exactly", action="store_true", help="send exactly N samples to humans")
    p.add_argument("--col", action="append", metavar="ROLE=NAME", help="map a role to a column")
    out = p.add_mutually_exclusive_group()
    out.add_argument("-o", "--output", help="CSV file; text cells that a spreadsheet would run "
                     "as formulas get a leading quote; - for standard output")
    out.add_argument("--all", action="store_true",
                     help="print every row as CSV to standard output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from core.cli.common import load_dataset
    from core.errors import DataError
    from core.assignment import SAEInputs, lambda_grid, lambda_range, n_from_share, sweep
    from core.summary import data_effort_unit, per_unit

    from core.cli.common import STDOUT, check_output, write_csv_output

    check_output(args.output, "csv", to_stdout=True)  # a bad -o fails before the work
    auto = args.lam.strip().lower() == "auto"
    lams = None if auto else parse_range(args.lam, "--lam")
    shares = parse_range(args.human_share, "--human-share")
    if lams is not None and (lams < 0).any():
        raise DataError(f"--lam values must be >= 0, got {args.lam}")
    if (shares < 0).any() or (shares > 1).any():
        raise DataError(f"--human-share values must be in [0, 1], got {args.human_share}")
    if lams is not None and len(lams) * len(shares) > MAX_SWEEP_POINTS:
        raise DataError(f"--lam x --human-share is {len(lams):,} x {len(shares):,} = "
                        f"{len(lams) * len(shares):,} grid points; at most {MAX_SWEEP_POINTS:,} "
                        "are allowed (use larger steps)")
    data = load_dataset(args.path, args.col)
    inp = SAEInputs.from_data(data)
    mode = "exactly" if args.exactly else "at_most"
    ranges = [lambda_range(inp, n_human=n_from_share(float(s), data.M), mode=mode) for s in shares]
    upper = max(r.upper for r in ranges)
    firsts = [r.first for r in ranges if r.first is not None]
    if auto:
        lams = lambda_grid(upper, lower=min(firsts) if firsts else None)
    table = sweep(inp, lams=lams, shares=shares, mode=mode)
    if args.output or args.all:
        # a closed pipe (`--all | head`) is handled once for every command, in core.cli.main
        write_csv_output(table, args.output or STDOUT)
        if args.output and args.output != STDOUT:
            print(f"wrote {len(table):,} rows to {args.output}")
        return 0
    unit = data_effort_unit(data)
    end = ("no sample goes to humans" if mode == "at_most"
           else "the N samples of least effort go to humans")
    print(f"{len(table):,} rows: {len(lams):,} lambda values ({lams.min():g} to {lams.max():g}) x "
          f"{len(shares):,} human shares ({shares.min():g} to {shares.max():g}); not printed.")
    print(f"lambda ({per_unit(unit)}) changes the assignment of this table between 0 and "
          f"{upper:.6g}; from there on {end}.")
    beyond = int((lams > upper).sum())
    if lams.max() < upper / 10:
        print(f"note: the grid stops at {lams.max():g}, far below {upper:.6g}: try --lam auto.")
    elif beyond > len(lams) / 2:
        print(f"note: {beyond:,} of the {len(lams):,} lambda values are beyond {upper:.6g}, where "
              "nothing changes: try --lam auto.")
    # a glimpse: five lambdas of the grid at the middle human share
    mid = shares[len(shares) // 2]
    part = table[table["human_share"] == mid]
    pick = part.iloc[sorted({round(i) for i in np.linspace(0, len(part) - 1, 5)})]
    cols = ["lambda", "human_share", "n_human", "accuracy", "time_cost"]
    print(pick[cols].to_string(index=False, float_format=lambda v: f"{v:.5g}"))
    print("Write every row with -o FILE.csv, or print them with --all.")
    return 0
