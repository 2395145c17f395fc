"""``hmceval assign``: solve the SAE problem once and print or save the result."""

from __future__ import annotations

import argparse

from core.cli.common import add_assignment_args, add_constraint_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("assign", help="assign samples to humans or the machine (one N, one lambda)",
                       description="Solve the HMCEval sample assignment (Eq. 3-4) on a scored table.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples")
    add_assignment_args(p)
    add_constraint_args(p)
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object")
    p.add_argument("-o", "--output", help="write the per-sample assignment as CSV")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from core.cli.common import assignment_from_args, print_json
    from core.report import assignment_json, assignment_table

    data, inp, assignment = assignment_from_args(args)
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
