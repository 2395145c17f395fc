"""Human labels coming back from an annotation round, in one standard form.

Two sources are read:

* a table the user uploads (CSV): a ``sample_id`` column, a label column and optionally an
  annotator column (:func:`labels_from_table`);
* Label Studio's JSON export of a project (``Export > JSON``, or ``GET
  /api/projects/<id>/export?exportType=JSON``): a list of tasks, each with its ``data``
  (holding the ``sample_id`` written by :func:`core.evaluation.labelstudio.tasks`) and its
  ``annotations``; every annotation has a ``result`` list (the choice is the item with
  ``"type": "choices"`` and ``"from_name": "label"``, its ``value.choices`` list),
  ``was_cancelled`` (true when the annotator skipped the task) and ``completed_by`` (the
  annotator's user id) (:func:`labels_from_labelstudio`).

Both give a :class:`LabelImport`: one entry per (sample, annotator) label, plus the skipped
(cancelled) annotations. :func:`join_labels` joins it to a dataset by sample id (compared as
text, so that the integer ids of a table match the strings of a CSV or of Label Studio), maps
the label text to the dataset's class values (``str(class)``), resolves several annotators
per sample by majority vote (a tie is left unlabelled and reported for adjudication) and
measures the annotators' agreement.

Every function is pure: on an error nothing is returned, so nothing partial can be applied.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows

__all__ = ["LabelImport", "Agreement", "JoinedLabels", "labels_from_table",
           "labels_from_labelstudio", "join_labels", "agreement", "apply_labels", "CHOICES_NAME"]

#: Name of the choices control written by :func:`core.evaluation.labelstudio.labelling_config`.
CHOICES_NAME = "label"

#: Row states of :attr:`JoinedLabels.state`.
STATES = ("labelled", "tie", "skipped", "")


def _text(v: Any) -> str:
    """A sample id or label as text: integral floats lose their ``.0`` (CSV readers turn an
    integer column with gaps into floats), strings are stripped."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer():
        return str(int(v))
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v).strip()


def _missing(v: Any) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)) and math.isnan(v):
        return True
    return isinstance(v, str) and not v.strip()


def _some(items: Sequence[Any], limit: int = 5) -> str:
    items = list(items)
    shown = ", ".join(repr(x) if isinstance(x, str) else str(x) for x in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


@dataclass(frozen=True)
class LabelImport:
    """Labels read from one file, not yet joined to a dataset.

    Attributes
    ----------
    source : {"table", "labelstudio"}
        Where the labels come from.
    sample_id : tuple of str, length L
        The sample id of each label, as text.
    annotator : tuple of str, length L
        Who gave each label (``""`` when the table has no annotator column).
    label : tuple of str, length L
        The label as text (a Label Studio choice value, a table cell).
    where : tuple of str, length L
        Where each label was read (``"row 5"`` of the table, ``"task 17"`` of the export), for
        error messages.
    skipped : tuple of (str, str, str)
        ``(sample_id, annotator, where)`` of every skipped or cancelled annotation.
    unannotated : tuple of str
        Sample ids of Label Studio tasks that nobody has annotated yet.
    n_tasks : int
        Tasks in the export, rows in the table.
    notices : tuple of str
        Plain-words remarks about what was read or left out.
    """

    source: str
    sample_id: tuple[str, ...]
    annotator: tuple[str, ...]
    label: tuple[str, ...]
    where: tuple[str, ...]
    skipped: tuple[tuple[str, str, str], ...] = ()
    unannotated: tuple[str, ...] = ()
    n_tasks: int = 0
    notices: tuple[str, ...] = ()

    @property
    def n_labels(self) -> int:
        """Number of labels (one per sample and annotator)."""
        return len(self.label)

    def frame(self) -> pd.DataFrame:
        """The labels as a table with columns ``sample_id``, ``annotator``, ``label``."""
        return pd.DataFrame({"sample_id": list(self.sample_id),
                             "annotator": list(self.annotator), "label": list(self.label)})


@dataclass(frozen=True)
class Agreement:
    """Agreement between annotators on the samples that several of them labelled.

    Attributes
    ----------
    method : {"cohen", "fleiss"}
        ``"cohen"``: Cohen's kappa, when exactly two annotators labelled every such sample
        (the same two). ``"fleiss"``: Fleiss' kappa otherwise (three or more annotators, or
        varying pairs), in its form for a varying number of raters per item (each item's
        agreement over its own raters' pairs; it is Fleiss' 1971 statistic when every item has
        the same number of raters).
    n_items : int
        Samples with at least two labels.
    n_annotators : int
        Distinct annotators on those samples.
    percent_agreement : float
        Mean over the items of the share of annotator pairs that agree (for two annotators:
        the share of items on which they agree), in [0, 1].
    kappa : float
        The chance-corrected agreement; NaN when undefined (chance agreement is 1: every label
        is the same class), as :func:`sklearn.metrics.cohen_kappa_score` returns.
    """

    method: str
    n_items: int
    n_annotators: int
    percent_agreement: float
    kappa: float

    @property
    def method_name(self) -> str:
        return "Cohen's kappa" if self.method == "cohen" else "Fleiss' kappa"

    def describe(self) -> str:
        """One plain sentence."""
        k = "undefined (every label is the same class)" if math.isnan(self.kappa) \
            else f"{self.kappa:.3f}"
        return (f"{self.n_annotators} annotators agree on {self.percent_agreement:.1%} of "
                f"{self.n_items} samples labelled more than once; {self.method_name} = {k}")


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
    votes : pandas.DataFrame of shape (L, 4)
        One line per label: ``row`` (0-based dataset row), ``sample_id``, ``annotator``,
        ``label`` (class value).
    adjudication : tuple of str
        Sample ids whose annotators tie.
    agreement : Agreement or None
        None when no sample has two labels.
    counts : dict
        ``rows`` (M), ``labels`` (L), ``labelled`` (rows with a resolved label), ``ties``,
        ``skipped`` (rows with only skips), ``skips`` (skipped/cancelled annotations),
        ``multi`` (rows with two or more labels), ``annotators`` (distinct annotators),
        ``unannotated`` (Label Studio tasks nobody annotated yet).
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

    @property
    def has_label(self) -> np.ndarray:
        """Bool array of shape (M,): the row has a resolved label."""
        return self.state == "labelled"


# --------------------------------------------------------------------------- table (CSV)

def labels_from_table(df: pd.DataFrame, *, sample_id_col: str = "sample_id", label_col: str,
                      annotator_col: str | None = None) -> LabelImport:
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
    missing = [f"'{col}' ({role})" for role, col in wanted if col not in df.columns]
    if missing:
        raise DataError(f"the labels table lacks column {', '.join(missing)}; available: "
                        f"{', '.join(map(str, df.columns)) or '(none)'}")
    if len({sample_id_col, label_col, annotator_col} - {None}) < len(wanted):
        raise DataError("the sample id, label and annotator columns must be different columns")
    ids = df[sample_id_col].tolist()
    labels = df[label_col].tolist()
    annotators = df[annotator_col].tolist() if annotator_col is not None else [""] * len(df)
    no_id = [i for i, v in enumerate(ids) if _missing(v)]
    if no_id:
        raise DataError(f"column '{sample_id_col}' (sample id) is empty on "
                        f"{describe_rows(no_id)}; every label needs the sample id it belongs to")
    if annotator_col is not None:
        no_ann = [i for i, v in enumerate(annotators) if _missing(v)]
        if no_ann:
            raise DataError(f"column '{annotator_col}' (annotator) is empty on "
                            f"{describe_rows(no_ann)}")
    keep = [i for i, v in enumerate(labels) if not _missing(v)]
    notices = []
    if len(keep) < len(df):
        empty = [i for i in range(len(df)) if _missing(labels[i])]
        notices.append(f"{len(empty)} rows have no label in column '{label_col}' and are left "
                       f"out ({describe_rows(empty)})")
    sid = [_text(ids[i]) for i in keep]
    ann = [_text(annotators[i]) if annotator_col is not None else "" for i in keep]
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
    return LabelImport(source="table", sample_id=tuple(sid), annotator=tuple(ann),
                       label=tuple(_text(labels[i]) for i in keep),
                       where=tuple(f"row {i + 1}" for i in keep), n_tasks=len(df),
                       notices=tuple(notices))


# --------------------------------------------------------------------------- Label Studio

def _annotator(completed_by: Any) -> str:
    if isinstance(completed_by, dict):
        for key in ("id", "email", "username"):
            if completed_by.get(key) not in (None, ""):
                return _text(completed_by[key])
        return ""
    return "" if completed_by is None else _text(completed_by)


def _choices(result: Any, where: str) -> list[Any]:
    """The choice values of one annotation's result (the ``label`` control)."""
    if not isinstance(result, list):
        raise DataError(f"{where}: the annotation's 'result' is not a list; not a Label Studio "
                        "JSON export")
    items = [r for r in result if isinstance(r, dict) and r.get("type") == "choices"]
    named = [r for r in items if r.get("from_name") == CHOICES_NAME]
    if not named and len({r.get("from_name") for r in items}) == 1:
        named = items  # one choices control under another name
    values: list[Any] = []
    for r in named:
        v = r.get("value")
        if not isinstance(v, dict) or not isinstance(v.get("choices"), list):
            raise DataError(f"{where}: a choices result without 'value.choices'; not a Label "
                            "Studio JSON export")
        values.extend(v["choices"])
    return values


def labels_from_labelstudio(export: Any) -> LabelImport:
    """Labels from Label Studio's JSON export of a project.

    Parameters
    ----------
    export : list of dict, or str / bytes
        The export (``exportType=JSON``) as parsed JSON, or its text. A list of tasks, each
        ``{"id": ..., "data": {"sample_id": ..., ...}, "annotations": [{"result": [{"from_name":
        "label", "type": "choices", "value": {"choices": ["..."]}}], "was_cancelled": bool,
        "completed_by": <user id>, ...}], ...}``.

    Returns
    -------
    LabelImport
        One label per task and annotator. Skipped tasks (``was_cancelled``) are listed in
        ``skipped``; tasks without annotations in ``unannotated``. An annotation with an empty
        result (submitted without a choice) is left out and reported; when one annotator
        annotated a task twice, their last annotation (highest id) is kept and reported.

    Raises
    ------
    DataError
        Not a list of tasks, a task without ``data.sample_id`` or ``annotations`` (naming the
        task), an annotation with several choices.
    """
    if isinstance(export, (bytes, bytearray)):
        export = export.decode("utf-8-sig")
    if isinstance(export, str):
        try:
            export = json.loads(export)
        except json.JSONDecodeError as e:
            raise DataError(f"the file is not JSON ({e.msg} at line {e.lineno}); a Label Studio "
                            "export is the project's JSON export (Export > JSON)") from None
    if not isinstance(export, list):
        hint = ""
        if isinstance(export, dict):
            hint = (f" (it is an object with keys {_some(sorted(map(str, export)))})")
        raise DataError("not a Label Studio JSON export: expected a list of tasks, each with "
                        f"'data' and 'annotations'{hint}")
    sid: list[str] = []
    ann: list[str] = []
    lab: list[str] = []
    where: list[str] = []
    ann_id: list[Any] = []
    skipped: list[tuple[str, str, str]] = []
    unannotated: list[str] = []
    empty: list[str] = []
    for n, task in enumerate(export):
        if not isinstance(task, dict):
            raise DataError(f"not a Label Studio JSON export: item {n + 1} of the list is not a "
                            "task object")
        name = f"task {task['id']}" if "id" in task else f"task {n + 1} of the file"
        missing = [k for k in ("data", "annotations") if k not in task]
        if missing:
            raise DataError(f"not a Label Studio JSON export: {name} lacks "
                            f"{' and '.join(repr(k) for k in missing)} (use the JSON export, "
                            "not JSON-MIN or CSV)")
        data = task["data"]
        if not isinstance(data, dict) or _missing(data.get("sample_id")):
            raise DataError(f"{name} has no data field 'sample_id': the project's tasks were not "
                            "imported from an HMCEval queue (each task's data needs the "
                            "sample_id that joins its label back)")
        s = _text(data["sample_id"])
        annotations = task["annotations"]
        if not isinstance(annotations, list):
            raise DataError(f"not a Label Studio JSON export: {name}'s 'annotations' is not a "
                            "list")
        if not annotations:
            unannotated.append(s)
        for a in annotations:
            if not isinstance(a, dict) or "result" not in a:
                raise DataError(f"not a Label Studio JSON export: an annotation of {name} has no "
                                "'result'")
            who = _annotator(a.get("completed_by"))
            if a.get("was_cancelled"):
                skipped.append((s, who, name))
                continue
            values = _choices(a.get("result"), name)
            if not values:
                empty.append(s)
                continue
            if len(values) > 1:
                raise DataError(f"{name} (sample_id '{s}'): annotator {who or '?'} chose "
                                f"{len(values)} labels {_some([str(v) for v in values])}; "
                                "each sample needs one label (single choice)")
            sid.append(s)
            ann.append(who)
            lab.append(_text(values[0]))
            where.append(name)
            ann_id.append(a.get("id"))
    notices: list[str] = []
    # one label per sample and annotator: keep the last annotation (highest id, else last read)
    last: dict[tuple[str, str], int] = {}
    for i, key in enumerate(zip(sid, ann)):
        j = last.get(key)
        if j is None:
            last[key] = i
        else:
            newer = i
            ints = (int, np.integer)
            if isinstance(ann_id[i], ints) and isinstance(ann_id[j], ints):
                newer = i if ann_id[i] >= ann_id[j] else j
            last[key] = newer
    if len(last) < len(sid):
        twice = sorted({sid[i] for i in range(len(sid)) if last[(sid[i], ann[i])] != i})
        notices.append(f"{len(sid) - len(last)} annotations repeat an annotator's label of the "
                       f"same sample (sample ids {_some(twice)}); the latest one of each is kept")
        keep = sorted(last.values())
        sid, ann, lab, where = ([x[i] for i in keep] for x in (sid, ann, lab, where))
    if empty:
        notices.append(f"{len(empty)} annotations were submitted without a choice and are left "
                       f"out (sample ids {_some(sorted(set(empty)))})")
    return LabelImport(source="labelstudio", sample_id=tuple(sid), annotator=tuple(ann),
                       label=tuple(lab), where=tuple(where), skipped=tuple(skipped),
                       unannotated=tuple(unannotated), n_tasks=len(export),
                       notices=tuple(notices))


# --------------------------------------------------------------------------- agreement

def agreement(items: Sequence[dict[str, Any]]) -> Agreement | None:
    """Inter-annotator agreement on items labelled by two or more annotators.

    Parameters
    ----------
    items : sequence of dict
        One dict per item: annotator -> label (hashable). Items with fewer than two labels are
        ignored.

    Returns
    -------
    Agreement or None
        None without an item of two labels. Cohen's kappa when the same two annotators labelled
        every item: ``po`` = share of items they agree on, ``pe = sum_c p1(c) p2(c)`` with each
        annotator's own label shares, ``kappa = (po - pe) / (1 - pe)``. Fleiss' kappa otherwise:
        ``P_i = (sum_c n_ic^2 - n_i) / (n_i (n_i - 1))``, ``P = mean_i P_i``,
        ``p_c = sum_i n_ic / sum_i n_i``, ``Pe = sum_c p_c^2``, ``kappa = (P - Pe) / (1 - Pe)``.
        ``percent_agreement`` is ``po`` (Cohen) or ``P`` (Fleiss). Kappa is NaN when the chance
        agreement is 1.
    """
    multi = [dict(it) for it in items if len(it) >= 2]
    if not multi:
        return None
    raters = sorted({a for it in multi for a in it}, key=str)
    if len(raters) == 2 and all(len(it) == 2 for it in multi):
        r1, r2 = raters
        po = float(np.mean([it[r1] == it[r2] for it in multi]))
        n = len(multi)
        c1 = Counter(it[r1] for it in multi)
        c2 = Counter(it[r2] for it in multi)
        pe = sum(c1[c] * c2[c] for c in set(c1) | set(c2)) / n ** 2
        kappa = float("nan") if math.isclose(pe, 1.0) else (po - pe) / (1 - pe)
        return Agreement("cohen", n, 2, po, float(kappa))
    p_items = []
    totals: Counter = Counter()
    n_all = 0
    for it in multi:
        counts = Counter(it.values())
        n_i = len(it)
        p_items.append((sum(v * v for v in counts.values()) - n_i) / (n_i * (n_i - 1)))
        totals.update(counts)
        n_all += n_i
    p_bar = float(np.mean(p_items))
    pe = sum((v / n_all) ** 2 for v in totals.values())
    kappa = float("nan") if math.isclose(pe, 1.0) else (p_bar - pe) / (1 - pe)
    return Agreement("fleiss", len(multi), len(raters), p_bar, float(kappa))


# --------------------------------------------------------------------------- join

def join_labels(imported: LabelImport, *, sample_ids: Sequence[Any] | np.ndarray,
                classes: Sequence[Any]) -> JoinedLabels:
    """Join imported labels to the rows of a dataset and resolve several annotators.

    Parameters
    ----------
    imported : LabelImport
    sample_ids : array-like of shape (M,)
        The dataset's sample id of each row (:meth:`core.evaluation.design.Design.sample_ids`);
        compared with the imported ids as text.
    classes : sequence
        The dataset's class values; an imported label matches class ``c`` when it equals
        ``str(c)`` (or ``c`` written without a trailing ``.0``).

    Returns
    -------
    JoinedLabels
        Each row's label is the majority vote of its annotators; a tie leaves it unlabelled
        (state ``"tie"``) and lists it for adjudication.

    Raises
    ------
    DataError
        Sample ids not in the dataset (naming them), labels not among the classes (naming them
        and the classes), dataset sample ids that repeat, classes that read the same as text.
    """
    ids = [_text(v) for v in np.asarray(sample_ids, dtype=object)]
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
        for t in {str(c), _text(c)}:
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
        if lab not in by_text:
            bad.setdefault(lab, []).append(s)
    if bad:
        shown = "; ".join(f"'{lab}' (sample ids {_some(ss, 3)})" for lab, ss in
                          list(bad.items())[:5])
        raise DataError(f"{len(bad)} labels are not among the dataset's classes: {shown}; the "
                        f"classes are {', '.join(repr(str(c)) for c in classes)}")
    per_row: dict[int, dict[str, Any]] = {}
    rows, vote_lab = [], []
    for s, a, lab in zip(imported.sample_id, imported.annotator, imported.label):
        r = row_of[s]
        c = by_text[lab]
        per_row.setdefault(r, {})[a] = c
        rows.append(r)
        vote_lab.append(c)
    n_skips = np.zeros(m, dtype=np.int64)
    for s, _, _ in imported.skipped:
        n_skips[row_of[s]] += 1
    label = np.full(m, None, dtype=object)
    state = np.full(m, "", dtype=object)
    n_ann = np.zeros(m, dtype=np.int64)
    ties: list[int] = []
    for r, votes in per_row.items():
        n_ann[r] = len(votes)
        counts = Counter(votes.values()).most_common()
        if len(counts) > 1 and counts[0][1] == counts[1][1]:
            state[r] = "tie"
            ties.append(r)
        else:
            state[r] = "labelled"
            label[r] = counts[0][0]
    state[(state == "") & (n_skips > 0)] = "skipped"
    ties.sort()
    agree = agreement([per_row[r] for r in sorted(per_row)])
    votes_df = pd.DataFrame({"row": np.asarray(rows, dtype=np.int64),
                             "sample_id": list(imported.sample_id),
                             "annotator": list(imported.annotator),
                             "label": pd.Series(vote_lab, dtype=object)})
    counts_out = {"rows": m, "labels": imported.n_labels,
                  "labelled": int((state == "labelled").sum()), "ties": len(ties),
                  "skipped": int((state == "skipped").sum()), "skips": len(imported.skipped),
                  "multi": int((n_ann >= 2).sum()),
                  "annotators": len(set(imported.annotator)),
                  "unannotated": len(imported.unannotated)}
    notices = list(imported.notices)
    notices.append(f"{counts_out['labelled']:,} of {m:,} rows have a label from this import "
                   f"({imported.n_labels:,} labels)")
    if ties:
        notices.append(f"{len(ties)} samples need adjudication: their annotators tie with no "
                       f"majority (sample ids {_some([ids[r] for r in ties])}); they stay "
                       "unlabelled")
    if counts_out["skipped"]:
        sk = np.flatnonzero(state == "skipped")
        notices.append(f"{len(sk)} samples were skipped or cancelled by every annotator who "
                       f"opened them (sample ids {_some([ids[r] for r in sk])}); they stay "
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
                        counts=counts_out, notices=tuple(notices))


# --------------------------------------------------------------------------- into a table

def apply_labels(design, joined: JoinedLabels) -> tuple[pd.DataFrame, dict[str, int]]:
    """The round's table with the joined labels written into its human-label column.

    Parameters
    ----------
    design : core.evaluation.design.Design
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
    from core.evaluation.design import LABELLED, queue_table

    if not design.has_selection:
        raise DataError("the table has no 'selection' column: labels go into a round planned "
                        "with hmceval queue or certify")
    new = joined.has_label
    outside = np.flatnonzero(new & ~np.isin(design.selection, LABELLED))
    if len(outside):
        raise DataError(f"{len(outside)} labelled samples are not in the round's queue (for "
                        f"example {describe_rows(outside[:1])}, selection "
                        f"'{design.selection[outside[0]] or 'undecided'}'); nothing was written")
    col = design.data.roles.get("human_label") or "human_label"
    out = queue_table(design, design.selection)
    current = np.where(np.isin(design.selection, LABELLED), design.human_label, None)
    values = np.where(new, joined.label.to_numpy(dtype=object), current)
    out[col] = pd.Series(values, index=out.index, dtype=object)
    need = np.isin(design.selection, LABELLED)
    have = np.array([v is not None for v in values], dtype=bool)
    return out, {"to_label": int(need.sum()), "labelled": int((need & have).sum()),
                 "imported": int(new.sum())}
