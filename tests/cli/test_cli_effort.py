"""``hmceval effort``: JSON report, per-sample output, errors; Table 4/5 from ../shared/data."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from core.cli import main


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def small(tmp_path):
    # 12 dialogues; time grows with length; x = 1..12, time = 10 * x (+ noise-free)
    rng = np.random.default_rng(0)
    n = 12
    df = pd.DataFrame({
        "dialogue_id": [f"d{i}" for i in range(n)],
        "n_turns": [2, 3, 4] * 4,
        "length": np.arange(1, n + 1),
        "other": rng.uniform(0, 1, n).round(3),
        "part": ["train"] * 8 + ["test"] * 4,
        "secs": 10.0 * np.arange(1, n + 1),
    })
    path = tmp_path / "dialogues.csv"
    df.to_csv(path, index=False)
    return path, df


def test_release_d_plus_w_json_and_samples(shared_data, tmp_path, capsys):
    out_csv = tmp_path / "effort.csv"
    code, out, err = _run(["effort", str(shared_data / "hmceval" / "data_per_dialogue.tsv"),
                           "--time-col", "WorkTimeInSeconds", "--features", "D+W", "--folds", "5",
                           "--jobs", "2", "--json", "-o", str(out_csv)], capsys)
    assert code == 0, err
    rep = json.loads(out)
    # paper Table 4, D + W
    assert rep["r2"] == pytest.approx(0.76, abs=0.01)
    assert rep["rmse"] == pytest.approx(0.059, abs=0.002)
    assert len(rep["folds"]) == 5 and {"mse", "rmse", "mae", "r2"} <= set(rep["folds"][0])
    assert rep["mse"] == pytest.approx(np.mean([f["mse"] for f in rep["folds"]]))
    # paper Table 5
    c = rep["correlations"]
    assert c["turns"]["pearson"] == pytest.approx(0.053, abs=0.01)
    assert c["turns"]["spearman"] == pytest.approx(0.122, abs=0.01)
    assert c["Mal_number"]["pearson"] == pytest.approx(0.445, abs=0.01)
    assert c["Mal_number"]["spearman"] == pytest.approx(0.600, abs=0.01)
    assert c["turns"]["pearson_p"] < 0.001
    assert set(c["turns"]) >= {"pearson", "pearson_p", "spearman", "spearman_p"}
    # per-sample output: one row per turn of every dialogue (28,510 turns in the release)
    samples = pd.read_csv(out_csv)
    release = pd.read_csv(shared_data / "hmceval" / "data_per_dialogue.tsv", sep="\t")
    assert len(samples) == int(release["turns"].sum()) == 28510
    assert samples["predicted_effort"].to_numpy() == pytest.approx(
        (samples["predicted_time_norm"] / samples["n_turns"]).to_numpy())
    t = release["WorkTimeInSeconds"]
    first = samples.drop_duplicates("dialogue_id").set_index("dialogue_id").loc[release["Number"]]
    assert first["real_time"].to_numpy() == pytest.approx(t.to_numpy())
    assert first["real_time_norm"].to_numpy() == pytest.approx(((t - 5) / (742 - 5)).to_numpy())
    # the mean R2 over folds, recomputed by hand from the written predictions
    r2 = []
    for _, g in first.groupby("fold"):
        y, p = g["real_time_norm"].to_numpy(), g["predicted_time_norm"].to_numpy()
        r2.append(1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))
    assert np.mean(r2) == pytest.approx(rep["r2"], abs=1e-9)


def test_split_mode_custom_features(small, capsys, tmp_path):
    path, df = small
    out_csv = tmp_path / "o.csv"
    code, out, err = _run(["effort", str(path), "--time-col", "secs", "--features", "length,other",
                           "--split-col", "part", "--json", "--trees", "20", "-o", str(out_csv)],
                          capsys)
    assert code == 0, err
    rep = json.loads(out)
    assert rep["mode"] == "split" and rep["features"] == ["length", "other"]
    assert rep["folds"][0]["n_train"] == 8 and rep["folds"][0]["n_test"] == 4
    assert rep["params"]["max_features"] == 2  # fewer than 8 features: all
    # length is a perfect linear function of the time: Pearson = Spearman = 1
    assert rep["correlations"]["length"]["pearson"] == pytest.approx(1.0)
    assert rep["correlations"]["length"]["spearman"] == pytest.approx(1.0)
    # only the 4 test dialogues (3 + 4 + 2 + 3 turns... per n_turns) are written
    samples = pd.read_csv(out_csv)
    test_ids = df.loc[df["part"] == "test", "dialogue_id"]
    assert sorted(samples["dialogue_id"].unique()) == sorted(test_ids)
    assert len(samples) == int(df.loc[df["part"] == "test", "n_turns"].sum())
    # the forest never extrapolates: test times (90..120 s) are predicted within the training range
    assert samples["predicted_time"].max() <= 80.0 + 1e-9


def test_text_report(small, capsys):
    path, _ = small
    code, out, err = _run(["effort", str(path), "--time-col", "secs", "--features", "length,other",
                           "--folds", "3", "--trees", "10"], capsys)
    assert code == 0, err
    assert "3-fold shuffled cross-validation" in out
    assert "fold 3" in out and "mean" in out
    assert "1.0000**" in out  # length vs time, p < 0.001 with n = 12


@pytest.mark.parametrize("extra,message", [
    (["--time-col", "nope"], "time column 'nope' is not in the table"),
    (["--time-col", "secs", "--features", "D"], "feature set D needs column(s)"),
    (["--time-col", "secs", "--features", "length", "--folds", "1"], "at least 2"),
    (["--time-col", "secs", "--features", "length", "--folds", "13"], "needs at least 13 dialogues"),
    (["--time-col", "secs", "--features", "length", "--max-features", "3"], "max_features=3"),
    (["--time-col", "secs", "--features", "length", "--split-col", "other"], "must hold only 'train' or 'test'"),
])
def test_errors_exit_2(small, capsys, extra, message):
    path, _ = small
    code, out, err = _run(["effort", str(path), *extra], capsys)
    assert code == 2
    assert message in err and out == ""


def test_nan_feature_names_column_and_row(small, capsys, tmp_path):
    _, df = small
    df = df.copy()
    df.loc[5, "other"] = math.nan
    p = tmp_path / "nan.csv"
    df.to_csv(p, index=False)
    code, _, err = _run(["effort", str(p), "--time-col", "secs", "--features", "length,other"], capsys)
    assert code == 2
    assert "'other' has missing values (NaN) in row 6" in err


def test_output_needs_turns(small, capsys, tmp_path):
    path, df = small
    p = tmp_path / "noturns.csv"
    df.drop(columns=["n_turns"]).to_csv(p, index=False)
    code, _, err = _run(["effort", str(p), "--time-col", "secs", "--features", "length",
                         "--trees", "5", "-o", str(tmp_path / "x.csv")], capsys)
    assert code == 2 and "--turns-col" in err
    code, _, err = _run(["effort", str(p), "--time-col", "secs", "--features", "length",
                         "--trees", "5", "--turns-col", "other", "-o", str(tmp_path / "x.csv")],
                        capsys)
    assert code == 2 and "whole numbers >= 1" in err
