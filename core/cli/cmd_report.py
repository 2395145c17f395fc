"""``hmceval report``: a self-contained HTML report of an evaluation round, named by a saved
scenario or by the round's id, or the same report printed to PDF (``--format pdf``, or an
``-o`` ending in ``.pdf``: headless Chromium through Playwright, :mod:`core.workspace.pdf`)."""

from __future__ import annotations

import argparse

#: what ``hmceval report`` needs, and how to make it (its error messages end with this)
HOW_TO_GET_A_ROUND = ("plan a round on the Evaluate page or with 'hmceval queue' (either is "
                      "saved in the workspace; 'Save this scenario' on the page names it), or "
                      "import a scenario with "
                      "'hmceval workspace import FILE'; 'hmceval workspace list' shows the "
                      "scenarios and rounds there are")


def register(sub: argparse._SubParsersAction) -> None:
    from core.cli.cmd_workspace import add_workspace_arg

    p = sub.add_parser("report", help="write a stakeholder report (one HTML file, works offline; "
                                      "or a PDF)",
                       description="Write the report of an evaluation round: the question, data, "
                                   "plan, effort, result with intervals, guarantee, figures and "
                                   "settings. The round is a saved scenario's (SCENARIO) or "
                                   "given by its id (--round); with neither, the latest round "
                                   "(one planned by hmceval queue too). "
                                   "The file embeds plotly.js: it opens in a browser with no "
                                   "server and no network. --format pdf prints the same "
                                   "report to PDF with a headless Chromium (Playwright).")
    p.add_argument("scenario", nargs="?",
                   help="scenario name or id (see hmceval workspace list); optional")
    p.add_argument("--round", type=int, dest="round_id", metavar="ID",
                   help="report this round (its id in hmceval workspace list) instead")
    p.add_argument("-o", "--output", required=True,
                   help="the file to write (.html, or .pdf for a PDF; - for standard output)")
    p.add_argument("--format", choices=("html", "pdf"), default=None,
                   help="html (the default) or pdf (printed by a headless Chromium through "
                        "Playwright; a clear error when either is missing). Default: pdf when "
                        "-o ends in .pdf, else html")
    add_workspace_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from core.cli.cmd_workspace import open_workspace
    from core.errors import DataError
    from core.workspace.report import resolve_round, round_report_html

    from core.cli.common import STDOUT, check_output, note_stream, write_output

    fmt = args.format or ("pdf" if args.output.lower().endswith(".pdf") else "html")
    if fmt == "html":
        check_output(args.output, "html", to_stdout=True)  # a bad -o fails before the work
    elif args.output != STDOUT:
        from pathlib import Path

        from core.atomic import check_writable

        check_writable(args.output)
        suffix = Path(args.output).suffix.lower()
        if suffix and suffix != ".pdf":
            raise DataError(f"-o {args.output}: --format pdf writes one PDF file; name the file "
                            f".pdf (not {suffix}); nothing was written")
    ws = open_workspace(args)
    if args.scenario is not None and args.round_id is not None:
        raise DataError("give a scenario or --round, not both")
    sc = None
    if args.scenario is not None:
        if not len(ws.list_scenarios()):
            raise DataError(f"no scenario {args.scenario!r}: the workspace {ws.root} has no "
                            f"saved scenario yet. To report, {HOW_TO_GET_A_ROUND}; "
                            "'hmceval report --round ID' reports a round without a scenario")
        try:
            sc, rid = resolve_round(ws, args.scenario)
        except DataError as exc:
            raise DataError(f"{exc}; {HOW_TO_GET_A_ROUND}") from None
    else:
        rounds = ws.list_rounds()
        if rounds.empty:
            raise DataError(f"the workspace {ws.root} has no evaluation round yet: "
                            f"{HOW_TO_GET_A_ROUND}")
        if args.round_id is None:
            rid = int(rounds["id"].max())
        elif args.round_id not in set(rounds["id"].astype(int)):
            raise DataError(f"no round {args.round_id} in the workspace {ws.root}; its rounds "
                            f"are {', '.join(map(str, sorted(rounds['id'].astype(int))))}")
        else:
            rid = int(args.round_id)
    text = round_report_html(ws, rid, scenario=None if sc is None else ws.export_scenario(sc["id"]))
    if fmt == "pdf":
        from core.workspace.pdf import html_to_pdf

        data = html_to_pdf(text)
        write_output(args.output, data)  # atomic, or standard output for -o -
    else:
        data = text.encode("utf-8")
        write_output(args.output, text)
    what = f"scenario '{sc['name']}' (round {rid})" if sc is not None else f"round {rid}"
    where = "standard output" if args.output == STDOUT else args.output
    print(f"report of {what} written to {where} ({len(data) / 2**20:.1f} MiB)",
          file=note_stream(args.output))
    return 0
