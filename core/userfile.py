"""Reading a file a user named, with limits: the one way the library opens a user's path.

:func:`read_user_file` refuses what is not a regular file (a FIFO blocked the reader forever,
``/dev/zero`` was read until memory ran out: a device reports a size of 0, so the size limit
never applied) and reads at most the limit, whatever the file's size says. :func:`parse_json`
parses JSON with a nesting limit (a deeply nested file raised RecursionError in the Label
Studio export reader and the scenario reader) and a cap on the keys of one object. Every
problem is a :class:`~core.errors.DataError` naming the file.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from core.errors import DataError

__all__ = ["MAX_JSON_DEPTH", "MAX_JSON_KEYS", "expand_user", "read_user_file", "parse_json",
           "json_depth"]

#: Deepest JSON nesting read (a Label Studio export is about 8 deep, a scenario about 6).
MAX_JSON_DEPTH = 64
#: Most keys in one JSON object (a table's columns are capped at 2,000; a Label Studio task's
#: data has a handful): 20,000 keys made a 318 kB file take 6.4 GB.
MAX_JSON_KEYS = 10_000


def expand_user(path: str | os.PathLike, *, what: str = "path") -> Path:
    """``path`` with a leading ``~`` or ``~user`` expanded.

    Raises
    ------
    DataError
        That user or the home directory does not exist (``Path.expanduser`` raised
        RuntimeError); the message names the path.
    """
    try:
        return Path(path).expanduser()
    except RuntimeError:
        raise DataError(f"{what} {str(path)!r}: {str(path).split(os.sep)[0]!r} names no home "
                        "directory on this machine; give the folder without ~, or as ~/... "
                        "for your own") from None


def read_user_file(path: str | os.PathLike, *, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Raises
    ------
    DataError
        Not found, a folder, not a regular file (FIFO, device, socket), unreadable, or larger
        than ``max_bytes`` (checked on the bytes read, not only on the size reported).
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise DataError(f"file not found: {p}") from None
    except OSError as exc:
        raise DataError(f"cannot read {p}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise DataError(f"{p} is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"{p} is not a regular file (a device, pipe or socket): give a "
                        f"{what} saved on disk")
    limit = f"the limit is {max_bytes / 2**20:.0f} MiB"
    if st.st_size > max_bytes:
        raise DataError(f"{p.name} is {st.st_size / 2**20:.1f} MiB; {limit}")
    try:
        with open(p, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise DataError(f"cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise DataError(f"{p.name} holds more than {max_bytes / 2**20:.0f} MiB; {limit}")
    return data


def json_depth(obj: Any, *, limit: int = MAX_JSON_DEPTH) -> int:
    """The nesting depth of a parsed JSON value (a scalar is 0), counted without recursion; stops
    counting past ``limit``."""
    deepest = 0
    stack = [(obj, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            stack.extend((v, depth) for v in (value.values() if isinstance(value, dict)
                                              else value))
    return deepest


def parse_json(data: str | bytes, *, label: str, max_depth: int = MAX_JSON_DEPTH,
               max_keys: int = MAX_JSON_KEYS) -> Any:
    """``json.loads(data)`` with limits.

    Raises
    ------
    DataError
        Not UTF-8, not valid JSON (line and column named), nested deeper than ``max_depth``,
        or an object with more than ``max_keys`` keys.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise DataError(f"{label} is not UTF-8 JSON (undecodable byte at offset "
                            f"{exc.start})") from None
    too_many: list[int] = []

    def pairs(items):
        if len(items) > max_keys:
            too_many.append(len(items))
            return {}
        return dict(items)

    try:
        obj = json.loads(data, object_pairs_hook=pairs)
    except RecursionError:
        raise DataError(f"{label}: JSON nested more than {max_depth} levels deep") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{label} is not JSON: {exc.msg} at line {exc.lineno}, column "
                        f"{exc.colno}") from None
    if too_many:
        raise DataError(f"{label}: a JSON object has {max(too_many):,} keys; at most "
                        f"{max_keys:,} are read")
    if json_depth(obj, limit=max_depth) > max_depth:
        raise DataError(f"{label}: JSON nested more than {max_depth} levels deep")
    return obj
