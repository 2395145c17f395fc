"""clembench's key names and the episode data model: :class:`Episode`, :class:`EpisodeScores`, :class:`LoadedEpisodes`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


#: clembench's key names (clemcore.clemgame.metrics and the privateshared scorer).
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


COUNT_FIELDS = (REQUEST_COUNT, PARSED_REQUEST_COUNT, VIOLATED_REQUEST_COUNT)
#: Fields every log must hold. ``realised_slots`` is optional: the number of slots can also come
#: from the game instance (``instance.json``), be given (``n_slots``), or be inferred from the probes.
REQUIRED_FIELDS = (
    "probes", "Played Probe Rounds", "Aborted", "Filled Slots", *COUNT_FIELDS,
)

#: Where an episode's number of slots came from (:attr:`Episode.slots_from`), in the order of
#: precedence: given explicitly, the game instance (what clembench's scorer reads), the log's
#: ``realised_slots``, or inferred from the probes.
SLOTS_GIVEN = "n_slots"
SLOTS_FROM_INSTANCE = "instance.json"
SLOTS_FROM_REALISED = "realised_slots"
SLOTS_FROM_PROBES = "probes"


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
        Number of slots of the game instance (clembench's scorer takes ``len(slots)`` of the
        instance).
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
    experiment : str or None
        Experiment folder name (e.g. ``1_job-interview``), when the path shows it.
    slots_from : str
        Where ``n_slots`` came from: ``"n_slots"`` (given), ``"instance.json"`` (the game
        instance beside the log), ``"realised_slots"`` (the log) or ``"probes"`` (inferred).
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
    slots_from: str = SLOTS_FROM_REALISED
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
