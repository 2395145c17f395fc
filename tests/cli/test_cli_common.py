"""The CLI's shared parts (``core.cli.common``): ``-o`` checked before any work (suffix per
kind of output, ``-o -`` only where the output is one file, not with ``--json``), outputs to a
file or to standard output, ``--col ROLE=NAME``, ``--show``, fractions, and the notes on
standard error; each bad value a DataError naming the option."""

from __future__ import annotations

import argparse
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from core.cli.common import (OUTPUT_SUFFIXES, STDOUT, add_show_arg, check_fraction,
                             check_output, is_nan, load_dataset, note_nothing_routed,
                             note_stream, parse_roles, print_json, refuse_json_on_stdout,
                             shown, write_csv_output, write_output)
from core.errors import DataError


@pytest.mark.parametrize("kind,name", [("csv", "q.csv"), ("csv", "q.TXT"), ("csv", "q"),
                                       ("labelstudio", "t.json"), ("html", "r.htm"),
                                       ("json", "r.json")])
def test_check_output_accepts_the_suffixes_of_its_kind(tmp_path, kind, name):
    check_output(str(tmp_path / name), kind)
    assert not (tmp_path / name).exists()  # checked, nothing written


@pytest.mark.parametrize("kind,name,word", [("csv", "round.parquet", r"CSV; name the file .csv or .txt \(not .parquet\)"),
                                            ("labelstudio", "tasks.xml", r"Label Studio's task JSON"),
                                            ("html", "r.pdf", "one HTML file")])
def test_check_output_refuses_another_formats_suffix(tmp_path, kind, name, word):
    with pytest.raises(DataError, match=rf"^-o .*{name.replace('.', '[.]')}: this command writes {word}"):
        check_output(str(tmp_path / name), kind)


def test_check_output_refuses_a_folder_and_a_symlink(tmp_path):
    with pytest.raises(DataError):
        check_output(str(tmp_path), "csv")
    target = tmp_path / "t.csv"
    target.write_text("x")
    link = tmp_path / "l.csv"
    os.symlink(target, link)
    with pytest.raises(DataError):
        check_output(str(link), "csv")
    assert check_output(None, "csv") is None


def test_standard_output_only_where_the_output_is_one_file():
    assert STDOUT == "-"
    check_output(STDOUT, "html", to_stdout=True)
    with pytest.raises(DataError, match="^-o -: this command writes its table with files beside it"):
        check_output(STDOUT, "csv")
    with pytest.raises(DataError, match="-o - and --json both write to standard output"):
        refuse_json_on_stdout(STDOUT, True)
    refuse_json_on_stdout(STDOUT, False)
    refuse_json_on_stdout("x.csv", True)
    assert set(OUTPUT_SUFFIXES) == {"csv", "labelstudio", "html", "json"}


def test_write_output_to_a_file_or_to_standard_output(tmp_path, capsysbinary):
    write_output(str(tmp_path / "a.html"), "<p>é</p>")
    write_output(str(tmp_path / "b.bin"), b"\x00\x01")
    assert (tmp_path / "a.html").read_text(encoding="utf-8") == "<p>é</p>"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    write_output(STDOUT, b"\x02bytes")
    write_output(STDOUT, "text")
    assert capsysbinary.readouterr().out == b"\x02bytestext"


def test_write_csv_output_neutralises_formulas(tmp_path, capsys):
    table = pd.DataFrame({"label": ["=SUM(A1)", "ok"], "n": [1, 2]})
    write_csv_output(table, str(tmp_path / "t.csv"), index=False)
    text = (tmp_path / "t.csv").read_text()
    assert "'=SUM(A1)" in text and '"ok",2' in text
    write_csv_output(table, STDOUT, index=False)
    assert capsys.readouterr().out.replace("\r\n", "\n") == text.replace("\r\n", "\n")


def test_notes_go_to_stderr_when_stdout_holds_the_file(capsys):
    import sys

    assert note_stream(STDOUT) is sys.stderr and note_stream("x.csv") is sys.stdout
    assert note_stream(None) is sys.stdout
    note_nothing_routed(5.0, 2.0, "seconds")
    err = capsys.readouterr().err
    assert "at lambda 5 no sample goes to humans" in err and "stops changing at lambda 2" in err
    note_nothing_routed(1.0, 2.0, "seconds")
    note_nothing_routed(1.0, None, "seconds")
    assert capsys.readouterr().err == ""


def test_print_json_writes_one_line_of_plain_json(capsys):
    print_json({"a": np.int64(3), "b": [0.5]})
    out = capsys.readouterr().out
    assert out.endswith("\n") and json.loads(out) == {"a": 3, "b": [0.5]}


def test_parse_roles():
    assert parse_roles(None) == {}
    got = parse_roles(["human_label=gold", "machine_confidence = p ", "subgroups=a,b,",
                       "text=", "human_effort=-"])
    assert got == {"human_label": "gold", "machine_confidence": "p", "subgroups": ["a", "b"],
                   "text": [], "human_effort": None}
    assert parse_roles(["selection=sel"], extra_roles=("selection",)) == {"selection": "sel"}
    with pytest.raises(DataError, match="--col expects ROLE=NAME, got 'gold'"):
        parse_roles(["gold"])
    with pytest.raises(DataError, match="unknown role 'selection' in --col; roles are"):
        parse_roles(["selection=sel"])


def test_show_columns_repeated_or_comma_separated():
    p = argparse.ArgumentParser()
    add_show_arg(p)
    args = p.parse_args(["--show", "topic, dialogue_id", "--show", "system", "--show", ","])
    assert shown(args) == ["topic", "dialogue_id", "system"]
    assert shown(p.parse_args([])) == []


def test_check_fraction_and_is_nan():
    assert check_fraction(0.5, "--share") == 0.5
    assert check_fraction(0.0, "--share", open_interval=False) == 0.0
    for bad in (0.0, 1.0, math.nan, math.inf):
        with pytest.raises(DataError, match=r"^--share must be strictly between 0 and 1, got"):
            check_fraction(bad, "--share")
    with pytest.raises(DataError, match=r"^--alpha must be in \[0, 1\], got 1.5$"):
        check_fraction(1.5, "--alpha", open_interval=False)
    assert is_nan(math.nan) and not is_nan(None) and not is_nan("nan") and not is_nan(1.0)


def test_load_dataset_names_an_unsure_detection(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("model_pred,conf_a,conf_b,human_label\n1,0.9,0.8,1\n0,0.2,0.3,1\n1,0.7,0.6,0\n")
    data = load_dataset(str(path))
    assert data.M == 3 and data.roles["machine_confidence"] == "conf_a"
    assert capsys.readouterr().err == ("note: several columns could be the machine confidence: "
                                       "using 'conf_a', not 'conf_b'; choose with --col "
                                       "machine_confidence=NAME\n")
    # mapped with --col: no note
    load_dataset(str(path), ["machine_confidence=conf_b"])
    assert capsys.readouterr().err == ""
