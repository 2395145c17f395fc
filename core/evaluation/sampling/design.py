"""The sampling design of a real evaluation round: who labels which row, and why.

Every row of an evaluation gets a *selection*:

=============== =================================================================================
``calibration`` a simple random sample of all rows, labelled by humans first (guarantee mode)
``routed``      sent to humans by the assignment (the exact SAE, or the certified threshold)
``audit``       a simple random sample, without replacement, of the rows the machine keeps;
                humans label them too, so that the machine's error on the kept rows can be
                estimated without bias
``machine``     kept by the machine, never labelled
(empty)         not decided yet
=============== =================================================================================

The column is called ``selection`` (another name can be mapped). Human labels are read on the
labelled rows only (calibration, routed, audit): a gold column that a demo table carries for
every row is ignored on ``machine`` rows, so a fully labelled table can stand in for a round
in which humans labelled exactly the selected rows.

:func:`plan_queue` draws the calibration sample, routes the other rows with the exact SAE and
draws the audit; :func:`queue_table` writes the round's table (every original column,
``selection`` and ``queue_rank``), :func:`annotator_table` what annotators receive (the rows to
label in queue order, only the columns :mod:`core.evaluation.sampling.blind` allows), and
:func:`core.evaluation.labelstudio.project.tasks` the same queue as Label Studio tasks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.data import EvalData, norm_name, prepare
from core.errors import DataError, describe_rows
from core.evaluation.sampling.active import PROBABILITY_COLUMN, ActiveDesign
from core.evaluation.sampling.blind import shown_columns
from core.evaluation.sampling.draw import check_probabilities
from core.assignment import SAEInputs, gains, n_from_share, solve_fast

__all__ = [
    "SELECTIONS",
    "LABELLED",
    "SELECTION_COLUMN",
    "Design",
    "load_design",
    "QueuePlan",
    "plan_queue",
    "queue_table",
    "annotator_table",
    "add_audit",
    "EarlierLabels",
    "coded_classes",
]

#: The four selection values, in the order a round fills them.
SELECTIONS: tuple[str, ...] = ("calibration", "routed", "audit", "machine")
#: Selections whose rows humans label.
LABELLED: tuple[str, ...] = ("calibration", "routed", "audit")
#: Default name of the selection column.
SELECTION_COLUMN = "selection"


@dataclass(frozen=True)
class Design:
    """A table of an evaluation round: the validated data, the selection and the human labels.

    Attributes
    ----------
    data : EvalData
        The table through the data contract (``human_label`` may be missing on any row).
    selection : numpy.ndarray of shape (M,), dtype object
        One of :data:`SELECTIONS` or ``""`` (not decided) per row.
    human_label : numpy.ndarray of shape (M,), dtype object
        The human label where one is given, else ``None``.
    selection_column : str
        Name of the selection column in the file (``"selection"`` when the file has none).
    has_selection : bool
        Whether the file had a selection column.
    inclusion : numpy.ndarray of shape (M,), optional
        The inclusion probability pi_i of every row when the round was planned with one
        (``inclusion_probability`` column: the active or random design,
        :mod:`core.evaluation.sampling.active`); None for routing with a uniform audit.
    hidden : tuple of str
        Columns that hold an answer although no role maps them in ``data``: a workspace round
        reads its labels from its imports, so the dataset's gold column is unmapped there but
        still never shown to annotators (:mod:`core.evaluation.sampling.blind`).
    pilot_rows, pilot_inclusion : numpy.ndarray of shape (M,), optional
        A round planned on an earlier round's labels (``hmceval queue --calibrate-on``) whose
        draw had known probabilities and is labelled in full: the rows it drew (bool) and its
        probabilities p1, so that the estimate uses the pilot as a sample of the table too
        (:mod:`core.evaluation.estimate.two_stage`); None otherwise.
    """

    data: EvalData
    selection: np.ndarray
    human_label: np.ndarray
    selection_column: str = SELECTION_COLUMN
    has_selection: bool = False
    notices: tuple[str, ...] = field(default_factory=tuple)
    inclusion: np.ndarray | None = None
    hidden: tuple[str, ...] = ()
    pilot_rows: np.ndarray | None = None
    pilot_inclusion: np.ndarray | None = None

    @property
    def M(self) -> int:
        return self.data.M

    @property
    def machine_label(self) -> np.ndarray:
        return self.data.frame["machine_label"].to_numpy(dtype=object)

    @property
    def has_label(self) -> np.ndarray:
        """Bool array of shape (M,): a human label is present."""
        return np.array([v is not None for v in self.human_label], dtype=bool)

    def inputs(self) -> SAEInputs:
        """The SAE inputs (a, l, b, k) of every row."""
        return SAEInputs.from_data(self.data)

    def sample_ids(self) -> np.ndarray:
        """The ``sample_id`` column when mapped, else the 1-based row number."""
        f = self.data.frame
        if "sample_id" in f:
            return f["sample_id"].to_numpy(dtype=object)
        return np.arange(1, self.M + 1, dtype=np.int64).astype(object)


def _selection_values(s: pd.Series, col: str) -> np.ndarray:
    text = s.astype(object).where(s.notna(), "")
    vals = np.array([str(v).strip().lower() for v in text], dtype=object)
    bad = np.flatnonzero(~np.isin(vals, list(SELECTIONS) + [""]))
    if len(bad):
        raise DataError(f"column '{col}' (selection) must hold {', '.join(SELECTIONS)} or be "
                        f"empty; {describe_rows(bad)} hold other values such as "
                        f"{s.iloc[bad[0]]!r}")
    return vals


def load_design(df: pd.DataFrame, roles: dict[str, Any] | None = None, *,
                name: str = "dataset") -> Design:
    """Validate a table of an evaluation round.

    Parameters
    ----------
    df : pandas.DataFrame of shape (M, n_columns)
        The loaded table.
    roles : dict, optional
        As :func:`core.data.prepare`, plus ``"selection"`` -> column name (default: a column
        named ``selection``, if any; ``None`` to ignore one).
    name : str, default="dataset"

    Returns
    -------
    Design

    Raises
    ------
    DataError
        What :func:`core.data.prepare` refuses, and selection values other than the four
        words or empty (naming the rows).
    """
    roles = dict(roles or {})
    columns = {norm_name(c): c for c in df.columns}
    if "selection" in roles:
        sel_col = roles.pop("selection")
        if sel_col is not None and sel_col not in df.columns:
            raise DataError(f"column '{sel_col}' (mapped to selection) is not in the table; "
                            f"available: {', '.join(map(str, df.columns))}")
    else:
        sel_col = columns.get("selection")
    pi_col = columns.get(PROBABILITY_COLUMN)
    bookkeeping = {c for c in (sel_col, columns.get("queue_rank"), pi_col,
                               columns.get("draw_probability"), columns.get("draw_weight"))
                   if c is not None}
    if bookkeeping and "subgroups" not in roles:
        from core.data import detect_roles

        roles["subgroups"] = [c for c in detect_roles(df)["subgroups"] if c not in bookkeeping]
    data = prepare(df, roles, name=name, partial_gold=True)
    for role in ("machine_label", "human_label", "human_label_2", "machine_confidence"):
        if data.roles.get(role) is not None and data.roles.get(role) in bookkeeping:
            raise DataError(f"column '{data.roles[role]}' cannot be both {role} and the "
                            "selection/queue_rank column")
    m = data.M
    if sel_col is not None:
        selection = _selection_values(data.raw[sel_col], sel_col)
    else:
        selection = np.full(m, "", dtype=object)
    if "human_label" in data.frame:
        h = data.frame["human_label"]
        human = np.array([None if pd.isna(v) else v for v in h.astype(object)], dtype=object)
    else:
        human = np.full(m, None, dtype=object)
    inclusion = None
    if pi_col is not None:
        inclusion = check_probabilities(data.raw[pi_col], selection, str(pi_col))
    return Design(data=data, selection=selection, human_label=human,
                  selection_column=sel_col or SELECTION_COLUMN, has_selection=sel_col is not None,
                  notices=tuple(data.notices), inclusion=inclusion)


@dataclass(frozen=True)
class EarlierLabels:
    """Labels humans already gave on rows of the same table (an earlier round, a pilot).

    Attributes
    ----------
    rows : int array of shape (n,)
        Row positions in the table, distinct.
    labels : array of shape (n,)
        Their human labels (class values of the table).
    weights : array of shape (n,), optional
        1 / the probability each row had of being labelled, when known (the confidences are
        recalibrated on the rows so weighted); None: equal weights.
    source : str
        Where they come from, for the record (``"round 3"``).
    inclusion : array of shape (M,), optional
        The earlier round's inclusion probabilities over every row, when it is the pilot of
        two batches (drawn with known probabilities, every drawn row labelled): the round
        planned on it is then estimated in two stages, the pilot a sample of the table too.
    """

    rows: np.ndarray
    labels: np.ndarray
    weights: np.ndarray | None = None
    source: str = "earlier labels"
    inclusion: np.ndarray | None = None


@dataclass(frozen=True)
class QueuePlan:
    """A planned round.

    Attributes
    ----------
    selection : numpy.ndarray of shape (M,), dtype object
        The new selection of every row.
    queue_rank : numpy.ndarray of shape (M,), dtype float
        1..n over the rows still to label (calibration, then audit, then routed rows by
        descending gain), NaN elsewhere.
    n_budget : int or None
        The human budget N of the assignment (None without a budget).
    lam : float or None
        Lambda of the assignment.
    seed : int
    counts : dict
        selection value -> number of rows (``""`` for undecided rows).
    inclusion : numpy.ndarray of shape (M,), optional
        The inclusion probabilities of an active or random design (None for routing).
    design : ActiveDesign, optional
        The solved design with its frontier (active and random designs).
    carried : EarlierLabels, optional
        Labels of an earlier round the plan rests on: their rows are ``routed`` (pi = 1, not
        queued) and the labels are to be stored with the new round.
    expected_range : dict, optional
        The range the design's expectations could take under miscalibrated confidences
        (:func:`core.evaluation.sampling.plan_range.expected_range`; active and random designs).
    """

    selection: np.ndarray
    queue_rank: np.ndarray
    n_budget: int | None
    lam: float | None
    seed: int
    counts: dict[str, int]
    inclusion: np.ndarray | None = None
    design: ActiveDesign | None = None
    carried: "EarlierLabels | None" = None
    expected_range: dict | None = None

    @property
    def n_to_label(self) -> int:
        return int(np.isfinite(self.queue_rank).sum())


def plan_queue(design: Design, *, calibration: int = 0, lam: float | None = None,
               share: float | None = None, n_human: int | None = None, mode: str = "at_most",
               audit: int = 0, seed: int = 0) -> QueuePlan:
    """Draw the calibration sample, route with the exact SAE, draw the audit; rank the queue.

    Parameters
    ----------
    design : Design
        Rows already marked ``calibration`` stay so; other rows must be undecided when a
        calibration sample or a budget is asked for.
    calibration : int, default=0
        Size of a new calibration sample (a simple random sample of all rows).
    lam : float, optional
        Lambda of the assignment (needed with a budget).
    share, n_human : optional
        The budget: N = int(share * M') or N = n_human, where M' is the number of rows not in
        the calibration sample. Give at most one. Without a budget no row is routed.
    mode : {"at_most", "exactly"}
        As :func:`core.assignment.solve_fast`: the same N and tie rule as ``hmceval assign`` (on a
        table without calibration rows the routed rows are exactly ``assign``'s human rows).
    audit : int, default=0
        Size of the audit: a simple random sample, without replacement, of the kept rows.
    seed : int, default=0
        Seed of the random draws; the same seed gives the same queue.

    Returns
    -------
    QueuePlan

    Raises
    ------
    DataError
        Sizes out of range, a second calibration sample, a table already routed.
    """
    m = design.M
    if share is not None and n_human is not None:
        raise DataError("give a human share or a human count, not both")
    budget = share is not None or n_human is not None
    if not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise DataError(f"seed must be a whole number in [0, 2^63), got {seed}")
    for label, value in (("calibration", calibration), ("audit", audit)):
        if not isinstance(value, (int, np.integer)) or value < 0:
            raise DataError(f"{label} size must be a whole number >= 0, got {value}")
    if audit and not budget:
        raise DataError("an audit is drawn from the rows the machine keeps: give a budget "
                        "(human share or count) with it")
    if not calibration and not budget:
        raise DataError("nothing to plan: give a calibration size, a budget, or both")
    sel = design.selection.copy()
    decided = np.flatnonzero((sel != "") & (sel != "calibration"))
    if len(decided):
        raise DataError(f"column '{design.selection_column}' already routes "
                        f"{describe_rows(decided)} ({', '.join(sorted(set(sel[decided])))}); "
                        "a queue is planned on undecided rows only (clear the column to re-plan)")
    rng = np.random.default_rng(int(seed))
    if calibration:
        if (sel == "calibration").any():
            raise DataError(f"the table already has {(sel == 'calibration').sum()} calibration "
                            "rows; a second calibration sample would not be a simple random "
                            "sample of all rows")
        if calibration > m:
            raise DataError(f"calibration size {calibration} exceeds the {m} rows")
        sel[rng.choice(m, size=calibration, replace=False)] = "calibration"
    n_budget = None
    g = None
    if budget:
        if lam is None:
            raise DataError("a budget needs lambda")
        rest = np.flatnonzero(sel == "")
        inp = design.inputs()
        sub = SAEInputs(a=inp.a[rest], l=inp.l[rest], b=inp.b[rest], k=inp.k[rest])
        if n_human is not None:
            if not 0 <= n_human <= len(rest):
                raise DataError(f"human count must be between 0 and the {len(rest)} rows outside "
                                f"the calibration sample, got {n_human}")
            n_budget = int(n_human)
        else:
            n_budget = n_from_share(float(share), len(rest))
        res = solve_fast(sub, lam=lam, n_human=n_budget, mode=mode)
        sel[rest[res.human]] = "routed"
        kept = rest[~res.human]
        if audit > len(kept):
            raise DataError(f"audit size {audit} exceeds the {len(kept)} rows the machine keeps")
        audited = np.zeros(m, dtype=bool)
        if audit:
            audited[kept[rng.choice(len(kept), size=audit, replace=False)]] = True
        sel[kept] = np.where(audited[kept], "audit", "machine")
        g = gains(inp.a, inp.l, lam=lam, b=inp.b, k=inp.k)
    # labels count only on rows already selected for labelling (a gold column that a demo
    # table carries on every row is not a label of an undecided row)
    has = np.isin(design.selection, LABELLED) & design.has_label
    rank = np.full(m, np.nan)
    order: list[np.ndarray] = []
    for value in ("calibration", "audit"):
        rows = np.flatnonzero((sel == value) & ~has)
        order.append(rows[rng.permutation(len(rows))])
    routed = np.flatnonzero((sel == "routed") & ~has)
    if g is not None and len(routed):
        routed = routed[np.argsort(-g[routed], kind="stable")]
    order.append(routed)
    queue = np.concatenate(order) if order else np.array([], dtype=np.int64)
    rank[queue] = np.arange(1, len(queue) + 1)
    counts = {v: int((sel == v).sum()) for v in SELECTIONS + ("",)}
    return QueuePlan(selection=sel, queue_rank=rank, n_budget=n_budget,
                     lam=None if lam is None else float(lam), seed=int(seed), counts=counts)


def queue_table(design: Design, selection: np.ndarray,
                queue_rank: np.ndarray | None = None,
                inclusion: np.ndarray | None = None) -> pd.DataFrame:
    """The table as loaded, every original column, with the selection (and queue rank).

    Parameters
    ----------
    design : Design
    selection : array of shape (M,)
    queue_rank : array of shape (M,), optional
        NaN where a row is not to be labelled; written as an integer column with empty cells.
    inclusion : array of shape (M,), optional
        Inclusion probabilities, written as ``inclusion_probability`` (a column of that name
        already in the table is replaced).

    Returns
    -------
    pandas.DataFrame of shape (M, n_columns + 1 to 3)
        The selection column keeps its name in the file (``selection`` when new); empty cells
        for undecided rows. Without a sample id in the table, a ``sample_id`` column (the
        1-based row number) is added, so that returned labels can be joined back.
    """
    out = design.data.raw.copy()
    if design.data.roles.get("sample_id") is None and "sample_id" not in out.columns:
        # labels come back joined by sample id: without one, the row number is the id
        out["sample_id"] = design.sample_ids().astype(np.int64)
    sel = pd.Series(np.asarray(selection, dtype=object), index=out.index)
    out[design.selection_column] = sel.mask(sel == "")
    if queue_rank is not None:
        rank = np.asarray(queue_rank, dtype=float)
        out["queue_rank"] = pd.array(np.where(np.isfinite(rank), rank, 0).astype("int64"),
                                     dtype="Int64")
        out.loc[~np.isfinite(rank), "queue_rank"] = pd.NA
    if inclusion is not None:
        pi = np.asarray(inclusion, dtype=float)
        out[PROBABILITY_COLUMN] = np.where(np.isfinite(pi), pi, np.nan)
    return out


def annotator_table(design: Design, selection: np.ndarray,
                    queue_rank: np.ndarray, *, done: np.ndarray | None = None,
                    show: list[str] | None = None) -> pd.DataFrame:
    """The queue as annotators receive it: the rows to label, in queue order, blind.

    Parameters
    ----------
    design : Design
    selection, queue_rank : arrays of shape (M,)
        As :func:`queue_table`; rows with a finite ``queue_rank`` are the rows to label.
    done : bool array of shape (M,), optional
        Rows already labelled (e.g. a guarantee round's calibration rows after certifying):
        left out, so annotators get only what remains; their queue ranks are kept.
    show : list of str, optional
        Columns the user chooses to show besides the text (checked by
        :func:`core.evaluation.sampling.blind.shown_columns`).

    Returns
    -------
    pandas.DataFrame of shape (rows to label, 2 + shown columns)
        ``sample_id`` (the table's sample id column, or the added row number), ``queue_rank``,
        the text columns and the chosen columns (an allow-list: no label, confidence, effort,
        selection or inclusion probability, whatever its name), sorted by ``queue_rank``.

    Raises
    ------
    DataError
        A chosen column that may not be shown (see :func:`core.evaluation.sampling.blind.shown_columns`).
    """
    rest = shown_columns(design.data, show, selection_column=design.selection_column,
                         hidden=design.hidden)
    table = queue_table(design, selection, queue_rank)
    rows = queue_order(queue_rank, done)
    sid = design.data.roles.get("sample_id") or "sample_id"
    return table.iloc[rows][[sid, "queue_rank", *rest]].reset_index(drop=True)


def queue_order(queue_rank: np.ndarray, done: np.ndarray | None = None) -> np.ndarray:
    """The rows still to label, in queue order.

    Parameters
    ----------
    queue_rank : array-like of shape (M,)
        A row's place in the queue, NaN for a row not queued.
    done : array-like of bool, shape (M,), optional
        Rows already labelled, left out.

    Returns
    -------
    numpy.ndarray of int
        Row positions with a finite rank and not done, sorted by rank (ties keep row order).
    """
    rank = np.asarray(queue_rank, dtype=float)
    todo = np.isfinite(rank)
    if done is not None:
        todo &= ~np.asarray(done, dtype=bool)
    rows = np.flatnonzero(todo)
    return rows[np.argsort(rank[rows], kind="stable")]


def add_audit(selection: np.ndarray, queue_rank: np.ndarray, audit: int, *, seed: int = 0,
              has_label: np.ndarray | None = None,
              gain: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw an audit from the ``machine`` rows of a decided round and queue every row to label.

    Used after certification, when the rows the machine keeps are fixed: a simple random
    sample of them (without replacement) becomes ``audit``. Queue ranks are renumbered:
    rows already ranked keep their order (labelled ones too: they stay rows of the queue),
    then the new audit rows (random order), then routed rows that had no rank.

    Parameters
    ----------
    selection : array of shape (M,)
    queue_rank : array of shape (M,)
    audit : int
        Audit size, at most the number of ``machine`` rows.
    seed : int
    has_label : bool array of shape (M,), optional
        Rows already labelled: not queued unless they already had a rank.
    gain : array of shape (M,), optional
        Gains of the rows; unranked routed rows are queued by descending gain (else in row
        order).

    Returns
    -------
    (selection, queue_rank)
    """
    sel = np.asarray(selection, dtype=object).copy()
    rank = np.asarray(queue_rank, dtype=float).copy()
    machine = np.flatnonzero(sel == "machine")
    if not isinstance(audit, (int, np.integer)) or audit < 0:
        raise DataError(f"audit size must be a whole number >= 0, got {audit}")
    if audit > len(machine):
        raise DataError(f"audit size {audit} exceeds the {len(machine)} rows the machine keeps; "
                        f"choose an audit of at most {len(machine)}")
    rng = np.random.default_rng(int(seed))
    new_audit = machine[rng.choice(len(machine), size=audit, replace=False)] if audit else \
        np.array([], dtype=np.int64)
    sel[new_audit] = "audit"
    has = np.zeros(len(sel), dtype=bool) if has_label is None else np.asarray(has_label, bool)
    # rows already ranked keep their place, labelled or not: the calibration rows labelled
    # before certifying are rows of the round's queue too (counted in its rows to label)
    ranked = np.flatnonzero(np.isfinite(rank))
    ranked = ranked[np.argsort(rank[ranked], kind="stable")]
    routed = np.flatnonzero((sel == "routed") & ~np.isfinite(rank) & ~has)
    if gain is not None and len(routed):
        routed = routed[np.argsort(-np.asarray(gain, dtype=float)[routed], kind="stable")]
    order = np.concatenate([ranked, new_audit[~has[new_audit]], routed]).astype(np.int64)
    rank = np.full(len(sel), np.nan)
    rank[order] = np.arange(1, len(order) + 1)
    return sel, rank


def coded_classes(machine_labels, other_labels=()) -> tuple[list, np.ndarray]:
    """The classes of a round and the machine's class codes.

    Parameters
    ----------
    machine_labels : array of shape (M,)
    other_labels : iterable
        Further labels that name classes (humans' labels, the data's classes).

    Returns
    -------
    classes : list
        Every label of either, sorted (by their text where they do not compare).
    machine : int array of shape (M,)
        The code (index in ``classes``) of each machine label.
    """
    present = set(np.asarray(machine_labels, dtype=object).tolist()) | set(other_labels)
    try:
        classes = sorted(present)
    except TypeError:
        classes = sorted(present, key=str)
    index = {v: i for i, v in enumerate(classes)}
    machine = np.fromiter((index[v] for v in machine_labels), dtype=np.int64,
                          count=len(machine_labels))
    return classes, machine
