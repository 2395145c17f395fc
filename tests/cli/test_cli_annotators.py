"""Several annotators' files into one round: accumulation, aggregation, agreement, bad input.

Oracles: ``krippendorff.alpha``, ``statsmodels``' Fleiss' kappa, scikit-learn's Cohen's kappa,
hand-worked majorities."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.cli.cli_support import run_cli

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")

N = 30


def _round(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"sample_id": [f"s{i}" for i in range(N)],
                       "machine_label": rng.choice(["ok", "bad"], N),
                       "machine_confidence": rng.uniform(0.5, 1, N),
                       "selection": ["routed"] * N})
    path = tmp_path / "round.csv"
    df.to_csv(path, index=False)
    return path


def _annotator_files(tmp_path):
    """Three annotators: a labels every row, b the first 20, c rows 10-29; known truth."""
    rng = np.random.default_rng(1)
    truth = rng.choice(["ok", "bad"], N)
    flip = {"ok": "bad", "bad": "ok"}
    files = {}
    for name, rows, err in (("a", range(N), 0.1), ("b", range(20), 0.2), ("c", range(10, N), 0.3)):
        lab = [flip[truth[i]] if rng.random() < err else truth[i] for i in rows]
        df = pd.DataFrame({"sample_id": [f"s{i}" for i in rows], "label": lab,
                           "annotator": name, "seconds": rng.uniform(5, 60, len(lab)).round(1)})
        files[name] = df
        df.to_csv(tmp_path / f"{name}.csv", index=False)
    both = pd.concat(list(files.values()), ignore_index=True)
    both.to_csv(tmp_path / "all.csv", index=False)
    return files, both


def _labels(capsys, path, src, out, *extra):
    code, text, err = run_cli(capsys, "labels", path, "--from", src, "--annotator-col",
                              "annotator", "-o", out, *extra)
    assert code == 0, err
    return text


def test_files_one_after_the_other_equal_one_file_with_all(capsys, tmp_path):
    path = _round(tmp_path)
    _annotator_files(tmp_path)
    one = tmp_path / "one.csv"
    _labels(capsys, path, tmp_path / "all.csv", one)
    seq = tmp_path / "seq.csv"
    for name in ("a", "b", "c"):
        _labels(capsys, path, tmp_path / f"{name}.csv", seq)  # from the queue each time
    seq2 = tmp_path / "seq2.csv"
    _labels(capsys, path, tmp_path / "c.csv", seq2)
    for name in ("b", "a"):
        _labels(capsys, seq2, tmp_path / f"{name}.csv", seq2)  # in place, other order
    ref = pd.read_csv(one)
    pd.testing.assert_frame_equal(pd.read_csv(seq), ref)
    pd.testing.assert_frame_equal(pd.read_csv(seq2), ref)
    # hand check: the majority of each row's votes, ties left empty
    votes = pd.read_csv(tmp_path / "all.csv")
    for sid, g in votes.groupby("sample_id"):
        counts = g["label"].value_counts()
        want = counts.index[0] if len(counts) == 1 or counts.iloc[0] > counts.iloc[1] else None
        got = ref.loc[ref["sample_id"] == sid, "human_label"].iloc[0]
        assert (None if pd.isna(got) else got) == want


def test_reimport_is_idempotent_and_a_changed_label_replaces_it(capsys, tmp_path):
    path = _round(tmp_path)
    files, _ = _annotator_files(tmp_path)
    out = tmp_path / "o.csv"
    _labels(capsys, path, tmp_path / "a.csv", out)
    _labels(capsys, out, tmp_path / "b.csv", out)
    first = pd.read_csv(out)
    stored = pd.read_csv(tmp_path / "o.csv.labels.csv")
    text = _labels(capsys, out, tmp_path / "b.csv", out)
    assert "0 new labels added to 50 stored ones; 20 were imported before, unchanged" in text
    pd.testing.assert_frame_equal(pd.read_csv(out), first)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "o.csv.labels.csv"), stored)
    # b changes its mind on s0: replaced, said so; s0 is then a (a, b) pair
    fix = files["b"].iloc[[0]].copy()
    old = fix["label"].iloc[0]
    fix["label"] = {"ok": "bad", "bad": "ok"}[old]
    fix.to_csv(tmp_path / "fix.csv", index=False)
    text = _labels(capsys, out, tmp_path / "fix.csv", out)
    assert "1 labels replace the same annotator's earlier label (annotator 'b'" in text
    assert f"'s0' {old} -> {fix['label'].iloc[0]}" in text
    after = pd.read_csv(tmp_path / "o.csv.labels.csv")
    assert len(after) == 50
    assert after.loc[(after.sample_id == "s0") & (after.annotator == "b"), "label"].item() == \
        fix["label"].iloc[0]


def test_json_alpha_kappas_and_per_annotator_against_the_oracles(capsys, tmp_path):
    krippendorff = pytest.importorskip("krippendorff")
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    path = _round(tmp_path)
    files, both = _annotator_files(tmp_path)
    out = tmp_path / "o.csv"
    res = json.loads(_labels(capsys, path, tmp_path / "all.csv", out, "--aggregate",
                             "dawid-skene", "--json"))
    wide = both.pivot(index="annotator", columns="sample_id", values="label")
    data = wide.replace({"ok": 0.0, "bad": 1.0}).astype(float).to_numpy()
    a = res["krippendorff_alpha"]
    assert a["estimate"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-9)
    assert a["ci_low"] < a["estimate"] < a["ci_high"]
    # Fleiss on the rows all three labelled (constant raters: statsmodels' form)
    three = wide.loc[:, wide.notna().all()].T.replace({"ok": 0, "bad": 1}).astype(int)
    assert len(three) == 10
    res3 = json.loads(run_cli(capsys, "annotators", out, "--json", "--boot", "0")[1])
    pair = {tuple(p["annotators"]): p for p in res3["pairwise"]}
    ab = wide.loc[["a", "b"]].dropna(axis=1)
    assert pair[("a", "b")]["cohen_kappa"] == pytest.approx(
        cohen_kappa_score(ab.loc["a"], ab.loc["b"]), abs=1e-12)
    assert pair[("a", "b")]["n_items"] == 20
    table, _ = aggregate_raters(three.to_numpy())
    sub = files["a"][files["a"].sample_id.isin(three.index)]
    assert len(sub) == 10 and fleiss_kappa(table, method="fleiss") == pytest.approx(
        _fleiss_of(three), abs=1e-12)
    per = {p["annotator"]: p for p in res["per_annotator"]}
    assert [per[k]["items"] for k in "abc"] == [30, 20, 20]
    assert per["a"]["median_seconds"] == pytest.approx(float(files["a"]["seconds"].median()))
    assert sum(map(sum, per["c"]["confusion"]["matrix"])) == 20
    assert res["aggregate"] == "dawid-skene" and res["progress"]["new_votes"] == 70


def _fleiss_of(three):
    from core.evaluation.annotators.agreement import fleiss_kappa as ours

    return ours([dict(zip("abc", row)) for row in three.to_numpy()])[1]


def test_gold_annotator_resolves_ties_and_is_the_reference(capsys, tmp_path):
    path = _round(tmp_path)
    pd.DataFrame({"sample_id": ["s0", "s0", "s1", "s1"], "label": ["ok", "bad", "ok", "ok"],
                  "annotator": ["a", "b", "a", "b"]}).to_csv(tmp_path / "ab.csv", index=False)
    out = tmp_path / "o.csv"
    text = _labels(capsys, path, tmp_path / "ab.csv", out)
    assert "1 samples tie and need adjudication: s0" in text
    pd.DataFrame({"sample_id": ["s0", "s1"], "label": ["bad", "bad"],
                  "annotator": ["judge", "judge"]}).to_csv(tmp_path / "j.csv", index=False)
    res = json.loads(_labels(capsys, out, tmp_path / "j.csv", out, "--gold-annotator", "judge",
                             "--json"))
    table = pd.read_csv(out)
    assert table["human_label"].tolist()[:2] == ["bad", "bad"]  # gold wins over a, b's "ok"
    per = {p["annotator"]: p for p in res["per_annotator"]}
    assert set(per) == {"a", "b"} and res["n_gold"] == 2
    assert per["a"]["agreement_with_gold"] == 0.0 and per["b"]["agreement_with_gold"] == 0.5


@pytest.mark.parametrize("rows, extra, message", [
    ({"sample_id": ["s0"], "label": ["ok"], "annotator": ["a"]}, ["--annotator-col", "who"],
     "lacks column 'who' (annotator)"),
    ({"sample_id": ["s0", "s1"], "label": ["ok", "maybe"], "annotator": ["a", "a"]},
     ["--annotator-col", "annotator"], "'maybe' (sample ids 's1')"),
    ({"sample_id": ["s0", "s0"], "label": ["ok", "bad"], "annotator": ["a", "a"]},
     ["--annotator-col", "annotator"], "more than one row for sample_id 's0' by annotator 'a'"),
    ({"sample_id": ["s0", "s1"], "label": ["ok", "ok"], "annotator": ["a", "a"],
      "seconds": [3, -2]}, ["--annotator-col", "annotator"], "row 2 (-2)"),
    ({"sample_id": ["s0", "s1"], "label": ["ok", "ok"], "annotator": ["a", "a"],
      "seconds": [3, 1e7]}, ["--annotator-col", "annotator"], "row 2 (1e+07)"),
    ({"sample_id": ["s0", "s1"], "label": ["ok", "ok"], "annotator": ["a", "a"],
      "secs": ["3", "soon"]}, ["--annotator-col", "annotator", "--time-col", "secs"],
     "not a number on row 2"),
])
def test_bad_input_exits_2_naming_rows_and_stores_nothing(capsys, tmp_path, rows, extra,
                                                          message):
    path = _round(tmp_path)
    pd.DataFrame(rows).to_csv(tmp_path / "l.csv", index=False)
    out = tmp_path / "o.csv"
    code, _, err = run_cli(capsys, "labels", path, "--from", tmp_path / "l.csv", "-o", out,
                           *extra)
    assert code == 2 and message in err, err
    assert not out.exists() and not (tmp_path / "o.csv.labels.csv").exists()


def test_label_studio_lead_time_is_stored(capsys, tmp_path):
    path = _round(tmp_path)

    def ann(who, choice, lead):
        return {"completed_by": who, "was_cancelled": False, "lead_time": lead, "result": [
            {"from_name": "label", "to_name": "x", "type": "choices",
             "value": {"choices": [choice]}}]}

    export = [{"id": 1, "data": {"sample_id": "s0"},
               "annotations": [ann(1, "ok", 12.5), ann(2, "ok", 30.0)]},
              {"id": 2, "data": {"sample_id": "s1"}, "annotations": [ann(1, "bad", 7.25)]}]
    f = tmp_path / "export.json"
    f.write_text(json.dumps(export))
    out = tmp_path / "o.csv"
    res = json.loads(run_cli(capsys, "labels", path, "--from", f, "-o", out, "--json")[1])
    stored = pd.read_csv(tmp_path / "o.csv.labels.csv")
    assert stored["seconds"].tolist() == [12.5, 30.0, 7.25]
    per = {p["annotator"]: p for p in res["per_annotator"]}
    assert per["1"]["median_seconds"] == pytest.approx((12.5 + 7.25) / 2)
    export[1]["annotations"][0]["lead_time"] = -1
    f.write_text(json.dumps(export))
    code, _, err = run_cli(capsys, "labels", path, "--from", f, "-o", out)
    assert code == 2 and "task 2 (lead_time) (-1)" in err


def test_annotators_without_stored_labels_and_the_choices_match_core(capsys, tmp_path):
    from core.cli import cmd_labels
    from core.evaluation.annotators.aggregate import AGGREGATES
    from core.evaluation.annotators.alpha import LEVELS

    assert cmd_labels.AGGREGATES == AGGREGATES and cmd_labels.LEVELS == LEVELS
    code, _, err = run_cli(capsys, "annotators", _round(tmp_path))
    assert code == 2 and "round.csv.labels.csv not found" in err


def test_annotators_boot_1_interval_holds_its_estimate(capsys, tmp_path):
    """Issue 32's fuzz: ``annotators --boot 1`` printed an alpha interval that excluded its
    estimate. The estimate is krippendorff's (oracle); the interval holds it."""
    krippendorff = pytest.importorskip("krippendorff")
    path = _round(tmp_path)
    _, both = _annotator_files(tmp_path)
    out = tmp_path / "o.csv"
    _labels(capsys, path, tmp_path / "all.csv", out)
    code, text, err = run_cli(capsys, "annotators", out, "--json", "--boot", "1")
    assert code == 0, err
    a = json.loads(text)["krippendorff_alpha"]
    wide = both.pivot(index="annotator", columns="sample_id", values="label")
    data = wide.replace({"ok": 0.0, "bad": 1.0}).astype(float).to_numpy()
    assert a["estimate"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-9)
    assert a["ci_low"] <= a["estimate"] <= a["ci_high"]
