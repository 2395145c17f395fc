"""Scorekeeping game episodes (clembench's "privateshared" game).

Reads recorded episodes in clembench's own log format (an episode folder's
``interactions.json``) and reproduces clembench's ``PrivateSharedScorer``:

* only the first ``Played Probe Rounds`` probing rounds are scored (a round in which the
  probing was aborted is logged in ``probes`` but not scored);
* per scored round ``t``: ``Request Count``, ``Parsed Request Count``,
  ``Violated Request Count`` (element ``t`` of the logged lists), ``Accuracy`` (fraction of the
  round's probes whose answer ``value`` equals the ground truth ``gt``) and, from round 1 on,
  ``Slot Filled?`` (``int(Filled Slots[t - 1])``);
* ``Middle-Accuracy`` is the accuracy of round ``int((n + 1) / 2) - 1`` for ``n`` slots; it is
  logged only when that round was scored, and is NaN when the episode was aborted;
* episode: ``Accuracy`` over all scored probes, ``Kappa`` (scikit-learn's
  ``cohen_kappa_score`` between all ``gt`` and all ``value``), ``Truncated Kappa``
  (Python's ``max(0, kappa)``), ``Slot-Filling-Accuracy`` (``sum(Filled Slots) /
  len(Filled Slots)``) and ``Main Score`` ``100 * (2 * sf * tk / (sf + tk))`` (0 when
  ``sf + tk == 0``); all of them NaN when the episode was aborted; then ``Aborted``, ``Lose``,
  ``Success`` (accuracy 1 and slot filling 1), the summed request counts and
  ``Request Success Ratio`` (parsed / all requests);
* across episodes (clembench's results table): ``% Played`` = 100 * mean(1 - Aborted),
  ``Quality Score`` = mean ``Main Score`` skipping NaN, ``clemscore`` =
  ``% Played / 100 * Quality Score``.

The key names, key order and value types (``int`` vs ``float``) are clembench's, so a computed
episode compares equal, key by key, with the ``scores.json`` clembench recorded beside it.

This module also holds the loaders (episode folders, ``interactions.json`` files, parent
folders searched recursively, zip archives, uploaded bytes) and a deterministic simulator of the
game used for the dashboard's demo episodes.
"""

from __future__ import annotations

import io
import json
import math
import warnings
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError

__all__ = [
    "TURN_KEYS",
    "EPISODE_KEYS",
    "AGGREGATE_KEYS",
    "MAX_FILE_BYTES",
    "Episode",
    "EpisodeScores",
    "LoadedEpisodes",
    "probe_accuracy",
    "cohen_kappa",
    "truncated_kappa",
    "main_score",
    "middle_round",
    "parse_interactions",
    "parse_episode",
    "parse_recorded_scores",
    "score_episode",
    "score_episodes",
    "aggregate_scores",
    "aggregate_by",
    "scores_report",
    "compare_scores",
    "same_score",
    "load_paths",
    "load_uploads",
    "episode_table",
    "accuracy_curves",
    "simulate_episode",
    "demo_episodes",
    "DEMO_PROFILES",
]

# ---------------------------------------------------------------------------------------------
# clembench's key names (clemcore.clemgame.metrics and the privateshared scorer)
# ---------------------------------------------------------------------------------------------
REQUEST_COUNT = "Request Count"
PARSED_REQUEST_COUNT = "Parsed Request Count"
VIOLATED_REQUEST_COUNT = "Violated Request Count"
ACCURACY = "Accuracy"
SLOT_FILLED = "Slot Filled?"
MIDDLE_ACCURACY = "Middle-Accuracy"
KAPPA = "Kappa"
TRUNCATED_KAPPA = "Truncated Kappa"
SLOT_FILLING_ACCURACY = "Slot-Filling-Accuracy"
MAIN_SCORE = "Main Score"
ABORTED = "Aborted"
LOSE = "Lose"
SUCCESS = "Success"
REQUEST_SUCCESS_RATIO = "Request Success Ratio"
PLAYED = "% Played"
QUALITY_SCORE = "Quality Score"
CLEMSCORE = "clemscore"

#: Turn-score keys in clembench's order (``Slot Filled?`` only from round 1 on).
TURN_KEYS: tuple[str, ...] = (
    REQUEST_COUNT, PARSED_REQUEST_COUNT, VIOLATED_REQUEST_COUNT, ACCURACY, SLOT_FILLED,
)
#: Episode-score keys in clembench's order (``Middle-Accuracy`` may be absent).
EPISODE_KEYS: tuple[str, ...] = (
    MIDDLE_ACCURACY, ACCURACY, KAPPA, TRUNCATED_KAPPA, SLOT_FILLING_ACCURACY, MAIN_SCORE,
    ABORTED, LOSE, SUCCESS, REQUEST_COUNT, PARSED_REQUEST_COUNT, VIOLATED_REQUEST_COUNT,
    REQUEST_SUCCESS_RATIO,
)
#: Keys of :func:`aggregate_scores`.
AGGREGATE_KEYS: tuple[str, ...] = ("episodes", "played", PLAYED, QUALITY_SCORE, CLEMSCORE)

#: Largest single file (or zip member) accepted, in bytes.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Largest zip archive accepted, and largest total size of the logs read from one archive.
MAX_ZIP_BYTES = 256 * 1024 * 1024
MAX_ZIP_READ_BYTES = 512 * 1024 * 1024
#: Largest number of members read from one zip archive.
MAX_ZIP_MEMBERS = 20_000

_COUNT_FIELDS = (REQUEST_COUNT, PARSED_REQUEST_COUNT, VIOLATED_REQUEST_COUNT)
_REQUIRED_FIELDS = (
    "probes", "Played Probe Rounds", "Aborted", "Filled Slots", *_COUNT_FIELDS, "realised_slots",
)


# ---------------------------------------------------------------------------------------------
# metric functions
# ---------------------------------------------------------------------------------------------
def _as_binary(values: Iterable[Any], *, what: str) -> np.ndarray:
    arr = np.asarray(list(values), dtype=object)
    if arr.ndim != 1:
        raise DataError(f"{what} must be a flat sequence of 0/1 labels")
    bad = [i for i, v in enumerate(arr.tolist()) if not _is_binary(v)]
    if bad:
        raise DataError(
            f"{what} must hold 0/1 labels; position {bad[0]} is {arr[bad[0]]!r}"
            + (f" ({len(bad)} bad values)" if len(bad) > 1 else "")
        )
    return arr.astype(np.int64)


def _is_binary(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return True
    if isinstance(v, (int, np.integer)):
        return int(v) in (0, 1)
    return False


def probe_accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Fraction of probes answered correctly (clembench's ``Accuracy``).

    Equal, to the last bit, to ``sklearn.metrics.accuracy_score(y_true, y_pred)`` on 0/1
    labels: the number of matches divided by the number of probes.

    Parameters
    ----------
    y_true : sequence of int, shape (n_probes,)
        Ground truth ``gt`` (1 = the slot is already shared with the questioner).
    y_pred : sequence of int, shape (n_probes,)
        The parsed answers ``value`` (1 = "yes", 0 = "no").

    Returns
    -------
    float
        Accuracy in [0, 1].

    Raises
    ------
    DataError
        Empty input, different lengths, or labels other than 0/1.
    """
    t = _as_binary(y_true, what="y_true")
    p = _as_binary(y_pred, what="y_pred")
    if t.shape != p.shape:
        raise DataError(f"y_true has {t.size} probes but y_pred has {p.size}")
    if t.size == 0:
        raise DataError("no probes: accuracy is undefined for an empty probing round")
    return int(np.count_nonzero(t == p)) / int(t.size)


def cohen_kappa(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    """Cohen's kappa between ground truth and answers, computed by scikit-learn.

    Calls ``sklearn.metrics.cohen_kappa_score(y_true, y_pred)`` exactly as clembench does, so
    values agree to the last digit. Kappa is undefined (NaN, scikit-learn's
    ``replace_undefined_by`` default) when ground truth and answers use one and the same single
    label, e.g. all ``gt`` and all answers 0; a constant answer against a ground truth with both
    labels gives exactly 0.0.

    Parameters
    ----------
    y_true : sequence of int, shape (n_probes,)
        Ground truth labels (0/1).
    y_pred : sequence of int, shape (n_probes,)
        Answers (0/1).

    Returns
    -------
    float
        Kappa in [-1, 1], or NaN when undefined.

    Raises
    ------
    DataError
        Empty input, different lengths, or labels other than 0/1.
    """
    from sklearn.exceptions import UndefinedMetricWarning
    from sklearn.metrics import cohen_kappa_score

    t = _as_binary(y_true, what="y_true")
    p = _as_binary(y_pred, what="y_pred")
    if t.shape != p.shape:
        raise DataError(f"y_true has {t.size} probes but y_pred has {p.size}")
    if t.size == 0:
        raise DataError("no probes: kappa is undefined without probes")
    with warnings.catch_warnings():
        # A single common label: scikit-learn warns and returns NaN; the NaN is the result.
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.filterwarnings("ignore", message="A single label was found", category=UserWarning)
        value = cohen_kappa_score(t.tolist(), p.tolist())
    return float(value)


def truncated_kappa(kappa: float) -> float | int:
    """clembench's ``Truncated Kappa``: Python's ``max(0, kappa)``.

    Python's ``max`` keeps its first argument unless the second compares greater, so the result
    is the ``int`` 0 when ``kappa <= 0`` **and when kappa is NaN** (``nan > 0`` is false); this
    is what clembench logs for a non-aborted episode. (For an aborted episode clembench logs NaN
    without calling this; see :func:`score_episode`.)

    Parameters
    ----------
    kappa : float
        Cohen's kappa (may be NaN).

    Returns
    -------
    float or int
        ``kappa`` when ``kappa > 0``, otherwise the int 0.
    """
    return max(0, kappa)


def main_score(sf_acc: float, trunc_kappa: float) -> float:
    """clembench's ``Main Score``: 100 times the harmonic mean of slot filling and kappa.

    Computed in clembench's order, ``100 * (2 * sf_acc * trunc_kappa / (sf_acc +
    trunc_kappa))``, so the float result is bit-identical.

    Parameters
    ----------
    sf_acc : float
        Slot-filling accuracy in [0, 1] (NaN for an aborted episode).
    trunc_kappa : float
        Truncated kappa in [0, 1] (NaN for an aborted episode).

    Returns
    -------
    float
        NaN when either input is NaN; the int 0 when ``sf_acc + trunc_kappa == 0``; otherwise
        the score in [0, 100].
    """
    if math.isnan(sf_acc) or math.isnan(trunc_kappa):
        return math.nan
    if sf_acc + trunc_kappa == 0:
        return 0
    return 100 * (2 * sf_acc * trunc_kappa / (sf_acc + trunc_kappa))


def middle_round(n_slots: int) -> int:
    """Index of the probing round whose accuracy is ``Middle-Accuracy``.

    ``int((n_slots + 1) / 2) - 1``: round 2 (the third round) for 5 slots, round 7 for 15.

    Parameters
    ----------
    n_slots : int
        Number of slots of the game instance (the episode has ``n_slots + 1`` probing rounds).

    Returns
    -------
    int
        0-based probing round index.
    """
    if isinstance(n_slots, bool) or not isinstance(n_slots, (int, np.integer)) or n_slots < 1:
        raise DataError(f"n_slots must be a positive integer, got {n_slots!r}")
    return int((int(n_slots) + 1) / 2) - 1


# ---------------------------------------------------------------------------------------------
# episodes
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Episode:
    """One validated episode log of the privateshared game.

    Attributes
    ----------
    name : str
        Display name (usually ``<model>/<experiment>/<episode>`` from the folder path).
    source : str
        Where the log was read from (path, zip member or uploaded file name).
    n_slots : int
        Number of slots (``len(realised_slots)`` unless given explicitly).
    played_rounds : int
        ``Played Probe Rounds``: the number of probing rounds that are scored.
    aborted : bool
        ``Aborted`` flag of the log.
    gold : tuple of tuple of int
        Ground truth of each scored round, shape (played_rounds, n_slots).
    pred : tuple of tuple of int
        Parsed answers of each scored round, shape (played_rounds, n_slots).
    filled_slots : tuple of bool
        ``Filled Slots``: one entry per completed slot-filling turn.
    request_counts, parsed_request_counts, violated_request_counts : tuple of int
        The per-turn request count lists (length ``n_slots + 1`` in genuine logs).
    logged_rounds : int
        ``len(probes)`` (may exceed ``played_rounds`` by the aborted round).
    model : str or None
        The answerer model, from ``players["Player 1"]`` (``"Answerer: <model>"``).
    recorded : dict or None
        clembench's ``scores.json`` found beside the log, if any.
    """

    name: str
    source: str
    n_slots: int
    played_rounds: int
    aborted: bool
    gold: tuple[tuple[int, ...], ...]
    pred: tuple[tuple[int, ...], ...]
    filled_slots: tuple[bool, ...]
    request_counts: tuple[int, ...]
    parsed_request_counts: tuple[int, ...]
    violated_request_counts: tuple[int, ...]
    logged_rounds: int
    model: str | None = None
    experiment: str | None = None
    recorded: dict | None = field(default=None, compare=False)


@dataclass(frozen=True)
class EpisodeScores:
    """Scores of one episode, keyed exactly like clembench's ``scores.json``.

    Attributes
    ----------
    episode : Episode
        The scored episode.
    turn_scores : dict
        ``{"0": {...}, "1": {...}, ...}``: one dict per scored probing round (string keys, as
        clembench writes them).
    episode_scores : dict
        Episode-level scores; ``Middle-Accuracy`` is absent when the episode ended before the
        middle round.
    """

    episode: Episode
    turn_scores: dict[str, dict[str, Any]]
    episode_scores: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The clembench ``scores.json`` layout: ``turn scores`` and ``episode scores``."""
        return {"turn scores": self.turn_scores, "episode scores": self.episode_scores}


@dataclass
class LoadedEpisodes:
    """Result of a loader: the episodes and the files that were not episode logs.

    Attributes
    ----------
    episodes : list of Episode
        Parsed episodes, in path order.
    ignored : list of str
        Files seen but not used (e.g. ``experiment_*.json``, a ``scores.json`` with no log
        beside it, transcripts), so that nothing is dropped silently.
    """

    episodes: list[Episode] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


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
) -> Episode:
    """Validate a decoded ``interactions.json`` and extract what the scorer reads.

    Parameters
    ----------
    obj : mapping
        The decoded log (see :func:`parse_interactions`).
    source : str, default="interactions.json"
        Name used in error messages (a path or zip member).
    name : str, optional
        Display name; defaults to ``source``.
    n_slots : int, optional
        Number of slots of the game instance. clembench takes it from the instance
        (``len(slots)``); the log carries it as ``len(realised_slots)``, the default.
    recorded : mapping, optional
        clembench's ``scores.json`` for this episode (kept for comparison).
    experiment : str, optional
        Experiment name (e.g. from the folder path).

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
    missing = [k for k in _REQUIRED_FIELDS if k not in obj]
    if missing:
        game = _game_name(obj)
        hint = (
            f" (this is a log of the game '{game}', not privateshared)"
            if game and game != "privateshared"
            else " (is this a clembench privateshared interactions.json?)"
        )
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

    realised = obj["realised_slots"]
    if not isinstance(realised, Mapping):
        raise _fail(source, f"field 'realised_slots' must be an object (slot -> order), got "
                            f"{type(realised).__name__}")
    if n_slots is None:
        if len(realised) == 0:
            raise _fail(source, "field 'realised_slots' is empty: the number of slots is unknown")
        n_slots = len(realised)
    elif isinstance(n_slots, bool) or not isinstance(n_slots, (int, np.integer)) or n_slots < 1:
        raise DataError(f"n_slots must be a positive integer, got {n_slots!r}")
    n_slots = int(n_slots)

    gold: list[tuple[int, ...]] = []
    pred: list[tuple[int, ...]] = []
    for r in range(played):
        rnd = probes[r]
        if not isinstance(rnd, list):
            raise _fail(source, f"field 'probes'[{r}] must be a list of probes, got {type(rnd).__name__}")
        if len(rnd) != n_slots:
            raise _fail(source, f"field 'probes'[{r}] is a scored round with {len(rnd)} probe(s) but "
                                f"the game has {n_slots} slots (len of 'realised_slots')")
        g_row, p_row = [], []
        for i, probe in enumerate(rnd):
            if not isinstance(probe, Mapping):
                raise _fail(source, f"field 'probes'[{r}][{i}] must be an object, got {type(probe).__name__}")
            for key, row in (("gt", g_row), ("value", p_row)):
                if key not in probe:
                    raise _fail(source, f"field 'probes'[{r}][{i}] has no '{key}'")
                v = probe[key]
                if not _is_binary(v):
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
    for key in _COUNT_FIELDS:
        lst = obj[key]
        if not isinstance(lst, list):
            raise _fail(source, f"field '{key}' must be a list of per-turn counts, got {type(lst).__name__}")
        counts[key] = tuple(_check_int(v, source, [key, i]) for i, v in enumerate(lst))
        if len(lst) < played:
            raise _fail(source, f"field '{key}' has {len(lst)} entries but {played} probing rounds are scored")
    if sum(counts[REQUEST_COUNT]) == 0:
        raise _fail(source, "field 'Request Count' sums to 0: Request Success Ratio is undefined")

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


def score_episode(episode: Episode) -> EpisodeScores:
    """Score one episode exactly like clembench's ``PrivateSharedScorer``.

    Parameters
    ----------
    episode : Episode
        A validated episode (see :func:`parse_episode`).

    Returns
    -------
    EpisodeScores
        ``turn_scores`` (one dict per scored round) and ``episode_scores`` with clembench's
        key names, order and value types.
    """
    aborted = episode.aborted
    mid = middle_round(episode.n_slots)
    turn_scores: dict[str, dict[str, Any]] = {}
    episode_scores: dict[str, Any] = {}
    gold: list[int] = []
    pred: list[int] = []
    for t in range(episode.played_rounds):
        g, p = episode.gold[t], episode.pred[t]
        acc = probe_accuracy(g, p)
        ts: dict[str, Any] = {
            REQUEST_COUNT: episode.request_counts[t],
            PARSED_REQUEST_COUNT: episode.parsed_request_counts[t],
            VIOLATED_REQUEST_COUNT: episode.violated_request_counts[t],
            ACCURACY: acc,
        }
        if t != 0:
            # no slot is asked before the first probing round; round t follows slot t - 1
            ts[SLOT_FILLED] = int(episode.filled_slots[t - 1])
        turn_scores[str(t)] = ts
        gold.extend(g)
        pred.extend(p)
        if t == mid:
            episode_scores[MIDDLE_ACCURACY] = acc if not aborted else math.nan

    if aborted:
        acc = kappa = trunc = sf_acc = math.nan
    else:
        acc = probe_accuracy(gold, pred)
        kappa = cohen_kappa(gold, pred)
        trunc = truncated_kappa(kappa)
        sf_acc = sum(episode.filled_slots) / len(episode.filled_slots)
    score = main_score(sf_acc, trunc)

    episode_scores[ACCURACY] = acc
    episode_scores[KAPPA] = kappa
    episode_scores[TRUNCATED_KAPPA] = trunc
    episode_scores[SLOT_FILLING_ACCURACY] = sf_acc
    episode_scores[MAIN_SCORE] = score

    success = int(acc == 1.0 and sf_acc == 1.0) if not aborted else 0
    lose = int(not success) if not aborted else 0
    reqs = sum(episode.request_counts)
    parsed = sum(episode.parsed_request_counts)
    violated = sum(episode.violated_request_counts)
    episode_scores[ABORTED] = int(aborted)
    episode_scores[LOSE] = lose
    episode_scores[SUCCESS] = success
    episode_scores[REQUEST_COUNT] = reqs
    episode_scores[PARSED_REQUEST_COUNT] = parsed
    episode_scores[VIOLATED_REQUEST_COUNT] = violated
    episode_scores[REQUEST_SUCCESS_RATIO] = parsed / reqs
    return EpisodeScores(episode=episode, turn_scores=turn_scores, episode_scores=episode_scores)


def score_episodes(episodes: Iterable[Episode]) -> list[EpisodeScores]:
    """Score several episodes (see :func:`score_episode`)."""
    return [score_episode(e) for e in episodes]


# ---------------------------------------------------------------------------------------------
# aggregation
# ---------------------------------------------------------------------------------------------
def _scores_of(item: EpisodeScores | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(item, EpisodeScores):
        return item.episode_scores
    if isinstance(item, Mapping) and "episode scores" in item:
        return item["episode scores"]
    return item


def aggregate_scores(scores: Sequence[EpisodeScores | Mapping[str, Any]]) -> dict[str, Any]:
    """clembench's results-table figures over a set of episodes.

    ``% Played`` = 100 * mean(1 - Aborted); ``Quality Score`` = mean of ``Main Score`` over the
    episodes where it is not NaN (pandas' ``mean`` skips NaN; here computed as ``math.fsum /
    count``); ``clemscore`` = ``% Played / 100 * Quality Score``. clembench's table then rounds
    each figure to 2 decimals; these values are unrounded.

    Parameters
    ----------
    scores : sequence of EpisodeScores or mapping, length n_episodes
        Scored episodes, or their ``episode scores`` dicts (``Aborted`` and ``Main Score``
        are read).

    Returns
    -------
    dict
        ``episodes`` (count), ``played`` (count of non-aborted), ``% Played``,
        ``Quality Score`` (NaN when no episode has a main score) and ``clemscore`` (NaN then too).
    """
    items = [_scores_of(s) for s in scores]
    if not items:
        raise DataError("no episodes to aggregate")
    played = []
    mains = []
    for i, es in enumerate(items):
        if ABORTED not in es or MAIN_SCORE not in es:
            raise DataError(f"episode {i + 1} has no '{ABORTED}' or '{MAIN_SCORE}' score")
        played.append(1 - int(es[ABORTED]))
        m = float(es[MAIN_SCORE])
        if not math.isnan(m):
            mains.append(m)
    pct_played = sum(played) / len(played) * 100
    quality = math.fsum(mains) / len(mains) if mains else math.nan
    return {
        "episodes": len(items),
        "played": int(sum(played)),
        PLAYED: pct_played,
        QUALITY_SCORE: quality,
        CLEMSCORE: pct_played / 100 * quality,
    }


def aggregate_by(scores: Sequence[EpisodeScores], *, by: str = "model") -> dict[str, dict[str, Any]]:
    """:func:`aggregate_scores` per group of episodes (``by`` = ``"model"`` or ``"experiment"``).

    Episodes whose attribute is unknown are grouped under ``"(unknown)"``.
    """
    if by not in ("model", "experiment"):
        raise DataError(f"cannot group episodes by {by!r}: use 'model' or 'experiment'")
    groups: dict[str, list[EpisodeScores]] = {}
    for s in scores:
        key = getattr(s.episode, by) or "(unknown)"
        groups.setdefault(key, []).append(s)
    return {k: aggregate_scores(v) for k, v in groups.items()}


def scores_report(scores: Sequence[EpisodeScores], *, ignored: Sequence[str] = ()) -> dict[str, Any]:
    """The full report printed by ``hmceval scorekeeping --json`` and offered by the dashboard.

    Parameters
    ----------
    scores : sequence of EpisodeScores
        Scored episodes.
    ignored : sequence of str, optional
        Files that were seen but are not episode logs (see :class:`LoadedEpisodes`).

    Returns
    -------
    dict
        ``episodes`` (per episode: ``episode``, ``source``, ``model``, ``experiment``,
        ``n_slots``, ``played_probe_rounds``, ``turn_scores``, ``episode_scores`` with
        clembench's key names, ``matches_recorded`` (None without a recorded ``scores.json``)
        and ``differences``), then ``aggregate``, ``aggregate_by_model`` and ``ignored_files``.
    """
    episodes = []
    for s in scores:
        e = s.episode
        diffs = compare_scores(s, e.recorded) if e.recorded is not None else []
        episodes.append({
            "episode": e.name,
            "source": e.source,
            "model": e.model,
            "experiment": e.experiment,
            "n_slots": e.n_slots,
            "played_probe_rounds": e.played_rounds,
            "turn_scores": s.turn_scores,
            "episode_scores": s.episode_scores,
            "matches_recorded": None if e.recorded is None else not diffs,
            "differences": diffs,
        })
    return {
        "episodes": episodes,
        "aggregate": aggregate_scores(scores),
        "aggregate_by_model": aggregate_by(scores, by="model"),
        "ignored_files": list(ignored),
    }


# ---------------------------------------------------------------------------------------------
# comparison with recorded scores
# ---------------------------------------------------------------------------------------------
def same_score(a: Any, b: Any) -> bool:
    """Exact equality of two score values, with NaN equal to NaN and int/float kept apart.

    ``0`` (int) and ``0.0`` (float) differ, as they do in clembench's JSON output.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    a_float, b_float = isinstance(a, float), isinstance(b, float)
    if a_float != b_float:
        return False
    if a_float and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def compare_scores(computed: EpisodeScores | Mapping[str, Any], recorded: Mapping[str, Any]) -> list[str]:
    """List every difference between computed scores and a recorded ``scores.json``.

    Every turn and episode key is compared with :func:`same_score`; missing and extra keys
    count as differences.

    Returns
    -------
    list of str
        Empty when everything agrees.
    """
    comp = computed.to_dict() if isinstance(computed, EpisodeScores) else computed
    diffs: list[str] = []

    def cmp(a: Mapping, b: Mapping, where: str) -> None:
        for k in b:
            if k not in a:
                diffs.append(f"{where}: '{k}' recorded as {b[k]!r} but not computed")
        for k in a:
            if k not in b:
                diffs.append(f"{where}: '{k}' computed as {a[k]!r} but not recorded")
            elif isinstance(a[k], Mapping) and isinstance(b[k], Mapping):
                cmp(a[k], b[k], f"{where} {k}")
            elif not same_score(a[k], b[k]):
                diffs.append(f"{where}: '{k}' computed {a[k]!r}, recorded {b[k]!r}")

    cmp({"turn scores": comp.get("turn scores", {})}, {"turn scores": recorded.get("turn scores", {})}, "")
    cmp({"episode scores": comp.get("episode scores", {})},
        {"episode scores": recorded.get("episode scores", {})}, "")
    return [d.lstrip(" ") for d in diffs]


# ---------------------------------------------------------------------------------------------
# loaders
# ---------------------------------------------------------------------------------------------
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


def _read_file(path: Path, *, limit: int | None = None) -> bytes:
    limit = MAX_FILE_BYTES if limit is None else limit
    size = path.stat().st_size
    if size > limit:
        raise _fail(str(path), f"file is too large ({size:,} bytes; limit {limit:,})")
    return path.read_bytes()


def _episode_from_bytes(
    data: bytes, *, source: str, name: str, scores_data: bytes | None, scores_source: str | None,
    experiment: str | None, n_slots: int | None,
) -> Episode:
    obj = parse_interactions(data, source=source)
    recorded = None
    if scores_data is not None:
        recorded = parse_recorded_scores(
            parse_interactions(scores_data, source=scores_source or "scores.json"),
            source=scores_source or "scores.json",
        )
    return parse_episode(obj, source=source, name=name, recorded=recorded,
                         experiment=experiment, n_slots=n_slots)


def _load_members(
    members: Mapping[str, bytes], *, prefix: str, origin: str, n_slots: int | None, seen: dict[str, int],
    out: LoadedEpisodes, any_json_is_log: bool,
) -> None:
    """Episodes from a flat mapping of posix member names -> bytes (a zip or an upload)."""
    names = sorted(members)
    logs = [n for n in names if _is_interactions_name(n)]
    if any_json_is_log:
        logs = [n for n in names if n.lower().endswith(".json")
                and PurePosixPath(n).name != "scores.json"
                and not PurePosixPath(n).name.startswith("experiment_")]
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
        if _is_interactions_name(n):
            label = folder if folder else (prefix or p.name)
        else:
            label = str(p.with_suffix(""))
        if prefix and folder:
            label = f"{prefix}/{label}"
        experiment = _experiment_of(p.parts)
        out.episodes.append(_episode_from_bytes(
            members[n], source=f"{origin}{n}", name=_unique(label, seen),
            scores_data=scores_data, scores_source=f"{origin}{scores_name}", experiment=experiment,
            n_slots=n_slots,
        ))
        used.add(n)
    out.ignored.extend(f"{origin}{n}" for n in names if n not in used and not n.endswith("/"))


def _zip_members(data: bytes, *, source: str) -> dict[str, bytes]:
    if len(data) > MAX_ZIP_BYTES:
        raise _fail(source, f"zip archive is too large ({len(data):,} bytes; limit {MAX_ZIP_BYTES:,})")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise _fail(source, f"not a valid zip archive ({exc})") from None
    with zf:
        infos = [i for i in zf.infolist() if not i.is_dir()]
        if len(infos) > MAX_ZIP_MEMBERS:
            raise _fail(source, f"zip archive has {len(infos):,} files (limit {MAX_ZIP_MEMBERS:,})")
        members: dict[str, bytes] = {}
        total = 0
        for info in infos:
            name = info.filename.replace("\\", "/")
            if name.startswith("__MACOSX/") or PurePosixPath(name).name.startswith("._"):
                continue
            wanted = PurePosixPath(name).name in ("interactions.json", "scores.json")
            if not wanted:
                members[name] = b""  # listed as ignored, never read
                continue
            if info.file_size > MAX_FILE_BYTES:
                raise _fail(f"{source}:{name}", f"file is too large ({info.file_size:,} bytes; "
                                                f"limit {MAX_FILE_BYTES:,})")
            total += info.file_size
            if total > MAX_ZIP_READ_BYTES:
                raise _fail(source, f"the logs in the zip archive exceed {MAX_ZIP_READ_BYTES:,} bytes in total")
            try:
                members[name] = zf.read(info)
            except (zipfile.BadZipFile, RuntimeError, NotImplementedError, OSError) as exc:
                raise _fail(f"{source}:{name}", f"cannot read zip member ({exc})") from None
    return members


def load_paths(paths: Sequence[str | Path], *, n_slots: int | None = None) -> LoadedEpisodes:
    """Load episodes from paths: episode folders, ``interactions.json`` files, parent folders
    (searched recursively for ``interactions.json``) or zip archives.

    A ``scores.json`` beside an ``interactions.json`` is read as clembench's recorded scores.

    Parameters
    ----------
    paths : sequence of str or Path
        What to load.
    n_slots : int, optional
        Override the number of slots (default: ``len(realised_slots)`` of each log).

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
                experiment = _experiment_of(log.resolve().parts)
                out.episodes.append(_episode_from_bytes(
                    _read_file(log), source=str(log), name=_unique(label, seen),
                    scores_data=_read_file(scores) if scores.is_file() else None,
                    scores_source=str(scores), experiment=experiment, n_slots=n_slots,
                ))
        elif path.suffix.lower() == ".zip" or zipfile.is_zipfile(path):
            members = _zip_members(_read_file(path, limit=MAX_ZIP_BYTES), source=str(path))
            before = len(out.episodes)
            _load_members(members, prefix=path.stem, origin=f"{path}:", n_slots=n_slots, seen=seen,
                          out=out, any_json_is_log=False)
            if len(out.episodes) == before:
                raise _fail(str(path), "the zip archive holds no interactions.json")
        else:
            scores = path.parent / "scores.json"
            use_scores = path.name != "scores.json" and scores.is_file()
            parts = path.resolve().parts
            label = (str(PurePosixPath(*parts[-4:-1])) if _is_interactions_name(path.name) and len(parts) >= 4
                     else path.stem)
            experiment = _experiment_of(parts) if _is_interactions_name(path.name) else None
            out.episodes.append(_episode_from_bytes(
                _read_file(path), source=str(path), name=_unique(label, seen),
                scores_data=_read_file(scores) if use_scores else None, scores_source=str(scores),
                experiment=experiment, n_slots=n_slots,
            ))
    return out


def load_uploads(files: Sequence[tuple[str, bytes]], *, n_slots: int | None = None) -> LoadedEpisodes:
    """Load episodes from uploaded files: zip archives and/or JSON logs.

    Parameters
    ----------
    files : sequence of (name, bytes)
        Uploaded file names (may contain ``/`` for folder uploads) and contents. A zip is
        searched for ``interactions.json`` members. Any other ``.json`` file is read as an
        episode log, except ``scores.json`` (paired with the log of the same folder, or with the
        only log of a flat upload) and ``experiment_*.json`` (ignored).
    n_slots : int, optional
        Override the number of slots.

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
    for name, data in files:
        name = str(name).replace("\\", "/")
        if name.lower().endswith(".zip") or data[:4] == b"PK\x03\x04":
            members = _zip_members(bytes(data), source=name)
            before = len(out.episodes)
            _load_members(members, prefix=PurePosixPath(name).stem, origin=f"{name}:", n_slots=n_slots,
                          seen=seen, out=out, any_json_is_log=False)
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


# ---------------------------------------------------------------------------------------------
# tables for display
# ---------------------------------------------------------------------------------------------
def episode_table(scores: Sequence[EpisodeScores]) -> pd.DataFrame:
    """One row per episode: identity, rounds, clembench's episode scores, recorded check.

    ``Middle-Accuracy`` is ``None`` when clembench does not log it (episode ended before the
    middle round) and NaN when it logs NaN (aborted later).

    Returns
    -------
    pandas.DataFrame, shape (n_episodes, 7 + len(EPISODE_KEYS))
    """
    rows = []
    for s in scores:
        e = s.episode
        row: dict[str, Any] = {
            "episode": e.name,
            "model": e.model,
            "experiment": e.experiment,
            "slots": e.n_slots,
            "scored rounds": e.played_rounds,
            "logged rounds": e.logged_rounds,
        }
        for k in EPISODE_KEYS:
            row[k] = s.episode_scores.get(k, None)
        if e.recorded is None:
            row["matches recorded"] = None
        else:
            row["matches recorded"] = not compare_scores(s, e.recorded)
        rows.append(row)
    cols = ["episode", "model", "experiment", "slots", "scored rounds", "logged rounds",
            *EPISODE_KEYS, "matches recorded"]
    table = pd.DataFrame(rows, columns=cols)
    # keep "absent" (None) and NaN apart: pandas would turn None into NaN in a float column
    table[MIDDLE_ACCURACY] = pd.Series([r[MIDDLE_ACCURACY] for r in rows], index=table.index, dtype=object)
    table["matches recorded"] = pd.Series([r["matches recorded"] for r in rows], index=table.index,
                                          dtype=object)
    return table


def accuracy_curves(scores: Sequence[EpisodeScores]) -> pd.DataFrame:
    """Per-round probing accuracy of every episode, in long format.

    Returns
    -------
    pandas.DataFrame, shape (sum of scored rounds, 7)
        Columns ``episode``, ``model``, ``slots``, ``round``, ``accuracy``, ``middle`` (True at
        the episode's middle round) and ``aborted``.
    """
    rows = []
    for s in scores:
        e = s.episode
        mid = middle_round(e.n_slots)
        for key, ts in s.turn_scores.items():
            r = int(key)
            rows.append({"episode": e.name, "model": e.model or "(unknown)", "slots": e.n_slots,
                         "round": r, "accuracy": float(ts[ACCURACY]), "middle": r == mid,
                         "aborted": e.aborted})
    return pd.DataFrame(rows, columns=["episode", "model", "slots", "round", "accuracy", "middle", "aborted"])


# ---------------------------------------------------------------------------------------------
# deterministic simulator for demo episodes
# ---------------------------------------------------------------------------------------------
_DOMAINS: dict[str, dict[str, Any]] = {
    "travel-booking": {
        "partner": "TRAVEL-AGENT",
        "role": "travel agent",
        "slots": {
            "from": ["Paris", "London", "Berlin", "Rome", "Vienna"],
            "to": ["Lisbon", "Madrid", "Prague", "Oslo", "Athens"],
            "by": ["Train", "Plane", "Overnight bus", "Ferry", "Car"],
            "class": ["Economy", "First class", "Business"],
            "when": ["Next month", "In two weeks", "Tomorrow morning", "End of May"],
        },
        "about": {
            "from": "where you are leaving from", "to": "where you want to go to",
            "by": "how you want to travel", "class": "which class you would like to book",
            "when": "when you are travelling",
        },
    },
    "job-interview": {
        "partner": "RECRUITER",
        "role": "recruiter",
        "slots": {
            "bachelor": ["Mathematics", "Engineering", "Biology", "History"],
            "industry-experience": ["Three years", "Twenty years", "Six months"],
            "highest-education": ["Master", "Bachelor", "PhD"],
            "other-skills": ["Python", "Spanish", "Public speaking"],
            "availability": ["Last week of January", "Immediately", "From March"],
        },
        "about": {
            "bachelor": "your bachelor subject", "industry-experience": "your industry experience",
            "highest-education": "your highest education", "other-skills": "your other skills",
            "availability": "your availability",
        },
    },
}

#: Simulated answerer profiles: probability of a correct probe answer for a private and for a
#: shared slot, a lag (rounds a slot keeps being believed private after it was given), the
#: probability that one request gets an unparsable reply, and the probability of an invalid
#: slot-filling answer (which aborts the game) and of a wrong slot value.
DEMO_PROFILES: dict[str, dict[str, float]] = {
    "sim-careful": {"p_private": 0.97, "p_shared": 0.95, "lag": 0, "p_format": 0.03,
                    "p_slot_abort": 0.01, "p_wrong_value": 0.02},
    "sim-lagging": {"p_private": 0.95, "p_shared": 0.9, "lag": 1, "p_format": 0.06,
                    "p_slot_abort": 0.03, "p_wrong_value": 0.05},
    "sim-private-biased": {"p_private": 0.98, "p_shared": 0.35, "lag": 0, "p_format": 0.1,
                           "p_slot_abort": 0.05, "p_wrong_value": 0.1},
    "sim-yes-sayer": {"p_private": 0.0, "p_shared": 1.0, "lag": 0, "p_format": 0.4,
                      "p_slot_abort": 0.1, "p_wrong_value": 0.0},
}

_RETRIES = ("", "Please answer this question carefully.", "Please answer only yes or no.",
            "Your answer must begin with ASIDE:.", "This is your last chance to answer.")


def simulate_episode(
    *,
    profile: str = "sim-careful",
    domain: str = "travel-booking",
    seed: int = 0,
) -> dict[str, Any]:
    """Simulate one episode of the privateshared game and return its ``interactions.json``.

    The game master's mechanics follow clembench: a probing round before the first question and
    after each answered question; in round ``r`` the ground truth of a slot is 1 when ``r`` is
    greater than the (0-based) turn at which the slot was asked; each probe is re-asked up to 5
    times until the reply parses, otherwise the game is aborted and that round is logged but
    not counted in ``Played Probe Rounds``; an unparsable slot-filling answer aborts the game.
    The answerer is random, driven by ``profile`` (see :data:`DEMO_PROFILES`) and ``seed``, so
    the same arguments always give the same log. Anticipated slot values are not simulated.

    Parameters
    ----------
    profile : str, default="sim-careful"
        A key of :data:`DEMO_PROFILES` (also used as the model name).
    domain : {"travel-booking", "job-interview"}
        The experiment (5 slots each).
    seed : int, default=0
        Random seed.

    Returns
    -------
    dict
        The log, with ``players``, ``turns``, ``probes``, ``realised_slots``, the request count
        lists, ``Filled Slots``, ``Aborted`` and ``Played Probe Rounds``.
    """
    if profile not in DEMO_PROFILES:
        raise DataError(f"unknown demo profile {profile!r}; choose from {sorted(DEMO_PROFILES)}")
    if domain not in _DOMAINS:
        raise DataError(f"unknown demo domain {domain!r}; choose from {sorted(_DOMAINS)}")
    prof = DEMO_PROFILES[profile]
    dom = _DOMAINS[domain]
    rng = np.random.default_rng(seed)
    slots = list(dom["slots"])
    n = len(slots)
    values = {s: dom["slots"][s][int(rng.integers(len(dom["slots"][s])))] for s in slots}
    order = [slots[i] for i in rng.permutation(n)]
    asked_at = {s: i for i, s in enumerate(order)}
    counts = {k: [0] * (n + 1) for k in _COUNT_FIELDS}
    probes: list[list[dict[str, Any]]] = []
    turns: list[list[dict[str, Any]]] = []
    filled: list[bool] = []
    played = 0
    aborted = False
    clock = [0]

    def ev(frm: str, to: str, typ: str, content: str) -> dict[str, Any]:
        clock[0] += 1
        return {"from": frm, "to": to, "timestamp": f"2025-01-01T00:00:{clock[0] // 1000:02d}.{clock[0] % 1000:06d}",
                "action": {"type": typ, "content": content}}

    def probing(r: int, events: list) -> bool:
        events.append(ev("GM", "GM", "info", "Begin probing"))
        rnd: list[dict[str, Any]] = []
        probes.append(rnd)
        for s in rng.permutation(slots).tolist():
            gt = 1 if r > asked_at[s] else 0
            question = f"ME: Does the {dom['role']} know {dom['about'][s]}? Answer this question with yes or no and then stop."
            probe = {"target": s.upper(), "question": question, "gt": gt}
            rnd.append(probe)
            believed_shared = r > asked_at[s] + prof["lag"]
            p_correct = prof["p_shared"] if believed_shared else prof["p_private"]
            says_yes = bool(rng.random() < p_correct) if believed_shared else bool(rng.random() >= p_correct)
            ok = False
            for tries, prefix in enumerate(_RETRIES, start=1):
                events.append(ev("GM", "Player 1", "probe question",
                                 question.replace("ME: ", f"ME: {prefix} ".replace("  ", " "))))
                counts[REQUEST_COUNT][r] += 1
                word = "Yes" if says_yes else "No"
                if rng.random() < prof["p_format"]:
                    events.append(ev("Player 1", "GM", "probe answer", word))
                    events.append(ev("GM", "GM", "parse", "NA"))
                    counts[VIOLATED_REQUEST_COUNT][r] += 1
                    continue
                events.append(ev("Player 1", "GM", "probe answer", f"ASIDE: {word}"))
                events.append(ev("GM", "GM", "parse", word.lower()))
                counts[PARSED_REQUEST_COUNT][r] += 1
                ok = True
                break
            probe["answer"] = f"ASIDE: {'Yes' if says_yes else 'No'}" if ok else "No"
            probe["value"] = (1 if says_yes else 0) if ok else -1
            probe["tries"] = tries if ok else len(_RETRIES) + 1
            events.append(ev("GM", "GM", "metadata", f"Answer for {s.upper()} valid after {tries} tries."
                             if ok else f"Answer for {s.upper()} invalid after {len(_RETRIES)} tries."))
            events.append(ev("GM", "GM", "check", f"Answer is {'' if probe['value'] == gt else 'in'}correct."))
            if not ok:
                events.append(ev("GM", "GM", "invalid format", "Abort: invalid format in probing."))
                return False
        events.append(ev("GM", "GM", "info", "End probing"))
        return True

    first = [ev("GM", "Player 1", "send message",
                "Slot values:\n" + "\n".join(f"{s.upper()}: {values[s]}" for s in slots))]
    turns.append(first)
    if probing(0, first):
        played = 1
    else:
        aborted = True
    r = 1
    while not aborted and r <= n:
        events: list[dict[str, Any]] = []
        turns.append(events)
        slot = order[r - 1]
        events.append(ev("Player 2", "GM", "get message", f"What about {dom['about'][slot]}?"))
        events.append(ev("GM", "Player 1", "send message", f"{dom['partner']}: What about {dom['about'][slot]}?"))
        counts[REQUEST_COUNT][r] += 1
        if rng.random() < prof["p_slot_abort"]:
            events.append(ev("Player 1", "GM", "get message", f"ANSWER: {values[slot]}\n\nASIDE: more text"))
            events.append(ev("GM", "GM", "parse", "NA"))
            events.append(ev("GM", "GM", "invalid format", "Abort: invalid format in slot filling."))
            counts[VIOLATED_REQUEST_COUNT][r] += 1
            aborted = True
            break
        wrong = bool(rng.random() < prof["p_wrong_value"])
        answer = "I am not sure." if wrong else values[slot]
        counts[PARSED_REQUEST_COUNT][r] += 1
        events.append(ev("Player 1", "GM", "get message", f"ANSWER: {answer}"))
        events.append(ev("GM", "GM", "parse", answer))
        filled.append(not wrong)
        events.append(ev("GM", "GM", "metadata", f"Slot filled: {not wrong}"))
        if probing(r, events):
            played += 1
        else:
            aborted = True
        r += 1
    turns[-1].append(ev("GM", "GM", "end", "Game finished."))
    return {
        "players": {"GM": "Game master for privateshared", "Player 1": f"Answerer: {profile}",
                    "Player 2": "Questioner: Programmatic"},
        "turns": turns,
        "probes": probes,
        "realised_slots": asked_at,
        REQUEST_COUNT: counts[REQUEST_COUNT],
        PARSED_REQUEST_COUNT: counts[PARSED_REQUEST_COUNT],
        VIOLATED_REQUEST_COUNT: counts[VIOLATED_REQUEST_COUNT],
        "Filled Slots": filled,
        "Aborted": aborted,
        "Played Probe Rounds": played,
    }


def demo_episodes(*, episodes_per_profile: int = 6, seed: int = 0) -> list[Episode]:
    """Deterministic demo episodes: every profile x both domains, simulated by
    :func:`simulate_episode` (no recorded data is copied).

    Parameters
    ----------
    episodes_per_profile : int, default=6
        Episodes per profile (alternating the two domains).
    seed : int, default=0
        Base seed; episode ``k`` of profile ``p`` uses a seed derived from both.

    Returns
    -------
    list of Episode
        Named ``<profile>/<k>_<domain>/episode_<k>``.
    """
    if episodes_per_profile < 1:
        raise DataError("episodes_per_profile must be at least 1")
    out = []
    domains = sorted(_DOMAINS)
    for p_idx, profile in enumerate(DEMO_PROFILES):
        for k in range(episodes_per_profile):
            domain = domains[k % len(domains)]
            log = simulate_episode(profile=profile, domain=domain, seed=seed * 1_000_003 + p_idx * 1000 + k)
            name = f"{profile}/{domain}/episode_{k}"
            out.append(parse_episode(log, source=f"demo:{name}", name=name, experiment=domain))
    return out
