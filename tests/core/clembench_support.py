"""Helpers shared by the tests of core.clembench (one copy, imported by each test file)."""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path
import core.clembench as sk


NAN = float("nan")


SLOTS5 = ["from", "to", "by", "class", "when"]


def gold_round(r: int, n: int = 5) -> list[int]:
    """Slot i is asked at turn i (0-based), so it is shared (1) from probing round i + 1 on."""
    return [1 if r > i else 0 for i in range(n)]


def make_log(preds, *, n=5, aborted=False, played=None, filled=None, counts=None, extra_round=None):
    """An interactions.json dict; ``preds[r]`` are the answers of scored round r."""
    played = len(preds) if played is None else played
    probes = []
    for r, pr in enumerate(preds):
        g = gold_round(r, n)
        probes.append([{"target": f"S{i}", "question": "ME: ?", "gt": g[i], "answer": "ASIDE: x",
                        "value": pr[i], "tries": 1} for i in range(n)])
    if extra_round is not None:  # the round whose probing was aborted: logged, not scored
        probes.append(extra_round)
    if filled is None:
        filled = [True] * max(0, len(preds) - 1)
    if counts is None:
        req = [n] + [n + 1] * (len(preds) - 1) + [0] * (n + 1 - len(preds))
        counts = (req, list(req), [0] * (n + 1))
    return {
        "players": {"GM": "Game master for privateshared", "Player 1": "Answerer: hand-model",
                    "Player 2": "Questioner: Programmatic"},
        "turns": [],
        "probes": probes,
        "realised_slots": {f"s{i}": i for i in range(n)},
        "Request Count": counts[0],
        "Parsed Request Count": counts[1],
        "Violated Request Count": counts[2],
        "Filled Slots": filled,
        "Aborted": aborted,
        "Played Probe Rounds": played,
    }


def score(log, **kw):
    return sk.score_episode(sk.parse_episode(log, source="hand/interactions.json", **kw))


def same(a, b) -> bool:
    """Exact equality, NaN == NaN, int and float kept apart (as in JSON)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def perfect(n=5):
    return [gold_round(r, n) for r in range(n + 1)]


RECORDED = [
    "Mistral-Small-24B-Instruct-2501/1_job-interview/episode_1",
    "Mistral-Small-24B-Instruct-2501/1_job-interview/episode_5",
    "Mistral-Small-24B-Instruct-2501/0_travel-booking/episode_0",
    "Llama-3.3-70B-Instruct/3_things-places/episode_4",
    "mistral-large-2411/0_travel-booking/episode_7",
]


def _mut(fn):
    log = make_log(perfect())
    fn(log)
    return log


def _zip(entries: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for k, v in entries.items():
            zf.writestr(k, v)
    return buf.getvalue()


def _tiny_run(prefix: str) -> dict[str, bytes]:
    """Two episodes of one game in two experiments, under ``prefix`` (``"runs/"`` or ``""``)."""
    log = json.dumps(make_log(perfect())).encode()
    return {f"{prefix}privateshared/0_travel-booking/episode_0/interactions.json": log,
            f"{prefix}privateshared/0_travel-booking/episode_0/scores.json":
                b'{"turn scores": {}, "episode scores": {}}',
            f"{prefix}privateshared/1_job-interview/episode_3/interactions.json": log}


def _instance_of(log: dict) -> dict:
    """The game instance of a recorded log, rebuilt as clembench stores it in ``instance.json``.

    The slot values are read from the initial prompt (``KEY: value`` lines of the first GM
    message); ``request_order`` is the key order of ``realised_slots`` (clembench builds it as
    ``{slot: i for i, slot in enumerate(request_order)}``).
    """
    prompt = log["turns"][0][0]["action"]["content"]
    lines = dict(line.split(": ", 1) for line in prompt.splitlines() if ": " in line)
    slots = {slot: lines[slot.upper()] for slot in log["realised_slots"]}
    return {"game_id": 0, "tag": "X", "slots": slots, "request_order": list(log["realised_slots"]),
            "lang": "en"}


def _stripped_copy(shared_data: Path, dest: Path, rel: str, *, instance: dict | None | bool = True,
                   scores: bool = True) -> dict:
    """Copy a recorded episode to ``dest/rel`` without 'realised_slots'; returns the original log."""
    src = shared_data / "clembench" / rel
    log = json.loads((src / "interactions.json").read_bytes())
    folder = dest / rel
    folder.mkdir(parents=True)
    stripped = {k: v for k, v in log.items() if k != "realised_slots"}
    (folder / "interactions.json").write_text(json.dumps(stripped))
    if scores:
        (folder / "scores.json").write_bytes((src / "scores.json").read_bytes())
    if instance is True:
        instance = _instance_of(log)
    if instance:
        (folder / "instance.json").write_text(json.dumps(instance))
    return log


def _assert_equals_recorded(s: sk.EpisodeScores, recorded: dict) -> None:
    rec_turns, rec_ep = recorded["turn scores"], recorded["episode scores"]
    assert list(s.turn_scores) == list(rec_turns)
    for t, ts in rec_turns.items():
        assert list(s.turn_scores[t]) == list(ts), t
        for k, v in ts.items():
            assert same(s.turn_scores[t][k], v), (t, k, s.turn_scores[t][k], v)
    assert list(s.episode_scores) == list(rec_ep)
    for k, v in rec_ep.items():
        assert same(s.episode_scores[k], v), (k, s.episode_scores[k], v)


RECORDED_SLOTS = {rel: (15 if "things-places" in rel else 5) for rel in RECORDED}


def _no_realised(log: dict) -> dict:
    del log["realised_slots"]
    return log


INSTANCE5 = {"slots": {s: f"v{i}" for i, s in enumerate(SLOTS5)}, "request_order": SLOTS5}


def _failed_round(n: int = 5) -> list[dict]:
    # probes 0 and 1 answered, probe 2 unparsable on all 3 tries; probes 3, 4 listed, never asked
    done = [{"target": f"S{i}", "question": "q", "gt": 0, "answer": "ANSWER: no", "value": 0, "tries": 1}
            for i in range(2)]
    bad = [{"target": "S2", "question": "q", "gt": 0, "answer": "maybe", "value": -1, "tries": 3}]
    return done + bad + [{"target": f"S{i}", "question": "q", "gt": 0} for i in range(3, n)]
