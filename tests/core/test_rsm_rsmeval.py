"""core.rsm.rsmeval on small hand-worked inputs (RSMTool's own experiments:
test_rsm_rsmeval_experiments.py)."""

from __future__ import annotations

import math

import numpy as np
import openpyxl
import pandas as pd
import pytest

from core.errors import DataError
from core.rsm.rsmeval import (
    processed_scores, read_table, rsmeval_tables, scaling_from, score_types, write_tables,
)


def test_score_types_follow_scale_with():
    assert score_types(None) == ["raw", "raw_trim", "raw_trim_round"]
    assert score_types("asis") == ["scale", "scale_trim", "scale_trim_round"]
    assert score_types("train.csv") == ["raw", "raw_trim", "raw_trim_round", "scale", "scale_trim",
                                        "scale_trim_round"]


def test_processed_scores_by_hand():
    # scale = (raw - 1) / 2 * 0.5 + 3; trimmed to [1 - 0.4998, 4 + 0.4998]; rounded half to even
    out = processed_scores(np.array([0.0, 2.5, 7.0]), scaling=(1.0, 2.0, 3.0, 0.5), trim_min=1, trim_max=4)
    np.testing.assert_allclose(out["scale"], [2.75, 3.375, 4.5])
    np.testing.assert_allclose(out["raw_trim"], [0.5002, 2.5, 4.4998])
    np.testing.assert_array_equal(out["raw_trim_round"], [1.0, 2.0, 4.0])  # 2.5 -> 2 (half to even)
    np.testing.assert_allclose(out["scale_trim"], [2.75, 3.375, 4.4998])
    np.testing.assert_array_equal(out["scale_trim_round"], [3.0, 3.0, 4.0])


def test_scaling_from_a_training_table():
    frame = pd.DataFrame({"prediction": [1.0, 2.0, 3.0], "sc1": [2.0, 4.0, 6.0]})
    assert scaling_from(frame) == (2.0, 1.0, 4.0, 2.0)
    assert scaling_from(None) == (0.0, 1.0, 0.0, 1.0)
    with pytest.raises(DataError, match="'sc1' not found"):
        scaling_from(frame.drop(columns="sc1"))
    with pytest.raises(DataError, match="constant"):
        scaling_from(pd.DataFrame({"prediction": [2.0, 2.0], "sc1": [1.0, 3.0]}))


def _tiny() -> pd.DataFrame:
    return pd.DataFrame({
        "id": ["a", "b", "c", "d", "e", "f", "g", "h"],
        "h1": [1, 2, 3, 3, 0, "x", 4, ""],
        "score": [1.2, 2.6, 3.4, 3.1, 3, 2, "bad", "y"],
        "h2": [1, 0, 3, 2, 1, 1, 1, 1],
        "g": ["u", "u", "v", "v", "u", "v", "u", "v"],
    })


def test_confusion_matrix_and_score_distribution_by_hand():
    # kept: a-d (e: zero human score, f/h: non-numeric human, g: non-numeric system score);
    # raw_trim_round over [1, 3]: 1.2 -> 1, 2.6 -> 3, 3.4 -> 3, 3.1 -> 3
    t = rsmeval_tables(_tiny(), human="h1", system="score", trim_min=1, trim_max=3, id_column="id")
    cm = t["confMatrix"]
    assert cm.index.tolist() == [1, 2, 3] and cm.columns.tolist() == [1, 2, 3]
    assert cm.to_numpy().tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 2]]
    dist = t["score_dist"]
    assert dist["human"].tolist() == [25.0, 25.0, 50.0]
    assert dist["sys_raw"].tolist() == [25.0, 0.0, 75.0]
    assert dist["difference"].tolist() == [0.0, -25.0, 25.0]
    assert t["pred_processed"].index.tolist() == ["a", "b", "c", "d"]
    assert t["pred_processed"]["raw_trim_round"].tolist() == [1, 3, 3, 3]
    assert t["data_composition"].loc["Evaluation", "responses"] == 4


def test_excluded_composition_by_hand():
    t = rsmeval_tables(_tiny(), human="h1", system="score", trim_min=1, trim_max=3)
    ex = t["test_excluded_composition"]
    # e: zero human, numeric system; f: non-numeric human, numeric system; g: numeric non-zero
    # human, non-numeric system; h: non-numeric human and system. The first cell is NaN without
    # listwise exclusion, as rsmeval writes it.
    assert ex.index.tolist() == ["numeric non-zero human score", "zero human score", "non-numeric human score"]
    assert math.isnan(ex.iat[0, 0]) and ex.iat[0, 1] == 1
    assert ex.iloc[1].tolist() == [1, 0]
    assert ex.iloc[2].tolist() == [1, 1]


def test_by_group_tables_have_the_whole_set_first_as_all_data():
    t = rsmeval_tables(_tiny(), human="h1", system="score", human2="h2", groups=["g"], trim_min=1, trim_max=3)
    by = t["eval_by_g"]
    assert by.index.tolist() == ["All data", "u", "v"]
    assert by.loc["All data", "N"] == 4 and by.loc["u", "N"] == 2
    # the whole set against itself: DSM 0 (up to rounding); its other columns are eval's
    assert abs(by.loc["All data", "DSM.raw_trim"]) < 1e-12
    assert by.loc["All data", "corr.raw_trim"] == pytest.approx(t["eval"].loc["raw_trim", "corr"])
    cons = t["consistency_by_g"]
    # h2 of b is 0: absent with exclude_zero_scores; double-scored: a (1, 1), c (3, 3), d (3, 2)
    assert cons.loc["All data", "N"] == 3 and cons.loc["u", "N"] == 1 and cons.loc["v", "N"] == 2
    assert cons.loc["All data", "exact_agr"] == pytest.approx(200 / 3)
    assert "SMD" not in cons.columns and "DSM" in cons.columns


def test_write_tables_xlsx_reads_back_with_formulas_neutralised(tmp_path):
    table = pd.DataFrame({"N": [3, 4], "corr": [0.5, 0.25]}, index=pd.Index(["=1+1", "b"], name="g"))
    (path,) = write_tables({"eval_by_g": table}, tmp_path, experiment_id="run-1", file_format="xlsx")
    assert path.name == "run-1_eval_by_g.xlsx"
    sheet = openpyxl.load_workbook(path).active
    rows = [[c.value for c in r] for r in sheet.iter_rows()]
    assert rows[0] == ["g", "N", "corr"]
    assert rows[1] == ["'=1+1", 3, 0.5]  # text, not a formula
    assert sheet.cell(2, 1).data_type == "s"
    assert rows[2] == ["b", 4, 0.25]


def test_write_tables_csv_and_tsv(tmp_path):
    table = pd.DataFrame({"corr": [0.5]}, index=["raw"])
    (csv_path,) = write_tables({"eval": table}, tmp_path, experiment_id="e", file_format="csv")
    (tsv_path,) = write_tables({"eval": table}, tmp_path, experiment_id="e", file_format="tsv")
    assert csv_path.read_text().splitlines() == ['"","corr"', '"raw",0.5']
    assert tsv_path.read_text().splitlines() == ['""\t"corr"', '"raw"\t0.5']


@pytest.mark.parametrize("kwargs, match", [
    ({"file_format": "xls"}, "file_format"),
    ({"experiment_id": "a/b"}, "experiment id"),
])
def test_write_tables_refuses_bad_options(tmp_path, kwargs, match):
    args = {"experiment_id": "e", "file_format": "csv"} | kwargs
    with pytest.raises(DataError, match=match):
        write_tables({"eval": pd.DataFrame({"x": [1]})}, tmp_path, **args)


def test_write_tables_refuses_a_missing_folder(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        write_tables({"eval": pd.DataFrame({"x": [1]})}, tmp_path / "nope", experiment_id="e")


def test_read_table_xlsx_and_a_damaged_one(tmp_path):
    frame = pd.DataFrame({"id": ["a", "b"], "h1": [3.0, 4.0], "score": [2.5, 4.25]})
    frame.to_excel(tmp_path / "p.xlsx", index=False, engine="openpyxl")
    got = read_table(tmp_path / "p.xlsx")
    assert got["id"].tolist() == ["a", "b"] and got["score"].tolist() == [2.5, 4.25]
    (tmp_path / "bad.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    with pytest.raises(DataError, match="bad.xlsx: not a readable .xlsx workbook"):
        read_table(tmp_path / "bad.xlsx")


def test_the_responses_files_as_rsmeval_writes_them():
    # rsmeval renames the columns it uses (id -> spkitemid, h1 -> sc1, score -> raw, h2 -> sc2) and
    # an unused column already named like one of them gets ##name##
    frame = _tiny().assign(sc1=[9, 9, 9, 9, 9, 9, 9, 9], flag=[0, 0, 0, 0, 0, 0, 1, 0])
    t = rsmeval_tables(frame, human="h1", system="score", human2="h2", groups=["g"], trim_min=1, trim_max=3,
                       id_column="id", flag_column={"flag": 0})
    assert t["test_metadata"].index.tolist() == ["a", "b", "c", "d"] and t["test_metadata"]["g"].tolist() == \
        ["u", "u", "v", "v"]
    # sc2: b's 0 absent (exclude_zero_scores)
    scores = t["test_human_scores"]
    assert scores["sc1"].tolist() == [1.0, 2.0, 3.0, 3.0]
    assert scores["sc2"].iloc[[0, 2, 3]].tolist() == [1.0, 3.0, 2.0] and math.isnan(scores["sc2"].iloc[1])
    other = t["test_other_columns"]
    assert list(other.columns) == ["##sc1##", "flag"] and other["##sc1##"].tolist() == [9] * 4
    # set aside after the flags: e (zero human), f (non-numeric human), h (non-numeric both);
    # g is flagged out, in its own file, as read
    ex = t["test_excluded_responses"]
    assert ex.index.tolist() == ["e", "f", "h"]
    assert ex.loc["e", "sc1"] == 0.0 and math.isnan(ex.loc["f", "sc1"]) and ex.loc["f", "raw"] == 2.0
    assert math.isnan(ex.loc["h", "raw"])
    flagged = t["test_responses_with_excluded_flags"]
    assert flagged.index.tolist() == ["g"] and flagged.loc["g", "raw"] == "bad"
    # nothing flagged or set aside: no such file (rsmeval writes none)
    clean = rsmeval_tables(_tiny().iloc[:4], human="h1", system="score", trim_min=1, trim_max=3)
    assert "test_excluded_responses" not in clean and "test_responses_with_excluded_flags" not in clean
