"""``hmceval confidence`` and ``hmceval train-classifier``: output contract and error exits."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from core.cli import main
from core.mce.testing import build_tiny_bert

POS = ["i love you", "you are nice", "thanks , good day", "i like that", "great !", "hello , how are you ?"]
NEG = ["i hate you", "you are stupid", "go away idiot", "awful people", "kill it", "you are bad"]


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------- confidence
def test_confidence_json_reproduces_table3(capsys, shared_data):
    path = shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv"
    code, out, err = run_cli(capsys, "confidence", str(path), "--label-col", "target", "--machine-col",
                             "machine_predict", "--conf-col", "machine_confidence", "--conf-col",
                             "human_effort_predicted_avg", "--top", "0.5", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert list(res) == ["machine_confidence", "human_effort_predicted_avg"]
    ts = res["machine_confidence"]
    assert set(ts) == {"auc", "top_accuracy", "aurc", "ece"}
    assert round(ts["auc"], 4) == 0.8246 and round(ts["top_accuracy"], 4) == 0.9785


def test_confidence_text_output_and_ece_na(capsys, tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"gold": [1, 0, 1, 1], "pred": [1, 1, 1, 0], "p": [0.9, 0.2, 0.8, 0.4],
                  "raw": [3.0, -1.0, 2.0, 0.5]}).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "confidence", str(path), "--label-col", "gold", "--machine-col", "pred",
                             "--conf-col", "p", "--conf-col", "raw")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].split()[:3] == ["confidence", "column", "AUC"]
    assert lines[1].split()[:2] == ["p", "1.0000"] and lines[2].split()[-1] == "n/a"
    code, out, _ = run_cli(capsys, "confidence", str(path), "--label-col", "gold", "--machine-col", "pred",
                           "--conf-col", "raw", "--json")
    assert json.loads(out)["raw"]["ece"] is None


@pytest.mark.parametrize(
    "extra, match",
    [
        (["--label-col", "nope", "--machine-col", "pred", "--conf-col", "p"], "--label-col column 'nope'"),
        (["--label-col", "gold", "--machine-col", "pred", "--conf-col", "zz"], "--conf-col column 'zz'"),
        (["--label-col", "gold", "--machine-col", "pred", "--conf-col", "p", "--top", "0"], "top must"),
        (["--label-col", "gold", "--machine-col", "pred", "--conf-col", "bad"], "confidence column 'bad'.*row 2"),
        (["--label-col", "gold", "--machine-col", "pred", "--conf-col", "p", "--conf-col", "p"], "given twice"),
    ],
)
def test_confidence_errors_exit_2(capsys, tmp_path, extra, match):
    path = tmp_path / "t.csv"
    pd.DataFrame({"gold": [1, 0, 1], "pred": [1, 1, 1], "p": [0.9, 0.2, 0.8],
                  "bad": [0.1, None, 0.3]}).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "confidence", str(path), *extra)
    assert code == 2 and out == ""
    import re

    assert re.search(match, err), err


# ------------------------------------------------------------------------- train-classifier
@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tinybert_cli"))


def _records(n_rep):
    rows = []
    for r in range(n_rep):
        for i, t in enumerate(POS + NEG):
            ctx = ["hi", "how are you ?"] if i % 3 == 0 else "hello"
            ctx = ctx + ["ok"] * r if isinstance(ctx, list) else ctx + " !" * r  # no exact duplicates
            rows.append({"context": ctx, "response": t,
                         "category": "Risk Ignorance", "label": "Safe" if t in POS else "Unsafe"})
    return rows


def test_train_classifier_on_diasafety_format(capsys, tmp_path, tiny_dir):
    train, ev = tmp_path / "train.json", tmp_path / "test.json"
    train.write_text(json.dumps(_records(4)))
    ev.write_text(json.dumps(_records(1)))
    out_csv, saved = tmp_path / "scored.csv", tmp_path / "model"
    code, out, err = run_cli(capsys, "train-classifier", "--train", str(train), "--eval", str(ev), "--text-col",
                             "response", "--context-col", "context", "--label-col", "label", "--model-dir",
                             str(tiny_dir), "--epochs", "15", "--batch-size", "8", "--learning-rate", "3e-3",
                             "--ts-k", "3", "--tcp-epochs", "3", "--save-model", str(saved), "-o", str(out_csv))
    assert code == 0, err
    assert "fine-tuning" in err and "wrote 12 scored rows" in err  # tqdm bars and summary on stderr
    df = pd.read_csv(out_csv)
    for col in ("response", "label", "category", "machine_label", "proba_Safe", "proba_Unsafe",
                "confidence_mcp", "confidence_ts", "confidence_tcp"):
        assert col in df.columns
    assert np.allclose(df["proba_Safe"] + df["proba_Unsafe"], 1.0, atol=1e-6)
    assert df[["confidence_mcp", "confidence_ts", "confidence_tcp"]].apply(lambda s: s.between(0, 1).all()).all()
    assert (df["machine_label"] == df["label"]).mean() == 1.0  # the separable toy set is learned
    assert json.loads(df["context"].iloc[0]) == ["hi", "how are you ?"]  # lists stay JSON
    assert (saved / "classifier.safetensors").is_file()
    # the scored table is ready for the dashboard's data contract
    from core.data import load_table, prepare

    data = prepare(load_table(out_csv))
    assert data.roles["machine_label"] == "machine_label" and data.roles["human_label"] == "label"
    assert set(data.confidence_columns) == {"confidence_mcp", "confidence_ts", "confidence_tcp"}


def test_train_classifier_errors(capsys, tmp_path, tiny_dir):
    train = tmp_path / "train.csv"
    pd.DataFrame(_records(2)).drop(columns="context").to_csv(train, index=False)
    base = ["train-classifier", "--train", str(train), "--eval", str(train), "--label-col", "label",
            "--model-dir", str(tiny_dir), "--epochs", "1"]
    code, _, err = run_cli(capsys, *base, "--text-col", "text", "-o", str(tmp_path / "o.csv"))
    assert code == 2 and "text column 'text' is not in the training table" in err
    code, _, err = run_cli(capsys, *base, "--text-col", "response", "-o", str(tmp_path / "o.xlsx"))
    assert code == 2 and "-o/--output" in err
    code, _, err = run_cli(capsys, "train-classifier", "--train", str(train), "--eval", str(train), "--label-col",
                           "label", "--text-col", "response", "--model-dir", str(tmp_path / "none"),
                           "-o", str(tmp_path / "o.csv"))
    assert code == 2 and "model directory not found" in err
    bad = tmp_path / "bad.json"
    bad.write_text('[{"response": "hi", "label": "Safe"}, 3]')
    code, _, err = run_cli(capsys, "train-classifier", "--train", str(bad), "--eval", str(train), "--label-col",
                           "label", "--text-col", "response", "-o", str(tmp_path / "o.csv"))
    assert code == 2 and "JSON" in err
    assert not (tmp_path / "o.csv").exists()


def test_train_classifier_refuses_a_symlink_at_o_before_training(capsys, tmp_path):
    """Issue 32 item 4: the scored table's -o is refused (exit 2, naming it) when a symbolic
    link is there, before any table is read or model trained; the link is kept."""
    target = tmp_path / "kept.csv"
    target.write_text("kept\n")
    out = tmp_path / "scored.csv"
    out.symlink_to(target)
    missing = str(tmp_path / "missing.csv")
    code, _, err = run_cli(capsys, "train-classifier", "--train", missing, "--eval", missing,
                           "--label-col", "label", "--text-col", "response", "-o", str(out))
    assert code == 2 and f"cannot write {out}: it is a symbolic link" in err
    assert out.is_symlink() and target.read_text() == "kept\n"
