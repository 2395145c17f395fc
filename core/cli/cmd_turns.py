"""``hmceval turns``: per-turn reliability and effort of the collaborative evaluation."""

from __future__ import annotations

import argparse

from core.cli.common import load_dataset, print_json
from core.report import run_assignment
from core.turns import TURN_KEYS, per_turn_for


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("turns", help="per-turn accuracy, human ratio and time cost (Figure 6)",
                       description="Per-turn analysis of the assignment at one lambda and N.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples with a turn column")
    p.add_argument("--lam", type=float, default=4.6, help="lambda (default 4.6)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--human-share", type=float, help="N = int(Q * M) (default 0.5)")
    g.add_argument("--human-count", type=int, help="N in samples")
    p.add_argument("--exactly", action="store_true", help="send exactly N samples to humans")
    p.add_argument("--col", action="append", metavar="ROLE=NAME", help="map a role to a column")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print a JSON list of per-turn objects")
    p.add_argument("-o", "--output", help="write the per-turn table as CSV")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = load_dataset(args.path, args.col)
    share = args.human_share if args.human_share is not None else (
        None if args.human_count is not None else 0.5)
    _, assignment = run_assignment(data, lam=args.lam, share=share, n_human=args.human_count,
                                   mode="exactly" if args.exactly else "at_most")
    table = per_turn_for(data, assignment.human, n_boot=args.bootstrap, seed=args.seed)
    if args.output:
        table.to_csv(args.output, index=False)
    if args.json:
        print_json(table.to_dict(orient="records"))
    elif not args.output:
        print(table[list(TURN_KEYS) + ["small"]].to_string(index=False))
    return 0
