"""``hmceval tooltalk``: JSON layout, hand-computed metrics, folders/zips, errors, shared data."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from core.cli import main

TOKEN = "tok"
ALARM = {"request": {"api_name": "AddAlarm", "parameters": {"session_token": TOKEN, "time": "07:00:00"}},
         "response": {"alarm_id": "a1"}, "exception": None}
WEATHER = {"request": {"api_name": "CurrentWeather", "parameters": {"location": "Oslo"}},
           "response": {"weather": {"t": 3}}, "exception": None}
KEYS = ["conversation", "source", "predictions", "ground_truths", "matches", "actions", "valid_actions",
        "bad_actions", "precision", "recall", "action_precision", "bad_action_rate", "success", "soft_success"]


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _pred(api, **changes):
    p = json.loads(json.dumps(api))
    p.update(changes)
    p["role"] = "api"
    return p


def _conv(name, apis, preds):
    return {"name": name, "conversation": [
        {"role": "user", "text": "hi"},
        {"role": "assistant", "text": "ok", "apis": apis,
         "predictions": preds + [{"role": "assistant", "text": "ok"}]},
    ]}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    wrong_alarm = _pred(ALARM)
    wrong_alarm["request"]["parameters"]["time"] = "08:00:00"
    (tmp_path / "a.json").write_text(json.dumps(_conv("perfect", [ALARM, WEATHER], [_pred(ALARM), _pred(WEATHER)])))
    # wrong alarm (incorrect action) + a duplicate weather lookup: 3 predictions, 1 match
    (tmp_path / "b.json").write_text(json.dumps(
        _conv("mixed", [ALARM, WEATHER], [wrong_alarm, _pred(WEATHER), _pred(WEATHER)])))
    return tmp_path


def test_json_per_conversation_and_pooled_aggregate(folder, capsys):
    code, out, err = _run(["tooltalk", str(folder), "--json", "--similarity", "exact"], capsys)
    assert code == 0 and err == ""
    report = json.loads(out)
    assert list(report) == ["conversations", "aggregate"]
    a, b = report["conversations"]
    assert list(a) == KEYS
    assert (a["conversation"], a["source"]) == ("perfect", "a.json")
    assert [a[k] for k in KEYS[2:]] == [2, 2, 2, 1, 1, 0, 1.0, 1.0, 1.0, 0.0, True, 1.0]
    # b: predictions 3, ground truths 2, matches 1 (weather), actions 1 (alarm, bad)
    assert [b[k] for k in KEYS[2:]] == [3, 2, 1, 1, 0, 1, 1 / 3, 0.5, 0.0, 1.0, False, 0.0]
    agg = report["aggregate"]
    assert agg["num_conversations"] == 2
    assert (agg["predictions"], agg["ground_truths"], agg["matches"], agg["actions"], agg["bad_actions"]) \
        == (5, 4, 3, 2, 1)
    assert agg["precision"] == 3 / 5 and agg["recall"] == 3 / 4
    assert agg["action_precision"] == 0.5 and agg["bad_action_rate"] == 0.5
    assert agg["success_rate"] == 0.5 and agg["soft_success_rate"] == 0.5


def test_files_and_zip_archives_as_paths(folder, tmp_path, capsys):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("runs/b.json", (folder / "b.json").read_bytes())
    archive = tmp_path / "runs.zip"
    archive.write_bytes(buf.getvalue())
    code, out, _ = _run(["tooltalk", str(folder / "a.json"), str(archive), "--json", "--similarity", "exact"],
                        capsys)
    assert code == 0
    rows = json.loads(out)["conversations"]
    assert [r["source"] for r in rows] == ["a.json", "runs.zip:runs/b.json"]


def test_text_output(folder, capsys):
    code, out, _ = _run(["tooltalk", str(folder), "--similarity", "exact"], capsys)
    assert code == 0
    assert "perfect" in out and "mixed" in out and "success_rate: 0.5000" in out


def test_malformed_json_exits_2_naming_the_file(tmp_path, capsys):
    (tmp_path / "broken.json").write_text('{"conversation": [}')
    code, out, err = _run(["tooltalk", str(tmp_path / "broken.json"), "--json"], capsys)
    assert code == 2 and out == ""
    assert "hmceval tooltalk: error: broken.json: malformed JSON at line 1, column 19" in err


def test_missing_field_and_missing_path(tmp_path, capsys):
    (tmp_path / "x.json").write_text(json.dumps({"conversation": [{"role": "assistant", "apis": [{"request": {}}]}]}))
    code, _, err = _run(["tooltalk", str(tmp_path / "x.json")], capsys)
    assert code == 2 and "x.json: conversation[0].apis[0]: field 'response' is missing" in err
    code, _, err = _run(["tooltalk", str(tmp_path / "nope.json")], capsys)
    assert code == 2 and "file not found" in err


def test_bare_ground_truth_warns_and_scores_zero(shared_data, capsys):
    code, out, err = _run(["tooltalk", str(shared_data / "tooltalk" / "easy"), "--json", "--similarity", "exact"],
                          capsys)
    assert code == 0 and "28 conversation(s) carry no 'predictions'" in err
    agg = json.loads(out)["aggregate"]
    assert (agg["predictions"], agg["ground_truths"], agg["precision"], agg["recall"]) == (0, 28, 0.0, 0.0)


def test_ground_truth_as_predictions_on_the_shared_data(shared_data, capsys):
    root = shared_data / "tooltalk"
    code, out, err = _run(["tooltalk", str(root / "easy"), str(root / "tooltalk"), "--ground-truth-as-predictions",
                           "--json", "--similarity", "exact"], capsys)
    assert code == 0 and err == ""
    report = json.loads(out)
    assert len(report["conversations"]) == 78
    assert all(r["precision"] == r["recall"] == 1.0 and r["success"] is True for r in report["conversations"])
    agg = report["aggregate"]
    assert agg["ground_truths"] == agg["matches"] == 28 + 238 and agg["success_rate"] == 1.0


def test_strict_receiver_option(tmp_path, capsys):
    msg = {"request": {"api_name": "SendMessage", "parameters": {"session_token": TOKEN, "receiver": "bob",
                                                                  "message": "hi"}},
           "response": {"message_id": "m"}, "exception": None}
    other = _pred(msg)
    other["request"]["parameters"]["receiver"] = "eve"
    (tmp_path / "m.json").write_text(json.dumps(_conv("m", [msg], [other])))
    _, out, _ = _run(["tooltalk", str(tmp_path), "--json", "--similarity", "exact"], capsys)
    assert json.loads(out)["conversations"][0]["matches"] == 1  # ToolTalk does not check the receiver
    _, out, _ = _run(["tooltalk", str(tmp_path), "--json", "--similarity", "exact", "--strict-receiver"], capsys)
    assert json.loads(out)["conversations"][0]["bad_actions"] == 1


def test_default_minilm_similarity_on_the_built_in_demo(tmp_path, capsys):
    from core.demo.tooltalk import demo_conversations

    for conv in demo_conversations():
        (tmp_path / f"{conv['name']}.json").write_text(json.dumps(conv))
    code, out, err = _run(["tooltalk", str(tmp_path), "--json"], capsys)
    assert code == 0 and err == ""  # no progress bar or warning on stderr
    agg = json.loads(out)["aggregate"]
    # designed perturbations (tests/core DEMO_EXPECTED) with the reworded message matching under
    # MiniLM (0.96 >= 0.8) and the lengthened event name not (0.82 < 0.9)
    assert (agg["predictions"], agg["ground_truths"], agg["matches"]) == (24, 23, 16)
    assert (agg["actions"], agg["valid_actions"], agg["bad_actions"], agg["successes"]) == (13, 8, 4, 5)
    # mean soft success: (1 + .5 + .5 + 0 + 1 + .5 + 1 + .25 + 1 + 0 + 1 + 0) / 12
    assert agg["soft_success_rate"] == 6.75 / 12
