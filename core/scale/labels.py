"""``hmceval labels`` into a large round table: the returned labels joined by sample id, batch
by batch (``hmceval labels ROUND.parquet --from LABELS.csv -o OUT.parquet``).

The labels file is small (one row per label); the round's table is read and written one batch
at a time (:func:`core.scale.parquet.write_round_parquet`), its record kept. One label per
sample (aggregate several annotators' first); a label for a sample id the table does not have,
for a row not in the queue, or not one of the table's classes is refused before anything is
written, naming it.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["wants_scale_labels", "run_labels"]


def wants_scale_labels(args) -> bool:
    """The large-table path: a Parquet round table written to ``-o OUT.parquet``."""
    from core.scale.parquet import is_parquet

    return is_parquet(getattr(args, "output", None)) and is_parquet(getattr(args, "path", None))


def run_labels(args, imported) -> int:
    """Write ``imported`` (:class:`core.evaluation.labels.LabelImport`) into the round's table."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from core.atomic import check_writable
    from core.errors import DataError
    from core.scale.parquet import (class_codes, detect_parquet_roles, iter_batches,
                                    round_meta, write_round_parquet)

    check_writable(args.output)
    if args.round_id is not None:
        raise DataError("--round: a large round table is not kept in the workspace; give its "
                        "Parquet file")
    ids = np.asarray(imported.sample_id, dtype=object)
    if len(set(ids.tolist())) < len(ids):
        raise DataError("the labels file gives several labels for a sample (several "
                        "annotators?): the large-table path takes one label per sample; "
                        "aggregate them first (hmceval labels -o OUT.csv on a CSV round table)")
    roles = detect_parquet_roles(args.path, args.col)
    id_col = roles.get("sample_id") or "sample_id"
    human_col = roles.get("human_label") or "human_label"
    names = _names(args.path)
    for col, what in ((id_col, "sample id"), ("queue_rank", "queue rank")):
        if col not in names:
            raise DataError(f"{args.path} has no {what} column '{col}': is it a round table "
                            "written by hmceval queue -o OUT.parquet?")
    classes = {str(c) for c in class_codes(args.path, [roles["machine_label"]])}
    labels = np.asarray(imported.label, dtype=object)
    bad = [i for i, v in enumerate(labels) if str(v) not in classes]
    if bad:
        raise DataError(f"label {labels[bad[0]]!r} ({imported.where[bad[0]]}) is not one of the "
                        f"table's classes ({', '.join(sorted(classes))})")
    order = np.argsort(ids.astype(str))
    sorted_ids, sorted_labels = ids.astype(str)[order], labels[order]
    found = np.zeros(len(ids), dtype=bool)
    for b in iter_batches(args.path, [id_col, "queue_rank"]):  # check before writing
        text = np.asarray(pc.cast(b.column(0), pa.string()).to_numpy(zero_copy_only=False),
                          dtype=str)
        pos = np.searchsorted(sorted_ids, text)
        hit = (pos < len(sorted_ids)) & (sorted_ids[np.minimum(pos, len(sorted_ids) - 1)]
                                         == text)
        queued = b.column(1).is_valid().to_numpy(zero_copy_only=False)
        outside = np.flatnonzero(hit & ~queued)
        if len(outside):
            raise DataError(f"sample {text[outside[0]]!r} has a label but is not in the round's "
                            "queue (no queue_rank): only the rows to label take labels")
        found[pos[hit]] = True
    if not found.all():
        first = sorted_ids[np.flatnonzero(~found)[0]]
        raise DataError(f"{int((~found).sum()):,} labels name a sample id the table does not "
                        f"have, e.g. {first!r}")
    written = [0, 0]

    def per_batch(b, start: int) -> dict[str, Any]:
        text = np.asarray(pc.cast(b.column(b.schema.names.index(id_col)), pa.string())
                          .to_numpy(zero_copy_only=False), dtype=str)
        pos = np.searchsorted(sorted_ids, text)
        hit = (pos < len(sorted_ids)) & (sorted_ids[np.minimum(pos, len(sorted_ids) - 1)]
                                         == text)
        if human_col in b.schema.names:
            old = b.column(b.schema.names.index(human_col)).cast(pa.string())
            values = np.asarray(old.to_numpy(zero_copy_only=False), dtype=object)
        else:
            values = np.full(b.num_rows, None, dtype=object)
        values[hit] = [str(v) for v in sorted_labels[pos[hit]]]
        queued = b.column(b.schema.names.index("queue_rank")).is_valid().to_numpy(
            zero_copy_only=False)
        written[0] += int(hit.sum())
        written[1] += int((queued & np.array([v is None for v in values])).sum())
        return {human_col: pa.array(values.tolist(), type=pa.string())}

    write_round_parquet(args.path, args.output, per_batch, meta=round_meta(args.path) or {})
    print(f"{written[0]:,} labels written into column '{human_col}' of {args.output}; "
          f"{written[1]:,} rows to label still have none; then: hmceval estimate "
          f"{args.output}")
    if written[1]:
        print("note: the labelled audit rows are taken as a random subsample of the drawn ones "
              "(valid when labelled in queue order)", file=sys.stderr)
    return 0


def _names(path) -> list[str]:
    import pyarrow.parquet as pq

    return pq.ParquetFile(str(path)).schema_arrow.names
