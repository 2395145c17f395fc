"""``hmceval scorekeeping``: clembench's recorded scores, JSON layout, NaN vs absent, errors."""

from __future__ import annotations

import io
import json
import math
import zipfile
from pathlib import Path

import pytest

from core.cli import main


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _log(n_rounds: int, *, aborted: bool) -> dict:
    """Hand-built 5-slot log, perfect answers, ``n_rounds`` scored rounds."""
    probes = [[{"target": f"S{i}", "question": "q", "gt": int(r > i), "answer": "a",
                "value": int(r > i), "tries": 1} for i in range(5)] for r in range(n_rounds)]
    return {"players": {"GM": "Game master for privateshared", "Player 1": "Answerer: m"},
            "probes": probes, "realised_slots": {f"s{i}": i for i in range(5)},
            "Request Count": [5] * 6, "Parsed Request Count": [5] * 6, "Violated Request Count": [0] * 6,
            "Filled Slots": [True] * max(0, n_rounds - 1), "Aborted": aborted,
            "Played Probe Rounds": n_rounds}


def test_json_equals_recorded_scores(shared_data: Path, capsys):
    root = shared_data / "clembench"
    code, out, err = _run(["scorekeeping", str(root), "--json"], capsys)
    assert code == 0, err
    assert "NaN" in out  # the aborted episode's quality scores, printed as clembench writes them
    rep = json.loads(out)
    assert list(rep)[:2] == ["episodes", "aggregate"]
    assert len(rep["episodes"]) == 5
    for ep in rep["episodes"]:
        recorded = json.loads((root / ep["episode"] / "scores.json").read_text())
        assert list(ep["turn_scores"]) == list(recorded["turn scores"])
        for t, ts in recorded["turn scores"].items():
            assert list(ep["turn_scores"][t]) == list(ts)
            assert all(_same(ep["turn_scores"][t][k], v) for k, v in ts.items()), (ep["episode"], t)
        assert list(ep["episode_scores"]) == list(recorded["episode scores"])
        for k, v in recorded["episode scores"].items():
            assert _same(ep["episode_scores"][k], v), (ep["episode"], k)
        assert ep["matches_recorded"] is True and ep["differences"] == []
    agg = rep["aggregate"]
    assert agg["episodes"] == 5 and agg["played"] == 4 and agg["% Played"] == 80.0
    assert agg["Quality Score"] == pytest.approx(
        (69.56521739130436 + 42.10526315789475 + 92.85714285714286 + 99.15966386554621) / 4, abs=1e-12)
    assert agg["clemscore"] == pytest.approx(0.8 * agg["Quality Score"], abs=1e-12)
    assert math.isnan(rep["aggregate_by_model"]["mistral-large-2411"]["Quality Score"])


def test_several_paths_and_zip(shared_data: Path, tmp_path: Path, capsys):
    root = shared_data / "clembench"
    ep = root / "Mistral-Small-24B-Instruct-2501/0_travel-booking/episode_0"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        src = root / "mistral-large-2411/0_travel-booking/episode_7"
        zf.writestr("x/episode_7/interactions.json", (src / "interactions.json").read_bytes())
    zp = tmp_path / "one.zip"
    zp.write_bytes(buf.getvalue())
    code, out, err = _run(["scorekeeping", str(ep), str(ep / "interactions.json"), str(zp), "--json"], capsys)
    assert code == 0, err
    rep = json.loads(out)
    assert [e["episode_scores"]["Main Score"] for e in rep["episodes"][:2]] == [92.85714285714286] * 2
    assert rep["episodes"][2]["matches_recorded"] is None  # no scores.json in the zip
    assert rep["episodes"][2]["episode_scores"]["Aborted"] == 1
    assert rep["aggregate"]["% Played"] == pytest.approx(200 / 3)


def test_middle_accuracy_absent_vs_nan(tmp_path: Path, capsys):
    a = tmp_path / "a" / "episode_0"
    b = tmp_path / "b" / "episode_0"
    for d, n in ((a, 2), (b, 3)):
        d.mkdir(parents=True)
        (d / "interactions.json").write_text(json.dumps(_log(n, aborted=True)))
    code, out, err = _run(["scorekeeping", str(tmp_path), "--json"], capsys)
    assert code == 0, err
    eps = {e["episode"]: e for e in json.loads(out)["episodes"]}
    assert "Middle-Accuracy" not in eps["a/episode_0"]["episode_scores"]
    assert math.isnan(eps["b/episode_0"]["episode_scores"]["Middle-Accuracy"])
    assert '"Middle-Accuracy": NaN' in out


def test_text_output(shared_data: Path, capsys):
    code, out, err = _run(["scorekeeping", str(shared_data / "clembench")], capsys)
    assert code == 0, err
    assert out.count("recorded scores.json: identical") == 5
    assert "Main Score=69.5652" in out
    assert "aggregate over 5 episode(s): % Played=80.0000" in out


def test_errors(tmp_path: Path, capsys):
    code, out, err = _run(["scorekeeping", str(tmp_path / "missing"), "--json"], capsys)
    assert code == 2 and "file not found" in err and out == ""
    bad = tmp_path / "e" / "interactions.json"
    bad.parent.mkdir()
    log = _log(6, aborted=False)
    log["probes"][1][2]["value"] = "yes"
    bad.write_text(json.dumps(log))
    code, out, err = _run(["scorekeeping", str(bad)], capsys)
    assert code == 2
    assert "interactions.json: field 'probes'[1][2]['value'] must be 0 or 1, got 'yes'" in err
    bad.write_text("{not json")
    code, out, err = _run(["scorekeeping", str(bad), "--json"], capsys)
    assert code == 2 and "not valid JSON" in err
    (tmp_path / "empty").mkdir()
    code, out, err = _run(["scorekeeping", str(tmp_path / "empty")], capsys)
    assert code == 2 and "no interactions.json found" in err


def test_n_slots_option(tmp_path: Path, capsys):
    p = tmp_path / "interactions.json"
    p.write_text(json.dumps(_log(6, aborted=False)))
    code, out, err = _run(["scorekeeping", str(p), "--n-slots", "4"], capsys)
    assert code == 2 and "has 4 slots" in err
    code, out, err = _run(["scorekeeping", str(p), "--n-slots", "5", "--json"], capsys)
    assert code == 0 and json.loads(out)["episodes"][0]["episode_scores"]["Main Score"] == 100.0


def _copy_without_realised(shared_data: Path, dest: Path, rel: str, *, instance: bool) -> None:
    src = shared_data / "clembench" / rel
    log = json.loads((src / "interactions.json").read_bytes())
    folder = dest / rel
    folder.mkdir(parents=True)
    if instance:  # the game instance: the slot values of the initial prompt, as clembench stores it
        lines = dict(x.split(": ", 1) for x in log["turns"][0][0]["action"]["content"].splitlines() if ": " in x)
        inst = {"slots": {s: lines[s.upper()] for s in log["realised_slots"]},
                "request_order": list(log["realised_slots"])}
        (folder / "instance.json").write_text(json.dumps(inst))
    del log["realised_slots"]
    (folder / "interactions.json").write_text(json.dumps(log))
    (folder / "scores.json").write_bytes((src / "scores.json").read_bytes())


_RELS = ["Mistral-Small-24B-Instruct-2501/1_job-interview/episode_1",
         "Llama-3.3-70B-Instruct/3_things-places/episode_4",
         "mistral-large-2411/0_travel-booking/episode_7"]


def test_logs_without_realised_slots(shared_data: Path, tmp_path: Path, capsys):
    """instance.json beside the log, or --n-slots, or the probes: clembench's scores.json exactly."""
    for rel in _RELS:
        _copy_without_realised(shared_data, tmp_path / "inst", rel, instance=True)
        _copy_without_realised(shared_data, tmp_path / "bare", rel, instance=False)
    code, out, err = _run(["scorekeeping", str(tmp_path / "inst"), "--json"], capsys)
    assert code == 0, err
    rep = json.loads(out)
    assert [(e["n_slots"], e["n_slots_from"]) for e in rep["episodes"]] == [
        (15, "instance.json"), (5, "instance.json"), (5, "instance.json")]
    assert all(e["matches_recorded"] is True for e in rep["episodes"])
    for ep in rep["episodes"]:  # key by key, NaN and int/float kept apart
        recorded = json.loads((shared_data / "clembench" / ep["episode"] / "scores.json").read_text())
        for k, v in recorded["episode scores"].items():
            assert _same(ep["episode_scores"][k], v), (ep["episode"], k)
    code, out, err = _run(["scorekeeping", str(tmp_path / "bare"), "--json"], capsys)
    assert code == 0, err
    assert [e["n_slots_from"] for e in json.loads(out)["episodes"]] == ["probes"] * 3
    assert all(e["matches_recorded"] is True for e in json.loads(out)["episodes"])
    one = tmp_path / "bare" / _RELS[0]
    code, out, err = _run(["scorekeeping", str(one), "--n-slots", "5"], capsys)
    assert code == 0, err
    assert "5 slots from n_slots" in out and "recorded scores.json: identical" in out


@pytest.mark.parametrize("value, message", [
    ("0", "--n-slots must be from 1 to 1,000, got 0"),
    ("1001", "--n-slots must be from 1 to 1,000, got 1001"),
    ("-2", "--n-slots must be from 1 to 1,000, got -2"),
])
def test_n_slots_out_of_bounds(shared_data: Path, value: str, message: str, capsys):
    code, out, err = _run(["scorekeeping", str(shared_data / "clembench"), "--n-slots", value], capsys)
    assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_n_slots_contradicting_instance_or_log(shared_data: Path, tmp_path: Path, capsys):
    _copy_without_realised(shared_data, tmp_path, _RELS[1], instance=True)
    code, out, err = _run(["scorekeeping", str(tmp_path), "--n-slots", "5"], capsys)
    assert code == 2 and "scored round with 15 probe(s) but the game has 5 slots (n_slots given)" in err
    code, out, err = _run(["scorekeeping", str(tmp_path), "--n-slots", "15", "--json"], capsys)
    assert code == 0 and json.loads(out)["episodes"][0]["n_slots_from"] == "n_slots"
    inst = tmp_path / _RELS[1] / "instance.json"
    inst.write_text(json.dumps({"game_id": 4}))
    code, out, err = _run(["scorekeeping", str(tmp_path)], capsys)
    assert code == 2 and "instance.json: missing field 'slots'" in err


def test_episode_aborted_in_round_zero_with_one_count_entry(tmp_path: Path, capsys):
    # clemcore's recorder logs one request count per round begun: an abort during the first
    # probing round leaves one entry; the game instance beside the log says 5 slots. clembench's
    # scorer: no turn score, quality scores NaN, Aborted 1, Request Success Ratio 2 / 5
    d = tmp_path / "run" / "0_travel" / "episode_0"
    d.mkdir(parents=True)
    log = _log(0, aborted=True)
    log["probes"] = [[{"target": f"S{i}", "question": "q", "gt": 0} for i in range(5)]]
    log.pop("realised_slots")
    log.update({"Request Count": [5], "Parsed Request Count": [2], "Violated Request Count": [3]})
    (d / "interactions.json").write_text(json.dumps(log))
    (d / "instance.json").write_text(json.dumps({"slots": {f"s{i}": "v" for i in range(5)}}))
    code, out, err = _run(["scorekeeping", str(tmp_path / "run"), "--json"], capsys)
    assert code == 0, err
    ep = json.loads(out)["episodes"][0]
    assert ep["turn_scores"] == {}
    es = ep["episode_scores"]
    assert es["Aborted"] == 1 and es["Request Count"] == 5 and es["Request Success Ratio"] == 0.4
    assert math.isnan(es["Main Score"]) and "Middle-Accuracy" not in es
