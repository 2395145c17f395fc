"""core.clembench.slots, split from tests/core/test_clembench.py (tests named after the module they test)."""

from __future__ import annotations

import pytest
import core.clembench as sk
from core.errors import DataError


@pytest.mark.parametrize("instance, match", [
    ({"game_id": 0}, "missing field 'slots' \\(is this a clembench privateshared instance.json\\?\\)"),
    ({"experiments": [{"name": "x", "game_instances": []}]}, "missing field 'slots' \\(this is a whole instances file"),
    ({"slots": ["from", "to"]}, "field 'slots' must be an object \\(slot -> value\\), got list"),
    ({"slots": {}}, "field 'slots' holds 0 slots; a game has 1 to 1,000"),
    ([1, 2], "the top level must be a JSON object, got list"),
])
def test_instance_n_slots_rejects(instance, match):
    with pytest.raises(DataError, match=match) as err:
        sk.instance_n_slots(instance, source="ep/instance.json")
    assert str(err.value).startswith("ep/instance.json: ")
