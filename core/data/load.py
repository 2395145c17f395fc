"""Reading tables: CSV, TSV, Parquet and JSON (lists of objects or JSON lines), with a size limit.

Every cell comes out a scalar (nested JSON and Parquet values become canonical JSON text, bytes
are decoded as UTF-8); every problem is a :class:`~core.errors.DataError` naming the file, the
column or the row.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
from collections import Counter
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from core.csv_safe import restore_formulas
from core.errors import DataError, describe_rows
from core.userfile import read_user_file

__all__ = ["MAX_FILE_BYTES", "MAX_COLUMNS", "load_table"]

#: Largest file accepted by :func:`load_table` (bytes).
MAX_FILE_BYTES = 200 * 1024 * 1024
#: Most columns of a table: an evaluation table has a handful (roles, subgroups, text); tens of
#: thousands (a transposed or wide export) would make role detection and the mapping form slow
#: (a 50,000-column upload took 50 s to show), so they are refused with the count.
MAX_COLUMNS = 2_000


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
        # a regular file only, at most max_bytes read (a FIFO hung, /dev/zero filled memory)
        data = read_user_file(path, max_bytes=max_bytes, what="table file")
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
    if not data or data.isspace():  # (not data.strip(): a copy of the whole file)
        raise DataError(f"{label} is empty")
    ext = Path(str(name)).suffix.lower() if name else ""
    is_text = False
    if ext in (".parquet", ".pq") or data[:4] == b"PAR1":
        df = _read_parquet(data, label)
    elif ext in (".json", ".jsonl", ".jsonlines", ".ndjson") or (
            ext not in _TEXT_EXTENSIONS and data[:65536].lstrip()[:1] in (b"[", b"{")):
        df = _read_json(data, label)
    else:
        if ext in (".tsv", ".tab"):
            sep = "\t"
        elif ext == ".csv":
            sep = ","
        else:
            nl = data.find(b"\n")
            first = data if nl < 0 else data[:nl]
            sep = "\t" if b"\t" in first else ","
        # the quote core.csv_safe puts before a formula-like cell comes off again: a class
        # named "+" written to a round table reads back as "+"
        df = restore_formulas(_read_text(data, label, sep))
        is_text = True
    if df.shape[1] == 0:
        raise DataError(f"{label} has no columns")
    _check_width(df.shape[1], label)
    if len(df) == 0:
        raise DataError(f"{label} has a header but no data rows")
    if not is_text:  # JSON and Parquet cells may be nested or bytes; CSV cells are text
        df = _plain_cells(df, label)
    df = _big_integers_as_text(df)
    dup = [c for c in df.columns[df.columns.duplicated()]]
    if dup:
        raise DataError(f"{label}: duplicate column name(s): {', '.join(map(str, dup))}")
    df.columns = [str(c).strip() for c in df.columns]
    unnamed = [c for c in df.columns if c == "" or c.startswith("Unnamed:")]
    if unnamed and len(unnamed) == df.shape[1]:
        raise DataError(f"{label}: no column has a name; the first line must be a header")
    return df


def _check_width(n_columns: int, label: str) -> None:
    """A :class:`DataError` when a table has more than :data:`MAX_COLUMNS` columns; called on
    the header (CSV, TSV) or the schema (Parquet) before the cells are parsed (a 40,002-column
    CSV cost 2.4 s of CPU before it was refused)."""
    if n_columns > MAX_COLUMNS:
        raise DataError(f"{label} has {n_columns:,} columns; at most {MAX_COLUMNS:,} are read "
                        "(one row per evaluated response, one column per field: is the table "
                        "transposed?)")


def _read_text(data: bytes, label: str, sep: str) -> pd.DataFrame:
    # the bytes go to pandas' C parser as they are (a StringIO of the decoded text cost as much
    # again: 10^6 rows 1.4 s instead of 0.6 s); the text is only checked to be UTF-8, and ASCII,
    # the usual case, is UTF-8 without decoding it
    if data.isascii():
        text = None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DataError(f"{label} is not UTF-8 text (undecodable byte at offset {exc.start}); "
                            "save it as UTF-8 CSV/TSV or Parquet") from None
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8):]
    try:
        header = next(csv.reader(_lines(data if text is None else text), delimiter=sep), [])
    except csv.Error as exc:
        raise DataError(f"{label}: unreadable header line: {exc}") from None
    names = [h.strip() for h in header]
    counts = Counter(h for h in names if h)  # linear: a header may have 100,000 columns
    dup = sorted(h for h, k in counts.items() if k > 1)
    if dup:
        raise DataError(f"{label}: duplicate column name(s): {', '.join(dup)}")
    _check_width(len(header), label)  # before the cells are parsed
    try:
        return pd.read_csv(io.BytesIO(data), sep=sep, skipinitialspace=False, encoding="utf-8")
    except pd.errors.EmptyDataError:
        raise DataError(f"{label} is empty") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise DataError(f"{label} is not a valid {'TSV' if sep == chr(9) else 'CSV'} table: "
                        f"{str(exc).strip()}") from None


def _lines(text: str | bytes):
    """The lines of ``text`` one by one, with their line ends, as ``io.StringIO(text)`` gives
    them (split at ``\n`` only), without copying the whole text first; bytes (ASCII) are
    decoded line by line. The header is read from the first of them."""
    nl = "\n" if isinstance(text, str) else b"\n"
    start = 0
    while start < len(text):
        end = text.find(nl, start)
        end = len(text) if end < 0 else end + 1
        line = text[start:end]
        yield line if isinstance(line, str) else line.decode("ascii")
        start = end


def _read_parquet(data: bytes, label: str) -> pd.DataFrame:
    try:
        import pyarrow.parquet as pq

        schema = pq.read_schema(io.BytesIO(data))  # the footer only: before the cells
        index = [c for c in ((schema.pandas_metadata or {}).get("index_columns") or [])
                 if isinstance(c, str)]
        _check_width(len(schema.names) - len(index), label)
        return pd.read_parquet(io.BytesIO(data))
    except DataError:
        raise
    except Exception as exc:  # pyarrow raises several types for corrupt files
        raise DataError(f"{label} is not a readable Parquet file: {exc}") from None


# extensions read as delimited text whatever the first byte; any other is sniffed
_TEXT_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt")


def _read_json(data: bytes, label: str) -> pd.DataFrame:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{label} is not UTF-8 JSON (undecodable byte at offset {exc.start})") from None
    def pairs(items):  # a wide object stops the parse where it ends, not after the file
        if len(items) > MAX_COLUMNS:
            _check_width(len(items), f"{label}: a JSON object")
        return dict(items)

    try:
        try:
            obj = json.loads(text, object_pairs_hook=pairs)
        except json.JSONDecodeError as exc:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            try:  # JSON lines
                obj = [json.loads(ln, object_pairs_hook=pairs) for ln in lines]
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
    keys = set().union(*obj) if obj else set()
    if len(keys) > MAX_COLUMNS:  # before the frame is built: 20,000 keys took 6.4 GB
        raise DataError(f"{label} has {len(keys):,} distinct keys (columns); at most "
                        f"{MAX_COLUMNS:,} are read (one object per evaluated response, one key "
                        "per field)")
    if not obj:
        raise DataError(f"{label} is an empty JSON list")
    return pd.DataFrame.from_records(obj)


_INT64 = (-(2**63), 2**63 - 1)


def _big_integers_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """A column holding integers beyond 64 bits (an id such as 99999999999999999999) becomes
    text, every digit kept: such cells could not be shown (the Data page's table broke with
    StreamlitDataframeConversionError) nor stored as Parquet."""
    for col in [c for c, dt in df.dtypes.items() if dt == object]:
        s = df[col]
        if pd.api.types.infer_dtype(s, skipna=True) not in ("integer", "mixed-integer",
                                                             "mixed-integer-float", "mixed"):
            continue
        big = s.map(lambda v: isinstance(v, int) and not _INT64[0] <= v <= _INT64[1])
        if big.any():
            df[col] = s.map(lambda v: v if v is None or (isinstance(v, float) and v != v)
                            else str(v))
    return df


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

