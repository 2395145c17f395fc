"""The workspace's Parquet files: whole tables and round plans, named by their content.

A table is written to ``<root>/tables/<sha256 of its Parquet bytes>.parquet`` (first to a
temporary name, then renamed, so a reader never sees half a file) *before* the transaction that
refers to it commits; if anything fails in between, the file is merely unreferenced. The same
content is written once. :func:`table_hash` is the separate hash of a table's *values* that
tells whether two loaded tables are the same dataset (:func:`core.data.content.content_id`).
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from core.data.content import content_id
from core.errors import DataError

__all__ = ["table_hash", "legacy_table_hash", "parquet_bytes", "write_table", "read_table", "plan_frame",
           "plan_rows", "plan_inclusion", "PLAN_PROBABILITY", "check_database_file"]

#: The column of a stored plan holding each row's inclusion probability (active and random
#: designs only; a routing or guarantee round's plan has no such column).
PLAN_PROBABILITY = "inclusion_probability"


def table_hash(df: pd.DataFrame) -> str:
    """Content hash of a table: :func:`core.data.content.content_id` (the values' hash, about
    0.1 s at 10^5 rows; the same table read from a CSV, a Parquet file or built in memory
    hashes alike). A loaded dataset has it already: :attr:`core.data.EvalData.content_id`."""
    return content_id(df)


def legacy_table_hash(df: pd.DataFrame) -> str:
    """The content hash of datasets stored before the content id (schema < 4): the SHA-256 of
    the table's canonical CSV text (1.6 s at 10^5 rows). Only read to recognise a scenario file
    exported then (:meth:`core.workspace.Workspace.import_scenario`), never to store."""
    canon = df.copy()
    for col in canon.columns:
        s = canon[col]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            canon[col] = s.astype("float64")  # 1, 1.0 and Int64 1 alike; missing as empty
    text = canon.to_csv(index=False, lineterminator="\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parquet_bytes(df: pd.DataFrame) -> bytes:
    """The table as Parquet bytes (no index).

    Raises
    ------
    DataError
        pyarrow cannot store the table (for example a column of mixed types).
    """
    buf = io.BytesIO()
    try:
        df.to_parquet(buf, index=False)
    except Exception as exc:  # pyarrow refuses mixed-type object columns
        raise DataError(f"the table cannot be stored in the workspace: {exc}") from None
    return buf.getvalue()


def write_table(folder: Path, df: pd.DataFrame) -> str:
    """Write ``df`` into ``folder`` (once per content); the file's name."""
    data = parquet_bytes(df)
    name = hashlib.sha256(data).hexdigest()[:32] + ".parquet"
    path = Path(folder) / name
    if not path.exists():
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return name


def read_table(folder: Path, name: str) -> pd.DataFrame:
    """The table stored as ``name`` in ``folder``; a :class:`DataError` naming the file when it
    is missing or damaged (a damaged file raised pyarrow's ArrowInvalid: a traceback)."""
    path = Path(folder) / name
    if not path.exists():
        raise DataError(f"the workspace table file {path} is missing")
    try:
        return pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several types for a damaged file
        raise DataError(f"the workspace table file {path} is damaged and cannot be read "
                        f"({type(exc).__name__}: {str(exc)[:200]}); restore it from a copy "
                        "(nothing else was changed)") from None


def plan_frame(selection: np.ndarray, queue_rank: np.ndarray,
               inclusion: np.ndarray | None = None) -> pd.DataFrame:
    """A round's plan as stored: ``selection`` (text) and ``queue_rank`` (float, NaN for rows
    not queued), one line per row of the dataset; with ``inclusion`` (a design with inclusion
    probabilities) also :data:`PLAN_PROBABILITY` (float)."""
    out = pd.DataFrame({"selection": np.asarray(selection, dtype=object).astype(str),
                        "queue_rank": np.asarray(queue_rank, dtype=float)})
    if inclusion is not None:
        pi = np.asarray(inclusion, dtype=float)
        if pi.shape != (len(out),):
            raise DataError(f"the plan has {len(out)} rows but {pi.size} inclusion "
                            "probabilities")
        out[PLAN_PROBABILITY] = pi
    return out


def plan_rows(plan: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """``(selection, queue_rank)`` of a stored plan, as :func:`plan_frame` took them
    (an undecided row reads ``""``)."""
    raw = plan["selection"]
    sel = raw.astype(str).to_numpy(dtype=object)
    return (np.where(raw.isna().to_numpy(), "", sel).astype(object),
            plan["queue_rank"].to_numpy(dtype=float))


def plan_inclusion(plan: pd.DataFrame) -> np.ndarray | None:
    """The inclusion probabilities of a stored plan (float, shape (M,)), or None when the round
    was planned without them (routing, guarantee, or a plan stored before they existed)."""
    if PLAN_PROBABILITY not in plan.columns:
        return None
    return plan[PLAN_PROBABILITY].to_numpy(dtype=float)


def check_database_file(path: Path) -> None:
    """An empty or non-SQLite database file is reported, never replaced (SQLite took an empty
    file for a new database and wrote a new workspace into it)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise DataError(f"cannot read the workspace database {path}: {exc}") from None
    if not head:
        raise DataError(f"the workspace database {path} is empty (0 bytes): it is not replaced; "
                        "restore it from a copy, or move it away to start a new workspace")
    if head != b"SQLite format 3\x00":
        raise DataError(f"{path} is not a workspace database (not SQLite): it is not replaced; "
                        "restore it from a copy, or move it away to start a new workspace")
