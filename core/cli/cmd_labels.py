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
                    "export.")
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


def merge_into_round(args: argparse.Namespace, imported, *, aggregate: str = "majority",
                     gold_annotator: str | None = None):
    """Under the caller's lock of ``args.output``: read the round and the votes stored beside
    the output (else beside the input table), add ``imported``'s, aggregate all of them, write
    the votes then the table. Returns (design, joined, progress)."""
    from pathlib import Path

    from core.cli.common import load_round, write_round
    from core.evaluation.labels import apply_labels, join_labels
    from core.evaluation.labels import (merge_votes, read_votes, votes_import, votes_path,
                                       write_votes)

    design = load_round(args.path, args.col)
    stored = read_votes(votes_path(args.output))
    if stored is None and Path(args.path).resolve() != Path(args.output).resolve():
        stored = read_votes(votes_path(args.path))
    merged = merge_votes(stored, imported)
    joined = join_labels(votes_import(merged, imported), sample_ids=design.sample_ids(),
                         classes=list(design.data.labels), aggregate=aggregate,
                         gold_annotator=gold_annotator)
    table, progress = apply_labels(design, joined)
    progress["new_votes"] = merged.new
    progress["changed_votes"] = len(merged.changed)
    from core.atomic import staged

    with staged():  # the table, its sidecar and the votes it was computed from: all or none
        write_round(design, table, args.output)
        write_votes(merged.votes, votes_path(args.output))
    return design, joined, progress


def report(design, joined, progress: dict, out: str) -> None:
    for note in joined.notices:
        print(f"note: {note}")
    if joined.agreement is not None:
        print(joined.agreement.describe())
    if joined.adjudication:
        print(f"{len(joined.adjudication)} samples tie and need adjudication: "
              f"{', '.join(joined.adjudication[:10])}")
    print(f"{progress['imported']:,} labels imported; {progress['labelled']:,} of "
          f"{progress['to_label']:,} labelled; written to {out}")


def run(args: argparse.Namespace) -> int:
    """Read the round, merge the labels, write the table: under an exclusive lock of the output
    (``OUT.lock`` beside it), so concurrent imports into one table each see the other's labels;
    the write is atomic (a kill leaves the previous table whole)."""
    from core.atomic import locked, note_waiting

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
    from core.cli.rounds import open_round

    ref = open_round(args, args.path)
    if ref is not None:
        import_into_round(args, ref, imported, file_name=str(args.source))
        return 0
    with locked(args.output, on_wait=note_waiting):
        design, joined, progress = merge_into_round(args, imported, aggregate=args.aggregate,
                                                    gold_annotator=args.gold_annotator)
    finish(args, design, joined, progress)
    return 0


def import_into_round(args: argparse.Namespace, ref, imported, *, file_name: str) -> None:
    """Import into the workspace round ``ref`` (:func:`core.workspace.rounds.import_joined`,
    what the Evaluate page calls), under the locks of the output and of the round: first the
    labels written into the table ``args.path`` (if any), then ``imported``; then write the
    round's table to ``args.output`` and its votes to OUT.labels.csv, and print the report."""
    import numpy as np

    from core.atomic import locked, note_waiting
    from core.cli.common import load_round
    from core.cli.rounds import export_round, round_lock, round_note, take_table_labels
    from core.evaluation.sampling import LABELLED
    from core.evaluation.labels import votes_path, write_votes
    from core.workspace.rounds import import_joined, round_design, stored_votes

    from core.cli.step import one_step

    ws, rid = ref
    # the votes and the files (the table, its sidecar, OUT.labels.csv) together or not at all
    with locked(args.output, on_wait=note_waiting), round_lock(ws, rid), one_step(ws):
        if args.path is not None:
            take_table_labels(ws, rid, load_round(args.path, args.col), args.path)
        res = import_joined(ws, rid, imported, file_name=file_name, aggregate=args.aggregate,
                            gold_annotator=args.gold_annotator,
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


def finish(args: argparse.Namespace, design, joined, progress: dict) -> None:
    """Print the import's report: plain lines, or with ``--json`` one JSON object."""
    from core.evaluation.annotators import annotator_report, describe

    quality = annotator_report(joined, list(design.data.labels),
                               level=getattr(args, "alpha_level", "nominal"))
    if getattr(args, "json", False):
        from core.cli.common import print_json

        print_json({"output": str(args.output), "progress": progress,
                    "counts": dict(joined.counts), "adjudication": list(joined.adjudication),
                    "notices": list(joined.notices), **quality})
        return
    report(design, joined, progress, args.output)
    if quality["n_multi"]:
        for line in describe(quality):
            print(line)
