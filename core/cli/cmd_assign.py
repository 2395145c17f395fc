"""``hmceval assign``: solve the SAE problem once and print or save the result."""

from __future__ import annotations

import argparse

from core.cli.bounds import check_float
from core.defaults import MAX_ILP_SAMPLES
from core.cli.common import add_assignment_args, add_constraint_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("assign", help="assign samples to humans or the machine (one N, one lambda)",
                       description="Solve the HMCEval sample assignment (Eq. 3-4) on a scored table. "
                       "Bounds: --lam a finite number >= 0, --human-share in [0, 1], --human-count "
                       "0 to M, --effort-budget a finite number >= 0, --effort-budget-share in "
                       f"[0, 1]; extra constraints (the general ILP) take at most "
                       f"{MAX_ILP_SAMPLES:,} samples.")
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table of scored samples")
    add_assignment_args(p)
    add_constraint_args(p)
    g = p.add_argument_group("a goal instead of N and lambda (the cheapest setting that meets it)")
    goal = g.add_mutually_exclusive_group()
    goal.add_argument("--target-accuracy", type=float, metavar="A",
                      help="the cheapest setting whose final accuracy is at least A (a share: "
                           "0.95 for 95%%), against the gold labels when the table has them, else "
                           "the accuracy the confidences promise (see --goal-basis); replaces "
                           "--lam and --human-share/--human-count")
    goal.add_argument("--effort-budget-hours", type=float, metavar="H",
                      help="the most accurate setting whose human effort is at most H hours "
                           "(needs an effort column named in a unit of time, e.g. *_seconds)")
    g.add_argument("--goal-basis", choices=("auto", "gold", "confidence"), default="auto",
                   help="accuracy measured against gold labels or expected from the confidences "
                        "(default auto: gold when present)")
    p.add_argument("--json", action="store_true", help="print the metrics as one JSON object "
                   "(with a goal: its answer under the key \"goal\")")
    p.add_argument("-o", "--output", help="write the per-sample assignment as CSV (text cells "
                   "that a spreadsheet would run as formulas get a leading quote; - for standard output, "
                   "the metrics then on standard error)")
    from core.scale.cli import add_local_engine_arg

    add_local_engine_arg(p, "assign")
    p.set_defaults(func=run)


def _has_constraints(args: argparse.Namespace) -> bool:
    return any(getattr(args, k, None) is not None
               for k in ("effort_budget", "effort_budget_share", "group_share"))


def _goal(args: argparse.Namespace):
    """With --target-accuracy or --effort-budget-hours: (data, inputs, assignment, GoalResult) at
    the setting :func:`core.assignment.goal_setting` finds; None without a goal."""
    from core.cli.common import load_dataset
    from core.errors import DataError
    from core.assignment import SAEInputs, goal_setting, solve_fast

    target = getattr(args, "target_accuracy", None)
    hours = getattr(args, "effort_budget_hours", None)
    if target is None and hours is None:
        return None
    if _has_constraints(args) or args.human_share is not None or args.human_count is not None:
        raise DataError("a goal (--target-accuracy, --effort-budget-hours) chooses N and lambda "
                        "itself, without extra constraints: drop --human-share, --human-count "
                        "and the constraints")
    check_float(target, "--target-accuracy", lo=0.0, hi=1.0)
    check_float(hours, "--effort-budget-hours", lo=0.0)
    data = load_dataset(args.path, args.col)
    inp = SAEInputs.from_data(data)
    mode = "exactly" if args.exactly else "at_most"
    goal = goal_setting(data, target_accuracy=target, effort_budget_hours=hours,
                        basis=args.goal_basis, mode=mode, inputs=inp)
    return data, inp, solve_fast(inp, lam=goal.lam, n_human=goal.N, mode=mode), goal


def run(args: argparse.Namespace) -> int:
    from core.cli.common import assignment_from_args, load_dataset, note_nothing_routed, print_json
    from core.errors import DataError
    from core.assignment import assignment_json, assignment_table

    from core.cli.common import check_output, note_stream, refuse_json_on_stdout, write_csv_output

    from core.scale.parquet import is_parquet

    if is_parquet(args.output):  # OUT.parquet: assign's large-table path
        from core.atomic import check_writable

        check_writable(args.output)
    else:
        check_output(args.output, "csv", to_stdout=True)  # a bad -o fails before the work
    refuse_json_on_stdout(args.output, args.json)
    check_float(getattr(args, "effort_budget", None), "--effort-budget", lo=0.0)
    check_float(getattr(args, "effort_budget_share", None), "--effort-budget-share", lo=0.0, hi=1.0)
    # lambda and the human share are checked by core.assignment (the page's messages)
    from core.scale.assign import run_assign, wants_scale_assign

    large = wants_scale_assign(args)
    if getattr(args, "engine", None) is not None and not large:
        raise DataError("--engine takes assign's large-table path: a Parquet table")
    if is_parquet(args.output) and not large:
        raise DataError(f"-o {args.output}: a Parquet assignment is written by assign's "
                        "large-table path: give a Parquet table (or write the assignment as "
                        "CSV); nothing was written")
    if large:
        data, inp, assignment = run_assign(args)
        goal = None
    elif _has_constraints(args):
        m = load_dataset(args.path, args.col).M
        if m > MAX_ILP_SAMPLES:
            raise DataError(f"extra constraints (--effort-budget, --effort-budget-share, "
                            f"--group-share) are solved by the general ILP, which takes at most "
                            f"{MAX_ILP_SAMPLES:,} samples; the table has {m:,} rows. Drop the "
                            "constraints or split the table")
    if not large:
        goal = _goal(args)
        if goal is None:
            data, inp, assignment = assignment_from_args(args)
        else:
            data, inp, assignment, goal = goal
    result = assignment_json(data, inp, assignment)
    if goal is not None:
        result["goal"] = goal.to_json()
    rng = result.get("lambda_range") or {}
    if result["n_human"] == 0 and result["N"] > 0:
        note_nothing_routed(args.lam, rng.get("upper"), rng.get("effort_unit", "effort units"))
    if args.output and large:
        from core.scale.assign import write_assignment_parquet

        write_assignment_parquet(args.path, args.output, data.roles, assignment.human)
    elif args.output:
        write_csv_output(assignment_table(data, assignment), args.output)
    if args.json:
        print_json(result)
    else:
        for key, value in result.items():
            if key == "goal":
                print(f"{key:>22}: {value['message']}", file=note_stream(args.output))
                continue
            if isinstance(value, dict):
                value = ", ".join(f"{k} {v:.5g}" if isinstance(v, float) else f"{k} {v}"
                                  for k, v in value.items())
            elif isinstance(value, float):
                value = f"{value:.5f}"
            print(f"{key:>22}: {value}", file=note_stream(args.output))
    return 0
