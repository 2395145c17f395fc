"""The command line's side of the round service: the workspace round behind a round's table.

A round planned by ``hmceval queue`` is kept in the workspace (:mod:`core.workspace.rounds`,
what the Evaluate page calls), like one planned on the page; the CSV files are its exports.
The table's sidecar (:mod:`core.cli.round_table`) names the round (``round_id``, ``workspace``),
so ``certify``, ``labels``, ``labelstudio pull`` and ``estimate`` continue it in the workspace;
``--round ID`` names a round directly (one planned on the page, say).

Labels written into an exported table by hand (its human-label column, on rows the round sends
to humans) are taken into the round first on rows it holds no label for yet
(:func:`take_table_labels`, an import whose source is ``table``), so filling in the CSV keeps
working as it did; the round's own labels are never replaced that way (an older export read
again changes nothing): a label is changed by importing it (``hmceval labels``). A table whose
sidecar names no round (written by hand, or before rounds were kept) is taken in as a round
first (:mod:`core.cli.table_round`), so every command runs this one path.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_round_args", "open_round", "round_lock", "link_of", "take_table_labels",
           "gold_warning", "round_table", "export_round", "round_note"]


def add_round_args(p, *, verb: str = "continue") -> None:
    """``--round ID`` and ``--workspace DIR``."""
    from core.cli.cmd_workspace import add_workspace_arg

    p.add_argument("--round", type=int, dest="round_id", metavar="ID",
                   help=f"{verb} this round of the workspace (its id in hmceval workspace list; "
                        "one planned on the Evaluate page too) instead of the one named by the "
                        "table's sidecar (PATH.round.json)")
    add_workspace_arg(p)


def link_of(ws, round_id: int) -> dict[str, Any]:
    """What a table's sidecar records about its round."""
    return {"round_id": int(round_id), "workspace": str(Path(ws.root).resolve())}


def _check_round(ws, round_id: int) -> None:
    from core.errors import DataError

    ids = ws.list_rounds()["id"].astype(int).tolist()
    if int(round_id) not in ids:
        raise DataError(f"no round #{round_id} in the workspace {ws.root}"
                        + (f"; its rounds are {', '.join(map(str, sorted(ids)))}" if ids else
                           ": it has no round yet (plan one with hmceval queue or on the "
                           "Evaluate page)"))


def open_round(args: argparse.Namespace, path: str | None):
    """``(workspace, round_id)`` of the round a command continues, or None for a table of no
    round (:func:`core.cli.table_round.round_step` takes it in). ``--round ID`` wins; else the
    round named by the sidecar of ``path``, in the workspace it names (which must be the one
    named, ``--workspace`` or ``$HMCEVAL_WORKSPACE``; with none named, the sidecar's).
    """
    from core.cli.cmd_workspace import open_workspace
    from core.cli.round_table import round_link
    from core.errors import DataError

    if getattr(args, "round_id", None) is not None:
        ws = open_workspace(args)
        _check_round(ws, args.round_id)
        return ws, int(args.round_id)
    if path is None:
        raise DataError("give the round's table (PATH) or --round ID")
    link = round_link(path)
    if link is None:
        return None
    from core.cli.cmd_workspace import named_workspace

    if not named_workspace(args):  # none named: the workspace the table's sidecar names
        args = argparse.Namespace(**{**vars(args), "workspace": link["workspace"]})
    ws = open_workspace(args)
    here = Path(ws.root).resolve()
    if Path(link["workspace"]).resolve() != here:
        raise DataError(f"{path} is the table of round #{link['round_id']} in the workspace "
                        f"{link['workspace']}, not in {here}: pass --workspace "
                        f"{link['workspace']}")
    _check_round(ws, link["round_id"])
    return ws, int(link["round_id"])


def round_lock(ws, round_id: int):
    """An exclusive lock of one round for a read-modify-write (``round-ID.lock`` in the
    workspace folder): imports into one round, through any table, wait for each other."""
    from core.atomic import locked, note_waiting

    return locked(Path(ws.root) / f"round-{int(round_id)}", on_wait=note_waiting)


def take_table_labels(ws, round_id: int, table, path: str, *, say: bool = True) -> int:
    """Import the labels the table ``table`` (a :class:`core.evaluation.sampling.design.Design` read
    from ``path``) holds on the round's rows to label that have no label in the round yet;
    returns how many (a note on stderr with ``say``). Rows are matched by sample id. Call it
    under :func:`round_lock`."""
    import numpy as np

    from core.errors import DataError
    from core.evaluation.sampling import LABELLED
    from core.data import label_key
    from core.workspace import rounds as R

    _, design = R.round_design(ws, round_id)
    if table.M != design.M:
        raise DataError(f"{path} holds {table.M:,} rows; round #{round_id} has {design.M:,}: "
                        "another round's table?")
    has = np.flatnonzero(table.has_label)
    if not len(has):
        return 0
    ids, tids = design.sample_ids(), table.sample_ids()
    if np.array_equal(ids.astype(str), tids.astype(str)):
        rows = has
    else:
        pos = {label_key(v): i for i, v in enumerate(ids)}
        rows = np.array([pos.get(label_key(tids[i]), -1) for i in has], dtype=np.int64)
        if (rows < 0).any():
            raise DataError(f"{path}: sample id {tids[has[rows < 0][0]]!r} is not one of round "
                            f"#{round_id}'s (another round's table?)")
    keep = np.isin(design.selection[rows], LABELLED)
    rows, values = rows[keep], table.human_label[has[keep]]
    classes = {label_key(c): c for c in design.data.labels}
    current = ws.round_labels(round_id)
    new_rows, new_labels = [], []
    for r, v in zip(rows.tolist(), values):
        key = label_key(v)
        if key not in classes:
            raise DataError(f"{path}: label {v!r} is not one of the dataset's classes "
                            f"({', '.join(sorted(classes))}); nothing was imported")
        if r in current:  # the round's label stays (a tie withdrawn stays withdrawn)
            continue
        new_rows.append(r)
        new_labels.append(classes[key])
    if new_rows:
        R.import_labels(ws, round_id, np.asarray(new_rows, dtype=np.int64), new_labels,
                        source="table", file_name=str(path),
                        notices=[f"{len(new_rows):,} labels read from the round's table {path}"])
        col = table.data.roles.get("human_label") or "human_label"
        if say:
            print(f"note: {len(new_rows):,} labels taken first from column '{col}' of {path} "
                  "(cells written into the table, or a gold column the table carries), into "
                  f"round #{round_id}", file=sys.stderr)
    return len(new_rows)


def gold_warning(ws, round_id: int, out) -> str | None:
    """The warning ``hmceval queue --round`` prints when the round's table ``out`` carries
    values in its human-label column (the dataset's gold) on rows to label that the round has
    no label for: the next ``labels``, ``certify`` or ``estimate`` reads them as returned
    labels (a page-planned round's gold went in silently and the import said "0 labels
    imported"). None when there are none."""
    import numpy as np

    table, design, rnd, col = round_table(ws, round_id)
    if col not in table.columns:
        return None
    queued = np.isfinite(np.asarray(rnd["queue_rank"], dtype=float))
    held = np.zeros(len(table), dtype=bool)
    held[list(ws.round_labels(round_id))] = True
    n = int((queued & ~held & table[col].notna().to_numpy()).sum())
    if not n:
        return None
    return (f"column '{col}' of {out} (the dataset's human label) holds a value on {n:,} of the "
            f"{int(queued.sum()):,} rows to label that round #{round_id} has no label for; "
            "hmceval labels, certify and estimate read them as returned labels (a gold column "
            f"standing in for a finished round): for a real round, empty that column in {out} "
            "before importing labels")


def round_table(ws, round_id: int):
    """``(table, design, rnd, human_col)``: the round's table as the command line writes it:
    the dataset as stored, ``selection``, ``queue_rank`` (and ``inclusion_probability``), the
    round's labels in the human-label column (the dataset's values where it has none)."""
    import numpy as np
    import pandas as pd

    from core.evaluation.sampling import queue_table
    from core.workspace import rounds as R

    rnd, design = R.round_design(ws, round_id)
    col = ws.dataset(rnd["dataset_id"])["roles"].get("human_label") or "human_label"
    table = queue_table(design, design.selection, rnd["queue_rank"], inclusion=design.inclusion)
    labels = ws.round_labels(round_id)
    if labels:
        values = (table[col].to_numpy(dtype=object, copy=True) if col in table.columns
                  else np.full(len(table), None, dtype=object))
        for row, value in labels.items():
            values[row] = value
        table[col] = pd.Series(values, index=table.index, dtype=object)
    double = ws.latest_result(round_id, "double")
    if double is not None:  # the rows labelled twice (hmceval queue --double K)
        from core.evaluation.annotators import DOUBLE_COLUMN

        mark = np.zeros(len(table), dtype=bool)
        mark[np.asarray(double["rows"], dtype=np.int64)] = True
        table[DOUBLE_COLUMN] = mark
    stream = ws.latest_result(round_id, "stream")
    if stream is not None:  # a labelling stream: what its confidence sequences need
        from core.evaluation.sampling import DRAW_PROBABILITY, DRAW_WEIGHT

        p = np.full(len(table), np.nan)
        p[np.asarray(stream["order"], dtype=np.int64)] = stream["draw_probability"]
        table[DRAW_PROBABILITY] = p
        table[DRAW_WEIGHT] = np.asarray(stream["weights"], dtype=float)
    return table, design, rnd, col


def export_round(ws, round_id: int, path: str | Path, *, to_label: bool = True,
                 show: list[str] | None = None) -> Path | None:
    """Write the round's table to ``path`` (atomic, its sidecar naming the round) and, with
    ``to_label``, beside it ``*_to_label.csv``: the rows still to label, in queue order, blind
    (the sample id, ``queue_rank``, the text columns and the ``show`` columns; a round with
    double rows: column ``annotator``, every row for ``1`` and the double rows again for
    ``2``, nothing marking them). Returns the latter's path (None without it)."""
    import numpy as np

    from core.cli.round_table import write_round_table
    from core.csv_safe import to_csv_safe
    from core.evaluation.sampling import shown_columns
    from core.evaluation.sampling import LABELLED, annotator_table
    from core.evaluation.annotators import annotator_copies

    table, design, rnd, col = round_table(ws, round_id)
    shown_columns(design.data, show, selection_column=design.selection_column,
                  hidden=design.hidden)  # a bad --show before any file
    id_col = design.data.roles.get("sample_id") or (
        "sample_id" if "sample_id" in table.columns else None)
    out = Path(path)
    write_round_table(table, out, id_col=id_col, link=link_of(ws, round_id))
    if not to_label:
        return None
    done = np.isin(design.selection, LABELLED) & design.has_label
    sent = out.with_name(f"{out.stem}_to_label.csv")
    people = annotator_table(design, design.selection, rnd["queue_rank"], done=done, show=show)
    double = ws.latest_result(round_id, "double")
    if double is not None:  # annotator 1 gets every row, annotator 2 the double rows too
        ids = design.sample_ids()[np.asarray(double["rows"], dtype=np.int64)]
        people = annotator_copies(people, design.data.roles.get("sample_id") or "sample_id",
                                  ids)
    to_csv_safe(people, sent)
    return sent


def round_note(ws, round_id: int) -> str:
    """``round #ID in the workspace DIR`` (what the commands print)."""
    return f"round #{int(round_id)} in the workspace {ws.root}"


def print_results(args: argparse.Namespace, results: list, print_text) -> None:
    """One JSON object per result (``--json``: a list when several), else
    ``print_text(path, result)`` for each path."""
    from core.cli.common import print_json

    if args.json:
        print_json(results[0] if len(results) == 1 else results)
    else:
        for path, res in zip(args.paths, results):
            print_text(path, res)
