"""core.rsm.rsmeval_config: an rsmeval configuration file read as RSMTool's rsmeval reads it
(RSMTool's DEFAULTS where a field is absent, paths relative to the file, list and boolean
fields as its process_config converts them)."""

from __future__ import annotations

import json

import pytest

from core.errors import DataError
from core.rsm.rsmeval_config import read_rsmeval_config
from tests.core.rsmtool_support import DATA, EXPERIMENTS


def _write(tmp_path, **fields):
    (tmp_path / "files").mkdir(exist_ok=True)
    (tmp_path / "files" / "pred.csv").write_text("spkitemid,sc1,s\nr1,1,1\nr2,2,2\n")
    (tmp_path / "files" / "train.csv").write_text("prediction,sc1\n1,1\n2,2\n")
    (tmp_path / "exp").mkdir(exist_ok=True)
    cfg = {"experiment_id": "e1", "predictions_file": "../files/pred.csv", "system_score_column": "s",
           "trim_min": 1, "trim_max": 6, **fields}
    path = tmp_path / "exp" / "e1.json"
    path.write_text(json.dumps(cfg))
    return path


def test_rsmtools_defaults_where_fields_are_absent(tmp_path):
    cfg = read_rsmeval_config(_write(tmp_path))
    # rsmtool.utils.constants.DEFAULTS
    assert (cfg.human, cfg.id_column, cfg.file_format, cfg.trim_tolerance) == ("sc1", "spkitemid", "csv", 0.4998)
    assert cfg.exclude_zero_scores is True and cfg.scale_with is None and cfg.subgroups == ()
    assert cfg.human2 is None and cfg.flag_column is None and cfg.report_only == ()
    # the path relative to the configuration file's folder, not to the current one
    assert cfg.predictions_file == tmp_path.resolve() / "files" / "pred.csv"


def test_fields_converted_as_rsmtools_process_config(tmp_path):
    cfg = read_rsmeval_config(_write(
        tmp_path, subgroups="L1, QUESTION", exclude_zero_scores="FALSE", flag_column={"ADVISORY": 0},
        scale_with="../files/train.csv", trim_min="1", description="d", min_n_per_group=3,
        section_order=["a", "b"]))
    assert cfg.subgroups == ("L1", "QUESTION")
    assert cfg.exclude_zero_scores is False
    assert cfg.flag_column == {"ADVISORY": [0]}
    assert cfg.scale_with == str(tmp_path.resolve() / "files" / "train.csv")
    assert cfg.trim_min == 1.0
    assert cfg.report_only == ("description", "min_n_per_group", "section_order")
    assert read_rsmeval_config(_write(tmp_path, scale_with="raw", subgroups=["g"])).scale_with == "raw"


@pytest.mark.parametrize(("fields", "field"), [
    ({"model": "LinearRegression"}, "model"),
    ({"trim_max": None}, "trim_max"),
    ({"trim_tolerance": -1}, "trim_tolerance"),
    ({"trim_max": float("inf")}, "trim_max"),
    ({"system_score_column": 3}, "system_score_column"),
    ({"min_items_per_candidate": 0, "candidate_column": "c"}, "min_items_per_candidate"),
    ({"min_n_per_group": {"x": 3}, "subgroups": "g"}, "min_n_per_group"),
    ({"use_thumbnails": "yes"}, "use_thumbnails"),
])
def test_a_bad_field_is_named(tmp_path, fields, field):
    with pytest.raises(DataError, match=f"field '{field}'"):
        read_rsmeval_config(_write(tmp_path, **fields))


def test_every_one_of_rsmtools_26_configuration_files_is_read():
    for name in EXPERIMENTS:
        (path,) = (DATA / "experiments" / name).glob("*.json")
        cfg = read_rsmeval_config(path)
        assert cfg.predictions_file.parent == DATA.resolve() / "files"
        assert cfg.experiment_id == json.loads(path.read_text())["experiment_id"]
