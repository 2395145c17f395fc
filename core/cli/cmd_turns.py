"""``hmceval turns``: per-turn reliability and effort of the collaborative evaluation."""

from __future__ import annotations

import argparse

from core.cli.bounds import MAX_BOOTSTRAP, check_int
from core.defaults import SEED_MAX
from core.cli.common import add_assignment_args

#: Per-turn metrics that need gold labels (null without them, as in ``hmceval assign``).
GOLD_METRICS = ("accuracy", "precision", "recall", "f1", "machine_accuracy")
#: Per-turn metrics that need the ground-truth human effort.
EFFORT_METRICS = ("time_cost",)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("turns", help="per-turn accuracy, human ratio and time cost (Figure 6)",
                       description="Per-turn analysis of the assignment at one lambda and N.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples with a turn column")
    add_assignment_args(p)
    p.add_argument("--bootstrap", type=int, default=1000,
                   help=f"bootstrap resamples, 0 to {MAX_BOOTSTRAP:,} (0: no intervals; default 1000)")
    p.add_argument("--seed", type=int, default=0,
                   help=f"seed of the bootstrap, 0 to {SEED_MAX:,} (default 0)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON list of per-turn objects (null where a metric needs gold "
                        "labels or ground-truth effort the table lacks)")
    p.add_argument("-o", "--output", help="write the per-turn table as CSV (- for standard output)")
    p.set_defaults(func=run)


def _unavailable(data) -> list[str]:
    """Columns of the per-turn table that are undefined for this dataset (missing inputs)."""
    keys = []
    if not data.has_gold:
        keys += GOLD_METRICS
    if not data.has_effort:
        keys += EFFORT_METRICS
    return [k + s for k in keys for s in ("", "_lo", "_hi")]


def run(args: argparse.Namespace) -> int:
    from core.cli.common import assignment_from_args, print_json
    from core.assignment import TURN_KEYS, per_turn_for

    from core.cli.common import check_output, refuse_json_on_stdout, write_csv_output

    check_output(args.output, "csv", to_stdout=True)
    refuse_json_on_stdout(args.output, args.json)  # a bad -o fails before the work
    check_int(args.bootstrap, "--bootstrap", 0, MAX_BOOTSTRAP)
    check_int(args.seed, "--seed", 0, SEED_MAX)
    data, _, assignment = assignment_from_args(args)
    table = per_turn_for(data, assignment.human, n_boot=args.bootstrap, seed=args.seed)
    if args.output:
        write_csv_output(table, args.output)
    if args.json:
        missing = [k for k in _unavailable(data) if k in table.columns]
        records = table.to_dict(orient="records")
        for rec in records:
            rec.update({k: None for k in missing})
        print_json(records)
    elif not args.output:
        print(table[list(TURN_KEYS) + ["small"]].to_string(index=False))
    return 0
