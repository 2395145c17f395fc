"""``hmceval workspace``: list, show, export and import what the workspace holds."""

from __future__ import annotations

import argparse


def add_workspace_arg(p) -> None:
    p.add_argument("--workspace", metavar="DIR",
                   help="workspace folder (default: $HMCEVAL_WORKSPACE, else ~/.hmceval/workspace)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("workspace", help="list, show, export or import saved datasets and scenarios",
                       description="The workspace keeps datasets, scenarios, label rounds and "
                                   "results (SQLite + Parquet in one folder).")
    add_workspace_arg(p)
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    v = verbs.add_parser("list", help="datasets, scenarios and rounds")
    v.add_argument("--json", action="store_true")
    v = verbs.add_parser("show", help="one scenario (by name or id) as JSON")
    v.add_argument("scenario")
    v = verbs.add_parser("export", help="write a scenario as a JSON file others can import")
    v.add_argument("scenario")
    v.add_argument("-o", "--output", required=True, help="the JSON file (- for standard output)")
    v = verbs.add_parser("import", help="load a scenario JSON file (and its table when the "
                                         "workspace does not have it)")
    v.add_argument("file")
    v.add_argument("--data", metavar="TABLE", help="the scenario's table (CSV, TSV, Parquet, JSON)")
    v.add_argument("--name", help="store under another name")
    v = verbs.add_parser("add", help="store a table as a dataset")
    v.add_argument("path")
    v.add_argument("--name")
    v.add_argument("--col", action="append", metavar="ROLE=NAME")
    p.set_defaults(func=run)


def named_workspace(args) -> bool:
    """Whether a workspace is named: ``--workspace DIR`` or ``$HMCEVAL_WORKSPACE`` (else the
    default, ``~/.hmceval/workspace``, or for a table of no round the one beside it:
    :mod:`core.cli.table_round`)."""
    import os

    from core.workspace.store import ENV_VAR

    return bool(getattr(args, "workspace", None) or os.environ.get(ENV_VAR))


def open_workspace(args):
    """The workspace of ``--workspace`` (else the default), with every step a killed command
    left half-done finished or taken back first (:func:`core.workspace.journal.replay`; a note
    on stderr for each)."""
    import sys

    from core.workspace import Workspace
    from core.workspace.journal import replay

    ws = Workspace(args.workspace) if getattr(args, "workspace", None) else Workspace()
    for note in replay(ws):
        print(f"note: {note}", file=sys.stderr)
    return ws


def run(args: argparse.Namespace) -> int:
    import json

    from core.cli.common import load_dataset, print_json
    from core.data import load_table
    from core.errors import DataError

    from core.cli.common import check_output, note_stream, write_output

    check_output(getattr(args, "output", None), "json", to_stdout=True)
    key = getattr(args, "scenario", None)
    if isinstance(key, str) and key.strip().isdigit() and int(key) > 2**63 - 1:
        # beyond SQLite's integer (an OverflowError traceback): no scenario has that id
        raise DataError(f"no scenario {key!r} in the workspace (ids are at most 2^63 - 1)")
    ws = open_workspace(args)
    if args.verb == "list":
        out = {"workspace": str(ws.root), "schema_version": ws.schema_version,
               "datasets": ws.list_datasets().drop(columns="content_hash"),
               "scenarios": ws.list_scenarios(), "rounds": ws.list_rounds()}
        if args.json:
            print_json(out)
        else:
            print(f"workspace {ws.root} (schema {out['schema_version']})")
            for key in ("datasets", "scenarios", "rounds"):
                table = out[key]
                print(f"\n{key}: {len(table)}")
                if len(table):
                    print(table.to_string(index=False))
    elif args.verb == "show":
        sc = ws.scenario(args.scenario)
        sc["rounds"] = ws.list_rounds(sc["dataset_id"])
        print_json(sc)
    elif args.verb == "export":
        obj = ws.export_scenario(args.scenario)
        write_output(args.output, json.dumps(obj, indent=2) + "\n")  # atomic, or -o -
        print(f"scenario '{obj['name']}' written to {args.output}", file=note_stream(args.output))
    elif args.verb == "import":
        from core.workspace.scenario_file import read_scenario_file

        obj = read_scenario_file(args.file)  # limits and the schema, before anything is stored
        raw = load_table(args.data) if args.data else None
        sid = ws.import_scenario(obj, raw=raw, name=args.name)
        print(f"scenario #{sid} '{ws.scenario(sid)['name']}' imported into {ws.root}")
    elif args.verb == "add":
        from core.workspace.rounds import dataset_id_for

        data = load_dataset(args.path, args.col)
        if args.name:
            data.name = args.name
        dsid = dataset_id_for(ws, data, source="cli")
        print(f"dataset #{dsid} '{data.name}' ({data.M:,} rows) stored in {ws.root}")
    return 0
