"""core.clembench.io, split from tests/core/test_clembench.py (tests named after the module they test)."""

from __future__ import annotations

import json
import math
from pathlib import Path
import numpy as np
import pytest
import core.clembench as sk
from core.errors import DataError
from tests.core.clembench_support import (
    _assert_equals_recorded,
    _failed_round,
    _instance_of,
    _mut,
    _no_realised,
    _stripped_copy,
    _tiny_run,
    _zip,
    gold_round,
    INSTANCE5,
    make_log,
    perfect,
    RECORDED,
    RECORDED_SLOTS,
    same,
)


# ---------------------------------------------------------------------------------------------
# a hand-built log, written the way clembench's game master logs it
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# recorded clembench episodes: every key equal to scores.json
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# loaders
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# the number of slots without 'realised_slots': instance.json, n_slots, or inferred from probes
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# aborted episodes whose request count lists hold one entry per round begun (clemcore's
# recorder), not n_slots + 1: clembench's PrivateSharedScorer reads entry t for the played
# rounds t only and sums the lists, so it scores them; expected values worked from its code
# (privateshared/master.py, PrivateSharedScorer.compute_scores / _compute_episode_scores)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", RECORDED)
def test_recorded_episode_reproduced_exactly(shared_data: Path, rel: str):
    folder = shared_data / "clembench" / rel
    recorded = json.loads((folder / "scores.json").read_text())
    log = sk.parse_interactions((folder / "interactions.json").read_bytes(), source=rel)
    s = sk.score_episode(sk.parse_episode(log, source=rel))
    _assert_equals_recorded(s, recorded)


def test_n_slots_override():
    log = make_log(perfect())
    with pytest.raises(DataError, match="5 probe"):
        sk.parse_episode(log, n_slots=4)
    assert sk.parse_episode(log, n_slots=5).n_slots == 5


# ---------------------------------------------------------------------------------------------
# malformed input: DataError naming the file and the field
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("data, match", [
    (b"", "file is empty"),
    (b"   \n", "file is empty"),
    (b"{\"probes\": [", "not valid JSON \\(line 1"),
    (b"[1, 2]", "top level must be a JSON object, got list"),
    (b"\xff\xfe\x00", "not UTF-8"),
])
def test_parse_interactions_rejects(data, match):
    with pytest.raises(DataError, match=match) as err:
        sk.parse_interactions(data, source="ep/interactions.json")
    assert str(err.value).startswith("ep/interactions.json: ")


def test_parse_interactions_too_large(monkeypatch):
    monkeypatch.setattr(sk.io, "MAX_FILE_BYTES", 10)
    with pytest.raises(DataError, match="too large"):
        sk.parse_interactions(b"{" + b" " * 20 + b"}", source="big.json")


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.pop("probes"), "missing field 'probes'"),
    (lambda d: d.update(probes={}), "'probes' must be a list"),
    (lambda d: d.update({"Played Probe Rounds": 7}), "'Played Probe Rounds' is 7 but 'probes' holds only 6"),
    (lambda d: d.update({"Played Probe Rounds": -1}), "'Played Probe Rounds' must be >= 0"),
    (lambda d: d.update({"Played Probe Rounds": "6"}), "'Played Probe Rounds' must be an integer"),
    (lambda d: d.update({"Played Probe Rounds": 0}), "not aborted but 'Played Probe Rounds' is 0"),
    (lambda d: d.update(Aborted="no"), "'Aborted' must be true/false"),
    (lambda d: d["probes"][2][3].update(value="yes"), "'probes'\\[2\\]\\[3\\]\\['value'\\] must be 0 or 1, got 'yes'"),
    (lambda d: d["probes"][1][0].update(gt=2), "'probes'\\[1\\]\\[0\\]\\['gt'\\] must be 0 or 1"),
    (lambda d: d["probes"][4][1].pop("value"), "'probes'\\[4\\]\\[1\\] has no 'value'"),
    (lambda d: d["probes"][3].pop(), "'probes'\\[3\\] is a scored round with 4 probe"),
    (lambda d: d["probes"].__setitem__(2, "x"), "'probes'\\[2\\] must be a list"),
    (lambda d: d["probes"][0].__setitem__(0, 5), "'probes'\\[0\\]\\[0\\] must be an object"),
    (lambda d: d.update({"Filled Slots": [True, True]}), "'Filled Slots' has 2 entries but 6 probing rounds"),
    (lambda d: d.update({"Filled Slots": [True, "x", True, True, True]}), "'Filled Slots'\\[1\\]"),
    (lambda d: d.update({"Filled Slots": 5}), "'Filled Slots' must be a list"),
    (lambda d: d.update({"Request Count": [1, 2]}), "'Request Count' has 2 entries but 6"),
    (lambda d: d["Parsed Request Count"].__setitem__(3, -2), "'Parsed Request Count'\\[3\\] must be >= 0"),
    (lambda d: d["Violated Request Count"].__setitem__(0, 1.5), "'Violated Request Count'\\[0\\] must be an integer"),
    (lambda d: d.update({"Request Count": [0] * 6}), "'Request Count' sums to 0"),
    (lambda d: d.update(realised_slots={}), "'realised_slots' is empty"),
    (lambda d: d.update(realised_slots=[1]), "'realised_slots' must be an object"),
])
def test_parse_episode_rejects(mutate, match):
    with pytest.raises(DataError, match=match) as err:
        sk.parse_episode(_mut(mutate), source="m/e/interactions.json")
    assert str(err.value).startswith("m/e/interactions.json: ")


def test_other_game_is_named():
    log = {"players": {"GM": "Game master for taboo"}, "turns": []}
    with pytest.raises(DataError, match="game 'taboo', not privateshared"):
        sk.parse_episode(log, source="x.json")


def test_empty_filled_slots_not_aborted():
    log = make_log([[0] * 5], filled=[])
    with pytest.raises(DataError, match="'Filled Slots' is empty"):
        sk.parse_episode(log)


def test_load_paths_variants(shared_data: Path, tmp_path: Path):
    root = shared_data / "clembench"
    ep = root / RECORDED[0]
    one = sk.load_paths([ep])
    assert [e.name for e in one.episodes] == [RECORDED[0]]
    assert one.episodes[0].recorded is not None
    assert one.episodes[0].experiment == "1_job-interview"
    assert one.episodes[0].model == "Mistral-Small-24B-Instruct-2501"
    f = sk.load_paths([ep / "interactions.json"])
    assert f.episodes[0].name == RECORDED[0] and f.episodes[0].recorded is not None
    # a zip built in tmp from the shared files (plus an unrelated file, listed as ignored)
    entries = {f"runs/{rel}/{name}": (root / rel / name).read_bytes()
               for rel in RECORDED for name in ("interactions.json", "scores.json")}
    entries["runs/README.txt"] = b"hello"
    zp = tmp_path / "runs.zip"
    zp.write_bytes(_zip(entries))
    z = sk.load_paths([zp])
    assert len(z.episodes) == 5 and any(i.endswith("README.txt") for i in z.ignored)
    assert sorted(e.name for e in z.episodes) == sorted(RECORDED)  # not runs/runs/...
    for s in sk.score_episodes(z.episodes):
        assert s.episode.recorded is not None and sk.compare_scores(s, s.episode.recorded) == []
    # mixed paths
    mixed = sk.load_paths([ep, zp])
    assert len(mixed.episodes) == 6 and len({e.name for e in mixed.episodes}) == 6


@pytest.mark.parametrize("prefix", ["runs/", ""])
def test_zip_episode_names_are_relative_to_the_run_root(tmp_path: Path, prefix: str):
    """QA: a zip of runs/<game>/<experiment>/<episode>/ named its episodes runs/runs/...; the
    name is the episode's folder below the run root, alike with or without the runs/ folder."""
    zp = tmp_path / "runs.zip"
    zp.write_bytes(_zip(_tiny_run(prefix)))
    expected = ["privateshared/0_travel-booking/episode_0", "privateshared/1_job-interview/episode_3"]
    for loaded in (sk.load_paths([zp]), sk.load_uploads([("runs.zip", zp.read_bytes())])):
        assert [e.name for e in loaded.episodes] == expected
        assert [e.experiment for e in loaded.episodes] == ["0_travel-booking", "1_job-interview"]
        assert loaded.episodes[0].recorded is not None and loaded.episodes[1].recorded is None
    # in a zip of another name, runs/ is a folder below the run root (the zip's root)
    other = tmp_path / "other.zip"
    other.write_bytes(zp.read_bytes())
    assert [e.name for e in sk.load_paths([other]).episodes] == [prefix + n for n in expected]
    # several inputs: the zip's stem once in front, as a folder's name
    both = sk.load_paths([zp, other])
    assert [e.name for e in both.episodes] == [
        "runs/privateshared/0_travel-booking/episode_0", "runs/privateshared/1_job-interview/episode_3",
        f"other/{prefix}privateshared/0_travel-booking/episode_0",
        f"other/{prefix}privateshared/1_job-interview/episode_3"]
    up = sk.load_uploads([("runs.zip", zp.read_bytes()), ("more.zip", zp.read_bytes())])
    assert [e.name for e in up.episodes][::2] == ["runs/privateshared/0_travel-booking/episode_0",
                                                  f"more/{prefix}privateshared/0_travel-booking/episode_0"]


def test_folder_episode_names_are_relative_to_the_run_root(tmp_path: Path):
    """The unpacked run names its episodes as its zip does."""
    for name, data in _tiny_run("runs/").items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    assert [e.name for e in sk.load_paths([tmp_path / "runs"]).episodes] == [
        "privateshared/0_travel-booking/episode_0", "privateshared/1_job-interview/episode_3"]
    assert [e.name for e in sk.load_paths([tmp_path / "runs" / "privateshared"]).episodes] == [
        "0_travel-booking/episode_0", "1_job-interview/episode_3"]


def test_zip_names_of_shallow_layouts(tmp_path: Path):
    """A log at the zip's root is named by the zip; the top folder named as the zip is dropped
    only when every log sits below it (else the zip's root is the run root)."""
    log = json.dumps(make_log(perfect())).encode()
    cases = [({"interactions.json": log}, ["ep7"]),
             ({"episode_7/interactions.json": log}, ["episode_7"]),
             ({"ep7/interactions.json": log}, ["ep7"]),
             ({"ep7/episode_0/interactions.json": log, "ep7/x/episode_1/interactions.json": log},
              ["episode_0", "x/episode_1"]),
             ({"ep7/episode_0/interactions.json": log, "b/episode_0/interactions.json": log},
              ["b/episode_0", "ep7/episode_0"])]
    for entries, expected in cases:
        zp = tmp_path / "ep7.zip"
        zp.write_bytes(_zip(entries))
        assert [e.name for e in sk.load_paths([zp]).episodes] == expected, entries


def test_load_paths_errors(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        sk.load_paths([tmp_path / "nope"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no interactions.json found"):
        sk.load_paths([tmp_path / "empty"])
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(DataError, match="not a valid zip"):
        sk.load_paths([bad])
    nolog = tmp_path / "nolog.zip"
    nolog.write_bytes(_zip({"a/scores.json": b"{}"}))
    with pytest.raises(DataError, match="holds no interactions.json"):
        sk.load_paths([nolog])
    d = tmp_path / "m" / "exp" / "episode_0"
    d.mkdir(parents=True)
    (d / "interactions.json").write_text(json.dumps(make_log(perfect())))
    (d / "scores.json").write_text("{\"turn scores\": {}}")
    with pytest.raises(DataError, match="scores.json: missing field 'episode scores'"):
        sk.load_paths([tmp_path / "m"])
    with pytest.raises(DataError, match="no path"):
        sk.load_paths([])


def test_load_zip_member_too_large(monkeypatch, tmp_path: Path):
    zp = tmp_path / "z.zip"
    zp.write_bytes(_zip({"e/interactions.json": json.dumps(make_log(perfect())).encode()}))
    monkeypatch.setattr(sk.io, "MAX_FILE_BYTES", 100)
    with pytest.raises(DataError, match="e/interactions.json: file is too large"):
        sk.load_paths([zp])


def test_zip_limits_are_the_archive_readers(monkeypatch, tmp_path: Path):
    """Zips are read by core.archive: its limits, counted from decompressed bytes, apply."""
    import core.archive

    log = json.dumps(make_log(perfect())).encode()
    data = _zip({"e/interactions.json": log, "f/interactions.json": log, "notes.txt": b"x" * 5000})
    zp = tmp_path / "z.zip"
    zp.write_bytes(data)
    monkeypatch.setattr(core.archive, "MAX_MEMBER_BYTES", len(log) - 1)
    with pytest.raises(DataError, match=rf"^{zp}:e/interactions.json: the member is more than"):
        sk.load_paths([zp])
    with pytest.raises(DataError, match=r"^up.zip:e/interactions.json: the member is more than"):
        sk.load_uploads([("up.zip", data)])
    monkeypatch.setattr(core.archive, "MAX_MEMBER_BYTES", len(log))
    monkeypatch.setattr(core.archive, "MAX_TOTAL_BYTES", 2 * len(log) - 1)  # the skipped .txt is not read
    with pytest.raises(DataError, match=r"^up.zip: the members read from the zip archive exceed"):
        sk.load_uploads([("up.zip", data)])
    monkeypatch.setattr(core.archive, "MAX_TOTAL_BYTES", 2 * len(log))
    loaded = sk.load_uploads([("up.zip", data)])
    assert len(loaded.episodes) == 2 and loaded.ignored == ["up.zip:notes.txt"]
    # the names clembench exported are aliases of the one set
    assert (sk.MAX_FILE_BYTES, sk.MAX_ZIP_BYTES, sk.MAX_ZIP_READ_BYTES, sk.MAX_ZIP_MEMBERS) == (
        64 * 2**20, 256 * 2**20, 512 * 2**20, 20_000)


def test_load_uploads(shared_data: Path):
    root = shared_data / "clembench"
    log = (root / RECORDED[1] / "interactions.json").read_bytes()
    rec = (root / RECORDED[1] / "scores.json").read_bytes()
    # a flat upload of one log and its scores.json: paired
    up = sk.load_uploads([("interactions.json", log), ("scores.json", rec),
                          ("experiment_job-interview.json", b"{}")])
    assert len(up.episodes) == 1 and up.episodes[0].recorded is not None
    assert up.ignored == ["experiment_job-interview.json"]
    assert sk.compare_scores(sk.score_episode(up.episodes[0]), up.episodes[0].recorded) == []
    # two logs with the same name, a renamed log, and a zip
    z = _zip({f"{RECORDED[4]}/interactions.json": (root / RECORDED[4] / "interactions.json").read_bytes()})
    up = sk.load_uploads([("interactions.json", log), ("interactions.json", log), ("ep.json", log),
                          ("more.zip", z)])
    assert len(up.episodes) == 4
    assert len({e.name for e in up.episodes}) == 4
    with pytest.raises(DataError, match="no episode log"):
        sk.load_uploads([("scores.json", rec)])
    with pytest.raises(DataError, match="^bad.json: not valid JSON"):
        sk.load_uploads([("bad.json", b"{oops")])


@pytest.mark.parametrize("rel", RECORDED)
def test_recorded_without_realised_slots_reads_instance_json(shared_data: Path, tmp_path: Path, rel: str):
    """clembench's scorer reads len(instance['slots']); the recorded scores.json is reproduced."""
    _stripped_copy(shared_data, tmp_path, rel)
    recorded = json.loads((shared_data / "clembench" / rel / "scores.json").read_text())
    for loaded in (sk.load_paths([tmp_path / rel]), sk.load_paths([tmp_path / rel / "interactions.json"])):
        (ep,) = loaded.episodes
        assert (ep.n_slots, ep.slots_from) == (RECORDED_SLOTS[rel], "instance.json")
        _assert_equals_recorded(sk.score_episode(ep), recorded)
        assert loaded.ignored == []


def test_recorded_without_realised_slots_in_zip_and_upload(shared_data: Path, tmp_path: Path):
    for rel in RECORDED:
        _stripped_copy(shared_data, tmp_path / "runs", rel)
    entries = {str(p.relative_to(tmp_path)).replace("\\", "/"): p.read_bytes()
               for p in sorted((tmp_path / "runs").rglob("*.json"))}
    assert sum(name.endswith("/instance.json") for name in entries) == 5
    zp = tmp_path / "runs.zip"
    zp.write_bytes(_zip(entries))
    for loaded in (sk.load_paths([zp]), sk.load_uploads([("runs.zip", zp.read_bytes())]),
                   sk.load_uploads(list(entries.items())), sk.load_paths([tmp_path / "runs"])):
        assert len(loaded.episodes) == 5 and loaded.ignored == []
        assert {e.slots_from for e in loaded.episodes} == {"instance.json"}
        for s in sk.score_episodes(loaded.episodes):
            assert s.episode.recorded is not None
            _assert_equals_recorded(s, s.episode.recorded)
    # a flat upload of one log, its scores.json and its instance.json: paired
    rel = RECORDED[3]
    flat = [(n, (tmp_path / "runs" / rel / n).read_bytes())
            for n in ("interactions.json", "scores.json", "instance.json")]
    (ep,) = sk.load_uploads(flat).episodes
    assert (ep.n_slots, ep.slots_from) == (15, "instance.json")
    _assert_equals_recorded(sk.score_episode(ep), ep.recorded)


@pytest.mark.parametrize("rel", RECORDED)
def test_recorded_without_realised_slots_given_n_slots(shared_data: Path, tmp_path: Path, rel: str):
    _stripped_copy(shared_data, tmp_path, rel, instance=False)
    (ep,) = sk.load_paths([tmp_path / rel], n_slots=RECORDED_SLOTS[rel]).episodes
    assert ep.slots_from == "n_slots"
    _assert_equals_recorded(sk.score_episode(ep), ep.recorded)
    with pytest.raises(DataError, match="but the game has 4 slots \\(n_slots given\\)"):
        sk.load_paths([tmp_path / rel], n_slots=4)


@pytest.mark.parametrize("rel", RECORDED)
def test_recorded_without_realised_slots_inferred_from_probes(shared_data: Path, tmp_path: Path, rel: str):
    _stripped_copy(shared_data, tmp_path, rel, instance=False)
    (ep,) = sk.load_paths([tmp_path / rel]).episodes
    assert (ep.n_slots, ep.slots_from) == (RECORDED_SLOTS[rel], "probes")
    _assert_equals_recorded(sk.score_episode(ep), ep.recorded)


def test_instance_contradicting_the_log(shared_data: Path, tmp_path: Path):
    rel = RECORDED[0]
    log = _stripped_copy(shared_data, tmp_path / "a", rel)
    inst = _instance_of(log)
    inst["slots"].pop("bachelor")
    (tmp_path / "a" / rel / "instance.json").write_text(json.dumps(inst))
    with pytest.raises(DataError, match=r"'probes'\[0\] is a scored round with 5 probe\(s\) but the game "
                                        r"has 4 slots \(len of 'slots' in .*instance.json\)"):
        sk.load_paths([tmp_path / "a" / rel])
    # the instance beside a log that keeps 'realised_slots': both must agree
    parsed = json.loads((shared_data / "clembench" / rel / "interactions.json").read_bytes())
    with pytest.raises(DataError, match=r"game has 4 slots \(len of 'slots' in inst.json\)"):
        sk.parse_episode(parsed, instance=inst, instance_source="inst.json")
    ok = sk.parse_episode(parsed, instance=_instance_of(log))
    assert (ok.n_slots, ok.slots_from) == (5, "instance.json")
    # an explicit n_slots against the instance: the given value is taken, the instance must agree
    big = _instance_of(log)
    big["slots"]["extra"] = "x"
    with pytest.raises(DataError, match=r"the game has 5 slots \(n_slots given\) but len of 'slots' in "
                                        r"instance.json is 6"):
        sk.parse_episode({k: v for k, v in parsed.items() if k != "realised_slots"}, n_slots=5, instance=big)


def test_instance_or_instances_file_taken_for_a_log_is_named():
    inst = {"game_id": 0, "slots": {"from": "Paris"}, "request_order": ["from"], "probes": {}}
    with pytest.raises(DataError, match=r"^ep.json: missing fields .* \(this is a game instance, not an "
                                        r"episode log; name it instance.json"):
        sk.load_uploads([("ep.json", json.dumps(inst).encode()), ("other.json", b"{}")])
    with pytest.raises(DataError, match=r"this is a clembench instances file, not an episode log"):
        sk.parse_episode({"experiments": [{"name": "x", "game_instances": [inst]}]}, source="instances.json")


def test_instance_json_not_json(shared_data: Path, tmp_path: Path):
    rel = RECORDED[2]
    _stripped_copy(shared_data, tmp_path, rel, instance=False)
    (tmp_path / rel / "instance.json").write_text("{oops")
    with pytest.raises(DataError, match=r"instance.json: not valid JSON"):
        sk.load_paths([tmp_path / rel])
    with pytest.raises(DataError, match="game instance read beside an episode log"):
        sk.load_paths([tmp_path / rel / "instance.json"])


@pytest.mark.parametrize("bad, match", [
    (0, "n_slots must be from 1 to 1,000, got 0"),
    (-3, "n_slots must be from 1 to 1,000, got -3"),
    (1001, "n_slots must be from 1 to 1,000, got 1001"),
    (True, "n_slots must be an integer from 1 to 1,000, got True"),
    (5.0, "n_slots must be an integer"),
    ("5", "n_slots must be an integer"),
])
def test_n_slots_bounds(bad, match, tmp_path: Path):
    with pytest.raises(DataError, match=match):
        sk.parse_episode(make_log(perfect()), n_slots=bad)
    with pytest.raises(DataError, match=match):
        sk.load_paths([tmp_path], n_slots=bad)
    with pytest.raises(DataError, match=match):
        sk.load_uploads([("interactions.json", b"{}")], n_slots=bad)
    assert sk.check_n_slots(np.int64(15)) == 15 and sk.check_n_slots(1000) == 1000


def test_n_slots_contradicting_a_log_with_no_scored_round():
    # aborted in the very first probing round: no scored round; the 6 request counts show 5 slots
    failed = [{"target": "S0", "question": "q", "gt": 0, "answer": "maybe", "value": -1, "tries": 6}]
    failed += [{"target": f"S{i}", "question": "q", "gt": 0} for i in range(1, 5)]
    log = make_log([], played=0, aborted=True, filled=[], extra_round=failed,
                   counts=([6, 0, 0, 0, 0, 0], [0] * 6, [6, 0, 0, 0, 0, 0]))
    del log["realised_slots"]
    assert sk.parse_episode(log).n_slots == 5  # inferred from the logged round and the counts
    with pytest.raises(DataError, match=r"'Request Count' has 6 entries but the game has 4 slots "
                                        r"\(n_slots given\): clembench logs one per probing round, "
                                        r"n_slots \+ 1 = 5"):
        sk.parse_episode(log, n_slots=4)
    log["Filled Slots"] = [True] * 6
    with pytest.raises(DataError, match="'Filled Slots' has 6 entries but the game has 5 slots"):
        sk.parse_episode(log, n_slots=5)


@pytest.mark.parametrize("log, match", [
    (_no_realised(make_log([], played=0, aborted=True, filled=[])), "'probes' holds no probing round"),
    (_no_realised(_mut(lambda d: d["probes"][3].pop())), "rounds hold different numbers of probes \\(5, 5, 5, 4, 5, 5\\)"),
    (_no_realised(_mut(lambda d: d.update({"Request Count": [1] * 7}))),
     "rounds hold 5 probes but field 'Request Count' has 7 entries"),
    (_no_realised(make_log(perfect()[:4])), "not aborted and 'Played Probe Rounds' is 4 \\(a complete episode "
                                             "plays n_slots \\+ 1 = 6\\)"),
])
def test_n_slots_cannot_be_inferred(log, match):
    with pytest.raises(DataError, match=match) as err:
        sk.parse_episode(log, source="x/interactions.json")
    msg = str(err.value)
    assert msg.startswith("x/interactions.json: ")
    assert "give the number of slots (n_slots, --n-slots) or put the game's instance.json beside the log" in msg


def test_inferred_n_slots_hand_log():
    """A hand-built 15-slot log without realised_slots: Middle-Accuracy is round 7's."""
    preds = perfect(15)
    preds[7] = [1 - g for g in gold_round(7, 15)]
    ep = sk.parse_episode(_no_realised(make_log(preds, n=15)))
    assert (ep.n_slots, ep.slots_from) == (15, "probes")
    assert sk.score_episode(ep).episode_scores["Middle-Accuracy"] == 0.0


def test_aborted_in_round_zero_with_one_count_entry():
    log = make_log([], played=0, aborted=True, filled=[], extra_round=_failed_round(),
                   counts=([5], [2], [3]))
    del log["realised_slots"]
    ep = sk.parse_episode(log, instance=INSTANCE5)
    assert (ep.n_slots, ep.slots_from) == (5, "instance.json")
    s = sk.score_episode(ep)
    # no played round: no turn score, no Middle-Accuracy (the loop never reaches round 2)
    assert s.turn_scores == {}
    es = s.episode_scores
    assert list(es) == list(sk.EPISODE_KEYS[1:])
    for k in ("Accuracy", "Kappa", "Truncated Kappa", "Slot-Filling-Accuracy", "Main Score"):
        assert math.isnan(es[k]), k
    # aborted: Success 0 and Lose 0; counts summed: 5 requests, 2 parsed, 3 violated -> 2/5
    assert (es["Aborted"], es["Lose"], es["Success"]) == (1, 0, 0)
    assert (es["Request Count"], es["Parsed Request Count"], es["Violated Request Count"]) == (5, 2, 3)
    assert same(es["Request Success Ratio"], 0.4)
    # the same without instance.json: 5 probes in the logged round, lists of 1 <= 6 entries
    assert sk.parse_episode(log).n_slots == 5


@pytest.mark.parametrize("counts, aborted, match", [
    # more entries than the n_slots + 1 planned rounds, aborted or not
    (([1] * 7, [1] * 7, [0] * 7), True, "'Request Count' has 7 entries but the game has 5 slots"),
    # a complete episode logs every one of the n_slots + 1 rounds
    (([5, 6, 6, 6, 6], [5, 6, 6, 6, 6], [0] * 5), False, "'Request Count' has 5 entries but 6 probing"),
    # fewer entries than played rounds: the scorer would read past the list
    (([5, 6], [5, 6], [0, 0]), True, "'Request Count' has 2 entries but 4 probing rounds are scored"),
])
def test_count_lists_must_cover_the_played_rounds_and_no_more(counts, aborted, match):
    preds = perfect() if not aborted else perfect()[:4]
    log = make_log(preds, aborted=aborted, filled=[True] * (len(preds) - 1), counts=counts)
    if not aborted:
        log["Played Probe Rounds"] = 6
    with pytest.raises(DataError, match=match):
        sk.parse_episode(log)
