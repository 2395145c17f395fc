"""``hmceval assign``: solve the SAE problem once and print or save the result."""

from __future__ import annotations

import argparse

from core.cli.common import load_dataset, print_json
from core.errors import DataError
from core.report import assignment_json, assignment_table, run_assignment


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("assign", help="assign samples to humans or the machine (one N, one lambda)",
                       description="Solve the HMCEval sample assignment (Eq. 3-4) on a scored table.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples")
    p.add_argument("--lam", type=float, default=4.6, help="lambda, the effort weight (default 4.6)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--human-share", type=float, help="N = int(Q * M) (default 0.5)")
    g.add_argument("--human-count", type=int, help="N in samples")
    p.add_argument("--exactly", action="store_true", help="send exactly N samples to humans")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role to a column, e.g. --col human_label=gold (repeatable)")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    p.add_argument("-o", "--output", help="write the per-sample assignment as CSV")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = load_dataset(args.path, args.col)
    if args.human_count is not None and not 0 <= args.human_count <= data.M:
        raise DataError(f"--human-count must be between 0 and M = {data.M}, got {args.human_count}")
    share = args.human_share if args.human_share is not None else (
        None if args.human_count is not None else 0.5)
    inp, assignment = run_assignment(data, lam=args.lam, share=share, n_human=args.human_count,
                                     mode="exactly" if args.exactly else "at_most")
    result = assignment_json(data, inp, assignment)
    if args.output:
        assignment_table(data, assignment).to_csv(args.output, index=False)
    if args.json:
        print_json(result)
    else:
        for key, value in result.items():
            if key == "machine_only" and value:
                value = ", ".join(f"{k} {v:.5f}" for k, v in value.items())
            elif isinstance(value, float):
                value = f"{value:.5f}"
            print(f"{key:>22}: {value}")
    return 0
