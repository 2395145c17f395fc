"""``hmceval agreement``: the JSON report, NaN vs null, errors (values worked out by hand)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from core.cli import main
from tests.core.rsmtool_support import EXPERIMENTS as EXPERIMENT_NAMES


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def table(tmp_path):
    # H = [1,2,3,4], M = [2.4,1.6,3,5] (rounds half to even to [2,2,3,5]), H2 only on rows 1, 2, 4
    path = tmp_path / "scores.csv"
    path.write_text(
        "gold,machine,second,lang\n"
        "1,2.4,2,en.us\n"
        "2,1.6,2,en.us\n"
        "3,3.0,,de.ch\n"
        "4,5.0,3,de.ch\n"
    )
    return path


def test_report_keys_and_values(table, capsys):
    code, out, err = _run(
        ["agreement", str(table), "--human", "gold", "--system", "machine", "--human2", "second",
         "--group", "lang", "--rounded", "--json"],
        capsys,
    )
    assert code == 0, err
    rep = json.loads(out)
    assert list(rep) == ["responses", "eval", "consistency", "degradation", "disattenuated_correlations",
                         "true_score", "eval_by_lang", "fairness_by_lang", "consistency_by_lang",
                         "disattenuated_correlations_by_lang"]
    # degradation (RSMTool: human-system minus human-human): exact 50 - 100/3, adjacent 100 - 100
    assert rep["degradation"]["exact_agr"] == pytest.approx(50 / 3) and rep["degradation"]["adj_agr"] == 0.0
    # by group, 'All data' first; de.ch has one double-scored response: r_HH NaN (printed NaN)
    assert list(rep["disattenuated_correlations_by_lang"]) == ["All data", "de.ch", "en.us"]
    assert math.isnan(rep["disattenuated_correlations_by_lang"]["de.ch"]["corr_disattenuated"])
    assert rep["responses"]["N_total"] == 4 and rep["responses"]["N"] == 4
    assert rep["true_score"]["N raters"] == 2
    # consistency by group: de.ch has one double-scored response (H 4, H2 3): exact 0, adjacent 100;
    # en.us: H = [1, 2], H2 = [2, 2]: exact 50; kappa: disagreement 1/2, p = (1/2, 1/2),
    # q = (0, 1), chance agreement 1/2 -> 0
    by = rep["consistency_by_lang"]
    assert list(by) == ["All data", "de.ch", "en.us"]
    # 'All data' first, as rsmeval writes it: the whole set's consistency (rows 1, 2, 4). Its DSM
    # standardises H with all four responses (mean 2.5, sd sqrt(5/3)) and H2 with its three
    # (mean 7/3): mean z_H2 = 0, mean z_H = (7/3 - 2.5) / sqrt(5/3) -> DSM (1/6) / sqrt(5/3)
    assert by["All data"]["N"] == 3 and by["All data"]["exact_agr"] == pytest.approx(100 / 3)
    assert by["All data"]["DSM"] == pytest.approx((1 / 6) / math.sqrt(5 / 3))
    assert by["de.ch"]["N"] == 1 and by["de.ch"]["exact_agr"] == 0.0 and by["de.ch"]["adj_agr"] == 100.0
    assert by["en.us"]["exact_agr"] == 50.0 and by["en.us"]["kappa"] == 0.0
    ev = rep["eval"]
    # rounded M = [2, 2, 3, 5]: |M - H| = [1, 0, 0, 1]: exact 50 %, adjacent 100 %, RMSE sqrt(1/2)
    assert ev["N"] == 4 and ev["exact_agr"] == 50.0 and ev["adj_agr"] == 100.0
    assert ev["RMSE"] == pytest.approx(math.sqrt(0.5))
    # DSM by group: -1/sqrt(2) + 1/sqrt(5/3) for en.us (rows 1-2) and its negative for de.ch
    dsm = -1 / math.sqrt(2) + 1 / math.sqrt(5 / 3)
    assert rep["eval_by_lang"]["en.us"]["DSM"] == pytest.approx(dsm)
    assert rep["eval_by_lang"]["de.ch"]["DSM"] == pytest.approx(-dsm)
    assert list(rep["eval_by_lang"]) == ["All data", "de.ch", "en.us"]
    whole = rep["eval_by_lang"]["All data"]
    assert whole["N"] == 4 and whole["exact_agr"] == 50.0 and whole["DSM"] == pytest.approx(0.0, abs=1e-12)
    # consistency on rows 1, 2, 4: H = [1, 2, 4], H2 = [2, 2, 3]: exact 1/3, adjacent 3/3
    assert rep["consistency"]["N"] == 3
    assert rep["consistency"]["exact_agr"] == pytest.approx(100 / 3)
    assert rep["consistency"]["adj_agr"] == 100.0
    # rater error variance = ((1-2)^2 + 0 + (4-3)^2) / (2 * 3) = 1/3
    ts = rep["true_score"]
    assert ts["N_multiple"] == 3 and ts["N_single"] == 1
    assert ts["variance_of_errors"] == pytest.approx(1 / 3)
    fair = rep["fairness_by_lang"]
    assert fair["base_category"] == "de.ch"  # a tie of 2 and 2: first by name
    assert set(fair) >= {"osa", "osd", "csd"}
    for key in ("osa", "osd", "csd"):
        assert {"R2", "sig", "estimates"} <= set(fair[key])
        assert list(fair[key]["estimates"]) == ["Intercept (de.ch)", "en.us"]
    # osd: errors de.ch [0, 1] mean 1/2, en.us [1, 0] mean 1/2 -> coefficient 0
    assert fair["osd"]["estimates"]["en.us"]["estimate"] == pytest.approx(0.0, abs=1e-12)


def test_nan_printed_as_nan_and_missing_as_null(tmp_path, capsys):
    # constant human scores: corr NaN, SMD NaN (printed NaN); no second rater: PRMSE missing (null);
    # DSM missing (null) because the population sd of H is 0
    path = tmp_path / "flat.csv"
    path.write_text("h,m,g\n2,1,a\n2,3,a\n2,2,b\n2,2,b\n")
    code, out, err = _run(["agreement", str(path), "--human", "h", "--system", "m", "--group", "g", "--json"], capsys)
    assert code == 0, err
    assert '"corr": NaN' in out
    assert '"prmse_true": null' in out
    assert '"DSM": null' in out
    rep = json.loads(out)
    assert math.isnan(rep["eval"]["SMD"])
    assert rep["true_score"]["prmse_true"] is None
    assert "consistency" not in rep


def test_true_score_nan_distinct_from_missing(tmp_path, capsys):
    # a single, double-scored response: the error variance is defined ((1 - 2)^2 / 2 = 1/2) but
    # the true-score variance denominator c. - sum c^2 / c. = 2 - 4/2 = 0: NaN, not null
    path = tmp_path / "one.csv"
    path.write_text("h,m,h2\n1,1,2\n")
    code, out, err = _run(["agreement", str(path), "--human", "h", "--system", "m", "--human2", "h2", "--json"], capsys)
    assert code == 0, err
    assert '"true_score_var": NaN' in out and '"prmse_true": NaN' in out
    assert '"variance_of_errors": 0.5' in out


def test_shared_data_machine_vs_gold(shared_data, capsys):
    # HMCEval Table 1: machine accuracy 0.862 on the 5,673 MDRDC test responses
    path = shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv"
    code, out, err = _run(
        ["agreement", str(path), "--human", "target", "--system", "machine_predict", "--group", "turns",
         "--no-exclude-zero-scores", "--json"],
        capsys,
    )
    assert code == 0, err
    rep = json.loads(out)
    assert rep["eval"]["N"] == 5673 and rep["responses"]["excluded"]["human_zero"] == 0
    assert round(rep["eval"]["exact_agr"] / 100, 3) == 0.862
    assert rep["eval_by_turns"]["All data"]["N"] == 5673
    assert sum(row["N"] for k, row in rep["eval_by_turns"].items() if k != "All data") == 5673


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("h,m\n1,1\n", ["--human", "h", "--system", "x"], "column 'x' not found"),
        ("h,m\n1,abc\n2,\n", ["--human", "h", "--system", "m"],
         "no responses left after excluding missing or non-numeric system scores (column 'm')"),
        ("h,m\n0,1\n,2\n", ["--human", "h", "--system", "m"],
         "no responses left after excluding missing or non-numeric or zero human scores (column 'h')"),
        ("h,m\n1,1\n2,1e308\n", ["--human", "h", "--system", "m"],
         "column 'm' (--system) has scores beyond 1e+15 in magnitude in row 2"),
        ("h,m,h2\n1,1,2\n2,2,-1e300\n", ["--human", "h", "--system", "m", "--human2", "h2"],
         "column 'h2' (--human2) has scores beyond 1e+15 in magnitude in row 2"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--trim-min", "1"], "trim_min and trim_max go together"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--trim-min", "5", "--trim-max", "1"],
         "trim_min (5) is larger than trim_max (1)"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--trim-min", "1", "--trim-max", "nan"],
         "--trim-max must be"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--trim-min", "1", "--trim-max", "2",
                        "--trim-tolerance", "-1"], "--trim-tolerance must be"),
        ("h,m,c\n1,1,a\n", ["--human", "h", "--system", "m", "--candidate", "c",
                            "--min-items-per-candidate", "0"], "--min-items-per-candidate must be between 1"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--min-items-per-candidate", "2"],
         "min_items_per_candidate needs a candidate_column"),
        ("h,m,ok\n1,1,0\n", ["--human", "h", "--system", "m", "--flag", "ok=1"],
         "no responses left after filtering on the flag columns"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--flag", "ok"], "--flag: expected COL=VALUE"),
        ("h,m\n1,1\n", ["--human", "h", "--system", "m", "--flag", "nope=1"], "flag column 'nope' not found"),
        ("h,m,c\n1,1,a\n2,2,b\n", ["--human", "h", "--system", "m", "--candidate", "c",
                                  "--min-items-per-candidate", "2"], "no candidate (column 'c') has 2 or more"),
        ("h,m,g\n1,1,a\n2,2,\n3,3,b\n", ["--human", "h", "--system", "m", "--group", "g"],
         "group column 'g': missing group label in row 2"),
        ("h,m,g\n1,1,a\n2,2,a\n", ["--human", "h", "--system", "m", "--group", "g"], "at least two groups"),
    ],
)
def test_bad_input_exit_2(tmp_path, capsys, content, args, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = _run(["agreement", str(path), *args, "--json"], capsys)
    assert code == 2
    assert out == ""
    assert message in err


def test_missing_file_exit_2(tmp_path, capsys):
    code, _, err = _run(["agreement", str(tmp_path / "nope.csv"), "--human", "h", "--system", "m", "--json"], capsys)
    assert code == 2 and "not found" in err


def test_raters_mode_gives_consistency_and_no_true_score(tmp_path, capsys):
    import json

    from core.cli import main

    path = tmp_path / "raters.csv"
    path.write_text("h1,h2\n1,1\n2,2\n3,3\n4,3\n")
    assert main(["agreement", str(path), "--human", "h1", "--system", "h2", "--raters", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "true_score" not in report
    # 3 of 4 pairs equal; all 4 within one point
    assert report["consistency"]["exact_agr"] == 75.0 and report["consistency"]["adj_agr"] == 100.0
    assert report["consistency"]["N"] == 4 and report["eval"]["exact_agr"] == 75.0


def test_dropped_responses_are_counted_not_refused(tmp_path, capsys):
    # rows 2 (missing H), 3 (text H), 4 (H = 0), 5 (text M) are excluded as rsmeval excludes them
    path = tmp_path / "drop.csv"
    path.write_text("h,m\n3,3\n,1\nx,1\n0,2\n4,y\n2,2\n")
    code, out, err = _run(["agreement", str(path), "--human", "h", "--system", "m", "--json"], capsys)
    assert code == 0, err
    rep = json.loads(out)
    assert rep["responses"]["N_total"] == 6 and rep["responses"]["N"] == 2
    assert rep["responses"]["excluded"]["human_missing"] == 2
    assert rep["responses"]["excluded"]["human_zero"] == 1
    assert rep["responses"]["excluded"]["system_missing"] == 1
    assert rep["eval"]["N"] == 2 and rep["eval"]["exact_agr"] == 100.0
    code, out, err = _run(["agreement", str(path), "--human", "h", "--system", "m",
                           "--no-exclude-zero-scores", "--json"], capsys)
    rep = json.loads(out)
    # H = [3, 0, 2], M = [3, 2, 2]
    assert rep["eval"]["N"] == 3 and rep["eval"]["exact_agr"] == pytest.approx(200 / 3)


def test_rsmtool_options_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "opts.csv"
    path.write_text("h,m,ok,cand\n1,-3,1,a\n4,9,1.0,a\n2,2.5,0,b\n3,3.4,1,b\n2,2,1,c\n")
    code, out, err = _run(["agreement", str(path), "--human", "h", "--system", "m", "--flag", "ok=1",
                           "--candidate", "cand", "--min-items-per-candidate", "2",
                           "--trim-min", "1", "--trim-max", "4", "--rounded", "--json"], capsys)
    assert code == 0, err
    rep = json.loads(out)
    # flag drops row 3; candidates b and c are then left with 1 response each: rows 4, 5 out
    assert rep["responses"]["excluded"]["flag"] == 1 and rep["responses"]["excluded"]["candidate"] == 2
    # kept rows 1, 2: M trimmed to [0.5002, 4.4998], rounded to [1, 4] = H
    assert rep["eval"]["N"] == 2 and rep["eval"]["exact_agr"] == 100.0
    assert rep["responses"]["trim"]["trim_tolerance"] == 0.4998


def test_nested_jsonlines_input(tmp_path, capsys):
    # the layout of RSMTool's predictions_raw_nested.jsonlines
    path = tmp_path / "pred.jsonlines"
    path.write_text('{"id":"R1","y":3.9,"metadata":{"h1":4.0,"h2":4.0}}\n'
                    '{"id":"R2","y":2.2,"metadata":{"h1":2.0,"h2":3.0}}\n'
                    '{"id":"R3","y":3.0,"metadata":{"h1":3.0,"h2":null}}\n')
    for human in ("h1", "metadata.h1"):
        code, out, err = _run(["agreement", str(path), "--human", human, "--system", "y",
                               "--human2", "metadata.h2", "--rounded", "--json"], capsys)
        assert code == 0, err
        rep = json.loads(out)
        # rounded y = [4, 2, 3] = h1; two double-scored responses, one exact (4/4)
        assert rep["eval"]["exact_agr"] == 100.0 and rep["consistency"]["N"] == 2
        assert rep["consistency"]["exact_agr"] == 50.0 and rep["true_score"]["N raters"] == 2


def test_help_documents_the_bounds(capsys):
    with pytest.raises(SystemExit):
        main(["agreement", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "0.4998" in text and "1 to 1,000,000" in text and "--no-exclude-zero-scores" in text


def test_second_rater_zeros_kept_with_no_exclude_zero_scores(tmp_path, capsys):
    # RSMTool's lr-eval-with-scaling-and-h2-keep-zeros: with exclude_zero_scores false the second
    # rater's zeros are scores (its consistency: N 200, h2_min 0.0), not absent ratings
    path = tmp_path / "zeros.csv"
    path.write_text("h1,m,h2\n1,1,0\n2,2,2\n3,3,3\n4,4,4\n")
    argv = ["agreement", str(path), "--human", "h1", "--system", "m", "--human2", "h2", "--json"]
    code, out, err = _run(argv + ["--no-exclude-zero-scores"], capsys)
    assert code == 0, err
    rep = json.loads(out)
    assert rep["consistency"]["N"] == 4 and rep["consistency"]["h2_min"] == 0.0
    assert rep["true_score"]["N_multiple"] == 4
    # by default (RSMTool's exclude_zero_scores true) the 0 counts as no second rating
    code, out, err = _run(argv, capsys)
    rep = json.loads(out)
    assert rep["consistency"]["N"] == 3 and rep["consistency"]["h2_min"] == 2.0
    assert rep["responses"]["human2_set_missing"]["zero"] == 1


def test_more_than_100_score_points_exit_2_naming_the_column(tmp_path, capsys):
    """The table loader's class limit (core.data.contract.MAX_CLASSES, 100) applies to the score
    points kappa counts (finite scores rounded half to even): 20,000 distinct scores asked numpy
    for 3 GB at once (issue 24). 100 points pass, 101 are refused naming the column and option;
    continuous scores that round to a few points are not refused."""
    many = tmp_path / "many.csv"
    rows = [f"{i},{i % 5 + 1},{(i % 7) + 0.5 + i / 1000}" for i in range(1, 102)]
    many.write_text("h,s,c\n" + "\n".join(rows) + "\n")  # h: 101 points; c: 1.5..7.6 -> 8 points
    code, out, err = _run(["agreement", str(many), "--human", "h", "--system", "s", "--json"], capsys)
    assert code == 2 and out == ""
    assert "'h' (--human)" in err and "101 distinct score points" in err and "at most 100" in err
    code, out, err = _run(["agreement", str(many), "--human", "s", "--system", "h", "--json"], capsys)
    assert code == 2 and "'h' (--system)" in err
    code, out, err = _run(["agreement", str(many), "--human", "s", "--system", "c", "--json"], capsys)
    assert code == 0, err
    hundred = tmp_path / "hundred.csv"
    hundred.write_text("h,s\n" + "\n".join(f"{i},{i}" for i in range(1, 101)) + "\n")
    code, out, err = _run(["agreement", str(hundred), "--human", "h", "--system", "s", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["eval"]["kappa"] == 1.0  # identical scores: a perfect agreement


# ------------------------------------------------------------------------------------------
# --tables: rsmeval's tables, checked against RSMTool's own expected outputs (tests/data/rsmtool)

def _rsmtool_args(name: str, tables) -> list[str]:
    """The command line of one of RSMTool's rsmeval experiments (its configuration file)."""
    from tests.core.rsmtool_support import DATA

    (cfg_path,) = (DATA / "experiments" / name).glob("*.json")
    cfg = json.loads(cfg_path.read_text())
    files = DATA / "files"
    argv = ["agreement", str(files / cfg["predictions_file"].rsplit("/", 1)[-1]),
            "--human", cfg["human_score_column"], "--system", cfg["system_score_column"],
            "--trim-min", str(cfg["trim_min"]), "--trim-max", str(cfg["trim_max"]),
            "--tables", str(tables), "--file-format", cfg.get("file_format", "csv"),
            "--experiment-id", cfg["experiment_id"], "--id-column", cfg.get("id_column", "spkitemid"), "--json"]
    for g in cfg.get("subgroups", "").split(","):
        if g.strip():
            argv += ["--group", g.strip()]
    if cfg.get("scale_with") in ("asis", "raw"):
        argv += ["--scale-with", cfg["scale_with"]]
    elif cfg.get("scale_with"):
        argv += ["--scale-with", str(files / cfg["scale_with"].rsplit("/", 1)[-1])]
    return argv


@pytest.mark.parametrize("name", ["lr-eval-with-xlsx-output", "lr-eval-xlsx-input-files",
                                  "lr-eval-scale-raw"])
def test_tables_equal_rsmtools_expected_files(name, tmp_path, capsys):
    # xlsx output (one workbook per table), xlsx input scaled with an xlsx training table, and
    # scale_with raw (issue 32: --scale-with raw was read as a file name)
    from tests.core.rsmtool_support import (DATA, check_column_orders, check_row_orders, compare_folder,
                                            filter_metrics_files)

    argv = _rsmtool_args(name, tmp_path)
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    rep = json.loads(out)  # stdout: the JSON report only
    assert rep["eval"]["N"] == 200
    fmt = argv[argv.index("--file-format") + 1]
    counts = compare_folder(DATA / "experiments" / name / "output", tmp_path, fmt)
    assert counts["wrong"] == [] and counts["missing"] == [] and counts["text_wrong"] == []
    assert counts["equal"] == counts["numbers"] > 1000 and counts["extra"] == []
    assert check_row_orders(name, tmp_path, fmt) == 0  # every file's rows in rsmeval's order
    # every file's columns in RSMTool's files' order (its 5 in filter_metrics' order aside)
    assert check_column_orders(name, tmp_path, fmt) == filter_metrics_files(name)
    assert f"wrote {len(list(tmp_path.iterdir()))} tables" in err


def test_tables_json_is_the_report_without_tables(tmp_path, table, capsys):
    base = ["agreement", str(table), "--human", "gold", "--system", "machine", "--group", "lang", "--json"]
    _, plain, _ = _run(base, capsys)
    code, out, err = _run(base + ["--trim-min", "1", "--trim-max", "5", "--tables", str(tmp_path)], capsys)
    assert code == 0, err
    _, trimmed, _ = _run(base + ["--trim-min", "1", "--trim-max", "5"], capsys)
    assert out == trimmed and json.loads(plain)["eval"]["N"] == 4
    # without scale_with rsmeval reports the raw score types; 'All data' first by group
    assert (tmp_path / "agreement_eval.csv").read_text().splitlines()[1].startswith('"raw",4,')
    by_lang = pd.read_csv(tmp_path / "agreement_eval_by_lang.csv", index_col=0)
    assert list(by_lang.index) == ["All data", "de.ch", "en.us"] and by_lang.loc["All data", "N"] == 4
    # the columns sorted by name, as RSMTool's files list them
    assert list(by_lang.columns[:4]) == ["DSM.raw_trim", "DSM.raw_trim_round", "N", "R2.raw_trim"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--tables", "DIR"], "--tables needs --trim-min and --trim-max"),
    (["--tables", "DIR/missing", "--trim-min", "1", "--trim-max", "5"], "does not exist or is not a folder"),
    (["--tables", "DIR", "--trim-min", "1", "--trim-max", "5", "--experiment-id", "../x"], "experiment id"),
    (["--tables", "DIR", "--trim-min", "1", "--trim-max", "5", "--raters"], "does not go with --raters"),
    (["--scale-with", "asis"], "give --tables DIR"),
    (["--id-column", "id"], "give --tables DIR"),
    (["--tables", "DIR", "--trim-min", "1", "--trim-max", "5", "--scale-with", "DIR/none.csv"], "none.csv"),
])
def test_tables_option_errors_exit_2_naming_the_option(extra, message, tmp_path, table, capsys):
    extra = [a.replace("DIR", str(tmp_path)) for a in extra]
    code, out, err = _run(["agreement", str(table), "--human", "gold", "--system", "machine", "--json", *extra],
                          capsys)
    assert code == 2 and out == "" and message in err
    assert "Traceback" not in err and list(tmp_path.glob("agreement_*")) == []


def test_tables_refuses_a_bad_file_format(tmp_path, table, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["agreement", str(table), "--human", "gold", "--system", "machine", "--tables", str(tmp_path),
              "--trim-min", "1", "--trim-max", "5", "--file-format", "xls"])
    assert exc.value.code == 2 and "invalid choice: 'xls'" in capsys.readouterr().err


def test_tables_xlsx_with_a_control_character_exits_2_before_any_file(tmp_path, capsys):
    """Issue 32's fuzz: a group value with a control character (U+0001) raised openpyxl's
    IllegalCharacterError (a traceback) once some tables were written. Exit 2 naming the value
    and the table; no file in the folder; csv still writes it."""
    path = tmp_path / "scores.csv"
    path.write_text("gold,machine,lang\n1,2,a\x01b\n2,2,a\x01b\n3,3,c\n4,4,c\n")
    out = tmp_path / "tables"
    out.mkdir()
    base = ["agreement", str(path), "--human", "gold", "--system", "machine", "--group", "lang",
            "--trim-min", "1", "--trim-max", "4", "--tables", str(out)]
    code, _, err = _run(base + ["--file-format", "xlsx"], capsys)
    assert code == 2 and "Traceback" not in err
    assert "'a\\x01b'" in err and "control character" in err and "by_lang" in err
    assert list(out.iterdir()) == []
    code, _, err = _run(base + ["--file-format", "csv"], capsys)
    assert code == 0, err


def test_tables_refuse_a_symlink_among_the_files_before_writing_any(tmp_path, capsys):
    """Issue 32 item 4 for --tables DIR: a symbolic link at one table's name is refused (exit 2,
    naming it) before the first table is written, and left pointing where it pointed."""
    path = tmp_path / "scores.csv"
    path.write_text("gold,machine\n1,2\n2,2\n3,3\n4,4\n")
    out = tmp_path / "tables"
    out.mkdir()
    target = tmp_path / "kept.txt"
    target.write_text("kept")
    link = out / "agreement_eval.csv"
    link.symlink_to(target)
    code, _, err = _run(["agreement", str(path), "--human", "gold", "--system", "machine",
                         "--trim-min", "1", "--trim-max", "4", "--tables", str(out)], capsys)
    assert code == 2 and str(link) in err and "symbolic link" in err
    assert sorted(p.name for p in out.iterdir()) == ["agreement_eval.csv"]
    assert link.is_symlink() and target.read_text() == "kept"


# ------------------------------------------------------------------------------------------
# --rsmeval-config: RSMTool's own configuration files, run as they are

@pytest.mark.parametrize("name", EXPERIMENT_NAMES)
def test_rsmeval_config_runs_each_experiments_own_file(name, tmp_path, capsys, monkeypatch):
    """Each of RSMTool's 26 rsmeval experiments, its configuration file given as it is (paths
    such as ../../files/... relative to the file, not to the current folder): every expected
    file, every number and text equal, no row or column RSMTool's file lacks, every file's rows
    in RSMTool's order (but for the tied estimates of tests/core/test_rsm_rsmeval_experiments.py),
    every file's columns too (but for RSMTool's 5 in filter_metrics' order, named there)."""
    from tests.core.rsmtool_support import (DATA, TIED_ESTIMATES, check_column_orders, check_row_orders,
                                            compare_folder, filter_metrics_files)

    (cfg_path,) = (DATA / "experiments" / name).glob("*.json")
    cfg = json.loads(cfg_path.read_text())
    monkeypatch.chdir(tmp_path)  # nowhere near the configuration file
    out = tmp_path / "tables"
    out.mkdir()
    code, stdout, err = _run(["agreement", "--rsmeval-config", str(cfg_path), "--tables", str(out)], capsys)
    assert code == 0, err
    assert json.loads(stdout)["responses"]["N_total"] > 0
    fmt = cfg.get("file_format", "csv")
    counts = compare_folder(DATA / "experiments" / name / "output", out, fmt)
    assert counts["files"] > 0
    assert counts["wrong"] == [] and counts["missing"] == [] and counts["text_wrong"] == []
    assert counts["extra"] == []
    assert counts["equal"] == counts["numbers"] > 0
    assert check_row_orders(name, out, fmt) == TIED_ESTIMATES.get(name, 0)
    assert check_column_orders(name, out, fmt) == filter_metrics_files(name)
    assert all(p.name.startswith(cfg["experiment_id"] + "_") for p in out.iterdir())
    assert not (tmp_path / "output").exists()


def test_rsmeval_config_without_tables_writes_to_output_in_the_current_folder(tmp_path, capsys, monkeypatch):
    from tests.core.rsmtool_support import DATA

    (cfg_path,) = (DATA / "experiments" / "lr-eval").glob("*.json")
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["agreement", "--rsmeval-config", str(cfg_path)], capsys)
    assert code == 0, err
    assert (tmp_path / "output" / "lr_evaluation_eval.csv").is_file()
    assert "to output" in err


def _config(tmp_path, **fields):
    """A configuration file in tmp_path/cfg/ reading tmp_path/data/p.csv through ../data/p.csv."""
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    (data / "p.csv").write_text("id,h,s,g\nr1,1,1.2,a\nr2,2,2.4,a\nr3,3,2.9,b\nr4,4,3.6,b\nr5,2,2.2,b\n")
    cfg = {"experiment_id": "x", "predictions_file": "../data/p.csv", "system_score_column": "s",
           "human_score_column": "h", "id_column": "id", "trim_min": 1, "trim_max": 4}
    cfg.update(fields)
    cfg = {k: v for k, v in cfg.items() if v is not None}
    folder = tmp_path / "cfg"
    folder.mkdir(exist_ok=True)
    path = folder / "c.json"
    path.write_text(json.dumps(cfg))
    return path


def test_rsmeval_config_equals_the_same_options_on_the_command_line(tmp_path, capsys):
    path = _config(tmp_path, subgroups="g", exclude_zero_scores="false")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    code, out_cfg, err = _run(["agreement", "--rsmeval-config", str(path), "--tables", str(a)], capsys)
    assert code == 0, err
    code, out_cli, err = _run(["agreement", str(tmp_path / "data" / "p.csv"), "--human", "h", "--system", "s",
                               "--group", "g", "--no-exclude-zero-scores", "--trim-min", "1", "--trim-max", "4",
                               "--id-column", "id", "--experiment-id", "x", "--tables", str(b)], capsys)
    assert code == 0, err
    assert out_cfg == out_cli
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir()) and "x_eval_by_g.csv" in names
    assert all((a / n).read_bytes() == (b / n).read_bytes() for n in names)


@pytest.mark.parametrize(("fields", "message"), [
    ({"trim_maxx": 4}, "field 'trim_maxx': not a field of rsmeval's configuration"),
    ({"trim_min": None}, "field 'trim_min': required"),
    ({"trim_min": "one"}, "field 'trim_min': expected a number"),
    ({"trim_min": 5}, "field 'trim_max': must be above trim_min"),
    ({"file_format": "xls"}, "field 'file_format'"),
    ({"exclude_zero_scores": "maybe"}, "field 'exclude_zero_scores': can only be true or false"),
    ({"subgroups": [1]}, "field 'subgroups'"),
    ({"flag_column": ["s"]}, "field 'flag_column'"),
    ({"predictions_file": "p.csv"}, "field 'predictions_file': file not found"),
    ({"scale_with": "train.csv"}, "field 'scale_with': file not found"),
    ({"min_items_per_candidate": 2}, "field 'min_items_per_candidate': needs 'candidate_column'"),
    ({"rater_error_variance": 0.5}, "field 'rater_error_variance'"),
    ({"use_wandb": True}, "field 'use_wandb'"),
    ({"min_n_per_group": 5}, "field 'min_n_per_group': needs 'subgroups'"),
    ({"experiment_id": "a b"}, "field 'experiment_id'"),
    ({"id_column": "nope"}, "field 'id_column': column 'nope' not found in p.csv"),
    ({"system_score_column": "nope"}, "field 'system_score_column': column 'nope' not found in p.csv"),
    # a column the file lacks, named with its field before the report runs (the messages named
    # the column only: "group column 'nope' not found")
    ({"subgroups": "g, nope"}, "field 'subgroups': column 'nope' not found in p.csv (columns: id, h, s, g)"),
    ({"second_human_score_column": "nope"}, "field 'second_human_score_column': column 'nope'"),
    ({"candidate_column": "nope"}, "field 'candidate_column': column 'nope'"),
    ({"flag_column": {"nope": 1}}, "field 'flag_column': column 'nope'"),
    # a path the system cannot look up (an OSError traceback before; found by the fuzz)
    ({"predictions_file": "x" * 5000}, "field 'predictions_file': not a usable path"),
    ({"human_score_column": "s"}, "as the human score (human_score_column) and as the system score"),
    # one column in two of rsmeval's roles (a KeyError traceback before)
    ({"id_column": "s"}, "column 's' is given as the id column (id_column) and as the system score"),
    ({"second_human_score_column": "s"}, "as the system score (system_score_column) and as the second human"),
    ({"subgroups": "h"}, "as the human score (human_score_column) and as the subgroup (subgroups)"),
])
def test_rsmeval_config_bad_field_exits_2_naming_it(fields, message, tmp_path, capsys):
    path = _config(tmp_path, **fields)
    out = tmp_path / "tables"
    out.mkdir()
    code, stdout, err = _run(["agreement", "--rsmeval-config", str(path), "--tables", str(out)], capsys)
    assert code == 2 and stdout == "" and message in err and "Traceback" not in err
    assert list(out.iterdir()) == []


def test_rsmeval_config_refuses_options_beside_it_and_bad_json(tmp_path, capsys):
    path = _config(tmp_path)
    code, _, err = _run(["agreement", "--rsmeval-config", str(path), "--human", "h", "--trim-min", "0"], capsys)
    assert code == 2 and "do not also give --human, --trim-min" in err
    path.write_text('{"experiment_id": "x", "experiment_id": "y"}')
    code, _, err = _run(["agreement", "--rsmeval-config", str(path)], capsys)
    assert code == 2 and "field 'experiment_id': given twice" in err
    path.write_text("[" * 100_000)
    code, _, err = _run(["agreement", "--rsmeval-config", str(path)], capsys)
    assert code == 2 and "Traceback" not in err
    code, _, err = _run(["agreement", "--rsmeval-config", str(tmp_path / "none.json")], capsys)
    assert code == 2 and "none.json" in err
    code, _, err = _run(["agreement", "--human", "h"], capsys)
    assert code == 2 and "required: path, --system" in err
