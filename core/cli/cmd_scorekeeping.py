"""``hmceval scorekeeping``: score clembench privateshared episodes like clembench does."""

from __future__ import annotations

import argparse
import math
import sys

from core.defaults import MAX_N_SLOTS, MIN_N_SLOTS

__all__ = ["register", "run", "build_report"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``scorekeeping`` subcommand."""
    p = subparsers.add_parser(
        "scorekeeping",
        help="score clembench 'privateshared' (scorekeeping) game episodes",
        description=(
            "Score recorded episodes of clembench's private/shared game from their "
            "interactions.json, reproducing clembench's scorer (turn scores, episode scores, "
            "% Played, Quality Score, clemscore). PATH may be an episode folder, an "
            "interactions.json file, a parent folder (searched recursively) or a zip archive. "
            "A scores.json beside a log is compared with the computed scores; an instance.json "
            "beside it (the game instance clembench stores in each episode folder) gives the number "
            "of slots, as in clembench's scorer."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="episode folder, interactions.json, parent folder or zip")
    p.add_argument("--json", action="store_true", help="print JSON (NaN printed as NaN)")
    p.add_argument("--n-slots", type=int, default=None,
                   help=f"number of slots of the game instances, an integer from {MIN_N_SLOTS} to "
                        f"{MAX_N_SLOTS:,} (default: len(slots) of the instance.json beside each log, "
                        "else len(realised_slots) of the log, else inferred from its probes); a value "
                        "that contradicts an instance or a log is refused")
    p.set_defaults(func=run)


def build_report(paths: list[str], *, n_slots: int | None = None) -> dict:
    """Load, score and aggregate; the object printed by ``--json`` (see
    :func:`core.clembench.scores_report`)."""
    from core.clembench import check_n_slots, load_paths, score_episodes, scores_report

    if n_slots is not None:
        n_slots = check_n_slots(n_slots, what="--n-slots")
    loaded = load_paths(paths, n_slots=n_slots)
    return scores_report(score_episodes(loaded.episodes), ignored=loaded.ignored)


def _fmt(v: object) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else f"{v:.4f}"
    return str(v)


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit code."""
    from core.cli.common import print_json

    report = build_report(list(args.paths), n_slots=args.n_slots)
    if args.json:
        print_json(report)
        return 0
    out = sys.stdout
    shown = ["Main Score", "Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy",
             "Middle-Accuracy", "Aborted", "Success"]
    for ep in report["episodes"]:
        es = ep["episode_scores"]
        out.write(f"{ep['episode']}  (model {ep['model'] or '?'}, {ep['n_slots']} slots from "
                  f"{ep['n_slots_from']}, "
                  f"{ep['played_probe_rounds']} scored probing round(s))\n")
        accs = ", ".join(_fmt(ts["Accuracy"]) for ts in ep["turn_scores"].values())
        out.write(f"  round accuracies: {accs or '(none scored)'}\n")
        out.write("  " + "  ".join(f"{k}={_fmt(es.get(k))}" for k in shown) + "\n")
        if ep["matches_recorded"] is not None:
            out.write(f"  recorded scores.json: {'identical' if ep['matches_recorded'] else 'DIFFERENT'}\n")
            for d in ep.get("differences", []):
                out.write(f"    {d}\n")
    agg = report["aggregate"]
    out.write(f"aggregate over {agg['episodes']} episode(s): % Played={_fmt(agg['% Played'])}  "
              f"Quality Score={_fmt(agg['Quality Score'])}  clemscore={_fmt(agg['clemscore'])}\n")
    if report["ignored_files"]:
        out.write(f"ignored {len(report['ignored_files'])} file(s) that are not episode logs\n")
    return 0
