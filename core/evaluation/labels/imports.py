"""Human labels coming back from an annotation round, joined to the round's rows.

The public entry points of returned labels:

* :func:`labels_from_table`: a table the user uploads (CSV): a ``sample_id`` column, a label
  column and optionally an annotator column;
* :func:`labels_from_labelstudio` (from :mod:`core.evaluation.labelstudio.export`): Label Studio's JSON
  export of a project;
* :func:`join_labels`: a :class:`LabelImport` (:mod:`core.evaluation.labels.form`, one entry per
  (sample, annotator) label plus the skipped annotations) joined to a dataset by sample id
  (compared as text by :func:`label_key`, so that the integer ids of a table match the strings
  of a CSV or of Label Studio); the label text is mapped to the dataset's class values
  (``str(class)``), several annotators per sample are resolved by majority vote (a tie is left
  unlabelled and reported for adjudication) and their agreement is measured
  (:mod:`core.evaluation.annotators.agreement`);
* :func:`apply_labels`: the round's table with the joined labels written in, refused as a whole
  when a label falls outside the round's queue (:func:`refuse_outside_queue`, also the
  workspace's check).

Every function is pure: on an error nothing is returned, so nothing partial can be applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.evaluation.annotators.aggregate import aggregate_labels
from core.evaluation.annotators.agreement import Agreement, agreement
from core.evaluation.sampling.design import LABELLED, queue_table
from core.evaluation.labels.form import LabelImport
from core.data.keys import is_missing, label_key, some_values
from core.evaluation.labels.votes import check_seconds
from core.validate import label_text

__all__ = ["JoinedLabels", "labels_from_table", "join_labels", "apply_labels",
           "refuse_outside_queue"]

#: Row states of :attr:`JoinedLabels.state`.
STATES = ("labelled", "tie", "skipped", "")


@dataclass(frozen=True, eq=False)
class JoinedLabels:
    """Imported labels joined to the rows of a dataset.

    Attributes
    ----------
    label : pandas.Series of shape (M,), dtype object
        The resolved label of every dataset row as the dataset's class value (majority vote of
        its annotators), ``None`` where there is none (no label, a tie, only skips). RangeIndex,
        name ``"human_label"``.
    state : numpy.ndarray of shape (M,), dtype object
        ``"labelled"``, ``"tie"`` (annotators disagree with no majority: needs adjudication),
        ``"skipped"`` (only skipped/cancelled annotations) or ``""`` (nothing returned).
    n_annotators : numpy.ndarray of shape (M,), dtype int64
        Number of annotators who labelled each row (skips not counted).
    n_skips : numpy.ndarray of shape (M,), dtype int64
        Number of skipped/cancelled annotations of each row.
    votes : pandas.DataFrame of shape (L, 5)
        One line per label: ``row`` (0-based dataset row), ``sample_id``, ``annotator``,
        ``label`` (class value), ``seconds`` (NaN where unknown).
    adjudication : tuple of str
        Sample ids whose annotators tie.
    agreement : Agreement or None
        None when no sample has two labels.
    counts : dict
        ``rows`` (M), ``labels`` (L), ``labelled`` (rows with a resolved label), ``ties``,
        ``skipped`` (rows with only skips), ``skips`` (skipped/cancelled annotations),
        ``multi`` (rows with two or more labels), ``annotators`` (distinct annotators),
        ``unannotated`` (Label Studio tasks nobody annotated yet), ``gold`` (rows with a gold
        annotator's label).
    aggregate : str
        How the labels were aggregated (``"majority"``, ``"dawid-skene"``).
    gold_annotator : str or None
    notices : tuple of str
        Plain-words remarks, for the page and the CLI.
    """

    label: pd.Series
    state: np.ndarray
    n_annotators: np.ndarray
    n_skips: np.ndarray
    votes: pd.DataFrame
    adjudication: tuple[str, ...]
    agreement: Agreement | None
    counts: dict[str, int]
    notices: tuple[str, ...] = field(default_factory=tuple)
    aggregate: str = "majority"
    gold_annotator: str | None = None

    @property
    def has_label(self) -> np.ndarray:
        """Bool array of shape (M,): the row has a resolved label."""
        return self.state == "labelled"


# --------------------------------------------------------------------------- table (CSV)

def labels_from_table(df: pd.DataFrame, *, sample_id_col: str = "sample_id", label_col: str,
                      annotator_col: str | None = None,
                      time_col: str | None = None) -> LabelImport:
    """Labels from a table the user uploads.

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_rows, n_columns)
        The loaded table.
    sample_id_col : str, default="sample_id"
        Column holding the sample id of each label.
    label_col : str
        Column holding the label (as the dataset writes its classes).
    annotator_col : str, optional
        Column naming the annotator; without it each sample may appear once.
    time_col : str, optional
        Column holding the seconds each label took (empty cells: unknown); negative, text or
        absurd times are refused (:func:`core.evaluation.labels.votes.check_seconds`).

    Returns
    -------
    LabelImport
        Rows with an empty label cell are left out (reported in the notices): a partial file
        is allowed.

    Raises
    ------
    DataError
        A missing column (naming it and the available ones), an empty sample id or annotator
        (naming the rows), two rows for one sample and one annotator (naming the rows).
    """
    if not isinstance(df, pd.DataFrame):
        raise DataError("the labels must be a table (CSV) with a sample id and a label column")
    wanted = [("sample id", sample_id_col), ("label", label_col)]
    if annotator_col is not None:
        wanted.append(("annotator", annotator_col))
    if time_col is not None:
        wanted.append(("time", time_col))
    missing = [f"'{col}' ({role})" for role, col in wanted if col not in df.columns]
    if missing:
        raise DataError(f"the labels table lacks column {', '.join(missing)}; available: "
                        f"{', '.join(map(str, df.columns)) or '(none)'}")
    if len({sample_id_col, label_col, annotator_col, time_col} - {None}) < len(wanted):
        raise DataError("the sample id, label, annotator and time columns must be different "
                        "columns")
    ids = df[sample_id_col].tolist()
    labels = df[label_col].tolist()
    annotators = df[annotator_col].tolist() if annotator_col is not None else [""] * len(df)
    no_id = [i for i, v in enumerate(ids) if is_missing(v)]
    if no_id:
        raise DataError(f"column '{sample_id_col}' (sample id) is empty on "
                        f"{describe_rows(no_id)}; every label needs the sample id it belongs to")
    if annotator_col is not None:
        no_ann = [i for i, v in enumerate(annotators) if is_missing(v)]
        if no_ann:
            raise DataError(f"column '{annotator_col}' (annotator) is empty on "
                            f"{describe_rows(no_ann)}")
    keep = [i for i, v in enumerate(labels) if not is_missing(v)]
    notices = []
    if len(keep) < len(df):
        empty = [i for i in range(len(df)) if is_missing(labels[i])]
        notices.append(f"{len(empty)} rows have no label in column '{label_col}' and are left "
                       f"out ({describe_rows(empty)})")
    sid = [label_key(ids[i]) for i in keep]
    ann = [label_key(annotators[i]) if annotator_col is not None else "" for i in keep]
    seen: dict[tuple[str, str], list[int]] = {}
    for i, key in zip(keep, zip(sid, ann)):
        seen.setdefault(key, []).append(i)
    dups = [(key, rows) for key, rows in seen.items() if len(rows) > 1]
    if dups:
        (s, a), rows = dups[0]
        who = f" by annotator '{a}'" if annotator_col is not None else ""
        hint = "" if annotator_col is not None else \
            " (several annotators per sample need an annotator column)"
        more = f" ({len(dups)} samples are repeated in all)" if len(dups) > 1 else ""
        raise DataError(f"the labels table has more than one row for sample_id '{s}'{who}: "
                        f"{describe_rows(rows)}{more}; keep one row per sample and annotator"
                        f"{hint}")
    seconds: tuple[float, ...] = ()
    if time_col is not None:
        t = pd.to_numeric(df[time_col].where(~df[time_col].map(is_missing)), errors="coerce")
        text = [i for i in keep if pd.isna(t.iat[i]) and not is_missing(df[time_col].iat[i])]
        if text:
            raise DataError(f"column '{time_col}' (seconds per label) is not a number on "
                            f"{describe_rows(text)}; nothing was imported")
        seconds = tuple(float(t.iat[i]) for i in keep)
        check_seconds(seconds, [f"row {i + 1}" for i in keep])
    return LabelImport(source="table", sample_id=tuple(sid), annotator=tuple(ann),
                       label=tuple(label_key(labels[i]) for i in keep),
                       where=tuple(f"row {i + 1}" for i in keep), n_tasks=len(df),
                       notices=tuple(notices), seconds=seconds)


# --------------------------------------------------------------------------- join

def join_labels(imported: LabelImport, *, sample_ids: Sequence[Any] | np.ndarray,
                classes: Sequence[Any], aggregate: str = "majority",
                gold_annotator: str | None = None) -> JoinedLabels:
    """Join imported labels to the rows of a dataset and resolve several annotators.

    Parameters
    ----------
    imported : LabelImport
    sample_ids : array-like of shape (M,)
        The dataset's sample id of each row (:meth:`core.evaluation.sampling.design.Design.sample_ids`);
        compared with the imported ids as text.
    classes : sequence
        The dataset's class values; an imported label matches class ``c`` when it equals
        ``str(c)`` (or ``c`` written without a trailing ``.0``).
    aggregate : {"majority", "dawid-skene"}, default="majority"
        How several annotators' labels become one (:mod:`core.evaluation.annotators.aggregate`).
    gold_annotator : str, optional
        The annotator whose labels are gold (an adjudicator, an expert): their label is the
        row's label, and Dawid-Skene holds it fixed; they are not counted in the agreement.

    Returns
    -------
    JoinedLabels
        Each row's label is the aggregate of its annotators; a tie leaves it unlabelled
        (state ``"tie"``) and lists it for adjudication.

    Raises
    ------
    DataError
        Sample ids not in the dataset (naming them), labels not among the classes (naming them
        and the classes), dataset sample ids that repeat, classes that read the same as text.
    """
    ids = [label_key(v) for v in np.asarray(sample_ids, dtype=object)]
    m = len(ids)
    row_of: dict[str, int] = {}
    repeated: list[int] = []
    for i, s in enumerate(ids):
        if s in row_of:
            repeated.append(i)
        else:
            row_of[s] = i
    if repeated:
        raise DataError(f"the dataset's sample ids repeat ({describe_rows(repeated)} repeat "
                        f"'{ids[repeated[0]]}'); labels are joined by sample id, which must be "
                        "unique")
    classes = list(classes)
    by_text: dict[str, Any] = {}
    for c in classes:
        for t in {str(c), label_key(c), label_text(c)}:
            if t in by_text and by_text[t] != c:
                raise DataError(f"classes {by_text[t]!r} and {c!r} read the same as text "
                                f"('{t}'); labels cannot be told apart")
            by_text[t] = c
    # unknown sample ids (labels and skips)
    unknown: dict[str, str] = {}
    for s, w in list(zip(imported.sample_id, imported.where)) + \
            [(s, w) for s, _, w in imported.skipped]:
        if s not in row_of and s not in unknown:
            unknown[s] = w
    if unknown:
        first = list(unknown.items())[:5]
        shown = ", ".join(f"'{s}' ({w})" for s, w in first)
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise DataError(f"{len(unknown)} sample ids of the labels are not in the dataset: "
                        f"{shown}{more}; the labels belong to another dataset or the sample_id "
                        "column is mapped differently")
    bad: dict[str, list[str]] = {}
    for lab, s in zip(imported.label, imported.sample_id):
        if lab not in by_text and label_text(lab) not in by_text:  # "1.0" is the class 1
            bad.setdefault(lab, []).append(s)
    if bad:
        shown = "; ".join(f"'{lab}' (sample ids {some_values(ss, 3)})" for lab, ss in
                          list(bad.items())[:5])
        raise DataError(f"{len(bad)} label value{'' if len(bad) == 1 else 's'} not among the "
                        f"dataset's classes: {shown}; the "
                        f"classes are {', '.join(repr(str(c)) for c in classes)}")
    per_row: dict[int, dict[str, Any]] = {}
    rows, vote_lab = [], []
    for s, a, lab in zip(imported.sample_id, imported.annotator, imported.label):
        r = row_of[s]
        c = by_text[lab] if lab in by_text else by_text[label_text(lab)]
        per_row.setdefault(r, {})[a] = c
        rows.append(r)
        vote_lab.append(c)
    n_skips = np.zeros(m, dtype=np.int64)
    for s, _, _ in imported.skipped:
        n_skips[row_of[s]] += 1
    label = np.full(m, None, dtype=object)
    state = np.full(m, "", dtype=object)
    n_ann = np.zeros(m, dtype=np.int64)
    for r, votes in per_row.items():
        n_ann[r] = len(votes)
    agg = _aggregate(per_row, m, classes, aggregate, gold_annotator)
    for r in np.flatnonzero(agg.tie):
        state[r] = "tie"
    for r in np.flatnonzero(agg.label >= 0):
        state[r] = "labelled"
        label[r] = classes[agg.label[r]]
    ties = [int(r) for r in np.flatnonzero(agg.tie)]
    state[(state == "") & (n_skips > 0)] = "skipped"
    agree = agreement([{a: v for a, v in per_row[r].items() if a != gold_annotator}
                       for r in sorted(per_row)])
    votes_df = pd.DataFrame({"row": np.asarray(rows, dtype=np.int64),
                             "sample_id": list(imported.sample_id),
                             "annotator": list(imported.annotator),
                             "label": pd.Series(vote_lab, dtype=object),
                             "seconds": imported.times()})
    counts_out = {"rows": m, "labels": imported.n_labels,
                  "labelled": int((state == "labelled").sum()), "ties": len(ties),
                  "skipped": int((state == "skipped").sum()), "skips": len(imported.skipped),
                  "multi": int((n_ann >= 2).sum()),
                  "annotators": len(set(imported.annotator)),
                  "unannotated": len(imported.unannotated),
                  "gold": sum(1 for v in per_row.values() if gold_annotator in v)}
    notices = list(imported.notices)
    notices.append(f"{counts_out['labelled']:,} of {m:,} rows have a label from this import"
                   + (f" ({imported.n_labels:,} labels in all)"
                      if imported.n_labels != counts_out["labelled"] else ""))
    if ties:
        notices.append(f"{len(ties)} samples need adjudication: their annotators tie with no "
                       f"majority (sample ids {some_values([ids[r] for r in ties])}); they stay "
                       "unlabelled")
    if counts_out["skipped"]:
        sk = np.flatnonzero(state == "skipped")
        notices.append(f"{len(sk)} samples were skipped or cancelled by every annotator who "
                       f"opened them (sample ids {some_values([ids[r] for r in sk])}); they stay "
                       "unlabelled")
    elif imported.skipped:
        notices.append(f"{len(imported.skipped)} skipped/cancelled annotations on samples that "
                       "others labelled")
    if imported.unannotated:
        notices.append(f"{len(imported.unannotated)} tasks have no annotation yet")
    if agree is not None:
        notices.append(agree.describe())
    return JoinedLabels(label=pd.Series(label, dtype=object, name="human_label"), state=state,
                        n_annotators=n_ann, n_skips=n_skips, votes=votes_df,
                        adjudication=tuple(ids[r] for r in ties), agreement=agree,
                        counts=counts_out, notices=tuple(notices), aggregate=aggregate,
                        gold_annotator=gold_annotator)


def _aggregate(per_row: dict[int, dict[str, Any]], m: int, classes: list, method: str,
               gold_annotator: str | None):
    """:func:`core.evaluation.annotators.aggregate.aggregate_labels` over ``row -> {annotator: class}``;
    the gold annotator's labels are the gold codes."""
    code = {c: i for i, c in enumerate(classes)}
    names = sorted({a for v in per_row.values() for a in v if a != gold_annotator})
    who = {a: i for i, a in enumerate(names)}
    item, ann, lab = [], [], []
    gold = np.full(m, -1, dtype=np.int64)
    for r, votes in per_row.items():
        for a, c in votes.items():
            if a == gold_annotator:
                gold[r] = code[c]
            else:
                item.append(r)
                ann.append(who[a])
                lab.append(code[c])
    return aggregate_labels(item, ann, lab, n_items=m, n_annotators=max(len(names), 1),
                            n_classes=max(len(classes), 1), method=method, gold=gold)


# --------------------------------------------------------------------------- into a table

def refuse_outside_queue(selection: np.ndarray, rows: Sequence[int] | np.ndarray, *,
                         nothing: str = "written", ids: np.ndarray | None = None) -> None:
    """Refuse labels for rows a round does not send to humans.

    Parameters
    ----------
    selection : array-like of str, shape (M,)
        The round's selection of every row (:data:`core.evaluation.sampling.design.LABELLED` values are
        labelled by humans; ``machine`` and ``""`` (undecided) are not).
    rows : array-like of int
        0-based rows that received a label.
    nothing : str, default="written"
        The verb of the message's last words (``"nothing was written"``, ``"... imported"``).
    ids : array of shape (M,), optional
        The sample id of every row: the message names the first one by it.

    Raises
    ------
    DataError
        When a row is outside the queue, naming how many, the first (1-based) and its
        selection.
    """
    selection = np.asarray(selection, dtype=object)
    rows = np.asarray(rows, dtype=np.int64)
    outside = rows[~np.isin(selection[rows], LABELLED)]
    if len(outside):
        first = outside[0]
        which = (f"sample id {ids[first]!r} ({describe_rows(outside[:1])})" if ids is not None
                 else describe_rows(outside[:1]))
        stale = (" Is this file from another round? Each round has its own queue."
                 if len(outside) == len(rows) else "")
        raise DataError(f"{len(outside):,} labelled rows are not in the round's queue (for "
                        f"example {which}, selection '{selection[first] or 'undecided'}'); "
                        f"nothing was {nothing}.{stale}")


def apply_labels(design, joined: JoinedLabels) -> tuple[pd.DataFrame, dict[str, int]]:
    """The round's table with the joined labels written into its human-label column.

    Parameters
    ----------
    design : core.evaluation.sampling.design.Design
        The round (it must have a selection).
    joined : JoinedLabels
        Labels joined to the same rows (:func:`join_labels` with ``design.sample_ids()``).

    Returns
    -------
    (DataFrame, dict)
        The table (every original column; the mapped human-label column, or a new
        ``human_label`` column, holds the labels: earlier ones are kept unless the import gives
        a new one) and the progress: ``to_label`` (calibration, routed and audit rows),
        ``labelled``, ``imported``.

    Raises
    ------
    DataError
        Labels for rows the round does not send to humans (naming how many and the first).
    """
    if not design.has_selection:
        raise DataError("the table has no 'selection' column: labels go into a round planned "
                        "with hmceval queue or certify")
    new = joined.has_label
    refuse_outside_queue(design.selection, np.flatnonzero(new), nothing="written",
                         ids=design.sample_ids())
    col = design.data.roles.get("human_label") or "human_label"
    out = queue_table(design, design.selection)
    current = np.where(np.isin(design.selection, LABELLED), design.human_label, None)
    current = np.where(joined.state == "tie", None, current)  # its votes no longer agree
    values = np.where(new, joined.label.to_numpy(dtype=object), current)
    out[col] = pd.Series(values, index=out.index, dtype=object)
    need = np.isin(design.selection, LABELLED)
    have = np.array([v is not None for v in values], dtype=bool)
    return out, {"to_label": int(need.sum()), "labelled": int((need & have).sum()),
                 "imported": int(new.sum())}
