"""``hmceval labels``: write returned labels (a CSV or a Label Studio export) into a round's table."""

from __future__ import annotations

import argparse

#: core.evaluation.annotators.aggregate.AGGREGATES and core.evaluation.annotators.alpha.LEVELS, written out so that
#: building the parser imports neither numpy nor pandas (a test checks they are the same).
AGGREGATES = ("majority", "dawid-skene")
LEVELS = ("nominal", "ordinal", "interval")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "labels", help="merge returned labels (CSV or Label Studio JSON export) into a round table",
        description="Join the labels of a CSV (sample id + label [+ annotator] columns) or of "
                    "Label Studio's JSON export to a round's table by sample id, resolve several "
                    "annotators (--aggregate) and write the table with its human-label column "
                    "filled. Labels accumulate across files: every (sample, annotator, label, "
                    "seconds) is kept in OUT.labels.csv beside the table, the human label is the "
                    "aggregate of all of them, re-importing a file changes nothing and an "
                    "annotator's new label for a sample replaces theirs (said in a note). Then "
                    "run hmceval estimate on the output. "
                    "The table is written whole or not at all; imports into one table wait for "
                    "each other (OUT.lock beside it); a round table that no longer matches what "
                    "hmceval wrote (OUT.round.json: rows, sample ids) is refused. A round planned "
                    "by hmceval queue (named by the table's sidecar) or given by --round (one "
                    "planned on the Evaluate page too) is kept in the workspace: the labels are "
                    "imported into it, as on the page, and OUT (with OUT.labels.csv) is its "
                    "export. A table of no round is recorded as a round first (--workspace, "
                    "else $HMCEVAL_WORKSPACE, else hmceval-workspace beside the table).")
    p.add_argument("path", nargs="?",
                   help="the round's table (the output of hmceval queue or certify)")
    p.add_argument("--from", dest="source", required=True, metavar="FILE",
                   help="labels: a table (CSV, TSV, Parquet) or a Label Studio export (.json)")
    p.add_argument("--sample-id-col", default="sample_id", help="(tables) default sample_id")
    p.add_argument("--label-col", default="label", help="(tables) default label")
    p.add_argument("--annotator-col", help="(tables) optional annotator column")
    p.add_argument("--time-col", help="(tables) optional column of seconds per label (default: "
                                      "'seconds' when the table has it)")
    p.add_argument("--aggregate", choices=AGGREGATES, default="majority",
                   help="how several annotators' labels become one: majority (ties are left "
                        "for adjudication) or dawid-skene (EM over each annotator's confusion "
                        "matrix); default majority")
    p.add_argument("--gold-annotator", metavar="NAME",
                   help="the annotator whose labels are gold (an adjudicator): their label is "
                        "the row's, Dawid-Skene holds it fixed, per-annotator agreement with "
                        "gold is measured on them")
    p.add_argument("--alpha-level", choices=LEVELS, default="nominal",
                   help="Krippendorff's alpha's level of measurement (default nominal)")
    p.add_argument("--json", action="store_true",
                   help="print the import, the agreement (krippendorff_alpha with its bootstrap "
                        "interval, Fleiss' and pairwise Cohen's kappa) and per_annotator as JSON")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role of the round table (repeatable)")
    p.add_argument("-o", "--output", required=True, help="where to write the labelled table (CSV)")
    from core.cli.rounds import add_round_args

    add_round_args(p, verb="import into")
    p.set_defaults(func=run)


def read_label_file(path: str, *, sample_id_col: str, label_col: str, annotator_col: str | None,
                    time_col: str | None = None):
    """A :class:`core.evaluation.labels.form.LabelImport` from a table or a Label Studio export."""
    from pathlib import Path

    from core.data import MAX_FILE_BYTES, load_table
    from core.evaluation.labels import labels_from_table
    from core.evaluation.labelstudio import labels_from_labelstudio
    from core.userfile import read_user_file

    file = Path(path)
    if file.suffix.lower() == ".json":
        data = read_user_file(file, max_bytes=MAX_FILE_BYTES, what="labels file")  # no FIFO
        if data.lstrip()[:1] == b"[" and b'"annotations"' in data:
            return labels_from_labelstudio(data)
    table = load_table(file)
    if time_col is None and "seconds" in table.columns and "seconds" not in (
            sample_id_col, label_col, annotator_col):
        time_col = "seconds"
    return labels_from_table(table, sample_id_col=sample_id_col, label_col=label_col,
                             annotator_col=annotator_col, time_col=time_col)


def run(args: argparse.Namespace) -> int:
    """Read the round, merge the labels, write the table: under an exclusive lock of the output
    (``OUT.lock`` beside it), so concurrent imports into one table each see the other's labels;
    the write is atomic (a kill leaves the previous table whole)."""
    from core.cli.common import check_output
    from core.scale.labels import run_labels, wants_scale_labels

    if wants_scale_labels(args):  # a large round table: -o OUT.parquet, batch by batch
        return run_labels(args, read_label_file(args.source, sample_id_col=args.sample_id_col,
                                                label_col=args.label_col,
                                                annotator_col=args.annotator_col,
                                                time_col=args.time_col))
    check_output(args.output, "csv")  # a bad -o fails before the work
    imported = read_label_file(args.source, sample_id_col=args.sample_id_col,
                               label_col=args.label_col, annotator_col=args.annotator_col,
                               time_col=args.time_col)
    import_into_round(args, imported, file_name=str(args.source))
    return 0


def import_into_round(args: argparse.Namespace, imported, *, file_name: str) -> None:
    """Import into the round of the table ``args.path`` (its sidecar's, ``--round ID``'s, or a
    table of no round taken in as a round first: :func:`core.cli.table_round.round_step`)
    with :func:`core.workspace.rounds.import_joined` (what the Evaluate page calls), under the
    locks of the output and of the round: first the labels written into the table (if any),
    then ``imported``; then write the round's table to ``args.output`` and its votes to
    OUT.labels.csv, and print the report."""
    import numpy as np

    from core.atomic import locked, note_waiting
    from core.cli.common import load_round
    from core.cli.round_table import round_link
    from core.cli.rounds import export_round, round_note
    from core.cli.table_round import round_step
    from core.evaluation.sampling import LABELLED
    from core.evaluation.labels import votes_path, write_votes
    from core.workspace.rounds import import_joined, round_design, stored_votes

    with locked(args.output, on_wait=note_waiting):
        table = load_round(args.path, args.col) if args.path is not None else None
        if table is not None and args.round_id is None and round_link(args.path) is None \
                and not table.has_selection:
            from core.errors import DataError

            raise DataError("the table has no 'selection' column: labels go into a round "
                            "planned with hmceval queue or certify")
        # the votes and the files (the table, its sidecar, OUT.labels.csv) together or not
        with round_step(args, args.path, table) as (ws, rid):
            res = import_joined(ws, rid, imported, file_name=file_name,
                                aggregate=args.aggregate, gold_annotator=args.gold_annotator,
                                level=getattr(args, "alpha_level", "nominal"))
            export_round(ws, rid, args.output, to_label=False)
            _, design = round_design(ws, rid)
            write_votes(stored_votes(ws, rid, design), votes_path(args.output))
    need = np.isin(design.selection, LABELLED)
    progress = {"to_label": int(need.sum()), "labelled": int((need & design.has_label).sum()),
                "imported": int(res["n_labels"]), "new_votes": int(res["new_votes"]),
                "changed_votes": int(res["changed_votes"])}
    quality = res["annotators"]
    if getattr(args, "json", False):
        from core.cli.common import print_json

        print_json({"output": str(args.output), "progress": progress,
                    "counts": res["counts"], "adjudication": res["adjudication"],
                    "notices": res["notices"], **quality,
                    "round_id": rid, "workspace": str(ws.root)})
        return
    from core.evaluation.annotators import describe

    for note in res["notices"]:
        print(f"note: {note}")
    if res["agreement"] is not None:
        print(res["agreement"])
    if res["adjudication"]:
        print(f"{len(res['adjudication'])} samples tie and need adjudication: "
              f"{', '.join(res['adjudication'][:10])}")
    print(f"{progress['imported']:,} labels imported; {progress['labelled']:,} of "
          f"{progress['to_label']:,} labelled; written to {args.output}; {round_note(ws, rid)}")
    if quality["n_multi"]:
        for line in describe(quality):
            print(line)
