"""The data contract: load a table of scored samples and map its columns to roles.

A *role* is what a column means to HMCEval, whatever the user called it:

==================== ======== ==============================================================
role                 needed   meaning
==================== ======== ==============================================================
``machine_label``    yes      the machine evaluator's label of the sample
``machine_confidence`` yes    the confidence a_i in [0, 1] of that label
``human_label``      no       the gold (human) label; without it observed reliability is
                              unavailable, expected reliability still computed
``human_label_2``    no       a second human rating (human-human agreement)
``human_effort``     no       ground-truth annotation cost of the sample (time cost)
``predicted_effort`` no       the HEE estimate l_i used by the optimiser; falls back to
                              ``human_effort``, then to 1 for every sample
``human_confidence`` no       b_i in [0, 1], default 1
``machine_effort``   no       k_i >= 0, default 0
``turn``             no       1-based turn index of the response in its dialogue
``n_turns``          no       number of turns of the dialogue
``dialogue_id``      no       dialogue identifier (derived from ``turn`` when absent)
``sample_id``        no       sample identifier
==================== ======== ==============================================================

plus any number of subgroup columns (categorical) and free-text columns.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.validate import numeric_values

__all__ = [
    "ROLES",
    "REQUIRED_ROLES",
    "ROLE_ALIASES",
    "MAX_FILE_BYTES",
    "EvalData",
    "load_table",
    "detect_roles",
    "norm_name",
    "confidence_candidates",
    "prepare",
]

#: Roles in display order.
ROLES: tuple[str, ...] = (
    "machine_label",
    "machine_confidence",
    "human_label",
    "human_label_2",
    "human_effort",
    "predicted_effort",
    "human_confidence",
    "machine_effort",
    "turn",
    "n_turns",
    "dialogue_id",
    "sample_id",
)
REQUIRED_ROLES: tuple[str, ...] = ("machine_label", "machine_confidence")

#: Column names recognised for each role (compared case-insensitively, spaces/dashes as ``_``),
#: in priority order. Every column name of the HMCEval release is covered.
ROLE_ALIASES: dict[str, tuple[str, ...]] = {
    "machine_label": ("machine_label", "machine_predict", "machine_prediction", "machine_pred",
                      "predicted_label", "prediction", "pred_label", "y_pred", "system_label"),
    "machine_confidence": ("machine_confidence", "confidence", "model_confidence", "confidence_ts",
                           "confidence_mcp", "confidence_tcp", "trust_score", "mcp", "tcp", "conf"),
    "human_label": ("human_label", "target", "gold", "gold_label", "label", "y_true",
                    "human_label_1", "human", "reference"),
    "human_label_2": ("human_label_2", "human2", "second_rater", "rater_2", "label_2", "gold_2"),
    "human_effort": ("human_effort", "human_effort_groundtruth", "human_effort_ground_truth",
                     "effort", "annotation_time", "time_cost", "worktimeinseconds", "time"),
    "predicted_effort": ("predicted_effort", "human_effort_predicted_avg",
                         "human_effort_predicted", "effort_predicted", "predicted_time"),
    "human_confidence": ("human_confidence",),
    "machine_effort": ("machine_effort",),
    "turn": ("turn", "turn_index", "turn_id", "turn_number"),
    "n_turns": ("turns", "n_turns", "num_turns", "dialogue_turns"),
    "dialogue_id": ("dialogue_id", "dialog_id", "conversation_id", "conv_id", "episode_id"),
    "sample_id": ("sample_id", "response_id", "id"),
}

#: Largest file accepted by :func:`load_table` (bytes).
MAX_FILE_BYTES = 200 * 1024 * 1024

_SUBGROUP_HINTS = ("system", "model", "topic", "category", "group", "domain", "source", "gender",
                   "language", "split", "worker", "annotator", "dataset")
_TEXT_HINTS = ("text", "response", "context", "utterance", "dialogue", "dialog", "message",
               "prompt", "reply")


def norm_name(name: Any) -> str:
    """A column name as compared with aliases: stripped, lower case, spaces and dashes as ``_``."""
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------
def load_table(source: str | os.PathLike | bytes | IO[bytes], *, name: str | None = None,
               max_bytes: int = MAX_FILE_BYTES) -> pd.DataFrame:
    """Read a CSV, TSV, Parquet or JSON table.

    Parameters
    ----------
    source : path, bytes or binary file object
        The table. CSV/TSV may have a UTF-8 byte-order mark, CRLF line ends and quoted fields.
        JSON is a list of objects (or JSON lines).
    name : str, optional
        File name used to pick the format from its extension (needed for bytes/file objects;
        defaults to the path's name). Unknown extensions are sniffed (Parquet magic, JSON,
        tab- or comma-separated text).
    max_bytes : int, default=MAX_FILE_BYTES
        Larger inputs are refused with a :class:`DataError`.

    Returns
    -------
    pandas.DataFrame of shape (n_rows, n_columns)

    Raises
    ------
    DataError
        Empty, too large, undecodable or malformed input; duplicate column names.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.exists():
            raise DataError(f"file not found: {path}")
        if path.is_dir():
            raise DataError(f"{path} is a folder, not a table file")
        size = path.stat().st_size
        if size > max_bytes:
            raise DataError(f"{path.name} is {size / 2**20:.1f} MiB; the limit is "
                            f"{max_bytes / 2**20:.0f} MiB")
        data = path.read_bytes()
        name = name or path.name
    elif isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = name or getattr(source, "name", None)
    label = name or "input"
    if len(data) > max_bytes:
        raise DataError(f"{label} is {len(data) / 2**20:.1f} MiB; the limit is "
                        f"{max_bytes / 2**20:.0f} MiB")
    if not data.strip():
        raise DataError(f"{label} is empty")
    ext = Path(str(name)).suffix.lower() if name else ""
    is_text = False
    if ext in (".parquet", ".pq") or data[:4] == b"PAR1":
        df = _read_parquet(data, label)
    elif ext in (".json", ".jsonl") or (not ext and data.lstrip()[:1] in (b"[", b"{")):
        df = _read_json(data, label)
    else:
        if ext in (".tsv", ".tab"):
            sep = "\t"
        elif ext == ".csv":
            sep = ","
        else:
            first = data.split(b"\n", 1)[0]
            sep = "\t" if b"\t" in first else ","
        df = _read_text(data, label, sep)
        is_text = True
    if df.shape[1] == 0:
        raise DataError(f"{label} has no columns")
    if len(df) == 0:
        raise DataError(f"{label} has a header but no data rows")
    if not is_text:  # JSON and Parquet cells may be nested or bytes; CSV cells are text
        df = _plain_cells(df, label)
    dup = [c for c in df.columns[df.columns.duplicated()]]
    if dup:
        raise DataError(f"{label}: duplicate column name(s): {', '.join(map(str, dup))}")
    df.columns = [str(c).strip() for c in df.columns]
    unnamed = [c for c in df.columns if c == "" or c.startswith("Unnamed:")]
    if unnamed and len(unnamed) == df.shape[1]:
        raise DataError(f"{label}: no column has a name; the first line must be a header")
    return df


def _read_text(data: bytes, label: str, sep: str) -> pd.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{label} is not UTF-8 text (undecodable byte at offset {exc.start}); "
                        "save it as UTF-8 CSV/TSV or Parquet") from None
    try:
        header = next(csv.reader(io.StringIO(text), delimiter=sep), [])
    except csv.Error as exc:
        raise DataError(f"{label}: unreadable header line: {exc}") from None
    names = [h.strip() for h in header]
    counts = Counter(h for h in names if h)  # linear: a header may have 100,000 columns
    dup = sorted(h for h, k in counts.items() if k > 1)
    if dup:
        raise DataError(f"{label}: duplicate column name(s): {', '.join(dup)}")
    try:
        return pd.read_csv(io.StringIO(text), sep=sep, skipinitialspace=False)
    except pd.errors.EmptyDataError:
        raise DataError(f"{label} is empty") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"{label} is not a valid {'TSV' if sep == chr(9) else 'CSV'} table: "
                        f"{str(exc).strip()}") from None


def _read_parquet(data: bytes, label: str) -> pd.DataFrame:
    try:
        return pd.read_parquet(io.BytesIO(data))
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise DataError(f"{label} is not a readable Parquet file: {exc}") from None


def _read_json(data: bytes, label: str) -> pd.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{label} is not UTF-8 JSON (undecodable byte at offset {exc.start})") from None
    try:
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            try:  # JSON lines
                obj = [json.loads(ln) for ln in lines]
            except json.JSONDecodeError:
                raise DataError(f"{label} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                                f"column {exc.colno}") from None
    except RecursionError:
        raise DataError(f"{label}: JSON nested too deeply to be a table (a table is a list of "
                        "flat objects)") from None
    if isinstance(obj, dict):
        for key in ("data", "records", "rows", "samples"):
            if isinstance(obj.get(key), list):
                obj = obj[key]
                break
        else:
            raise DataError(f"{label}: expected a JSON list of objects, found an object with keys "
                            f"{', '.join(list(obj)[:8])}")
    if not isinstance(obj, list):
        raise DataError(f"{label}: expected a JSON list of objects")
    bad = [i for i, r in enumerate(obj) if not isinstance(r, dict)]
    if bad:
        raise DataError(f"{label}: every JSON list item must be an object; item(s) "
                        f"{', '.join(str(i) for i in bad[:5])} are not")
    if not obj:
        raise DataError(f"{label} is an empty JSON list")
    return pd.DataFrame.from_records(obj)


def _flatten_cell(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, (dict, list, tuple)):
        try:
            return json.dumps(v, sort_keys=True, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(v)
    return v


def _plain_cells(df: pd.DataFrame, label: str) -> pd.DataFrame:
    """Make every cell a scalar: nested values (JSON objects/lists, Parquet lists and structs)
    become their canonical JSON text; bytes are decoded as UTF-8 (else a DataError naming the
    column and row)."""
    for col in [c for c, dt in df.dtypes.items() if dt == object]:
        s = df[col]
        nonnull = s.dropna()
        if nonnull.empty:
            continue
        kinds = nonnull.map(type)
        if kinds.map(lambda t: issubclass(t, (dict, list, tuple, np.ndarray))).any():
            try:
                df[col] = s.map(_flatten_cell)
            except RecursionError:
                raise DataError(f"{label}: column '{col}' holds values nested too deeply to be "
                                "table cells") from None
            s = df[col]
        is_bytes = kinds.map(lambda t: issubclass(t, (bytes, bytearray))).to_numpy()
        if is_bytes.any():
            decoded = []
            for pos, v in enumerate(s.tolist()):
                if isinstance(v, (bytes, bytearray)):
                    try:
                        v = bytes(v).decode("utf-8")
                    except UnicodeDecodeError as exc:
                        raise DataError(f"{label}: column '{col}' holds binary data that is not "
                                        f"UTF-8 text ({describe_rows([pos])}, byte "
                                        f"{exc.start}); store it as text or drop the "
                                        "column") from None
                decoded.append(v)
            df[col] = pd.Series(decoded, index=s.index, dtype=object)
    return df


# --------------------------------------------------------------------------------------------
# Role detection
# --------------------------------------------------------------------------------------------
def confidence_candidates(df: pd.DataFrame) -> list[str]:
    """Columns that look like a machine confidence: numeric, all values in [0, 1], named like one.

    Returns
    -------
    list of str
        In the frame's column order; ``human_confidence`` is excluded.
    """
    out = []
    for col in df.columns:
        n = norm_name(col)
        if n == "human_confidence":
            continue
        if not ("conf" in n or n in ("mcp", "tcp", "trust_score") or n.startswith("trust")):
            continue
        vals = pd.to_numeric(df[col], errors="coerce")
        if vals.notna().all() and ((vals >= 0) & (vals <= 1)).all():
            out.append(col)
    return out


def detect_roles(df: pd.DataFrame) -> dict[str, str | None]:
    """Guess the role of each column from its name.

    Parameters
    ----------
    df : pandas.DataFrame
        The loaded table.

    Returns
    -------
    dict
        role -> column name (``None`` when no column is recognised), plus the keys
        ``"subgroups"`` and ``"text"`` holding lists of column names.
    """
    by_norm: dict[str, str] = {}
    for col in df.columns:
        by_norm.setdefault(norm_name(col), col)
    roles: dict[str, Any] = {}
    used: set[str] = set()
    for role in ROLES:
        roles[role] = None
        for alias in ROLE_ALIASES[role]:
            col = by_norm.get(alias)
            if col is not None and col not in used:
                roles[role] = col
                used.add(col)
                break
    if roles["machine_confidence"] is None:
        cands = [c for c in confidence_candidates(df) if c not in used]
        if cands:
            roles["machine_confidence"] = cands[0]
            used.add(cands[0])
    conf_cols = set(confidence_candidates(df))
    subgroups, texts = [], []
    for col in df.columns:
        if col in used or col in conf_cols:
            continue
        s = df[col]
        n = norm_name(col)
        if s.dtype == object or isinstance(s.dtype, pd.StringDtype) or s.dtype == bool:
            nonnull = s.dropna().astype(str)
            mean_len = nonnull.str.len().mean() if len(nonnull) else 0.0
            nunique = nonnull.nunique()
            if any(h in n for h in _TEXT_HINTS) and mean_len >= 15 or mean_len >= 40:
                texts.append(col)
            elif 2 <= nunique <= 50 and nunique < max(len(s), 3):
                subgroups.append(col)
        elif any(h in n for h in _SUBGROUP_HINTS) and pd.api.types.is_integer_dtype(s) \
                and 2 <= s.nunique() <= 50:
            subgroups.append(col)
    roles["subgroups"] = subgroups
    roles["text"] = texts
    return roles


# --------------------------------------------------------------------------------------------
# The validated table
# --------------------------------------------------------------------------------------------
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
    """

    frame: pd.DataFrame
    raw: pd.DataFrame
    roles: dict[str, Any]
    labels: tuple
    effort_source: str
    confidence_columns: list[str]
    notices: list[str] = field(default_factory=list)
    name: str = "dataset"

    @property
    def M(self) -> int:
        """Number of samples."""
        return len(self.frame)

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


#: Largest integer a float64 holds exactly (2**53); larger numeric labels are kept as text.
_EXACT_INT = 2**53


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
    num = pd.to_numeric(s, errors="coerce")
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
    return s.astype(str).str.strip().mask(missing)


def _harmonise(cols: dict[str, pd.Series]) -> dict[str, pd.Series]:
    """Give every label column one type: numbers if all are numeric, strings otherwise."""
    if all(pd.api.types.is_numeric_dtype(s) for s in cols.values()):
        return cols

    def as_text(s: pd.Series) -> pd.Series:
        if pd.api.types.is_numeric_dtype(s):
            return s.map(lambda v: None if pd.isna(v) else
                         (str(int(v)) if float(v).is_integer() else str(v)))
        return s

    return {k: as_text(s) for k, s in cols.items()}


def _numeric(df: pd.DataFrame, col: str, role: str, *, lo: float | None = None,
             hi: float | None = None) -> np.ndarray:
    return numeric_values(df[col], label=f"column '{col}' ({role})", bools="refuse", lo=lo, hi=hi)


def prepare(df: pd.DataFrame, roles: dict[str, Any] | None = None, *, name: str = "dataset",
            partial_gold: bool = False) -> EvalData:
    """Validate a table and build the canonical :class:`EvalData`.

    Parameters
    ----------
    df : pandas.DataFrame of shape (M, n_columns)
        The loaded table.
    roles : dict, optional
        role -> column name (``None`` to leave a role unmapped), plus optional ``"subgroups"``
        and ``"text"`` lists. Roles not given are auto-detected with :func:`detect_roles`; pass
        ``None`` explicitly to switch detection off for a role.
    name : str, default="dataset"
        Display name.
    partial_gold : bool, default=False
        Allow missing values in ``human_label`` (an evaluation in progress, where humans have
        labelled some rows only); missing labels stay missing (``pd.NA``).

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
    detected = detect_roles(df)
    merged: dict[str, Any] = dict(detected)
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
            raise DataError(f"no column for the required role '{role}'; recognised names are "
                            f"{', '.join(ROLE_ALIASES[role][:6])}; available columns: "
                            f"{', '.join(map(str, df.columns))}")
    mapped = [merged[r] for r in ROLES if merged.get(r) is not None]
    dup = sorted({c for c in mapped if mapped.count(c) > 1})
    if dup:
        raise DataError(f"column(s) {', '.join(dup)} mapped to more than one role")

    notices: list[str] = []
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
    out["machine_effort"] = (_numeric(df, merged["machine_effort"], "machine_effort", lo=0.0)
                             if merged.get("machine_effort") else 0.0)
    if merged.get("human_effort"):
        out["human_effort"] = _numeric(df, merged["human_effort"], "human_effort", lo=0.0)
    if merged.get("predicted_effort"):
        out["predicted_effort"] = _numeric(df, merged["predicted_effort"], "predicted_effort", lo=0.0)
        effort_source = "predicted_effort"
    elif "human_effort" in out:
        out["predicted_effort"] = out["human_effort"]
        effort_source = "human_effort"
        notices.append("No predicted-effort column: the optimiser uses the ground-truth human "
                       f"effort ('{merged['human_effort']}') as l_i.")
    else:
        out["predicted_effort"] = 1.0
        effort_source = "uniform"
        notices.append("No effort column: every sample costs 1 unit of human effort; time cost "
                       "is unavailable and equals the human ratio in predicted terms.")
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
        out["dialogue_id"] = df[col].to_numpy()
    elif "turn" in out:
        t = out["turn"].to_numpy()
        start = np.r_[True, t[1:] <= t[:-1]]
        out["dialogue_id"] = np.cumsum(start)
        notices.append("No dialogue id column: dialogues were derived from consecutive rows "
                       "(a new dialogue starts where the turn number does not increase).")
    if merged.get("sample_id"):
        out["sample_id"] = df[merged["sample_id"]].to_numpy()

    present = [s.dropna() for s in labels_in.values()]
    all_labels = pd.unique(pd.concat(present, ignore_index=True).astype(object))
    try:
        labels = tuple(sorted(all_labels.tolist()))
    except TypeError:
        labels = tuple(sorted(map(str, all_labels.tolist())))
    if len(labels) < 2:
        cols = ", ".join(f"'{merged[r]}'" for r in labels_in)
        raise DataError(f"label column(s) {cols} hold a single value ({labels[0]!r}); at least "
                        "two classes are needed")
    if "human_label" in out:
        gold = set(out["human_label"].dropna().tolist())
        extra = sorted(set(out["machine_label"].tolist()) - gold, key=str)
        if extra:
            notices.append(f"The machine predicts label(s) {', '.join(map(str, extra))} that never "
                           "occur in the gold labels.")
    for col in merged["subgroups"] + merged["text"]:
        if col in out.columns:
            continue
        out[col] = df[col].to_numpy()
    return EvalData(frame=out, raw=df, roles=merged, labels=labels, effort_source=effort_source,
                    confidence_columns=_ordered_conf(df, merged["machine_confidence"]),
                    notices=notices, name=name)


def _ordered_conf(df: pd.DataFrame, chosen: str) -> list[str]:
    cands = confidence_candidates(df)
    return [chosen] + [c for c in cands if c != chosen]
