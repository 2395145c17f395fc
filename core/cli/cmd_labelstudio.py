"""``hmceval labelstudio``: push a round's queue to a Label Studio server, pull the labels back."""

from __future__ import annotations

import argparse
import os
import sys

from core.cli.cmd_labels import AGGREGATES


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "labelstudio", help="push a queue to a Label Studio server / pull its labels into the table",
        description="The only network access of hmceval, and only to the URL given. The token is "
                    "a Label Studio 1.23 personal access token (Account & Settings > Personal "
                    "Access Token) or an enabled legacy token; pass it with --token or the "
                    "environment variable LABEL_STUDIO_TOKEN.")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    for name, text in (("push", "create or reuse the project and send the rows to label"),
                       ("pull", "export the project's annotations and write them into the table")):
        v = verbs.add_parser(name, help=text)
        v.add_argument("path", nargs=None if name == "push" else "?",
                       help="the round's table (the output of hmceval queue or certify)"
                            + ("" if name == "push" else "; optional with --round ID"))
        v.add_argument("--url", required=True, help="e.g. http://localhost:8080")
        v.add_argument("--token", help="access token (default: $LABEL_STUDIO_TOKEN)")
        v.add_argument("--project",
                       help="project title (default: 'HMCEval · round <id> · <digest of the "
                            "workspace>', the Evaluate page's default too, the same for every "
                            "file of the round; a table of no round: 'HMCEval · <file name>')")
        v.add_argument("--col", action="append", metavar="ROLE=NAME")
        if name == "push":
            v.add_argument("--class-name", action="append", metavar="CLASS=NAME",
                           help="the name annotators see for a class, e.g. 1=unsafe "
                                "(repeatable; the export still holds the class)")
            v.add_argument("--instruction", help="a short instruction shown above the choices")
            from core.cli.common import add_show_arg

            add_show_arg(v)
        if name == "pull":
            v.add_argument("-o", "--output", required=True, help="the labelled table (CSV)")
            v.add_argument("--aggregate", choices=AGGREGATES, default="majority",
                           help="as hmceval labels: majority or dawid-skene")
            v.add_argument("--gold-annotator", metavar="NAME",
                           help="as hmceval labels: the annotator whose labels are gold")
            v.add_argument("--json", action="store_true", help="as hmceval labels --json")
            from core.cli.rounds import add_round_args

            add_round_args(v, verb="import into")  # as hmceval labels: the workspace round
    p.set_defaults(func=run)


def _class_names(pairs: list[str] | None, classes) -> dict[str, str]:
    """``--class-name CLASS=NAME`` options as a dict, each class one of the dataset's."""
    from core.errors import DataError
    from core.data import label_key

    known = {label_key(c) for c in classes}
    out: dict[str, str] = {}
    for pair in pairs or []:
        cls, sep, name = pair.partition("=")
        if not sep or not name.strip():
            raise DataError(f"--class-name {pair!r}: write CLASS=NAME, e.g. 1=unsafe")
        if label_key(cls) not in known:
            raise DataError(f"--class-name {pair!r}: '{cls}' is not one of the dataset's "
                            f"classes ({', '.join(sorted(known))})")
        out[label_key(cls)] = name.strip()
    return out


def queue_ranks(column):
    """A table's ``queue_rank`` column as floats (NaN where empty); a cell that is not a whole
    number >= 1 is a :class:`DataError` naming its rows (a text rank was a ValueError)."""
    import numpy as np
    import pandas as pd

    from core.errors import DataError, describe_rows

    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    present = column.notna().to_numpy() & (column.astype(str).str.strip() != "").to_numpy()
    finite = np.isfinite(values)
    whole = np.mod(np.where(finite, values, 0.5), 1) == 0
    bad = present & ~(finite & (values >= 1) & whole)
    if bad.any():
        raise DataError(f"column 'queue_rank' holds something other than a whole number >= 1 on "
                        f"{describe_rows(np.flatnonzero(bad))} (e.g. {column[bad].iloc[0]!r}): it "
                        "must hold the queue positions hmceval queue or certify wrote; nothing "
                        "was pushed")
    return np.where(present, values, np.nan)


def _titles(args: argparse.Namespace) -> tuple[str, list[str]]:
    """The project's title and the older default titles a pull also looks for.

    The round's project is :func:`core.workspace.labelstudio_service.round_title` of its
    workspace and id (the Evaluate page's default too), whatever the file is called: the round
    of ``--round`` (pull), else the one the table's sidecar names. A table of no round: the
    file name. ``--project`` wins.
    """
    from pathlib import Path

    from core.cli.round_table import round_key, round_link
    from core.evaluation.labelstudio import project_title
    from core.workspace.labelstudio_service import older_titles

    if args.path is None:  # pull --round ID without a table
        if getattr(args, "round_id", None) is None:
            from core.errors import DataError

            raise DataError("give the round's table (PATH) or --round ID")
        older = []
    else:
        older = older_titles(round_key=round_key(args.path), file_name=Path(args.path).name)
    if args.project:
        return args.project, []
    if getattr(args, "round_id", None) is not None:
        from core.cli.cmd_workspace import open_workspace

        return project_title(open_workspace(args).root, args.round_id), older
    link = round_link(args.path)
    if link is None:
        return older[-1], []
    return project_title(link["workspace"], link["round_id"]), older


def run(args: argparse.Namespace) -> int:
    from core.cli.common import load_round, shown
    from core.errors import DataError
    from core.workspace import labelstudio_service as service

    token = args.token or os.environ.get("LABEL_STUDIO_TOKEN", "")
    title, older = _titles(args)
    client = service.connect(args.url, token)
    if args.verb == "push":  # the page's push (core.workspace.labelstudio_service)
        design = load_round(args.path, args.col)
        if "queue_rank" not in design.data.raw.columns:
            raise DataError("the table has no 'queue_rank' column: push the output of "
                            "hmceval queue or certify")
        pushed = service.push_queue(client, design, queue_ranks(design.data.raw["queue_rank"]),
                                    title=title, show=shown(args),
                                    names=_class_names(args.class_name, design.data.labels),
                                    instruction=args.instruction)
        if pushed.warning:
            print(f"warning: {pushed.warning}", file=sys.stderr)
        print(pushed.sentence)
        return 0
    from core.cli.common import check_output

    check_output(args.output, "csv")  # a bad -o fails before the download
    imported = service.pull_labels(client, title, older)  # the page's pull
    from core.cli.cmd_labels import import_into_round

    args.alpha_level = "nominal"  # into the round of the table (one of no round taken in first)
    import_into_round(args, imported, file_name=f"labelstudio:{title}")
    return 0
