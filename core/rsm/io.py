"""Reading an evaluation table as RSMTool reads it: JSON lines with nested objects flattened.

RSMTool reads ``.jsonlines`` files one JSON object per line and flattens every column that holds
objects with ``pandas.json_normalize`` (``rsmtool.reader.read_jsonlines``): the keys of a nested
object become columns *without* the parent's name (``{"metadata": {"h1": 3}}`` gives a column
``h1``), deeper levels joined with dots (``{"values": {"features": {"f1": 1}}}`` gives
``features.f1``). :func:`read_jsonlines` does the same for ``.jsonlines`` and ``.jsonl`` files;
the full dotted path (``metadata.h1``) is also accepted as a column name (see
:func:`resolve_column`). Every other format goes to :func:`core.data.load_table`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from core.errors import DataError

__all__ = ["JSONLINES_EXTENSIONS", "read_jsonlines", "load_evaluation_table", "resolve_column"]

#: File extensions read as JSON lines (RSMTool: ``.jsonlines``).
JSONLINES_EXTENSIONS = (".jsonlines", ".jsonl")
#: ``DataFrame.attrs`` key: full dotted path of a flattened column -> its column name.
PATHS_ATTR = "json_paths"


def _flatten(obj: dict, prefix: str, out: dict, paths: dict, full: str) -> None:
    for key, value in obj.items():
        name = f"{prefix}{key}"
        path = f"{full}{key}"
        if isinstance(value, dict) and value:
            _flatten(value, f"{name}.", out, paths, f"{path}.")
        else:
            out[name] = value
            paths[path] = name


def _cell(value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return value


def read_jsonlines(source: str | os.PathLike | bytes, *, name: str | None = None,
                   max_bytes: int | None = None) -> pd.DataFrame:
    """Read a JSON lines table, flattening nested objects as RSMTool does.

    Parameters
    ----------
    source : path or bytes
        One JSON object per line (blank lines ignored).
    name : str, optional
        Name used in messages (default: the file name).
    max_bytes : int, optional
        Larger inputs are refused (default: :data:`core.data.MAX_FILE_BYTES`).

    Returns
    -------
    pandas.DataFrame of shape (n_lines, n_columns)
        Top-level keys as columns; a key whose values are objects is replaced by their keys
        (RSMTool's names, see the module docstring); lists stay as their JSON text. The
        frame's ``attrs["json_paths"]`` maps every full dotted path to its column.

    Raises
    ------
    DataError
        Missing or too large file, undecodable text, a line that is not a JSON object (its
        line number named), nesting too deep, or two keys flattening to one column name.
    """
    from core.data import MAX_FILE_BYTES

    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    if isinstance(source, (bytes, bytearray)):
        data, label = bytes(source), name or "input"
    else:
        path = Path(source)
        label = name or path.name
        if not path.is_file():
            raise DataError(f"file not found: {path}")
        if path.stat().st_size > limit:
            raise DataError(f"{label} is {path.stat().st_size / 2**20:.1f} MiB; the limit is {limit / 2**20:.0f} MiB")
        data = path.read_bytes()
    if len(data) > limit:
        raise DataError(f"{label} is {len(data) / 2**20:.1f} MiB; the limit is {limit / 2**20:.0f} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{label} is not UTF-8 JSON lines (undecodable byte at offset {exc.start})") from None
    records: list[dict] = []
    paths: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{label}: line {lineno} is not valid JSON ({exc.msg} at column {exc.colno}); "
                            "a JSON lines file has one object per line") from None
        except RecursionError:
            raise DataError(f"{label}: line {lineno} is nested too deeply to be a table row") from None
        if not isinstance(obj, dict):
            raise DataError(f"{label}: line {lineno} is not a JSON object")
        row: dict[str, Any] = {}
        try:
            for key, value in obj.items():
                if isinstance(value, dict) and value:
                    sub: dict[str, Any] = {}
                    _flatten(value, "", sub, paths, f"{key}.")
                    clash = [k for k in sub if k in row]
                    if clash:
                        raise DataError(f"{label}: line {lineno}: nested key {clash[0]!r} (in {key!r}) gives a "
                                        "column name that another key already has")
                    row.update(sub)
                else:
                    if key in row:
                        raise DataError(f"{label}: line {lineno}: key {key!r} gives a column name that a "
                                        "nested key already has")
                    row[key] = value
                    paths.setdefault(key, key)
        except RecursionError:
            raise DataError(f"{label}: line {lineno} is nested too deeply to be a table row") from None
        records.append({k: _cell(v) for k, v in row.items()})
    if not records:
        raise DataError(f"{label} is empty")
    df = pd.DataFrame.from_records(records)
    df.columns = [str(c) for c in df.columns]
    df.attrs[PATHS_ATTR] = paths
    return df


def load_evaluation_table(path: str | os.PathLike) -> pd.DataFrame:
    """The table of ``hmceval agreement``: JSON lines (:data:`JSONLINES_EXTENSIONS`) with
    :func:`read_jsonlines`, anything else with :func:`core.data.load_table`."""
    if Path(path).suffix.lower() in JSONLINES_EXTENSIONS:
        return read_jsonlines(path)
    from core.data import load_table

    return load_table(path)


def resolve_column(df: pd.DataFrame, name: str | None) -> str | None:
    """``name`` if it is a column; else the column a full dotted JSON path names
    (``metadata.h1`` -> ``h1``); else ``name`` unchanged (the report then says it is absent)."""
    if name is None or name in df.columns:
        return name
    return df.attrs.get(PATHS_ATTR, {}).get(name, name)
