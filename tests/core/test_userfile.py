"""core.userfile: user files read with limits (issue 24: a FIFO hung, /dev/zero filled memory,
deeply nested JSON raised RecursionError, 20,000 keys took 6.4 GB)."""

from __future__ import annotations

import json
import os
import threading

import pytest

from core.data import load_table
from core.errors import DataError
from core.evaluation.labelstudio.export import labels_from_labelstudio
from core.userfile import json_depth, parse_json, read_user_file


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    result: list = []

    def read():
        try:
            load_table(fifo)
        except DataError as exc:
            result.append(str(exc))

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(5)
    assert result and "not a regular file" in result[0]


def test_a_device_is_refused():
    with pytest.raises(DataError, match="not a regular file"):
        load_table("/dev/zero")
    with pytest.raises(DataError, match="not a regular file"):
        read_user_file("/dev/zero", max_bytes=10)


def test_the_limit_applies_to_the_bytes_read(tmp_path):
    p = tmp_path / "a.csv"
    p.write_bytes(b"x\n" * 100)
    assert len(read_user_file(p, max_bytes=200)) == 200
    with pytest.raises(DataError, match="MiB"):
        read_user_file(p, max_bytes=199)
    with pytest.raises(DataError, match="file not found"):
        read_user_file(tmp_path / "nope.csv", max_bytes=10)
    with pytest.raises(DataError, match="is a folder"):
        read_user_file(tmp_path, max_bytes=10)


@pytest.mark.parametrize("depth, ok", [(64, True), (65, False), (100_000, False)])
def test_nesting_limit(depth, ok):
    text = "[" * depth + "]" * depth
    if ok:
        assert json_depth(parse_json(text, label="x")) == depth
    else:
        with pytest.raises(DataError, match="nested more than 64 levels"):
            parse_json(text, label="x")


def test_key_limit_and_bad_json():
    with pytest.raises(DataError, match="20,000 keys"):
        parse_json(json.dumps({f"k{i}": i for i in range(20_000)}), label="x")
    with pytest.raises(DataError, match="x is not JSON: .* line 1, column 2"):
        parse_json("{not json", label="x")


def test_a_table_with_too_many_json_keys_is_refused_before_it_is_built(tmp_path):
    p = tmp_path / "t.json"
    p.write_text(json.dumps([{f"k{i}": i for i in range(5_000)}]))
    # refused from the first object's width, before the table is built (issue 32)
    with pytest.raises(DataError, match="a JSON object has 5,000 columns; at most 2,000"):
        load_table(p)


def test_label_studio_export_deep_or_with_unhashable_control_names():
    deep = '[{"id": 1, "data": {"sample_id": 1}, "annotations": ' + "[" * 5000 + "]" * 5000 + "}]"
    with pytest.raises(DataError, match="nested more than"):
        labels_from_labelstudio(deep)
    a = {"id": 1, "completed_by": 1, "result": [{"from_name": ["x"], "type": "choices",
                                                  "value": {"choices": ["a"]}}]}
    imp = labels_from_labelstudio([{"id": 1, "data": {"sample_id": 1}, "annotations": [a]}])
    assert imp.label == ("a",)
