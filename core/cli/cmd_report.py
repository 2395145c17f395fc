"""``hmceval report``: a self-contained HTML report of a saved scenario's evaluation round."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    from core.cli.cmd_workspace import add_workspace_arg

    p = sub.add_parser("report", help="write a stakeholder report (one HTML file, works offline)",
                       description="Write the report of a scenario's evaluation round: the "
                                   "question, data, plan, effort, result with intervals, "
                                   "guarantee, figures and settings. The file embeds plotly.js: "
                                   "it opens in a browser with no server and no network.")
    p.add_argument("scenario", help="scenario name or id (see hmceval workspace list)")
    p.add_argument("-o", "--output", required=True, help="the HTML file to write")
    add_workspace_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from core.cli.cmd_workspace import open_workspace
    from core.workspace.report import resolve_round, round_report_html

    ws = open_workspace(args)
    sc, rid = resolve_round(ws, args.scenario)
    text = round_report_html(ws, rid, scenario=ws.export_scenario(sc["id"]))
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"report of scenario '{sc['name']}' (round {rid}) written to {args.output} "
          f"({len(text.encode()) / 2**20:.1f} MiB)")
    return 0
