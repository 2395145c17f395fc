"""The round behind any round table the command line is given: a table of no round is taken in
as a round first (issue 32: "a round is always recorded").

``certify``, ``labels``, ``labelstudio pull``, ``estimate`` and ``queue`` (on a table that has a
selection already) run one path: :func:`round_step` yields the workspace round of the table
(its sidecar's, or ``--round ID``'s), and for a table whose sidecar names no round it first
stores the round the table describes (:func:`core.workspace.adopt.adopt_design`) and writes the
table's sidecar naming it (``PATH.round.json``, :func:`core.cli.round_table.link_table`), in the
same step (:func:`core.cli.step.one_step`) as the command's own rows and files: a failure or a
kill leaves the workspace and the files both as before or both as after. A re-run then
continues the same round.

The workspace of a new round: ``--workspace DIR``, else ``$HMCEVAL_WORKSPACE``, else (none
named) the folder ``hmceval-workspace`` beside the table (:data:`BESIDE`), so that a table
worked on alone keeps its record next to it; its sidecar names that folder, and a later command
on the table with no workspace named opens it (:func:`core.cli.rounds.open_round`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["BESIDE", "adopting_workspace", "round_step"]

#: the folder of the workspace a table's round is recorded in when no workspace is named
BESIDE = "hmceval-workspace"


def adopting_workspace(args: argparse.Namespace, path: str):
    """The workspace a table of no round is taken into (see the module's docstring), its
    interrupted steps repaired first."""
    from core.cli.cmd_workspace import named_workspace, open_workspace

    if named_workspace(args):
        return open_workspace(args)
    beside = argparse.Namespace(**{**vars(args),
                                   "workspace": str(Path(path).resolve().parent / BESIDE)})
    return open_workspace(beside)


@contextmanager
def round_step(args: argparse.Namespace, path: str | None, design, *,
               purpose: str = "continue", take_labels: bool = True) -> Iterator[tuple]:
    """``(workspace, round_id)`` of the table ``path`` (read as ``design``; None with
    ``--round ID``) for one step of a command, under the round's lock and inside
    :func:`core.cli.step.one_step`: a table of no round is taken in as a round first (its
    sidecar written with the step's files, the votes an older ``hmceval labels`` kept beside it
    and the labels of its human-label column on the rows it sends to humans taken in with it).
    With ``take_labels`` the labels written into the table of a round are taken into it first
    (:func:`core.cli.rounds.take_table_labels`)."""
    from core.cli.rounds import open_round, round_lock, take_table_labels
    from core.cli.step import one_step

    ref = open_round(args, path)
    if ref is not None:
        ws, rid = ref
        with round_lock(ws, rid), one_step(ws):
            if take_labels and design is not None:
                take_table_labels(ws, rid, design, path)
            yield ws, rid
        return
    from core.atomic import check_writable, locked, note_waiting
    from core.cli.round_table import link_table, round_link, sidecar_path
    from core.cli.rounds import link_of
    from core.errors import DataError
    from core.workspace.adopt import adopt_design

    check_writable(sidecar_path(path))  # the record of the round goes beside the table
    ws = adopting_workspace(args, path)
    if ws.read_only:
        raise DataError(f"{path} is a table of no round: its round is recorded in the "
                        f"workspace {ws.root}, which cannot be written; name a workspace you "
                        "can write with --workspace DIR")
    with locked(Path(ws.root) / "adopt", on_wait=note_waiting), one_step(ws):
        link = round_link(path)  # another command took it in meanwhile: that round
        if link is not None and link != link_of(ws, link["round_id"]):
            raise DataError(f"{path} was recorded meanwhile as round #{link['round_id']} of "
                            f"the workspace {link['workspace']}: run the command again")
        rid = link["round_id"] if link is not None else adopt_design(ws, design, str(path),
                                                                     purpose=purpose)
        with round_lock(ws, rid):
            if link is None:
                link_table(path, design.data.raw, id_col=design.data.roles.get("sample_id"),
                           link=link_of(ws, rid))
                _carry_votes(args, ws, rid, path)
            # a round just taken in holds the table's labels (its record); one taken in by
            # another command meanwhile is continued as any round
            n = take_table_labels(ws, rid, design, path, say=link is not None) \
                if take_labels or link is None else 0
            yield ws, rid
    if link is None:  # said once the step is done (a failed step recorded nothing)
        print(f"note: {path} named no round: recorded as round #{rid} in the workspace "
              f"{ws.root}" + (f" with the {n:,} labels of its human-label column" if n else "")
              + f" (its sidecar {sidecar_path(path).name} names it; the next command on the "
              "table continues it)", file=sys.stderr)


def _carry_votes(args: argparse.Namespace, ws, rid: int, path: str) -> int:
    """The votes an older ``hmceval labels`` kept beside a table of no round
    (``PATH.labels.csv``: every annotator's label) imported into the round just recorded, so
    the next import aggregates with them as it did; how many (0 without that file)."""
    from core.evaluation.labels import LabelImport, read_votes, votes_path
    from core.workspace.rounds import import_joined

    file = votes_path(path)
    votes = read_votes(file)  # text; annotator "" is the one unnamed annotator
    if votes is None or not len(votes):
        return 0
    imported = LabelImport(source="table", sample_id=tuple(votes["sample_id"]),
                           annotator=tuple(votes["annotator"]), label=tuple(votes["label"]),
                           where=tuple(f"{file.name} row {i + 1}" for i in range(len(votes))),
                           n_tasks=len(votes), seconds=tuple(votes["seconds"].astype(float)))
    import_joined(ws, rid, imported, file_name=str(file),
                  aggregate=getattr(args, "aggregate", "majority"),
                  gold_annotator=getattr(args, "gold_annotator", None))
    return len(votes)
