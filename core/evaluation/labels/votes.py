"""Every annotator's label, kept across imports: the votes behind a round's human labels.

A campaign's labels arrive in several files (one per annotator, a Label Studio export pulled
again later). :func:`merge_votes` adds one import (:class:`core.evaluation.labels.form.LabelImport`)
to the votes already stored, one vote per (sample, annotator):

* a vote already stored with the same label is unchanged (re-importing a file changes nothing);
* a new (sample, annotator) is added;
* the same annotator giving another label for a sample replaces their earlier label, and the
  result says so (how many, which samples).

The merged votes go back into a :class:`LabelImport` (:func:`votes_import`) that
:func:`core.evaluation.labels.imports.join_labels` aggregates: the table's human label is the
aggregate of every vote, not of the last file. The command line keeps the votes in a CSV beside
the round table (:func:`votes_path`, ``OUT.labels.csv``); the workspace keeps them in SQLite.

Times: a label's ``seconds`` (Label Studio's ``lead_time``, a table's time column) must be
finite, not negative and at most :data:`MAX_SECONDS`; :func:`check_seconds` names the rows.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from core.csv_safe import neutralise_formulas, restore_formulas
from core.errors import DataError
from core.evaluation.labels.form import LabelImport
from core.data.keys import some_values

__all__ = ["VOTE_COLUMNS", "MAX_SECONDS", "MergedVotes", "merge_votes", "votes_frame",
           "votes_import", "votes_path", "read_votes", "write_votes", "check_seconds"]

VOTE_COLUMNS = ("sample_id", "annotator", "label", "seconds")
#: The longest time one label may take (a day): longer is a clock or unit error.
MAX_SECONDS = 86_400.0
VOTES_SUFFIX = ".labels.csv"


def check_seconds(seconds, where) -> None:
    """Refuse negative, infinite or absurd (over :data:`MAX_SECONDS`) times, naming where.

    Parameters
    ----------
    seconds : array-like of float, shape (L,)
        NaN marks an unknown time (accepted).
    where : sequence of str, shape (L,)
        Where each time was read (``"row 5"``, ``"task 17"``).
    """
    t = np.asarray(seconds, dtype=float)
    bad = np.flatnonzero(~np.isnan(t) & ((t < 0) | ~np.isfinite(t) | (t > MAX_SECONDS)))
    if len(bad):
        shown = ", ".join(f"{where[i]} ({t[i]:g})" for i in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise DataError(f"{len(bad)} label times are negative or absurd (over "
                        f"{MAX_SECONDS:,.0f} seconds): {shown}{more}; times are seconds per "
                        "label; nothing was imported")


def votes_frame(imported: LabelImport) -> pd.DataFrame:
    """The votes of one import as a table (:data:`VOTE_COLUMNS`; text ids, labels)."""
    return imported.frame()[list(VOTE_COLUMNS)]


def _empty() -> pd.DataFrame:
    return pd.DataFrame({"sample_id": pd.Series(dtype=object),
                         "annotator": pd.Series(dtype=object),
                         "label": pd.Series(dtype=object), "seconds": pd.Series(dtype=float)})


@dataclass(frozen=True, eq=False)
class MergedVotes:
    """Stored votes plus one import.

    Attributes
    ----------
    votes : pandas.DataFrame
        Every vote (:data:`VOTE_COLUMNS`), stored ones first in their order, then new ones.
    new, same : int
        Votes the import added, and votes it repeated unchanged.
    changed : tuple of (sample_id, annotator, old label, new label)
        Votes the import replaced.
    notices : tuple of str
    """

    votes: pd.DataFrame
    new: int
    same: int
    changed: tuple[tuple[str, str, str, str], ...]
    notices: tuple[str, ...]

    @property
    def unchanged(self) -> bool:
        """The import adds or changes no label."""
        return self.new == 0 and not self.changed


def merge_votes(stored: pd.DataFrame | None, imported: LabelImport) -> MergedVotes:
    """Add one import's votes to the stored ones (see the module docstring).

    Parameters
    ----------
    stored : pandas.DataFrame or None
        Earlier votes (:data:`VOTE_COLUMNS`), None for none.
    imported : LabelImport

    Returns
    -------
    MergedVotes
    """
    old = _empty() if stored is None or not len(stored) else stored[list(VOTE_COLUMNS)].copy()
    old = old.reset_index(drop=True)
    index = {(s, a): i for i, (s, a) in enumerate(zip(old["sample_id"], old["annotator"]))}
    labels = old["label"].tolist()
    seconds = old["seconds"].astype(float).tolist()
    add: list[tuple[str, str, str, float]] = []
    changed: list[tuple[str, str, str, str]] = []
    same = 0
    for s, a, lab, t in zip(imported.sample_id, imported.annotator, imported.label,
                            imported.times()):
        i = index.get((s, a))
        if i is None:
            add.append((s, a, lab, float(t)))
            continue
        if labels[i] == lab:
            same += 1
        else:
            changed.append((s, a, labels[i], lab))
            labels[i] = lab
        if not math.isnan(t):
            seconds[i] = float(t)
    merged = pd.DataFrame({"sample_id": old["sample_id"].tolist() + [x[0] for x in add],
                           "annotator": old["annotator"].tolist() + [x[1] for x in add],
                           "label": labels + [x[2] for x in add],
                           "seconds": seconds + [x[3] for x in add]})
    notices: list[str] = []
    if len(old):
        notices.append(f"{len(add):,} new labels added to {len(old):,} stored ones"
                       + (f"; {same:,} were imported before, unchanged" if same else ""))
    if changed:
        who = sorted({a for _, a, _, _ in changed})
        named = ", ".join(f"'{a}'" if a else "(no annotator column)" for a in who[:5])
        notices.append(f"{len(changed):,} labels replace the same annotator's earlier label "
                       f"(annotator {named}; sample ids "
                       f"{some_values([s for s, _, _, _ in changed])}: "
                       + "; ".join(f"'{s}' {o} -> {n}" for s, _, o, n in changed[:3]) + ")")
    return MergedVotes(votes=merged, new=len(add), same=same, changed=tuple(changed),
                       notices=tuple(notices))


def votes_import(merged: MergedVotes, imported: LabelImport) -> LabelImport:
    """Every merged vote as one :class:`LabelImport` (the import's skips, tasks and notices
    kept), ready for :func:`core.evaluation.labels.imports.join_labels`."""
    v = merged.votes
    fresh = {(s, a): w for s, a, w in zip(imported.sample_id, imported.annotator,
                                          imported.where)}
    where = tuple(fresh.get((s, a), "an earlier import")
                  for s, a in zip(v["sample_id"], v["annotator"]))
    return replace(imported, sample_id=tuple(v["sample_id"]), annotator=tuple(v["annotator"]),
                   label=tuple(v["label"]), where=where,
                   seconds=tuple(v["seconds"].astype(float)),
                   notices=tuple(imported.notices) + merged.notices)


def votes_path(round_table: str | os.PathLike) -> Path:
    """Where the command line keeps a round table's votes: ``NAME.labels.csv`` beside it."""
    p = Path(round_table)
    return p.with_name(p.name + VOTES_SUFFIX)


def read_votes(path: str | os.PathLike) -> pd.DataFrame | None:
    """The votes stored at ``path`` (None when there is no such file).

    Raises
    ------
    DataError
        The file lacks a column of :data:`VOTE_COLUMNS` or cannot be read.
    """
    p = Path(path)
    if not p.is_file():
        return None
    try:
        df = pd.read_csv(p, dtype=str, keep_default_na=False, encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot read the stored labels {p}: {exc}") from None
    df = restore_formulas(df)
    missing = [c for c in VOTE_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(f"the stored labels {p} lack column {', '.join(missing)}: not written "
                        "by hmceval labels (move it away to start afresh)")
    df["seconds"] = pd.to_numeric(df["seconds"].replace("", np.nan), errors="coerce")
    return df[list(VOTE_COLUMNS)]


def write_votes(votes: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write the votes to ``path`` atomically (:func:`core.atomic.write_text`). Labels are
    written with formula cells neutralised (:mod:`core.csv_safe`), which :func:`read_votes`
    takes off again."""
    from core.atomic import write_text

    buf = io.StringIO()  # an annotator named "=cmd()" cannot run in a spreadsheet either
    neutralise_formulas(votes[list(VOTE_COLUMNS)]).to_csv(buf, index=False)
    write_text(path, buf.getvalue())
