"""A round's table as the command line writes it, and the check that it is still whole.

``hmceval queue``, ``certify``, ``labels`` and ``labelstudio pull`` write a round's table with
:func:`write_round_table`: the CSV atomically (:mod:`core.atomic`), and beside it a small
sidecar ``NAME.round.json`` (also atomic) recording what the table must hold::

    {"format": "hmceval-round-table", "version": 1, "rows": 400000,
     "sample_id_column": "sample_id", "sample_ids_sha256": "..."}

``rows`` is the number of data rows; ``sample_ids_sha256`` is the SHA-256 of the sample ids as
text (as a CSV reader sees them, ``dtype=str``), sorted, joined by the unit separator: sorting
the rows or filling in labels by hand keeps it, losing, adding or replacing rows does not.
Without a sample id column only the row count is recorded. A table of a round kept in the
workspace also records ``"round_id"`` and ``"workspace"`` (the folder, absolute): the next
command continues that round (:mod:`core.cli.rounds`; :func:`round_link` reads them).

:func:`check_round_table` (called by :func:`core.cli.common.load_round`, so by ``labels``,
``estimate``, ``certify``, ``queue`` and ``labelstudio``) refuses a table that no longer matches
its sidecar with a :class:`core.errors.DataError` (exit 2). A table without a sidecar (written
by an older version, by hand, or copied alone) is read as it is, with no check.

The sidecar is removed before a table with other rows is written and written after it, so a
process killed in between leaves a table without a sidecar (read unchecked), never a complete
table that its stale sidecar would refuse.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import pandas as pd

from core.errors import DataError

__all__ = ["SIDECAR_SUFFIX", "check_round_table", "link_table", "round_link", "round_record",
           "sidecar_path", "write_round_table"]

SIDECAR_SUFFIX = ".round.json"
_FORMAT = "hmceval-round-table"
_SEP = "\x1f"


def sidecar_path(path: str | os.PathLike) -> Path:
    """The sidecar of the round table ``path``: ``NAME.round.json`` beside it."""
    p = Path(path)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def _ids_digest(texts) -> str:
    return hashlib.sha256(_SEP.join(sorted(texts)).encode("utf-8")).hexdigest()


def _id_texts(source, col: str) -> list[str]:
    from core.csv_safe import safe_text

    head = safe_text(col)  # the header as the CSV holds it ('=id for a column named =id)
    return pd.read_csv(source, usecols=[head], dtype=str, keep_default_na=False,
                       encoding="utf-8-sig")[head].tolist()


def round_record(table: pd.DataFrame, id_col: str | None, link: dict | None = None) -> dict:
    """What the sidecar of ``table`` records (its rows, the digest of its sample ids, and
    ``link``: ``{"round_id": ..., "workspace": ...}`` for a round kept in the workspace)."""
    from core.csv_safe import to_csv_safe

    rec = {"format": _FORMAT, "version": 1, "rows": int(len(table))}
    if link:
        rec["round_id"] = int(link["round_id"])
        rec["workspace"] = str(link["workspace"])
    if id_col is not None and id_col in table.columns:
        text = to_csv_safe(table[[id_col]])  # the ids exactly as the CSV holds them
        rec["sample_id_column"] = str(id_col)
        rec["sample_ids_sha256"] = _ids_digest(_id_texts(io.StringIO(text), id_col))
    return rec


def _read_record(side: Path) -> dict | None:
    try:
        return json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_round_table(table: pd.DataFrame, path: str | os.PathLike, *,
                      id_col: str | None, link: dict | None = None) -> None:
    """Write a round's ``table`` to ``path`` as CSV (:func:`core.csv_safe.to_csv_safe`,
    atomic) with its sidecar (:func:`sidecar_path`).

    Parameters
    ----------
    table : pandas.DataFrame of shape (n_rows, n_columns)
    path : the CSV to write
    id_col : the sample id column of ``table`` (``None``: the rows are only counted)
    link : ``{"round_id": int, "workspace": str}``, the round the table is an export of
    """
    from core.atomic import check_writable, remove, write_text
    from core.csv_safe import to_csv_safe

    dest = check_writable(path)
    side = sidecar_path(dest)
    rec = round_record(table, id_col, link)
    same = _read_record(side) == rec
    if not same and os.path.lexists(side):
        remove(side)  # inside core.atomic.staged: when the step commits, before the table
    to_csv_safe(table, dest)
    if not same:
        write_text(side, json.dumps(rec, indent=1) + "\n")


def link_table(path: str | os.PathLike, raw: pd.DataFrame, *, id_col: str | None,
               link: dict) -> None:
    """Write the sidecar of a table already on disk (``path``, read as ``raw``) naming the
    round ``link`` it was taken in as (:mod:`core.workspace.adopt`): its rows and, for a CSV
    with a sample id column, the digest of the ids as the file holds them (a Parquet or JSON
    table: its rows only). Atomic; inside :func:`core.atomic.staged` written with the step."""
    from core.atomic import write_text

    rec = {"format": _FORMAT, "version": 1, "rows": int(len(raw)),
           "round_id": int(link["round_id"]), "workspace": str(link["workspace"])}
    if id_col is not None and id_col in raw.columns and Path(path).suffix.lower() in (
            ".csv", ".txt"):
        rec["sample_id_column"] = str(id_col)
        rec["sample_ids_sha256"] = _ids_digest(_id_texts(path, id_col))
    write_text(sidecar_path(path), json.dumps(rec, indent=1) + "\n")


def round_link(path: str | os.PathLike) -> dict | None:
    """``{"round_id": int, "workspace": str}`` when the sidecar of the table ``path`` names a
    round of a workspace, else None (no sidecar, or a table of no round)."""
    rec = _read_record(sidecar_path(path))
    if not isinstance(rec, dict) or not isinstance(rec.get("round_id"), int) \
            or not isinstance(rec.get("workspace"), str):
        return None
    return {"round_id": rec["round_id"], "workspace": rec["workspace"]}


def round_key(path: str | os.PathLike) -> str | None:
    """A short stable name of the round the table ``path`` belongs to, from its sidecar (the
    round and workspace it is an export of, and the digest of its sample ids): the same for
    every file of that round whatever it is called, so ``labelstudio pull`` into a new file
    finds the project its push created. None without a sidecar."""
    rec = _read_record(sidecar_path(path))
    if not isinstance(rec, dict) or not isinstance(rec.get("sample_ids_sha256"), str):
        return None
    parts = [rec["sample_ids_sha256"], str(rec.get("round_id", "")), str(rec.get("workspace", ""))]
    return hashlib.sha256(_SEP.join(parts).encode("utf-8")).hexdigest()[:10]


def check_round_table(path: str | os.PathLike, raw: pd.DataFrame) -> None:
    """Refuse the round table ``path`` (already read as ``raw``) when it does not match its
    sidecar: rows missing or added, sample ids changed. No sidecar: no check.

    Raises
    ------
    DataError
        The message gives both counts, names the sidecar and says how to go on.
    """
    side = sidecar_path(path)
    if not side.is_file():
        return
    rec = _read_record(side)
    way_out = (f"restore the table from a copy, or delete {side} to read the table as it is")
    if not isinstance(rec, dict) or rec.get("format") != _FORMAT or not isinstance(
            rec.get("rows"), int):
        raise DataError(f"{side} (what the round table {path} must hold) is unreadable; "
                        f"delete it to read the table without this check")
    if len(raw) != rec["rows"]:
        raise DataError(f"round table {path} holds {len(raw):,} rows; its plan has "
                        f"{rec['rows']:,}: truncated or edited? ({side} records the table as "
                        f"hmceval wrote it; {way_out})")
    col = rec.get("sample_id_column")
    if col is None:
        return
    if col not in raw.columns:
        raise DataError(f"round table {path} has no column '{col}' (the sample ids its plan "
                        f"was written with): edited? ({way_out})")
    if _ids_digest(_id_texts(path, col)) != rec.get("sample_ids_sha256"):
        raise DataError(f"round table {path} holds {len(raw):,} rows as planned but not the "
                        f"same sample ids ('{col}'): edited, or another round's table? ({way_out})")
