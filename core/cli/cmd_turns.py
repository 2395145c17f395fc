"""``hmceval turns``: per-turn reliability and effort of the collaborative evaluation."""

from __future__ import annotations

import argparse

from core.cli.common import add_assignment_args, assignment_from_args, print_json
from core.turns import TURN_KEYS, per_turn_for


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("turns", help="per-turn accuracy, human ratio and time cost (Figure 6)",
                       description="Per-turn analysis of the assignment at one lambda and N.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples with a turn column")
    add_assignment_args(p)
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print a JSON list of per-turn objects")
    p.add_argument("-o", "--output", help="write the per-turn table as CSV")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data, _, assignment = assignment_from_args(args)
    table = per_turn_for(data, assignment.human, n_boot=args.bootstrap, seed=args.seed)
    if args.output:
        table.to_csv(args.output, index=False)
    if args.json:
        print_json(table.to_dict(orient="records"))
    elif not args.output:
        print(table[list(TURN_KEYS) + ["small"]].to_string(index=False))
    return 0
