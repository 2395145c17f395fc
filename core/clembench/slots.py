"""The number of slots of a privateshared game: given, from the game instance, or inferred from a log's probes.

clembench's scorer reads the number of slots from the game instance (``len(slots)``); a log
carries it as ``len(realised_slots)``. These functions give it when a log lacks
``realised_slots`` (see :func:`core.clembench.io.parse_episode`, which also checks that every
source present agrees).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from core.clembench.model import COUNT_FIELDS
from core.defaults import MAX_N_SLOTS, MIN_N_SLOTS
from core.errors import DataError

__all__ = ["INSTANCE_FILE", "check_n_slots", "count_length_fits", "instance_n_slots", "infer_n_slots"]

#: The game instance clembench stores in each episode folder, beside ``interactions.json``.
INSTANCE_FILE = "instance.json"


def _fail(source: str, msg: str) -> DataError:
    return DataError(f"{source}: {msg}")


def check_n_slots(n_slots: Any, *, what: str = "n_slots") -> int:
    """Check an explicit number of slots: an integer in [MIN_N_SLOTS, MAX_N_SLOTS] (1 to 1,000).

    Raises
    ------
    DataError
        Not an integer (true/false, floats and text are refused) or out of bounds.
    """
    if isinstance(n_slots, (bool, np.bool_)) or not isinstance(n_slots, (int, np.integer)):
        raise DataError(f"{what} must be an integer from {MIN_N_SLOTS} to {MAX_N_SLOTS:,}, got {n_slots!r}")
    if not MIN_N_SLOTS <= int(n_slots) <= MAX_N_SLOTS:
        raise DataError(f"{what} must be from {MIN_N_SLOTS} to {MAX_N_SLOTS:,}, got {int(n_slots)}")
    return int(n_slots)


def count_length_fits(length: int, n_slots: int, aborted: bool) -> bool:
    """Whether a request count list of ``length`` entries fits a game of ``n_slots`` slots.

    clembench's scorer reads entry ``t`` of each list for every played probing round ``t`` only
    (``PrivateSharedScorer._compute_turn_scores``) and sums the whole list. Its game master
    planned ``n_slots + 1`` probing rounds (``n_probe_turns``): the lists of a complete episode
    hold ``n_slots + 1`` entries; those of an aborted one ``n_slots + 1`` (zeros after the abort,
    the game master's own lists) or fewer (one per round begun, as clemcore's recorder counts
    requests: an abort in round 0 leaves one entry). The caller checks that the played rounds
    are covered.
    """
    if aborted:
        return 1 <= length <= n_slots + 1
    return length == n_slots + 1


def instance_n_slots(instance: Mapping[str, Any], *, source: str = "instance.json") -> int:
    """The number of slots of a privateshared game instance, as clembench's scorer reads it.

    clembench stores each episode's game instance as ``instance.json`` in the episode folder
    (clemcore's ``InstanceFileSaver``); ``PrivateSharedScorer`` takes ``len(game_instance["slots"])``,
    the slot -> value object of the instance (the same slots as ``request_order`` and the
    log's ``realised_slots``).

    Parameters
    ----------
    instance : mapping
        The decoded ``instance.json``.
    source : str, default="instance.json"
        Name used in error messages.

    Returns
    -------
    int
        ``len(instance["slots"])``.

    Raises
    ------
    DataError
        Not an object, no ``slots`` object (e.g. a whole ``instances.json`` with
        ``experiments``), an empty one, or more than MAX_N_SLOTS slots.
    """
    if not isinstance(instance, Mapping):
        raise _fail(source, f"the top level must be a JSON object, got {type(instance).__name__}")
    if "slots" not in instance:
        hint = (" (this is a whole instances file; put the episode's own game instance beside the log)"
                if "experiments" in instance else " (is this a clembench privateshared instance.json?)")
        raise _fail(source, "missing field 'slots'" + hint)
    slots = instance["slots"]
    if not isinstance(slots, Mapping):
        raise _fail(source, f"field 'slots' must be an object (slot -> value), got {type(slots).__name__}")
    if not MIN_N_SLOTS <= len(slots) <= MAX_N_SLOTS:
        raise _fail(source, f"field 'slots' holds {len(slots):,} slots; a game has {MIN_N_SLOTS} to "
                            f"{MAX_N_SLOTS:,}")
    return len(slots)


def infer_n_slots(obj: Mapping[str, Any], *, source: str = "interactions.json") -> int:
    """Infer the number of slots of a log that has no ``realised_slots``, from its probes.

    What clembench's game master logs (``privateshared/master.py``, v0.9 to v3.0): every probing
    round lists one probe per slot, built before any is asked (a round cut short by an invalid
    answer still lists them all, the unasked ones without ``value``); the three request count
    lists have one entry per planned probing round, ``n_slots + 1``, zeros after an abort (or,
    as clemcore's recorder logs them, one per round begun: fewer in an aborted episode); an
    episode that was not aborted played all ``n_slots + 1`` probing rounds. So the number of
    probes per scored round (or, when none was scored, in the first logged round) is the slot
    count, and the request count lists and an unaborted episode's ``Played Probe Rounds`` must
    agree with it.

    Returns
    -------
    int

    Raises
    ------
    DataError
        No probing round logged, rounds of different sizes, or a count that disagrees; the
        message says to give ``n_slots`` or put the game's ``instance.json`` beside the log.
    """
    fix = "; give the number of slots (n_slots, --n-slots) or put the game's instance.json beside the log"
    probes = obj.get("probes")
    played = obj.get("Played Probe Rounds")
    if not isinstance(probes, list) or not probes:
        raise _fail(source, "the log has no 'realised_slots' and 'probes' holds no probing round: "
                            "the number of slots cannot be inferred" + fix)
    n_rounds = played if isinstance(played, int) and not isinstance(played, bool) and 0 < played <= len(probes) else 1
    sizes = []
    for r in range(n_rounds):
        if not isinstance(probes[r], list):
            raise _fail(source, f"field 'probes'[{r}] must be a list of probes, got {type(probes[r]).__name__}")
        sizes.append(len(probes[r]))
    if len(set(sizes)) > 1:
        raise _fail(source, "the log has no 'realised_slots' and its probing rounds hold different "
                            f"numbers of probes ({', '.join(map(str, sizes))}): the number of slots "
                            "cannot be inferred" + fix)
    n = sizes[0]
    if not MIN_N_SLOTS <= n <= MAX_N_SLOTS:
        raise _fail(source, f"the log has no 'realised_slots' and its probing rounds hold {n} probes: "
                            "the number of slots cannot be inferred" + fix)
    aborted = obj.get("Aborted")
    for key in COUNT_FIELDS:
        lst = obj.get(key)
        if isinstance(lst, list) and not count_length_fits(len(lst), n, aborted is True or aborted == 1):
            raise _fail(source, f"the log has no 'realised_slots'; its probing rounds hold {n} probes "
                                f"but field '{key}' has {len(lst)} entries (clembench logs n_slots + 1"
                                f"{', or fewer in an aborted episode' if aborted is True or aborted == 1 else ''}): "
                                "the number of slots cannot be inferred" + fix)
    if aborted is False or aborted == 0:
        if isinstance(played, int) and not isinstance(played, bool) and played != n + 1:
            raise _fail(source, f"the log has no 'realised_slots'; its probing rounds hold {n} probes "
                                f"but the episode was not aborted and 'Played Probe Rounds' is {played} "
                                f"(a complete episode plays n_slots + 1 = {n + 1}): the number of slots "
                                "cannot be inferred" + fix)
    return n
