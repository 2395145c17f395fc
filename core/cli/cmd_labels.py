"""``hmceval labels``: write returned labels (a CSV or a Label Studio export) into a round's table."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "labels", help="merge returned labels (CSV or Label Studio JSON export) into a round table",
        description="Join the labels of a CSV (sample id + label [+ annotator] columns) or of "
                    "Label Studio's JSON export to a round's table by sample id, resolve several "
                    "annotators by majority (ties are left for adjudication) and write the table "
                    "with its human-label column filled. Labels accumulate: earlier ones are kept "
                    "unless the file gives a new one. Then run hmceval estimate on the output. "
                    "The table is written whole or not at all; imports into one table wait for "
                    "each other (OUT.lock beside it); a round table that no longer matches what "
                    "hmceval wrote (OUT.round.json: rows, sample ids) is refused.")
    p.add_argument("path", help="the round's table (the output of hmceval queue or certify)")
    p.add_argument("--from", dest="source", required=True, metavar="FILE",
                   help="labels: a table (CSV, TSV, Parquet) or a Label Studio export (.json)")
    p.add_argument("--sample-id-col", default="sample_id", help="(tables) default sample_id")
    p.add_argument("--label-col", default="label", help="(tables) default label")
    p.add_argument("--annotator-col", help="(tables) optional annotator column")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role of the round table (repeatable)")
    p.add_argument("-o", "--output", required=True, help="where to write the labelled table (CSV)")
    p.set_defaults(func=run)


def read_label_file(path: str, *, sample_id_col: str, label_col: str, annotator_col: str | None):
    """A :class:`core.evaluation.imports.LabelImport` from a table or a Label Studio export."""
    from pathlib import Path

    from core.data import load_table
    from core.errors import DataError
    from core.evaluation.imports import labels_from_labelstudio, labels_from_table

    file = Path(path)
    if not file.exists():
        raise DataError(f"file not found: {file}")
    if file.suffix.lower() == ".json":
        head = file.read_bytes()[:4096].lstrip()
        if head.startswith(b"[") and b'"annotations"' in file.read_bytes():
            return labels_from_labelstudio(file.read_bytes())
    return labels_from_table(load_table(file), sample_id_col=sample_id_col, label_col=label_col,
                             annotator_col=annotator_col)


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
    from core.atomic import check_writable, locked, note_waiting
    from core.cli.common import load_round, write_round
    from core.evaluation.imports import apply_labels, join_labels

    check_writable(args.output)  # a bad -o fails before the work
    imported = read_label_file(args.source, sample_id_col=args.sample_id_col,
                               label_col=args.label_col, annotator_col=args.annotator_col)
    with locked(args.output, on_wait=note_waiting):
        design = load_round(args.path, args.col)
        joined = join_labels(imported, sample_ids=design.sample_ids(),
                             classes=list(design.data.labels))
        table, progress = apply_labels(design, joined)
        write_round(design, table, args.output)
    report(design, joined, progress, args.output)
    return 0
