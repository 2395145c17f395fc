"""Parsing clembench ``interactions.json`` episodes and ``scores.json``, and loading them from paths, folders, zip archives and uploads."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from core.archive import MAX_ARCHIVE_BYTES, MAX_MEMBER_BYTES, MAX_MEMBERS, MAX_TOTAL_BYTES, read_zip_members
from core.clembench.metrics import is_binary
from core.clembench.model import (
    COUNT_FIELDS, Episode, LoadedEpisodes, PARSED_REQUEST_COUNT, REQUEST_COUNT, REQUIRED_FIELDS,
    SLOTS_FROM_INSTANCE, SLOTS_FROM_PROBES, SLOTS_FROM_REALISED, SLOTS_GIVEN, VIOLATED_REQUEST_COUNT,
)
from core.clembench.slots import INSTANCE_FILE, check_n_slots, count_length_fits, infer_n_slots, instance_n_slots
from core.errors import DataError


#: Largest single file accepted, in bytes: the archive reader's per-member limit
#: (:data:`core.archive.MAX_MEMBER_BYTES`), so a log is accepted alike as a file and in a zip.
MAX_FILE_BYTES = MAX_MEMBER_BYTES
#: The limits of zip archives are :mod:`core.archive`'s one set (names kept as aliases):
#: the archive's own size, the total decompressed size of the members read, the entry count.
MAX_ZIP_BYTES = MAX_ARCHIVE_BYTES
MAX_ZIP_READ_BYTES = MAX_TOTAL_BYTES
MAX_ZIP_MEMBERS = MAX_MEMBERS


def _fail(source: str, msg: str) -> DataError:
    return DataError(f"{source}: {msg}")


def _field(path: Sequence[str | int]) -> str:
    head, *rest = path
    return f"'{head}'" + "".join(f"[{r!r}]" if isinstance(r, str) else f"[{r}]" for r in rest)


def _check_int(value: Any, source: str, path: Sequence[str | int], *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(source, f"field {_field(path)} must be an integer, got {value!r}")
    if value < minimum:
        raise _fail(source, f"field {_field(path)} must be >= {minimum}, got {value}")
    return value


def _check_flag(value: Any, source: str, path: Sequence[str | int]) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise _fail(source, f"field {_field(path)} must be true/false (or 0/1), got {value!r}")


def _game_name(obj: Mapping) -> str | None:
    players = obj.get("players")
    if isinstance(players, Mapping):
        gm = players.get("GM")
        if isinstance(gm, str) and gm.startswith("Game master for "):
            return gm[len("Game master for "):].strip()
    return None


def _answerer_model(obj: Mapping) -> str | None:
    players = obj.get("players")
    if isinstance(players, Mapping):
        p1 = players.get("Player 1")
        if isinstance(p1, str):
            return p1.split(":", 1)[1].strip() if ":" in p1 else p1.strip()
    return None


def parse_interactions(data: bytes | str, *, source: str = "interactions.json") -> dict:
    """Decode the JSON text of a log (or of a ``scores.json``) into a dict.

    Parameters
    ----------
    data : bytes or str
        File content (UTF-8). clembench writes the bare token ``NaN``; it is accepted.
    source : str, default="interactions.json"
        Name used in error messages.

    Returns
    -------
    dict
        The top-level JSON object.

    Raises
    ------
    DataError
        Empty or oversized input, invalid UTF-8, invalid JSON, or a top level that is not an
        object.
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        if len(raw) > MAX_FILE_BYTES:
            raise _fail(source, f"file is too large ({len(raw):,} bytes; limit {MAX_FILE_BYTES:,})")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise _fail(source, f"not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    elif isinstance(data, str):
        text = data
        if len(text) > MAX_FILE_BYTES:
            raise _fail(source, f"file is too large ({len(text):,} characters; limit {MAX_FILE_BYTES:,})")
    else:
        raise TypeError(f"data must be bytes or str, not {type(data).__name__}")
    if not text.strip():
        raise _fail(source, "file is empty")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(source, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise _fail(source, "JSON nesting is too deep") from None
    if not isinstance(obj, dict):
        raise _fail(source, f"the top level must be a JSON object, got {type(obj).__name__}")
    return obj


def parse_episode(
    obj: Mapping[str, Any],
    *,
    source: str = "interactions.json",
    name: str | None = None,
    n_slots: int | None = None,
    recorded: Mapping[str, Any] | None = None,
    experiment: str | None = None,
    instance: Mapping[str, Any] | None = None,
    instance_source: str = "instance.json",
) -> Episode:
    """Validate a decoded ``interactions.json`` and extract what the scorer reads.

    The number of slots (which sets the middle round and the size of every scored probing
    round) is taken, in this order, from ``n_slots`` when given, from the game instance when
    given (``len(instance["slots"])``, what clembench's ``PrivateSharedScorer`` reads), from the
    log's ``realised_slots``, or else inferred from the probes (see :func:`infer_n_slots`).
    Every other source present must agree with the one taken, and the log must fit it: each
    scored round holds ``n_slots`` probes, each request count list ``n_slots + 1`` entries (an
    aborted episode's from one per played round up to ``n_slots + 1``: clemcore's recorder logs
    one per round begun, see :func:`core.clembench.slots.count_length_fits`), ``Filled Slots``
    at most ``n_slots``; otherwise a :class:`DataError` names both.

    Parameters
    ----------
    obj : mapping
        The decoded log (see :func:`parse_interactions`).
    source : str, default="interactions.json"
        Name used in error messages (a path or zip member).
    name : str, optional
        Display name; defaults to ``source``.
    n_slots : int, optional
        Number of slots of the game instance, an integer in [MIN_N_SLOTS, MAX_N_SLOTS] (1 to
        1,000). Default: from ``instance``, else ``len(realised_slots)``, else inferred.
    recorded : mapping, optional
        clembench's ``scores.json`` for this episode (kept for comparison).
    experiment : str, optional
        Experiment name (e.g. from the folder path).
    instance : mapping, optional
        The decoded game instance (clembench's ``instance.json`` of the episode folder); its
        ``slots`` object gives the number of slots (see :func:`instance_n_slots`).
    instance_source : str, default="instance.json"
        Name of the instance in error messages.

    Returns
    -------
    Episode

    Raises
    ------
    DataError
        A missing or malformed field; the message names the source and the field, e.g.
        ``episode_1/interactions.json: field 'probes'[2][3]['value'] must be 0 or 1, got 'yes'``.
    """
    if not isinstance(obj, Mapping):
        raise _fail(source, f"the top level must be a JSON object, got {type(obj).__name__}")
    missing = [k for k in REQUIRED_FIELDS if k not in obj]
    if missing:
        game = _game_name(obj)
        if game and game != "privateshared":
            hint = f" (this is a log of the game '{game}', not privateshared)"
        elif "experiments" in obj:
            hint = (" (this is a clembench instances file, not an episode log; put each episode's "
                    "instance.json beside its interactions.json)")
        elif "slots" in obj and "request_order" in obj:
            hint = (" (this is a game instance, not an episode log; name it instance.json and put it "
                    "beside the episode's interactions.json)")
        else:
            hint = " (is this a clembench privateshared interactions.json?)"
        raise _fail(source, "missing field" + ("s " if len(missing) > 1 else " ")
                    + ", ".join(f"'{m}'" for m in missing) + hint)

    probes = obj["probes"]
    if not isinstance(probes, list):
        raise _fail(source, f"field 'probes' must be a list of probing rounds, got {type(probes).__name__}")
    played = _check_int(obj["Played Probe Rounds"], source, ["Played Probe Rounds"])
    if played > len(probes):
        raise _fail(source, f"field 'Played Probe Rounds' is {played} but 'probes' holds only "
                            f"{len(probes)} round(s)")
    aborted = _check_flag(obj["Aborted"], source, ["Aborted"])

    # every source of the slot count, in order of precedence: (count, origin, how it is named)
    sources: list[tuple[int, str, str]] = []
    if n_slots is not None:
        sources.append((check_n_slots(n_slots), SLOTS_GIVEN, "n_slots given"))
    if instance is not None:
        sources.append((instance_n_slots(instance, source=instance_source), SLOTS_FROM_INSTANCE,
                        f"len of 'slots' in {instance_source}"))
    if "realised_slots" in obj:
        realised = obj["realised_slots"]
        if not isinstance(realised, Mapping):
            raise _fail(source, f"field 'realised_slots' must be an object (slot -> order), got "
                                f"{type(realised).__name__}")
        if len(realised) == 0:
            raise _fail(source, "field 'realised_slots' is empty: the number of slots is unknown")
        sources.append((len(realised), SLOTS_FROM_REALISED, "len of 'realised_slots'"))
    if not sources:
        sources.append((infer_n_slots(obj, source=source), SLOTS_FROM_PROBES, "inferred from the probes"))
    n_slots, slots_from, slots_label = sources[0]

    gold: list[tuple[int, ...]] = []
    pred: list[tuple[int, ...]] = []
    for r in range(played):
        rnd = probes[r]
        if not isinstance(rnd, list):
            raise _fail(source, f"field 'probes'[{r}] must be a list of probes, got {type(rnd).__name__}")
        if len(rnd) != n_slots:
            raise _fail(source, f"field 'probes'[{r}] is a scored round with {len(rnd)} probe(s) but "
                                f"the game has {n_slots} slots ({slots_label})")
        g_row, p_row = [], []
        for i, probe in enumerate(rnd):
            if not isinstance(probe, Mapping):
                raise _fail(source, f"field 'probes'[{r}][{i}] must be an object, got {type(probe).__name__}")
            for key, row in (("gt", g_row), ("value", p_row)):
                if key not in probe:
                    raise _fail(source, f"field 'probes'[{r}][{i}] has no '{key}'")
                v = probe[key]
                if not is_binary(v):
                    raise _fail(source, f"field {_field(['probes', r, i, key])} must be 0 or 1, got {v!r}")
                row.append(int(v))
        gold.append(tuple(g_row))
        pred.append(tuple(p_row))

    filled_raw = obj["Filled Slots"]
    if not isinstance(filled_raw, list):
        raise _fail(source, f"field 'Filled Slots' must be a list, got {type(filled_raw).__name__}")
    filled = tuple(_check_flag(v, source, ["Filled Slots", i]) for i, v in enumerate(filled_raw))
    if played > 1 and len(filled) < played - 1:
        raise _fail(source, f"field 'Filled Slots' has {len(filled)} entr{'y' if len(filled) == 1 else 'ies'} "
                            f"but {played} probing rounds are scored (rounds 1..{played - 1} need one each)")
    if not aborted and played == 0:
        raise _fail(source, "the episode was not aborted but 'Played Probe Rounds' is 0: accuracy "
                            "and kappa are undefined without a scored probing round")
    if not aborted and len(filled) == 0:
        raise _fail(source, "field 'Filled Slots' is empty in an episode that was not aborted: "
                            "Slot-Filling-Accuracy is undefined")

    counts: dict[str, tuple[int, ...]] = {}
    for key in COUNT_FIELDS:
        lst = obj[key]
        if not isinstance(lst, list):
            raise _fail(source, f"field '{key}' must be a list of per-turn counts, got {type(lst).__name__}")
        counts[key] = tuple(_check_int(v, source, [key, i]) for i, v in enumerate(lst))
        if len(lst) < played:
            raise _fail(source, f"field '{key}' has {len(lst)} entries but {played} probing rounds are scored")
    if sum(counts[REQUEST_COUNT]) == 0:
        raise _fail(source, "field 'Request Count' sums to 0: Request Success Ratio is undefined")

    # the other sources of the slot count, and the log's own shape, must agree with the one taken
    for other, _, other_label in sources[1:]:
        if other != n_slots:
            raise _fail(source, f"the game has {n_slots} slots ({slots_label}) but {other_label} "
                                f"is {other}")
    for key in COUNT_FIELDS:
        if not count_length_fits(len(counts[key]), n_slots, aborted):
            raise _fail(source, f"field '{key}' has {len(counts[key])} entries but the game has "
                                f"{n_slots} slots ({slots_label}): clembench logs one per probing "
                                f"round, n_slots + 1 = {n_slots + 1}"
                                + (", or fewer when the episode was aborted" if aborted else ""))
    if len(filled) > n_slots:
        raise _fail(source, f"field 'Filled Slots' has {len(filled)} entries but the game has "
                            f"{n_slots} slots ({slots_label}): at most one per slot")

    return Episode(
        name=name if name is not None else source,
        source=source,
        n_slots=n_slots,
        played_rounds=played,
        aborted=aborted,
        gold=tuple(gold),
        pred=tuple(pred),
        filled_slots=filled,
        request_counts=counts[REQUEST_COUNT],
        parsed_request_counts=counts[PARSED_REQUEST_COUNT],
        violated_request_counts=counts[VIOLATED_REQUEST_COUNT],
        logged_rounds=len(probes),
        model=_answerer_model(obj),
        experiment=experiment,
        slots_from=slots_from,
        recorded=dict(recorded) if recorded is not None else None,
    )


def parse_recorded_scores(obj: Mapping[str, Any], *, source: str = "scores.json") -> dict:
    """Validate the layout of a clembench ``scores.json`` (``turn scores``, ``episode scores``).

    Raises
    ------
    DataError
        The object lacks either part or a part is not an object.
    """
    for key in ("turn scores", "episode scores"):
        if key not in obj:
            raise _fail(source, f"missing field '{key}' (not a clembench scores.json?)")
        if not isinstance(obj[key], Mapping):
            raise _fail(source, f"field '{key}' must be an object, got {type(obj[key]).__name__}")
    return dict(obj)


#: Files read beside a log: the recorded scores and the game instance.
_SIDE_FILES = ("scores.json", INSTANCE_FILE)


def _is_interactions_name(name: str) -> bool:
    return PurePosixPath(name).name == "interactions.json"


def _experiment_of(parts: Sequence[str]) -> str | None:
    """Experiment from a clembench path ``.../<experiment>/<episode_k>/interactions.json``."""
    if len(parts) >= 3 and parts[-2].startswith("episode"):
        return parts[-3]
    return None


def _unique(name: str, seen: dict[str, int]) -> str:
    if name not in seen:
        seen[name] = 1
        return name
    seen[name] += 1
    return f"{name} #{seen[name]}"


def _read_file(path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _fail(str(path), f"file is too large ({size:,} bytes; limit {MAX_FILE_BYTES:,})")
    return path.read_bytes()


def _episode_from_bytes(
    data: bytes, *, source: str, name: str, scores_data: bytes | None, scores_source: str | None,
    experiment: str | None, n_slots: int | None, instance_data: bytes | None = None,
    instance_source: str | None = None,
) -> Episode:
    obj = parse_interactions(data, source=source)
    recorded = None
    if scores_data is not None:
        recorded = parse_recorded_scores(
            parse_interactions(scores_data, source=scores_source or "scores.json"),
            source=scores_source or "scores.json",
        )
    instance = None
    if instance_data is not None:
        instance = parse_interactions(instance_data, source=instance_source or INSTANCE_FILE)
    return parse_episode(obj, source=source, name=name, recorded=recorded,
                         experiment=experiment, n_slots=n_slots, instance=instance,
                         instance_source=instance_source or INSTANCE_FILE)


def _run_root(logs: Sequence[str], stem: str) -> str:
    """The run root of a zip named ``stem``: its top-level folder of the same name when every log
    sits below it (``runs/`` in ``runs.zip``, the folder that was zipped), else ``""`` (the zip's
    own root)."""
    if stem and all(len(PurePosixPath(n).parts) >= 3 and PurePosixPath(n).parts[0] == stem for n in logs):
        return stem
    return ""


def _load_members(
    members: Mapping[str, bytes], *, prefix: str, origin: str, n_slots: int | None, seen: dict[str, int],
    out: LoadedEpisodes, any_json_is_log: bool, prepend: bool = False,
) -> None:
    """Episodes from a flat mapping of posix member names -> bytes (a zip or an upload).

    A zip's episode (``prefix``: the zip's stem) is named by its folder relative to the run root
    (:func:`_run_root`), as a folder given to :func:`load_paths` names its episodes: ``runs.zip``
    holding ``runs/`` and ``runs.zip`` holding its contents give the same names. ``prepend`` puts
    the zip's stem in front (several inputs, as :func:`load_paths` puts a folder's name); a log
    at the zip's root is named by the stem.
    """
    names = sorted(members)
    logs = [n for n in names if _is_interactions_name(n)]
    if any_json_is_log:
        logs = [n for n in names if n.lower().endswith(".json")
                and PurePosixPath(n).name not in _SIDE_FILES
                and not PurePosixPath(n).name.startswith("experiment_")]
    root = _run_root(logs, prefix) if prefix and logs else ""
    used: set[str] = set()
    for n in logs:
        p = PurePosixPath(n)
        folder = str(p.parent) if str(p.parent) != "." else ""
        scores_name = f"{folder}/scores.json" if folder else "scores.json"
        # a flat upload of one log and one scores.json: pair them
        if scores_name not in members and not folder and len(logs) == 1 and "scores.json" in members:
            scores_name = "scores.json"
        scores_data = members.get(scores_name)
        if scores_data is not None:
            used.add(scores_name)
        instance_name = f"{folder}/{INSTANCE_FILE}" if folder else INSTANCE_FILE
        # a flat upload of one log and one instance.json: pair them
        if instance_name not in members and not folder and len(logs) == 1 and INSTANCE_FILE in members:
            instance_name = INSTANCE_FILE
        instance_data = members.get(instance_name)
        if instance_data is not None:
            used.add(instance_name)
        rel = str(p.parent.relative_to(root)) if root else folder
        if _is_interactions_name(n):
            label = rel if rel else (prefix or p.name)
        else:
            label = str(p.with_suffix(""))
        if prefix and rel and prepend:
            label = f"{prefix}/{label}"
        experiment = _experiment_of(p.parts)
        out.episodes.append(_episode_from_bytes(
            members[n], source=f"{origin}{n}", name=_unique(label, seen),
            scores_data=scores_data, scores_source=f"{origin}{scores_name}", experiment=experiment,
            n_slots=n_slots, instance_data=instance_data, instance_source=f"{origin}{instance_name}",
        ))
        used.add(n)
    out.ignored.extend(f"{origin}{n}" for n in names if n not in used and not n.endswith("/"))


def _zip_members(archive: bytes | Path, *, source: str) -> dict[str, bytes]:
    """The logs, recorded scores and instances of a zip archive (read by :mod:`core.archive`,
    under its limits); every other member is listed with empty content (reported as ignored,
    never decompressed)."""
    got = read_zip_members(archive, suffixes=("interactions.json", *_SIDE_FILES), source=source)
    members = dict(got.members)
    members.update((name, b"") for name in got.skipped)
    return members


def load_paths(paths: Sequence[str | Path], *, n_slots: int | None = None) -> LoadedEpisodes:
    """Load episodes from paths: episode folders, ``interactions.json`` files, parent folders
    (searched recursively for ``interactions.json``) or zip archives.

    A ``scores.json`` beside an ``interactions.json`` is read as clembench's recorded scores, and
    an ``instance.json`` beside it (clembench stores the game instance in each episode folder)
    as the game instance, whose ``slots`` give the number of slots as in clembench's scorer
    (folders and zip members alike).

    An episode is named by its folder relative to the run root: the folder given, or in a zip
    its top-level folder named as the zip when all logs sit below it (the folder that was zipped:
    ``runs/`` in ``runs.zip``), else the zip's root. ``runs.zip`` holding
    ``runs/<game>/<experiment>/<episode>/interactions.json`` and ``runs.zip`` holding
    ``<game>/<experiment>/<episode>/interactions.json`` both name it
    ``<game>/<experiment>/<episode>``, as the folder ``runs`` does. With several paths, each
    name starts with its folder's name or its zip's stem.

    Parameters
    ----------
    paths : sequence of str or Path
        What to load.
    n_slots : int, optional
        The number of slots of every episode, an integer from 1 to 1,000 (MIN_N_SLOTS,
        MAX_N_SLOTS). Default: each episode's ``instance.json``, else its log's
        ``realised_slots``, else inferred from its probes (see :func:`parse_episode`). A value
        that contradicts an instance or a log raises :class:`DataError`.

    Returns
    -------
    LoadedEpisodes

    Raises
    ------
    FileNotFoundError
        A path does not exist.
    DataError
        A folder or zip holds no ``interactions.json``, or a log is malformed.
    """
    out = LoadedEpisodes()
    seen: dict[str, int] = {}
    if n_slots is not None:
        n_slots = check_n_slots(n_slots)
    if not paths:
        raise DataError("no path given")
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise FileNotFoundError(2, "No such file or directory", str(path))
        if path.is_dir():
            logs = sorted(path.rglob("interactions.json"))
            if not logs:
                raise _fail(str(path), "no interactions.json found in this folder or below")
            for log in logs:
                rel = log.parent.relative_to(path)
                label = (str(PurePosixPath(*rel.parts)) if rel.parts
                         else str(PurePosixPath(*log.parent.resolve().parts[-3:])))
                if rel.parts and len(paths) > 1:
                    label = f"{path.name}/{label}"
                scores = log.parent / "scores.json"
                inst = log.parent / INSTANCE_FILE
                experiment = _experiment_of(log.resolve().parts)
                out.episodes.append(_episode_from_bytes(
                    _read_file(log), source=str(log), name=_unique(label, seen),
                    scores_data=_read_file(scores) if scores.is_file() else None,
                    scores_source=str(scores), experiment=experiment, n_slots=n_slots,
                    instance_data=_read_file(inst) if inst.is_file() else None, instance_source=str(inst),
                ))
        elif path.suffix.lower() == ".zip" or zipfile.is_zipfile(path):
            members = _zip_members(path, source=str(path))
            before = len(out.episodes)
            _load_members(members, prefix=path.stem, origin=f"{path}:", n_slots=n_slots, seen=seen,
                          out=out, any_json_is_log=False, prepend=len(paths) > 1)
            if len(out.episodes) == before:
                raise _fail(str(path), "the zip archive holds no interactions.json")
        else:
            if path.name in _SIDE_FILES:
                raise _fail(str(path), f"this is the {'recorded scores' if path.name == 'scores.json' else 'game instance'}"
                                       " read beside an episode log, not a log: give the episode folder "
                                       "or its interactions.json")
            scores = path.parent / "scores.json"
            use_scores = scores.is_file()
            inst = path.parent / INSTANCE_FILE
            parts = path.resolve().parts
            label = (str(PurePosixPath(*parts[-4:-1])) if _is_interactions_name(path.name) and len(parts) >= 4
                     else path.stem)
            experiment = _experiment_of(parts) if _is_interactions_name(path.name) else None
            out.episodes.append(_episode_from_bytes(
                _read_file(path), source=str(path), name=_unique(label, seen),
                scores_data=_read_file(scores) if use_scores else None, scores_source=str(scores),
                experiment=experiment, n_slots=n_slots,
                instance_data=_read_file(inst) if inst.is_file() else None, instance_source=str(inst),
            ))
    return out


def load_uploads(files: Sequence[tuple[str, bytes]], *, n_slots: int | None = None) -> LoadedEpisodes:
    """Load episodes from uploaded files: zip archives and/or JSON logs.

    Parameters
    ----------
    files : sequence of (name, bytes)
        Uploaded file names (may contain ``/`` for folder uploads) and contents. A zip is
        searched for ``interactions.json`` members, named as in :func:`load_paths` (with the
        zip's stem in front when several files are uploaded). Any other ``.json`` file is read as an
        episode log, except ``scores.json`` and ``instance.json`` (paired with the log of the
        same folder, or with the only log of a flat upload) and ``experiment_*.json`` (ignored).
    n_slots : int, optional
        The number of slots of every episode (see :func:`load_paths`).

    Returns
    -------
    LoadedEpisodes

    Raises
    ------
    DataError
        Nothing to load, a zip without logs, or a malformed log (named in the message).
    """
    out = LoadedEpisodes()
    seen: dict[str, int] = {}
    flat: dict[str, bytes] = {}
    if n_slots is not None:
        n_slots = check_n_slots(n_slots)
    for name, data in files:
        name = str(name).replace("\\", "/")
        if name.lower().endswith(".zip") or data[:4] == b"PK\x03\x04":
            members = _zip_members(bytes(data), source=name)
            before = len(out.episodes)
            _load_members(members, prefix=PurePosixPath(name).stem, origin=f"{name}:", n_slots=n_slots,
                          seen=seen, out=out, any_json_is_log=False, prepend=len(files) > 1)
            if len(out.episodes) == before:
                raise _fail(name, "the zip archive holds no interactions.json")
        else:
            key, k = name, 1
            while key in flat:  # the same name uploaded twice (e.g. two interactions.json)
                k += 1
                key = f"upload_{k}/{name}"
            flat[key] = bytes(data)
    if flat:
        _load_members(flat, prefix="", origin="", n_slots=n_slots, seen=seen, out=out, any_json_is_log=True)
    if not out.episodes:
        raise DataError("no episode log (interactions.json) among the uploaded files")
    return out
