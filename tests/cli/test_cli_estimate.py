"""hmceval estimate --annotator-error auto|ETA (issue 23, item 4): results against the truth,
or said plainly to be relative to the annotators; bad values exit 2 naming the option."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core.demo import make_demo
from tests.cli.cli_support import run_cli


def _labelled_round(capsys, tmp_path, demo_csv, *extra):
    """A routing round of the demo whose every queued row got its gold label back; the
    annotators' file ``q_to_label.csv``."""
    src, gold = demo_csv
    q = tmp_path / "q.csv"
    code, _, err = run_cli(capsys, "queue", src, "--lam", 0, "--human-share", 0.3, "--audit",
                           100, "--seed", 2, "-o", q, *extra)
    assert code == 0, err
    return q, gold


def _return_gold(capsys, tmp_path, q, gold):
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    back = sent[["sample_id"]].drop_duplicates().merge(gold, on="sample_id")
    path = tmp_path / "back.csv"
    back.to_csv(path, index=False)
    q2 = tmp_path / "q2.csv"
    code, _, err = run_cli(capsys, "labels", q, "--from", path, "-o", q2)
    assert code == 0, err
    return q2


def test_without_the_option_the_result_is_relative_to_the_annotators(capsys, ws_dir, tmp_path,
                                                                     demo_csv):
    q, gold = _labelled_round(capsys, tmp_path, demo_csv)
    q2 = _return_gold(capsys, tmp_path, q, gold)
    code, out, err = run_cli(capsys, "estimate", q2, "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["relative_to"] == "annotators"
    code, out, _ = run_cli(capsys, "estimate", q2)
    assert "relative to: annotators (their labels taken as the truth" in out


def test_a_given_eta_corrects_by_rogan_gladen(capsys, ws_dir, tmp_path, demo_csv):
    q, gold = _labelled_round(capsys, tmp_path, demo_csv)
    q2 = _return_gold(capsys, tmp_path, q, gold)
    _, out, _ = run_cli(capsys, "estimate", q2, "--json")
    plain = json.loads(out)
    code, out, err = run_cli(capsys, "estimate", q2, "--annotator-error", "0.04", "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["relative_to"].startswith("truth (corrected for annotator error 0.04")
    for key, s in res["class_shares"].items():
        q_share = plain["class_shares"][key]["estimate"]
        # two classes: p = (q - eta) / (1 - 2 eta)
        assert s["estimate"] == pytest.approx((q_share - 0.04) / 0.92, abs=1e-12)
        assert s["estimate_annotators"] == pytest.approx(q_share, abs=1e-12)
        assert s["ci_high"] - s["ci_low"] > (plain["class_shares"][key]["ci_high"]
                                             - plain["class_shares"][key]["ci_low"]) / 0.92
    # accuracy: labelled rows right with 1 - eta, the machine's agreement g corrected
    m, n_l, n_u = plain["M"], plain["n_labelled"], plain["n_machine"]
    g = (plain["accuracy"]["estimate"] * m - n_l) / n_u
    want = (n_l * 0.96 + n_u * (g - 0.04) / 0.92) / m
    assert res["accuracy"]["estimate"] == pytest.approx(want, abs=1e-12)
    assert res["annotator_error"]["source"] == "given"


@pytest.mark.parametrize("value", ["0.5", "-0.01", "nan", "x", "1"])
def test_eta_outside_the_range_exits_2(capsys, ws_dir, tmp_path, value):
    # checked before the table is read
    code, out, err = run_cli(capsys, "estimate", tmp_path / "t.csv", "--annotator-error", value)
    assert code == 2 and out == ""
    assert "--annotator-error" in err and "[0, 0.5)" in err


def test_auto_without_double_labelled_rows_exits_2(capsys, ws_dir, tmp_path, demo_csv):
    q, gold = _labelled_round(capsys, tmp_path, demo_csv)
    q2 = _return_gold(capsys, tmp_path, q, gold)
    code, out, err = run_cli(capsys, "estimate", q2, "--annotator-error", "auto")
    assert code == 2 and out == ""
    assert "--annotator-error auto" in err and "two annotators" in err


def test_auto_on_a_table_of_no_round_exits_2(capsys, tmp_path):
    df = make_demo()
    df["selection"] = "routed"
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code, out, err = run_cli(capsys, "estimate", path, "--annotator-error", "auto")
    assert code == 2 and "--annotator-error" in err
    code, out, err = run_cli(capsys, "estimate", path, "--gold-annotator", "g")
    assert code == 2 and "--gold-annotator" in err


def test_double_rows_measure_the_annotators_error(capsys, ws_dir, tmp_path, demo_csv):
    """queue --double 150: the round table marks 150 queued rows, the annotators' file gives
    every row to annotator 1 and those 150 to annotator 2 (no selection, label or confidence
    column, no 'double' column); 10 disagreements in 150 pairs give eta from D = 10/150."""
    q, gold = _labelled_round(capsys, tmp_path, demo_csv, "--double", 150)
    table = pd.read_csv(q)
    assert table["double"].sum() == 150
    assert table.loc[table["double"], "queue_rank"].notna().all()
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    assert sent["annotator"].value_counts().to_dict() == {1: int(table["queue_rank"].notna()
                                                                 .sum()), 2: 150}
    for col in ("selection", "double", "machine_label", "machine_confidence", "human_label"):
        assert col not in sent.columns
    second = sent[sent["annotator"] == 2]
    assert set(second["sample_id"]) == set(table.loc[table["double"], "sample_id"])
    assert second["queue_rank"].is_monotonic_increasing
    back = sent[["sample_id", "annotator"]].merge(gold, on="sample_id")
    flip = back.index[back["annotator"] == 2][:10]
    back.loc[flip, "label"] = 1 - back.loc[flip, "label"]
    path = tmp_path / "back.csv"
    back.to_csv(path, index=False)
    q2 = tmp_path / "q2.csv"
    code, _, err = run_cli(capsys, "labels", q, "--from", path, "--annotator-col", "annotator",
                           "--aggregate", "dawid-skene", "-o", q2)
    assert code == 0, err
    code, out, err = run_cli(capsys, "estimate", q2, "--annotator-error", "auto", "--json")
    assert code == 0, err
    res = json.loads(out)
    e = res["annotator_error"]
    assert (e["source"], e["n_items"], e["n_disagree"]) == ("double", 150, 10)
    eta = (1 - (1 - 2 * 10 / 150) ** 0.5) / 2
    assert e["annotator_eta"] == pytest.approx(eta, abs=1e-12)
    # the labels' error (issue 32): n - 150 rows carry one label (eta), 140 two that agree
    # (wrong when both are: eta^2 / (eta^2 + (1 - eta)^2)), 10 a tie Dawid-Skene resolved
    # (wrong half the time)
    n = int(table["queue_rank"].notna().sum())
    both = eta ** 2 / (eta ** 2 + (1 - eta) ** 2)
    assert e["eta"] == pytest.approx(((n - 150) * eta + 140 * both + 10 * 0.5) / n, abs=1e-12)
    assert res["relative_to"].startswith("truth (corrected for annotator error")
    assert "150 multiply-labelled rows" in res["relative_to"]


@pytest.mark.parametrize("k, words", [(100000, "only"), (-1, ">= 0")])
def test_bad_double_exits_2_and_stores_nothing(capsys, ws_dir, tmp_path, demo_csv, k, words):
    src, _ = demo_csv
    code, out, err = run_cli(capsys, "queue", src, "--human-share", 0.3, "--audit", 100,
                             "--double", k, "-o", tmp_path / "q.csv")
    assert code == 2 and "--double" in err and words in err
    from core.workspace import Workspace

    assert Workspace(ws_dir).list_rounds().empty
    assert not (tmp_path / "q.csv").exists()


def test_auto_with_a_gold_annotator_measures_eta_on_gold_items(capsys, ws_dir, tmp_path,
                                                               demo_csv):
    """Annotator 'a' labels every queued row (7 of the 100 gold items wrong), 'g' labels 100
    of them with gold (fixed as gold at import): eta = 7/100 with the exact binomial interval."""
    from scipy.stats import binomtest

    q, gold = _labelled_round(capsys, tmp_path, demo_csv)
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    a = sent[["sample_id"]].merge(gold, on="sample_id").assign(annotator="a")
    g = a.iloc[:100].assign(annotator="g")
    a.loc[a.index[:7], "label"] = 1 - a.loc[a.index[:7], "label"]
    path = tmp_path / "back.csv"
    pd.concat([a, g]).to_csv(path, index=False)
    q2 = tmp_path / "q2.csv"
    code, _, err = run_cli(capsys, "labels", q, "--from", path, "--annotator-col", "annotator",
                           "--gold-annotator", "g", "-o", q2)
    assert code == 0, err
    code, out, err = run_cli(capsys, "estimate", q2, "--annotator-error", "auto",
                             "--gold-annotator", "g", "--json")
    assert code == 0, err
    e = json.loads(out)["annotator_error"]
    ci = binomtest(7, 100).proportion_ci(0.95, method="exact")
    assert (e["source"], e["n_items"], e["n_disagree"]) == ("gold", 100, 7)
    assert e["annotator_eta"] == pytest.approx(0.07)
    # the labels' error (issue 32): the 100 gold rows carry g's label (error 0), the other
    # n - 100 rows a's alone (0.07, and the interval's ends likewise)
    n = len(a)
    assert (e["eta"], e["ci_low"], e["ci_high"]) == pytest.approx(
        (0.07 * (n - 100) / n, ci.low * (n - 100) / n, ci.high * (n - 100) / n))
    code, out, err = run_cli(capsys, "estimate", q2, "--annotator-error", "auto",
                             "--gold-annotator", "nobody")
    assert code == 2 and "--gold-annotator" in err and "nobody" in err


def test_auto_measures_on_every_multiply_labelled_row(capsys, ws_dir, tmp_path, demo_csv):
    """Issue 32: --annotator-error auto measured only the --double rows. A round with 20
    double rows whose second annotator also labelled 30 other queued rows: 50 pairs, 5 of them
    disagreeing (annotator 2 wrong on 5 of the 30), eta from D = 5/50."""
    q, gold = _labelled_round(capsys, tmp_path, demo_csv, "--double", 20)
    sent = pd.read_csv(tmp_path / "q_to_label.csv")
    first = sent[sent["annotator"] == 1][["sample_id"]].merge(gold, on="sample_id")
    double = set(sent.loc[sent["annotator"] == 2, "sample_id"])
    extra = first[~first["sample_id"].isin(double)].iloc[:30]
    second = pd.concat([first[first["sample_id"].isin(double)], extra])
    second.loc[second.index[-5:], "label"] = 1 - second.loc[second.index[-5:], "label"]
    path = tmp_path / "back.csv"
    pd.concat([first.assign(annotator="1"), second.assign(annotator="2")]).to_csv(path,
                                                                                 index=False)
    q2 = tmp_path / "q2.csv"
    code, _, err = run_cli(capsys, "labels", q, "--from", path, "--annotator-col", "annotator",
                           "-o", q2)
    assert code == 0, err
    code, out, err = run_cli(capsys, "estimate", q2, "--annotator-error", "auto", "--json")
    assert code == 0, err
    e = json.loads(out)["annotator_error"]
    assert (e["source"], e["n_items"], e["n_disagree"]) == ("double", 50, 5)
    assert e["annotator_eta"] == pytest.approx((1 - (1 - 2 * 5 / 50) ** 0.5) / 2, abs=1e-12)
