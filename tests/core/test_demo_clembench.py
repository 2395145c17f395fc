"""The clembench demo (``core.demo.clembench``): the simulator is a function of its seed and
follows the game's mechanics (ground truth shared once a slot is asked, request counts adding
up, every kind of abort), and the demo episodes score."""

from __future__ import annotations

import json

import pytest

import core.clembench as sk
import core.demo.clembench as sk_demo
from core.errors import DataError


# ---------------------------------------------------------------------------------------------
# demo simulator: deterministic and faithful to the game's mechanics
# ---------------------------------------------------------------------------------------------
def test_simulate_episode_deterministic_and_consistent():
    assert sk_demo.simulate_episode(seed=3) == sk_demo.simulate_episode(seed=3)
    assert sk_demo.simulate_episode(seed=3) != sk_demo.simulate_episode(seed=4)
    kinds = set()
    for profile in sk_demo.DEMO_PROFILES:
        for seed in range(15):
            log = sk_demo.simulate_episode(profile=profile, domain="job-interview", seed=seed)
            n = len(log["realised_slots"])
            played = log["Played Probe Rounds"]
            for r, rnd in enumerate(log["probes"]):
                for p in rnd:  # ground truth rule: shared once asked
                    slot = p["target"].lower()
                    assert p["gt"] == (1 if r > log["realised_slots"][slot] else 0)
            assert all(all(p["value"] in (0, 1) for p in rnd) and len(rnd) == n
                       for rnd in log["probes"][:played])
            assert [a + b for a, b in zip(log["Parsed Request Count"], log["Violated Request Count"])] \
                == log["Request Count"]
            if not log["Aborted"]:
                assert played == n + 1 and len(log["Filled Slots"]) == n
            else:
                kinds.add("round0" if played == 0 else ("probing" if len(log["probes"]) > played else "slot"))
            json.dumps(log)  # serialisable like a real interactions.json
    assert kinds == {"round0", "probing", "slot"}
    with pytest.raises(DataError, match="unknown demo profile"):
        sk_demo.simulate_episode(profile="nobody")


def test_demo_episodes():
    a, b = sk_demo.demo_episodes(), sk_demo.demo_episodes()
    assert a == b and len(a) == 6 * len(sk_demo.DEMO_PROFILES)
    scored = sk.score_episodes(a)
    assert any(s.episode.aborted for s in scored) and any(not s.episode.aborted for s in scored)
    assert sk_demo.demo_episodes(seed=1) != a


def test_demo_episodes_alternate_both_domains_and_are_named_so():
    eps = sk_demo.demo_episodes(episodes_per_profile=2)
    assert len(eps) == 2 * len(sk_demo.DEMO_PROFILES)
    first = eps[:2]
    assert [e.experiment for e in first] == sorted({e.experiment for e in eps})
    assert all(e.name == f"{e.model}/{e.experiment}/episode_{k}" for k, e in enumerate(first))
    with pytest.raises(DataError, match="episodes_per_profile must be at least 1"):
        sk_demo.demo_episodes(episodes_per_profile=0)
