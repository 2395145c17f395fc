"""clembench's demo: a deterministic simulator of privateshared (Scorekeeping) episodes.

The Scorekeeping page's built-in example (:func:`demo_episodes`: every profile of
:data:`DEMO_PROFILES` plays a few episodes) and the benchmark's episodes
(:func:`simulate_episode`). This module is their one home.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.clembench.io import parse_episode
from core.clembench.model import (
    COUNT_FIELDS, Episode, PARSED_REQUEST_COUNT, REQUEST_COUNT, VIOLATED_REQUEST_COUNT,
)
from core.errors import DataError

__all__ = ["simulate_episode", "demo_episodes", "DEMO_PROFILES"]


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
    counts = {k: [0] * (n + 1) for k in COUNT_FIELDS}
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
