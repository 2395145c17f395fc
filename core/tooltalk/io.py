"""Reading ToolTalk conversations: JSON files, folders, zip archives and uploads, with checks."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from core.archive import MAX_MEMBER_BYTES, MAX_MEMBERS, MAX_TOTAL_BYTES, read_zip_members
from core.errors import DataError
from core.tooltalk.model import (
    Conversation, RESULT_IDS, TEXT_THRESHOLDS, ToolCall, parse_timestamp, shorten, type_name,
)


#: Largest conversation file accepted (bytes): the archive reader's per-member limit
#: (:data:`core.archive.MAX_MEMBER_BYTES`), so a conversation is accepted alike as a file and in a zip.
MAX_FILE_BYTES: int = MAX_MEMBER_BYTES
#: Largest total decompressed size of the members read from a zip archive (bytes): an alias of
#: :data:`core.archive.MAX_TOTAL_BYTES`; zip archives are read by :mod:`core.archive` under its limits.
MAX_ARCHIVE_BYTES: int = MAX_TOTAL_BYTES
_MAX_ARCHIVE_MEMBERS: int = MAX_MEMBERS


def check_semantics(call: ToolCall, *, is_prediction: bool, where: str) -> None:
    """Structure the comparators rely on (raises DataError naming ``where``)."""
    name = call.api_name
    if name in RESULT_IDS and (call.exception is None or call.response is not None):
        list_key, id_key = RESULT_IDS[name]
        resp = call.response
        if not isinstance(resp, dict) or not isinstance(resp.get(list_key), list):
            raise DataError(f"{where}.response: a {name} result needs an object with a '{list_key}' list")
        for k, item in enumerate(resp[list_key]):
            if not isinstance(item, dict) or id_key not in item:
                raise DataError(f"{where}.response.{list_key}[{k}]: expected an object with '{id_key}'")
            if isinstance(item[id_key], (dict, list)):
                raise DataError(f"{where}.response.{list_key}[{k}].{id_key}: expected a string")
    if is_prediction:
        return
    p = call.params
    for key in TEXT_THRESHOLDS.get(name, {}):
        if key in p and not isinstance(p[key], str):
            raise DataError(f"{where}.request.parameters.{key}: expected a string, got {type_name(p[key])}")
    if name == "SendEmail":
        for key in ("to", "subject", "body"):
            if key not in p:
                raise DataError(f"{where}.request.parameters: SendEmail ground truth needs '{key}'")
        if not isinstance(p["to"], list) or not all(isinstance(x, str) for x in p["to"]):
            raise DataError(f"{where}.request.parameters.to: expected a list of e-mail addresses")
    if name == "SendMessage" and "message" not in p:
        raise DataError(f"{where}.request.parameters: SendMessage ground truth needs 'message'")
    if name == "AddReminder" and "due_date" in p and parse_timestamp(p["due_date"]) is None:
        raise DataError(
            f"{where}.request.parameters.due_date: expected a '%Y-%m-%d %H:%M:%S' timestamp, "
            f"got {shorten(p['due_date'])}"
        )


def _check_call(obj: Any, where: str, *, is_prediction: bool, turn: int) -> ToolCall:
    if not isinstance(obj, dict):
        raise DataError(f"{where}: expected an object, got {type_name(obj)}")
    for key in ("request", "response", "exception"):
        if key not in obj:
            raise DataError(f"{where}: field '{key}' is missing")
    req = obj["request"]
    if not isinstance(req, dict):
        raise DataError(f"{where}.request: expected an object, got {type_name(req)}")
    if "api_name" not in req:
        raise DataError(f"{where}.request: field 'api_name' is missing")
    if not isinstance(req["api_name"], str) or not req["api_name"]:
        raise DataError(f"{where}.request.api_name: expected a non-empty string, got {shorten(req['api_name'])}")
    if "parameters" not in req:
        raise DataError(f"{where}.request: field 'parameters' is missing")
    params = req["parameters"]
    if not isinstance(params, dict) and not (is_prediction and params is None):
        allowed = "an object or null" if is_prediction else "an object"
        raise DataError(f"{where}.request.parameters: expected {allowed}, got {type_name(params)}")
    exc = obj["exception"]
    if exc is not None and not isinstance(exc, str):
        raise DataError(f"{where}.exception: expected a string or null, got {type_name(exc)}")
    call = ToolCall.from_dict(obj, turn=turn, field=where)
    check_semantics(call, is_prediction=is_prediction, where=where)
    return call


def parse_conversation(obj: Any, *, source: str = "<conversation>") -> Conversation:
    """Validate a conversation object in ToolTalk format (with or without predictions).

    Parameters
    ----------
    obj : dict
        The parsed JSON: ``conversation`` (list of turns with ``role`` ``"user"`` or
        ``"assistant"``, optional ``apis`` ground-truth calls and optional ``predictions``),
        ``name`` (optional; defaults to the source's stem), ``scenario`` (optional).
    source : str
        File name used in error messages.

    Returns
    -------
    Conversation

    Raises
    ------
    DataError
        Naming the file and the offending field, e.g.
        ``"x.json: conversation[3].apis[0].request.api_name: expected a non-empty string"``.
    """
    if not isinstance(obj, dict):
        raise DataError(f"{source}: expected a JSON object (one conversation), got {type_name(obj)}")
    if "conversation" not in obj:
        raise DataError(f"{source}: field 'conversation' is missing (not a ToolTalk conversation)")
    turns = obj["conversation"]
    if not isinstance(turns, list):
        raise DataError(f"{source}: field 'conversation' must be a list of turns, got {type_name(turns)}")
    name = obj.get("name")
    if name is None:
        name = Path(source.split(":")[-1]).stem or source
    elif not isinstance(name, str):
        raise DataError(f"{source}: field 'name' must be a string, got {type_name(name)}")
    scenario = obj.get("scenario") or ""
    if not isinstance(scenario, str):
        raise DataError(f"{source}: field 'scenario' must be a string, got {type_name(scenario)}")
    gts: list[ToolCall] = []
    preds: list[ToolCall] = []
    has_predictions = False
    for t, turn in enumerate(turns):
        where = f"conversation[{t}]"
        if not isinstance(turn, dict):
            raise DataError(f"{source}: {where}: expected an object, got {type_name(turn)}")
        role = turn.get("role")
        if role not in ("user", "assistant"):
            raise DataError(f"{source}: {where}.role: expected 'user' or 'assistant', got {shorten(role)}")
        if "apis" in turn:
            apis = turn["apis"]
            if not isinstance(apis, list):
                raise DataError(f"{source}: {where}.apis: expected a list, got {type_name(apis)}")
            for k, api in enumerate(apis):
                try:
                    gts.append(_check_call(api, f"{where}.apis[{k}]", is_prediction=False, turn=t))
                except DataError as exc:
                    raise DataError(f"{source}: {exc}") from None
        if "predictions" in turn:
            has_predictions = True
            plist = turn["predictions"]
            if not isinstance(plist, list):
                raise DataError(f"{source}: {where}.predictions: expected a list, got {type_name(plist)}")
            for k, pred in enumerate(plist):
                pw = f"{where}.predictions[{k}]"
                if not isinstance(pred, dict):
                    raise DataError(f"{source}: {pw}: expected an object, got {type_name(pred)}")
                prole = pred.get("role")
                if prole == "assistant":
                    continue
                if prole != "api":
                    raise DataError(f"{source}: {pw}.role: expected 'api' or 'assistant', got {shorten(prole)}")
                try:
                    preds.append(_check_call(pred, pw, is_prediction=True, turn=t))
                except DataError as exc:
                    raise DataError(f"{source}: {exc}") from None
    return Conversation(name=name, source=source, ground_truths=tuple(gts), predictions=tuple(preds),
                        n_turns=len(turns), has_predictions=has_predictions, scenario=scenario)


def load_conversation_bytes(data: bytes, *, source: str) -> Conversation:
    """Parse one conversation file's bytes (UTF-8 JSON).

    Raises
    ------
    DataError
        Empty, oversized, non-UTF-8 or malformed JSON (with line and column), or an invalid
        conversation; the message starts with ``source``.
    """
    if len(data) == 0:
        raise DataError(f"{source}: the file is empty")
    if len(data) > MAX_FILE_BYTES:
        raise DataError(f"{source}: the file is {len(data) / 2**20:.1f} MB, above the limit of "
                        f"{MAX_FILE_BYTES / 2**20:.0f} MB per conversation")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise DataError(f"{source}: the file is empty")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"{source}: malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise DataError(f"{source}: JSON nested too deeply") from None
    return parse_conversation(obj, source=source)


def load_conversation_file(path: str | Path) -> Conversation:
    """Read one conversation file (see :func:`load_conversation_bytes`)."""
    path = Path(path)
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise DataError(f"{path.name}: the file is {size / 2**20:.1f} MB, above the limit of "
                        f"{MAX_FILE_BYTES / 2**20:.0f} MB per conversation")
    return load_conversation_bytes(path.read_bytes(), source=path.name)


def _zip_members(data: bytes | str | Path, source: str) -> list[tuple[str, bytes | DataError]]:
    """``(member source, bytes or the DataError of that member)`` for every JSON member, sorted
    by name; the archive is read by :func:`core.archive.read_zip_members` (limits counted from
    the decompressed bytes)."""
    got = read_zip_members(data, suffixes=(".json",), source=source, keep_member_errors=True)
    if not got.members and not got.errors:
        raise DataError(f"{source}: the archive holds no .json conversation file")
    out: list[tuple[str, bytes | DataError]] = []
    for name in sorted({*got.members, *got.errors}):
        out.append((f"{source}:{name}", got.errors[name] if name in got.errors else got.members[name]))
    return out


def load_conversations_zip(data: bytes | str | Path, *, source: str = "archive.zip") -> list[Conversation]:
    """Read every ``*.json`` member of a zip archive (its bytes or its path; macOS ``__MACOSX``
    and hidden files skipped), sorted by member name, under :mod:`core.archive`'s limits.

    Raises
    ------
    DataError
        Not a zip file, too large once uncompressed, no JSON member, or an invalid member
        (message ``"archive.zip:member.json: ..."``).
    """
    out = []
    for member, raw in _zip_members(data, source):
        if isinstance(raw, DataError):
            raise raw
        out.append(load_conversation_bytes(raw, source=member))
    return out


def load_uploads(files: Sequence[tuple[str, bytes]]) -> tuple[list[Conversation], list[str]]:
    """Read uploaded ``(file name, bytes)`` pairs (``.json`` conversations or ``.zip``
    archives of them), keeping every conversation that loads.

    Returns
    -------
    conversations : list of Conversation
        In upload order (zip members sorted by name).
    errors : list of str
        One :class:`DataError` message per file or archive member that could not be read.
    """
    conversations: list[Conversation] = []
    errors: list[str] = []
    for name, data in files:
        try:
            if name.lower().endswith(".zip"):
                members = _zip_members(data, name)
            else:
                members = [(name, data)]
        except DataError as exc:
            errors.append(str(exc))
            continue
        for member, raw in members:
            if isinstance(raw, DataError):
                errors.append(str(raw))
                continue
            try:
                conversations.append(load_conversation_bytes(raw, source=member))
            except DataError as exc:
                errors.append(str(exc))
    return conversations, errors


def load_conversations(paths: str | Path | Iterable[str | Path]) -> list[Conversation]:
    """Read conversations from files, folders (their ``*.json`` files, not recursive, sorted)
    and zip archives.

    Raises
    ------
    DataError
        A folder without ``.json`` file, or any invalid file.
    FileNotFoundError
        A path that does not exist.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Conversation] = []
    for p in map(Path, paths):
        if p.is_dir():
            files = sorted(f for f in p.glob("*.json") if f.is_file())
            if not files:
                raise DataError(f"{p}: the folder holds no .json conversation file")
            out.extend(load_conversation_file(f) for f in files)
        elif not p.exists():
            raise FileNotFoundError(2, "No such file or directory", str(p))
        elif p.suffix.lower() == ".zip":
            out.extend(load_conversations_zip(p, source=p.name))
        else:
            out.append(load_conversation_file(p))
    return out
