"""core.tooltalk.io, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import io
import zipfile
import pytest
from core import tooltalk as tt
from core.errors import DataError
from tests.core.tooltalk_support import (
    _bytes,
    ALARM_7,
    as_pred,
    conversation,
    EMAIL,
    TableSimilarity,
)


def test_malformed_json_names_the_file_line_and_column():
    with pytest.raises(DataError, match=r"conv\.json: malformed JSON at line 2, column"):
        tt.load_conversation_bytes(b'{"conversation": [\n  {"role": }]}', source="conv.json")


@pytest.mark.parametrize("data,message", [
    (b"", "the file is empty"),
    (b"  \n ", "the file is empty"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"name": "x"}', "field 'conversation' is missing"),
    (b'{"conversation": {}}', "'conversation' must be a list"),
    (b'{"conversation": [3]}', r"conversation\[0\]: expected an object"),
    (b'{"conversation": [{"role": "system"}]}', r"conversation\[0\]\.role: expected 'user' or 'assistant'"),
    (b'{"conversation": [{"role": "assistant", "apis": {}}]}', r"conversation\[0\]\.apis: expected a list"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"response": null, "exception": null}]}]}',
     r"conversation\[0\]\.apis\[0\]: field 'request' is missing"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": 5, "parameters": {}},'
     b' "response": null, "exception": null}]}]}', r"apis\[0\]\.request\.api_name: expected a non-empty string"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "AddAlarm", "parameters": null},'
     b' "response": null, "exception": null}]}]}', r"apis\[0\]\.request\.parameters: expected an object, got null"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "AddAlarm", "parameters": {}},'
     b' "response": null}]}]}', r"apis\[0\]: field 'exception' is missing"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "AddAlarm", "parameters": {}},'
     b' "response": null, "exception": 3}]}]}', r"apis\[0\]\.exception: expected a string or null"),
    (b'{"conversation": [{"role": "assistant", "predictions": [{"role": "tool"}]}]}',
     r"predictions\[0\]\.role: expected 'api' or 'assistant'"),
    (b'{"conversation": [{"role": "assistant", "predictions": [{"role": "api", "request": {"api_name": "X",'
     b' "parameters": {}}, "exception": null}]}]}', r"predictions\[0\]: field 'response' is missing"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "FindAlarms", "parameters": {}},'
     b' "response": {"alarms": [{"time": "07:00:00"}]}, "exception": null}]}]}',
     r"response\.alarms\[0\]: expected an object with 'alarm_id'"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "SendEmail", "parameters":'
     b' {"to": "a@x.org", "subject": "s", "body": "b"}}, "response": null, "exception": null}]}]}',
     r"parameters\.to: expected a list of e-mail addresses"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "AddReminder", "parameters":'
     b' {"task": "t", "due_date": "tomorrow"}}, "response": null, "exception": null}]}]}',
     r"parameters\.due_date: expected a '%Y-%m-%d %H:%M:%S' timestamp"),
    (b'{"conversation": [{"role": "assistant", "apis": [{"request": {"api_name": "SendMessage", "parameters":'
     b' {"receiver": "b", "message": 5}}, "response": null, "exception": null}]}]}',
     r"parameters\.message: expected a string"),
])
def test_bad_conversations_raise_data_error_naming_file_and_field(data, message):
    with pytest.raises(DataError, match=message) as info:
        tt.load_conversation_bytes(data, source="bad.json")
    assert str(info.value).startswith("bad.json")


def test_prediction_parameters_may_be_null_but_ground_truth_not():
    obj = conversation(([ALARM_7], [{"request": {"api_name": "AddAlarm", "parameters": None}, "response": None,
                                     "exception": "Failed to parse API call", "role": "api"}]))
    conv = tt.parse_conversation(obj, source="x.json")
    assert conv.predictions[0].parameters is None and conv.predictions[0].field == "conversation[1].predictions[0]"


def test_huge_file_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(tt.io, "MAX_FILE_BYTES", 100)
    with pytest.raises(DataError, match="above the limit"):
        tt.load_conversation_bytes(b" " * 101, source="big.json")
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 101)
    with pytest.raises(DataError, match="big.json: the file is"):
        tt.load_conversation_file(path)


def test_name_defaults_to_the_file_stem_and_bare_ground_truth_has_no_predictions():
    conv = tt.load_conversation_bytes(_bytes({"conversation": [{"role": "assistant", "apis": [ALARM_7]}]}),
                                      source="arch.zip:dir/my-conv.json")
    assert conv.name == "my-conv" and not conv.has_predictions and len(conv.ground_truths) == 1


def test_zip_archive_members_sorted_and_named(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("b/two.json", _bytes(conversation(([ALARM_7], [as_pred(ALARM_7)]), name="two")))
        zf.writestr("a/one.json", _bytes(conversation(([EMAIL], []), name="one")))
        zf.writestr("__MACOSX/a/._one.json", b"\x00junk")
        zf.writestr("notes.txt", b"ignored")
    convs = tt.load_conversations_zip(buf.getvalue(), source="up.zip")
    assert [c.name for c in convs] == ["one", "two"] and convs[0].source == "up.zip:a/one.json"
    path = tmp_path / "up.zip"
    path.write_bytes(buf.getvalue())
    assert [c.name for c in tt.load_conversations([path])] == ["one", "two"]

    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("ok.json", _bytes(conversation(([EMAIL], []))))
        zf.writestr("broken.json", b"{")
    with pytest.raises(DataError, match=r"up\.zip:broken\.json: malformed JSON"):
        tt.load_conversations_zip(bad.getvalue(), source="up.zip")
    with pytest.raises(DataError, match="not a valid zip archive"):
        tt.load_conversations_zip(b"PK not really", source="up.zip")
    empty = io.BytesIO()
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("readme.txt", b"x")
    with pytest.raises(DataError, match="no .json conversation file"):
        tt.load_conversations_zip(empty.getvalue(), source="up.zip")


def test_uploads_keep_every_conversation_that_loads():
    good = _bytes(conversation(([ALARM_7], [as_pred(ALARM_7)]), name="good"))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("z/ok.json", _bytes(conversation(([EMAIL], []), name="zipped")))
        zf.writestr("z/bad.json", b'{"conversation": 1}')
    convs, errors = tt.load_uploads([("good.json", good), ("runs.zip", buf.getvalue()), ("empty.json", b""),
                                     ("fake.zip", b"nope")])
    assert [c.name for c in convs] == ["good", "zipped"]
    assert errors == ["runs.zip:z/bad.json: field 'conversation' must be a list of turns, got a number",
                      "empty.json: the file is empty", "fake.zip: not a valid zip archive"]


def test_score_conversations_reports_unscorable_ones():
    convs = [tt.parse_conversation(conversation(([ALARM_7], [as_pred(ALARM_7)]), name="ok"), source="ok.json"),
             tt.parse_conversation(conversation(([], [as_pred(ALARM_7)]), name="chat"), source="chat.json")]
    scores, errors = tt.score_conversations(convs, similarity=TableSimilarity())
    assert [s.name for s in scores] == ["ok"]
    assert len(errors) == 1 and errors[0].startswith("chat.json: conversation 'chat' has no ground-truth tool calls")


def test_folders_and_missing_paths(tmp_path):
    (tmp_path / "b.json").write_bytes(_bytes(conversation(([EMAIL], []), name="b")))
    (tmp_path / "a.json").write_bytes(_bytes(conversation(([EMAIL], []), name="a")))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.json").write_bytes(b"{")  # not read: folders are not recursive
    assert [c.name for c in tt.load_conversations(tmp_path)] == ["a", "b"]
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(DataError, match="empty_dir: the folder holds no .json conversation file"):
        tt.load_conversations(tmp_path / "empty_dir")
    with pytest.raises(FileNotFoundError):
        tt.load_conversations(tmp_path / "nope.json")


def test_shared_conversations_load_with_the_readme_counts(shared_data):
    root = shared_data / "tooltalk"
    easy = tt.load_conversations(root / "easy")
    hard = tt.load_conversations(root / "tooltalk")
    assert (len(easy), len(hard)) == (28, 50)
    assert sum(len(c.ground_truths) for c in easy) == 28 and all(len(c.ground_truths) == 1 for c in easy)
    assert sum(len(c.ground_truths) for c in hard) == 238
    failed = [(c.source, g.api_name) for c in hard for g in c.ground_truths if g.exception is not None]
    assert failed == [("AccountTools-Email-Reminder-ChangePassword-1.json", "UserLogin")]
    assert not any(c.has_predictions for c in easy + hard)
    agg = tt.aggregate_scores(tt.evaluate_conversations(easy + hard, similarity=TableSimilarity()))
    assert (agg["predictions"], agg["ground_truths"], agg["precision"], agg["recall"]) == (0, 266, 0.0, 0.0)


def test_zip_limits_are_the_archive_readers(monkeypatch, tmp_path):
    """Zips are read by core.archive: a member above its per-file limit is reported by name and
    the others load; the total cap refuses the archive; the exported names are its aliases."""
    import core.archive

    small = _bytes(conversation(([EMAIL], []), name="small"))
    big = _bytes(conversation(([ALARM_7], [as_pred(ALARM_7)]), name="big")) + b" " * 4000
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a/small.json", small)
        zf.writestr("b/big.json", big)
    monkeypatch.setattr(core.archive, "MAX_MEMBER_BYTES", len(small) + 10)
    convs, errors = tt.load_uploads([("runs.zip", buf.getvalue())])
    assert [c.name for c in convs] == ["small"]
    assert len(errors) == 1 and errors[0].startswith("runs.zip:b/big.json: the member is more than")
    with pytest.raises(DataError, match=r"^runs\.zip:b/big\.json: the member is more than"):
        tt.load_conversations_zip(buf.getvalue(), source="runs.zip")
    path = tmp_path / "runs.zip"
    path.write_bytes(buf.getvalue())
    with pytest.raises(DataError, match=r"^runs\.zip:b/big\.json: the member is more than"):
        tt.load_conversations([path])
    monkeypatch.setattr(core.archive, "MAX_MEMBER_BYTES", 2**20)
    monkeypatch.setattr(core.archive, "MAX_TOTAL_BYTES", len(small) + len(big) - 1)
    convs, errors = tt.load_uploads([("runs.zip", buf.getvalue())])
    assert convs == [] and errors == [f"runs.zip: the members read from the zip archive exceed "
                                      f"{len(small) + len(big) - 1:,} bytes once decompressed (at b/big.json)"]
    assert (tt.MAX_FILE_BYTES, tt.MAX_ARCHIVE_BYTES) == (64 * 2**20, 512 * 2**20)
