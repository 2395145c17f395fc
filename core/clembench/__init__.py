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

The package's parts, from the bottom up (each imports only the ones above it in this list):

* :mod:`core.clembench.model`: clembench's key names, :class:`Episode`, :class:`EpisodeScores`,
  :class:`LoadedEpisodes`;
* :mod:`core.clembench.metrics`: :func:`probe_accuracy`, :func:`cohen_kappa`,
  :func:`truncated_kappa`, :func:`main_score`, :func:`middle_round`;
* :mod:`core.clembench.slots`: the number of slots, given (:func:`check_n_slots`), from the
  game instance (:func:`instance_n_slots`) or inferred from a log's probes (:func:`infer_n_slots`);
* :mod:`core.clembench.io`: parsing and the loaders (episode folders, ``interactions.json``
  files, parent folders searched recursively, zip archives, uploaded bytes); the number of
  slots comes from ``n_slots`` when given, else the episode's ``instance.json`` (what
  clembench's scorer reads), else the log's ``realised_slots``, else the probes;
* :mod:`core.clembench.score`: :func:`score_episode` and the comparison with recorded scores;
* :mod:`core.clembench.aggregate`: :func:`aggregate_scores`, :func:`aggregate_by`,
  :func:`scores_report`;
* :mod:`core.clembench.tables`: the tables of the page and the CLI;
clembench's demo (the deterministic simulator of the dashboard's demo episodes) lives in
:mod:`core.demo.clembench`, which imports this package's parts (never the reverse).
"""

from __future__ import annotations

from core.clembench.model import (
    TURN_KEYS, EPISODE_KEYS, AGGREGATE_KEYS, Episode, EpisodeScores, LoadedEpisodes, ABORTED, ACCURACY,
    CLEMSCORE, KAPPA, LOSE, MAIN_SCORE, MIDDLE_ACCURACY, PARSED_REQUEST_COUNT, PLAYED, QUALITY_SCORE,
    REQUEST_COUNT, REQUEST_SUCCESS_RATIO, SLOT_FILLED, SLOT_FILLING_ACCURACY, SUCCESS, TRUNCATED_KAPPA,
    VIOLATED_REQUEST_COUNT,
)
from core.defaults import MIN_N_SLOTS, MAX_N_SLOTS
from core.clembench.metrics import probe_accuracy, cohen_kappa, truncated_kappa, main_score, middle_round
from core.clembench.io import (
    MAX_FILE_BYTES, parse_interactions, parse_episode, parse_recorded_scores, load_paths, load_uploads,
    MAX_ZIP_BYTES, MAX_ZIP_MEMBERS, MAX_ZIP_READ_BYTES,
)
from core.clembench.slots import INSTANCE_FILE, check_n_slots, instance_n_slots, infer_n_slots
from core.clembench.score import score_episode, score_episodes, compare_scores, same_score
from core.clembench.aggregate import aggregate_scores, aggregate_by, scores_report
from core.clembench.tables import episode_table, accuracy_curves

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
    "check_n_slots",
    "instance_n_slots",
    "infer_n_slots",
    "INSTANCE_FILE",
    "MIN_N_SLOTS",
    "MAX_N_SLOTS",
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
    "ABORTED",
    "ACCURACY",
    "CLEMSCORE",
    "KAPPA",
    "LOSE",
    "MAIN_SCORE",
    "MAX_ZIP_BYTES",
    "MAX_ZIP_MEMBERS",
    "MAX_ZIP_READ_BYTES",
    "MIDDLE_ACCURACY",
    "PARSED_REQUEST_COUNT",
    "PLAYED",
    "QUALITY_SCORE",
    "REQUEST_COUNT",
    "REQUEST_SUCCESS_RATIO",
    "SLOT_FILLED",
    "SLOT_FILLING_ACCURACY",
    "SUCCESS",
    "TRUNCATED_KAPPA",
    "VIOLATED_REQUEST_COUNT",
]
