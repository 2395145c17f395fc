"""The data contract: a table and its role mapping validated into an :class:`EvalData`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from core.data.content import content_id
from core.data.roles import (REQUIRED_ROLES, ROLE_ALIASES, ROLES, Ask, Detection,
                             confidence_candidates, confidence_name, detect_columns)
from core.errors import DataError, describe_rows
from core.defaults import MAX_EFFORT
from core.validate import label_texts, numeric_values

__all__ = ["EvalData", "prepare"]


@dataclass
class EvalData:
    """A validated evaluation table.

    Attributes
    ----------
    frame : pandas.DataFrame of shape (M, n_columns)
        One row per sample, index 0..M-1. Canonical columns named after their role
        (``machine_label``, ``machine_confidence``, ``human_confidence`` (b_i, default 1),
        ``machine_effort`` (k_i, default 0), ``predicted_effort`` (l_i, always filled) and, when
        mapped or derived, ``human_label``, ``human_label_2``, ``human_effort``, ``turn``,
        ``n_turns``, ``dialogue_id``, ``sample_id``), then the subgroup and text columns under
        their original names.
    raw : pandas.DataFrame
        The table as loaded (every column, unchanged).
    roles : dict
        role -> source column name or ``None``; ``"subgroups"`` and ``"text"`` -> lists.
    labels : tuple
        Sorted class labels over machine and gold (and second rater) labels.
    effort_source : {"predicted_effort", "human_effort", "uniform"}
        Where the optimiser's effort l_i comes from.
    confidence_columns : list of str
        Every source column usable as machine confidence (the chosen one first).
    notices : list of str
        Non-fatal remarks the UI should show (fallbacks, derived columns).
    name : str
        Display name of the dataset.
    asks : tuple of Ask
        Where detection was unsure about a role the caller did not map and used its own
        choice (:class:`core.data.Ask`); the CLI names them, the Data page asks before mapping.
    """

    frame: pd.DataFrame
    raw: pd.DataFrame
    roles: dict[str, Any]
    labels: tuple
    effort_source: str
    confidence_columns: list[str]
    notices: list[str] = field(default_factory=list)
    name: str = "dataset"
    asks: tuple[Ask, ...] = ()

    @property
    def M(self) -> int:
        """Number of samples."""
        return len(self.frame)

    @cached_property
    def content_id(self) -> str:
        """:func:`core.data.content.content_id` of ``raw``, computed once per loaded table (the
        dataset's id in every cache key, in scenarios and in the workspace)."""
        return content_id(self.raw)

    @property
    def has_gold(self) -> bool:
        """Whether gold (human) labels are available."""
        return "human_label" in self.frame.columns

    @property
    def has_effort(self) -> bool:
        """Whether ground-truth human effort is available."""
        return "human_effort" in self.frame.columns

    @property
    def subgroup_columns(self) -> list[str]:
        return list(self.roles.get("subgroups") or [])

    @property
    def text_columns(self) -> list[str]:
        return list(self.roles.get("text") or [])

    def with_confidence(self, column: str) -> "EvalData":
        """The same dataset with another source column as ``machine_confidence``."""
        roles = dict(self.roles)
        roles["machine_confidence"] = column
        return prepare(self.raw, roles, name=self.name)

    def with_predicted_effort(self, effort: np.ndarray | pd.Series, *, column: str = "predicted_effort_hee") -> "EvalData":
        """The same dataset with a new predicted-effort column (e.g. from the HEE model)."""
        raw = self.raw.copy()
        raw[column] = np.asarray(effort, dtype=float)
        roles = dict(self.roles)
        roles["predicted_effort"] = column
        return prepare(raw, roles, name=self.name)


#: Most distinct classes a table's labels may hold: the confusion tables (and the per-turn
#: bootstrap's, one per resample) grow as K^2.
MAX_CLASSES = 100

#: Largest integer a float64 holds exactly (2**53); larger numeric labels are kept as text.
_EXACT_INT = 2**53


def _to_numbers(s: pd.Series) -> pd.Series:
    """``pd.to_numeric(s, errors="coerce")`` as floats, converted once per distinct value (a text
    label column of 10^6 rows holds a handful: 0.1 s instead of 2.5 s)."""
    if pd.api.types.is_numeric_dtype(s):
        return pd.Series(pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan),
                         index=s.index)
    try:
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
    except TypeError:  # unhashable cells: value by value
        codes, uniques = None, None
    if uniques is None or len(uniques) > max(len(s) // 4, 16):
        return pd.Series(pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan),
                         index=s.index)
    per_value = pd.to_numeric(pd.Series(np.asarray(uniques, dtype=object), dtype=object),
                              errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    out = np.full(len(s), np.nan)
    known = codes >= 0
    out[known] = per_value[codes[known]]
    return pd.Series(out, index=s.index)


def _label_values(s: pd.Series, col: str, role: str, *, allow_missing: bool = False) -> pd.Series:
    """Normalise a label column: integral numbers -> int64, other numbers stay float, else str.

    With ``allow_missing`` (a second rater who scored only some samples) missing values stay
    missing (``pd.NA``/NaN); otherwise they are an error naming the rows.
    """
    missing = s.isna().to_numpy()
    if missing.any() and not allow_missing:
        raise DataError(f"column '{col}' ({role}) has missing values in "
                        f"{describe_rows(np.flatnonzero(missing))}")
    if pd.api.types.is_bool_dtype(s):
        return s.astype("int64")
    if pd.api.types.is_integer_dtype(s) and not missing.any():
        if len(s) and max(abs(int(s.max())), abs(int(s.min()))) > _EXACT_INT:
            return s.astype(str)  # beyond 2**53: kept exact as text (no float can merge them)
        return s.astype("int64")
    if s.dtype == object:
        big = s.map(lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                    and abs(int(v)) > _EXACT_INT).to_numpy(dtype=bool)
        if big.any():  # integers a float cannot hold exactly: compared as text
            return s.map(lambda v: v if pd.isna(v) else str(v).strip()).mask(missing)
    num = _to_numbers(s)
    if (num.notna() | missing).all():
        arr = num.to_numpy(dtype=float, na_value=np.nan)
        inf = np.flatnonzero(np.isinf(arr))
        if len(inf):
            raise DataError(f"column '{col}' ({role}) has infinite values in {describe_rows(inf)}")
        ok = ~np.isnan(arr)
        if (np.abs(arr[ok]) > _EXACT_INT).any():
            # beyond 2**53 a float cannot tell neighbouring integers apart: keep the file's text
            return s.map(lambda v: v if pd.isna(v) else str(v).strip()).mask(missing)
        if np.all(arr[ok] == np.round(arr[ok])):
            if missing.any():
                return pd.Series(pd.array(np.where(ok, arr, 0).astype("int64"), dtype="Int64"),
                                 index=s.index).mask(~ok)
            return pd.Series(arr.astype("int64"), index=s.index)
        return pd.Series(arr, index=s.index)
    # text: one typed rule (core.validate.label_text), so a "1.0" among text equals the 1 of
    # another column; a blank cell stays the class ""
    text = label_texts(s)
    return text.where(text.notna() | missing, "").mask(missing)


def _harmonise(cols: dict[str, pd.Series]) -> dict[str, pd.Series]:
    """Give every label column one type: numbers if all are numeric, strings otherwise."""
    if all(pd.api.types.is_numeric_dtype(s) for s in cols.values()):
        return cols

    def as_text(s: pd.Series) -> pd.Series:
        if pd.api.types.is_numeric_dtype(s):
            return label_texts(s)
        return s

    return {k: as_text(s) for k, s in cols.items()}


def _numeric(df: pd.DataFrame, col: str, role: str, *, lo: float | None = None,
             hi: float | None = None) -> np.ndarray:
    s = df[col]
    if isinstance(s.dtype, np.dtype) and s.dtype.kind in "iuf":
        # the common case, checked in one pass over the floats: a numeric column with every
        # value finite and within the bounds (any problem: numeric_values names it)
        arr = s.to_numpy(dtype=float, copy=True)
        ok = np.isfinite(arr).all()
        if ok and lo is not None:
            ok = not (arr < lo).any()
        if ok and hi is not None:
            ok = not (arr > hi).any()
        if ok:
            return arr
    return numeric_values(s, label=f"column '{col}' ({role})", bools="refuse", lo=lo, hi=hi)


def prepare(df: pd.DataFrame, roles: dict[str, Any] | None = None, *, name: str = "dataset",
            partial_gold: bool = False, detection: Detection | None = None) -> EvalData:
    """Validate a table and build the canonical :class:`EvalData`.

    Parameters
    ----------
    df : pandas.DataFrame of shape (M, n_columns)
        The loaded table.
    roles : dict, optional
        role -> column name (``None`` to leave a role unmapped), plus optional ``"subgroups"``
        and ``"text"`` lists. Roles not given are auto-detected with :func:`detect_columns`; pass
        ``None`` explicitly to switch detection off for a role. A subgroup column that is also
        mapped to a role is dropped from the subgroups (with a notice).
    name : str, default="dataset"
        Display name.
    partial_gold : bool, default=False
        Allow missing values in ``human_label`` (an evaluation in progress, where humans have
        labelled some rows only); missing labels stay missing (``pd.NA``).
    detection : Detection, optional
        :func:`detect_columns` of this same ``df``, when the caller already has it (the Data
        page detects once per file); detected here otherwise.

    Returns
    -------
    EvalData

    Raises
    ------
    DataError
        Unknown or missing columns, NaN, non-numeric values, confidence outside [0, 1],
        negative effort, fewer than two classes, and so on; the message names the column and
        the first offending rows.
    """
    if df is None or len(df) == 0:
        raise DataError("the table has no rows")
    df = df.reset_index(drop=True)
    if detection is None:
        detection = detect_columns(df)
    merged: dict[str, Any] = dict(detection.roles)
    if roles:
        merged.update(roles)
    columns = set(df.columns)
    for role in ROLES:
        col = merged.get(role)
        if col is not None and col not in columns:
            raise DataError(f"column '{col}' (mapped to {role}) is not in the table; available: "
                            f"{', '.join(map(str, df.columns))}")
    for key in ("subgroups", "text"):
        cols = list(merged.get(key) or [])
        missing = [c for c in cols if c not in columns]
        if missing:
            raise DataError(f"{key} column(s) {', '.join(missing)} not in the table")
        merged[key] = cols
    for role in REQUIRED_ROLES:
        if merged.get(role) is None:
            _refuse_near_miss(df, role)
            raise DataError(f"no column for the required role '{role}'; recognised names are "
                            f"{', '.join(ROLE_ALIASES[role][:6])}; available columns: "
                            f"{', '.join(map(str, df.columns))}")
    mapped = [merged[r] for r in ROLES if merged.get(r) is not None]
    dup = sorted({c for c in mapped if mapped.count(c) > 1})
    if dup:
        raise DataError(f"column(s) {', '.join(dup)} mapped to more than one role")

    notices: list[str] = []
    role_of = {merged[r]: r for r in ROLES if merged.get(r) is not None}
    both = [c for c in merged["subgroups"] if c in role_of]
    if both:  # a column that holds a role (a label, a confidence, ...) is not a subgroup
        merged["subgroups"] = [c for c in merged["subgroups"] if c not in role_of]
        notices.append("Not used as subgroup(s), since mapped to a role: "
                       + ", ".join(f"'{c}' ({role_of[c]})" for c in both) + ".")
    out = pd.DataFrame(index=df.index)
    labels_in = {r: _label_values(df[merged[r]], merged[r], r,
                                allow_missing=r == "human_label_2"
                                or (partial_gold and r == "human_label"))
                 for r in ("machine_label", "human_label", "human_label_2") if merged.get(r)}
    labels_in = _harmonise(labels_in)
    for r, s in labels_in.items():
        out[r] = s
    out["machine_confidence"] = _numeric(df, merged["machine_confidence"], "machine_confidence",
                                         lo=0.0, hi=1.0)
    out["human_confidence"] = (_numeric(df, merged["human_confidence"], "human_confidence",
                                        lo=0.0, hi=1.0)
                               if merged.get("human_confidence") else 1.0)
    out["machine_effort"] = (_numeric(df, merged["machine_effort"], "machine_effort", lo=0.0, hi=MAX_EFFORT)
                             if merged.get("machine_effort") else 0.0)
    if merged.get("human_effort"):
        out["human_effort"] = _numeric(df, merged["human_effort"], "human_effort", lo=0.0, hi=MAX_EFFORT)
    if merged.get("predicted_effort"):
        out["predicted_effort"] = _numeric(df, merged["predicted_effort"], "predicted_effort", lo=0.0, hi=MAX_EFFORT)
        effort_source = "predicted_effort"
    elif "human_effort" in out:
        out["predicted_effort"] = out["human_effort"]
        effort_source = "human_effort"
        notices.append("No predicted-effort column: the optimiser uses the ground-truth human "
                       f"effort ('{merged['human_effort']}') as l_i.")
    else:
        out["predicted_effort"] = 1.0
        effort_source = "uniform"
        notices.append("No effort column: every sample costs 1 unit of human effort, so the "
                       "predicted effort saved is the share of samples the machine keeps; the "
                       "time actually spent is unknown (no time column).")
    for role in ("human_effort", "predicted_effort"):
        # an effort of 0 on every row leaves nothing to trade off, and the time cost (a share
        # of the total effort) undefined: assign printed time_cost NaN with exit 0
        if merged.get(role) and len(df) and not np.any(np.asarray(out[role]) > 0):
            raise DataError(f"column '{merged[role]}' ({role}) is 0 on every row: there is no "
                            f"effort to trade off; give the real effort, or leave the column "
                            f"out (--col {role}=-) and every sample costs 1 unit")
    for role in ("turn", "n_turns"):
        if merged.get(role):
            arr = _numeric(df, merged[role], role, lo=0.0)
            bad = np.flatnonzero(arr != np.round(arr))
            if len(bad):
                raise DataError(f"column '{merged[role]}' ({role}) must hold whole numbers; "
                                f"{describe_rows(bad)} do not")
            out[role] = arr.astype("int64")
    if merged.get("dialogue_id"):
        col = merged["dialogue_id"]
        bad = np.flatnonzero(df[col].isna().to_numpy())
        if len(bad):
            raise DataError(f"column '{col}' (dialogue_id) has missing values in {describe_rows(bad)}")
        out["dialogue_id"] = _values(df[col])
    elif "turn" in out:
        t = out["turn"].to_numpy()
        start = np.r_[True, t[1:] <= t[:-1]]
        out["dialogue_id"] = np.cumsum(start)
        notices.append("No dialogue id column: dialogues were derived from consecutive rows "
                       "(a new dialogue starts where the turn number does not increase).")
    if merged.get("sample_id"):
        out["sample_id"] = _values(df[merged["sample_id"]])

    # distinct values per column first (a handful), then across columns
    present = [np.asarray(pd.unique(s.dropna()), dtype=object) for s in labels_in.values()]
    all_labels = pd.unique(np.concatenate(present))
    try:
        labels = tuple(sorted(all_labels.tolist()))
    except TypeError:
        labels = tuple(sorted(map(str, all_labels.tolist())))
    if len(labels) > MAX_CLASSES:  # confusion tables grow as K^2: 20,000 classes took 9.4 GB
        cols = ", ".join(f"'{merged[r]}'" for r in labels_in)
        raise DataError(f"label column(s) {cols} hold {len(labels):,} distinct classes; at most "
                        f"{MAX_CLASSES:,} are analysed (is a free-text or id column mapped as "
                        "a label? map the label columns with --col)")
    if len(labels) < 2:
        cols = ", ".join(f"'{merged[r]}'" for r in labels_in)
        raise DataError(f"label column(s) {cols} hold a single value ({labels[0]!r}); at least "
                        "two classes are needed")
    if "human_label" in out:
        gold = set(pd.unique(out["human_label"].dropna()).tolist())
        extra = sorted(set(pd.unique(out["machine_label"]).tolist()) - gold, key=str)
        if extra:
            notices.append(f"The machine predicts label(s) {', '.join(map(str, extra))} that never "
                           "occur in the gold labels.")
    for col in merged["subgroups"] + merged["text"]:
        if col in out.columns:
            continue
        out[col] = _values(df[col])
    # detection's doubts that stand: a role the caller left to it, where its choice was used
    asks = tuple(a for a in detection.asks
                 if a.chosen is not None and a.role not in (roles or {}) and merged.get(a.role) == a.chosen)
    return EvalData(frame=out, raw=df, roles=merged, labels=labels, effort_source=effort_source,
                    confidence_columns=_ordered_conf(df, merged["machine_confidence"]),
                    notices=notices, name=name, asks=asks)


#: pandas' default text dtype (what a column of Python strings becomes).
_STR = pd.Series(["a"], dtype=object).infer_objects().dtype


def _values(s: pd.Series) -> Any:
    """A column's values for the canonical frame: text columns as they are (their array is
    shared, not turned into a million Python strings and back: 0.3 s per column of 10^6 rows),
    other columns as their numpy values (as before)."""
    if s.dtype == _STR:
        return s.array
    return s.to_numpy()


def _refuse_near_miss(df: pd.DataFrame, role: str) -> None:
    """When no column was detected for a required confidence, a column named like one whose
    values are not confidences is the likely culprit: refuse naming it and its rows (the Data
    page's message when the user maps it), rather than listing alias names."""
    if role != "machine_confidence":
        return
    for col in df.columns:
        if confidence_name(col) is not None:
            try:
                _numeric(df, col, role, lo=0.0, hi=1.0)
            except DataError as exc:
                raise DataError(f"no usable column for the required role '{role}': {exc}") from None


def _ordered_conf(df: pd.DataFrame, chosen: str) -> list[str]:
    cands = confidence_candidates(df)
    return [chosen] + [c for c in cands if c != chosen]
