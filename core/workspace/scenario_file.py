"""A scenario file checked against its schema before anything is imported.

:func:`read_scenario_file` reads a file written by ``hmceval workspace export`` (or the app)
with the limits of :mod:`core.userfile` (a regular file, 10 MiB, nesting and key limits) and
:func:`check_scenario` checks its fields (format version 1):

``format`` ``"hmceval-scenario"``; ``version`` the integer 1; ``name`` non-empty text;
``dataset`` an object with ``content_hash`` (hex text) and optional ``name`` (text),
``n_rows`` (an integer 0 to 2**63 - 1, SQLite's) and ``roles`` (an object of text, null or
lists of text); ``settings`` an object. A bad ``version`` ("x", 1.5, true) raised ValueError
and an integer beyond SQLite's OverflowError; each is now a DataError naming the field.
"""

from __future__ import annotations

import os
import re
from typing import Any

from core.errors import DataError
from core.userfile import parse_json, read_user_file

__all__ = ["MAX_SCENARIO_BYTES", "SQLITE_MAX_INT", "check_scenario", "read_scenario_file"]

#: Largest scenario file read (one is a few kB).
MAX_SCENARIO_BYTES = 10 * 2**20
#: Largest integer SQLite stores.
SQLITE_MAX_INT = 2**63 - 1
_FORMAT = "hmceval-scenario"
_HEX = re.compile(r"[0-9a-fA-F]{1,128}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_scenario(obj: Any) -> dict[str, Any]:
    """``obj`` when it is a scenario of format version 1, else a :class:`DataError` naming the
    field."""
    if not isinstance(obj, dict) or obj.get("format") != _FORMAT:
        raise DataError("not an HMCEval scenario file (expected a JSON object with "
                        f"\"format\": \"{_FORMAT}\")")
    version = obj.get("version", 1)
    if not _is_int(version):
        raise DataError(f"scenario file: field 'version' must be an integer, got {version!r}")
    if version != 1:
        raise DataError(f"scenario format version {version} is not one this app reads (1)")
    for key in ("name", "dataset", "settings"):
        if key not in obj:
            raise DataError(f"scenario file: field '{key}' is missing")
    if not isinstance(obj["name"], str) or not obj["name"].strip() or len(obj["name"]) > 500:
        raise DataError("scenario file: field 'name' must be non-empty text (at most 500 "
                        "characters)")
    ds = obj["dataset"]
    if not isinstance(ds, dict) or "content_hash" not in ds:
        raise DataError("scenario file: field 'dataset.content_hash' is missing")
    if not isinstance(ds["content_hash"], str) or not _HEX.fullmatch(ds["content_hash"]):
        raise DataError("scenario file: field 'dataset.content_hash' must be a hexadecimal "
                        "digest")
    if "name" in ds and not isinstance(ds["name"], str):
        raise DataError("scenario file: field 'dataset.name' must be text")
    n_rows = ds.get("n_rows")
    if n_rows is not None and not (_is_int(n_rows) and 0 <= n_rows <= SQLITE_MAX_INT):
        raise DataError(f"scenario file: field 'dataset.n_rows' must be an integer 0 to "
                        f"{SQLITE_MAX_INT}, got {n_rows!r}")
    roles = ds.get("roles")
    if roles is not None:
        if not isinstance(roles, dict):
            raise DataError("scenario file: field 'dataset.roles' must be an object")
        for role, col in roles.items():
            ok = col is None or isinstance(col, str) or (
                isinstance(col, list) and all(isinstance(c, str) for c in col))
            if not ok:
                raise DataError(f"scenario file: field 'dataset.roles.{role}' must be a column "
                                "name, a list of them or null")
    if not isinstance(obj["settings"], dict):
        raise DataError("scenario file: field 'settings' must be an object")
    return obj


def read_scenario_file(path: str | os.PathLike) -> dict[str, Any]:
    """The scenario in the file ``path``, read with limits and checked (:func:`check_scenario`)."""
    data = read_user_file(path, max_bytes=MAX_SCENARIO_BYTES, what="scenario file")
    return check_scenario(parse_json(data, label=str(path)))
