"""``hmceval effort``: the HEE random-forest effort model on a per-dialogue table."""

from __future__ import annotations

import argparse
import math
import sys

from core.cli.bounds import check_int
from core.defaults import FLOAT32_MAX, MAX_JOBS, MAX_PERMUTATION_REPEATS, MAX_TREES, SEED_MAX
from core.defaults import (HEE_FOLDS, HEE_MAX_FEATURES, HEE_N_ESTIMATORS, HEE_PERMUTATION_REPEATS,
                           HEE_RANDOM_STATE)

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``effort`` subcommand."""
    p = subparsers.add_parser(
        "effort",
        help="human effort estimation: random-forest model of the annotation time, CV metrics, "
             "correlations, per-sample effort",
        description=(
            f"Fit the HMCEval effort model (random forest, {HEE_N_ESTIMATORS} trees, max_features "
            f"{HEE_MAX_FEATURES}, seed {HEE_RANDOM_STATE}) "
            "of the annotation time per dialogue, min-max normalised to [0, 1], with shuffled "
            "k-fold cross-validation (or the train/test split of --split-col). Prints MSE, "
            "RMSE, MAE and R2 (mean over folds and per fold) and the Pearson/Spearman "
            "correlation of every feature with the real time. -o writes the held-out predicted "
            "effort, one row per sample (turn) with its dialogue's predicted time."
        ),
    )
    p.add_argument("path", help="per-dialogue table (CSV, TSV, JSON, JSONL, Parquet); with "
                                "--campaign-times, the dataset the next round is planned on")
    p.add_argument("--time-col", metavar="COL",
                   help="annotation time of the dialogue (e.g. WorkTimeInSeconds); required "
                        "unless --campaign-times is given")
    p.add_argument("--campaign-times", metavar="LABELS.csv",
                   help="refit the effort model on a campaign's own times instead: the labels "
                        "file hmceval labels or labelstudio pull keeps beside a round table "
                        "(OUT.labels.csv: sample_id, seconds per label, e.g. Label Studio's "
                        "lead_time). Each labelled sample's time is the median over its "
                        "annotators; the random forest learns it from features every sample "
                        "of PATH has (its effort column, the machine's confidence and class, "
                        "turns, words and characters of the texts, and --features columns) and "
                        "predicts every sample's seconds; the held-out comparison with the "
                        "prior effort is printed. -o writes PATH with the column "
                        "campaign_predicted_seconds: plan the next round on it with hmceval "
                        "queue OUT --col predicted_effort=campaign_predicted_seconds")
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="with --campaign-times: map a role of the dataset (repeatable)")
    p.add_argument("--features", default="D", metavar="D|D+W|COLS",
                   help="feature set: D (dialogue), D+W (dialogue + worker), W, or a "
                        "comma-separated list of columns (default: D); feature values must lie "
                        f"within +-{FLOAT32_MAX:.2g}, the random forest's 32-bit floats; with "
                        "--campaign-times, extra numeric columns besides the built-in features")
    p.add_argument("--folds", type=int, default=HEE_FOLDS, metavar="K",
                   help=f"folds of the shuffled cross-validation, 2 to the number of dialogues "
                        f"(default: {HEE_FOLDS})")
    p.add_argument("--split-col", metavar="COL",
                   help="train on rows labelled --train-label, test on --test-label instead of CV")
    p.add_argument("--train-label", default="train", metavar="VALUE")
    p.add_argument("--test-label", default="test", metavar="VALUE")
    p.add_argument("--id-col", metavar="COL",
                   help="dialogue id column (default: detected, e.g. dialogue_id or Number)")
    p.add_argument("--turns-col", metavar="COL",
                   help="number of turns, whole numbers from 1 to 2,147,483,647 (default: the "
                        "total-turns feature column)")
    p.add_argument("--max-features", type=int, metavar="N",
                   help=f"features tried per split, 1 to the number of features (default: "
                        f"{HEE_MAX_FEATURES}, or all when fewer)")
    p.add_argument("--trees", type=int, default=HEE_N_ESTIMATORS, metavar="N",
                   help=f"number of trees, 1 to {MAX_TREES:,} (default: {HEE_N_ESTIMATORS})")
    p.add_argument("--seed", type=int, default=HEE_RANDOM_STATE,
                   help=f"seed of the folds and the forest, 0 to {SEED_MAX:,} (default: "
                        f"{HEE_RANDOM_STATE})")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help=f"parallel jobs for the forest, 1 to {MAX_JOBS}, or -1 for every CPU "
                        "(default: 1)")
    p.add_argument("--permutation-repeats", type=int, default=HEE_PERMUTATION_REPEATS,
                   metavar="N",
                   help="also compute permutation importances with N repeats per fold, 0 to "
                        f"{MAX_PERMUTATION_REPEATS:,} (default: {HEE_PERMUTATION_REPEATS}, as the "
                        "Effort page; 0 = off)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a text report")
    p.add_argument("-o", "--output", metavar="EFFORT.csv",
                   help="write the per-sample predicted effort (with per-dialogue columns; - for "
                        "standard output, the report then on standard error)")
    p.set_defaults(func=run)


def _f(v: float) -> str:
    return "NaN" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4f}"


def run(args: argparse.Namespace) -> int:
    """Run the model and print the report."""
    from core.cli.common import print_json
    from core.data import load_table
    from core.errors import DataError
    from core.hee import estimate_effort, sample_effort_table

    check_int(args.trees, "--trees", 1, MAX_TREES)
    check_int(args.seed, "--seed", 0, SEED_MAX)
    check_int(args.folds, "--folds", 2)
    check_int(args.max_features, "--max-features", 1)
    check_int(args.permutation_repeats, "--permutation-repeats", 0, MAX_PERMUTATION_REPEATS)
    if args.jobs != -1:
        check_int(args.jobs, "--jobs (or -1 for every CPU)", 1, MAX_JOBS)
    from core.cli.common import check_output, refuse_json_on_stdout

    check_output(args.output, "csv", to_stdout=True)
    refuse_json_on_stdout(args.output, args.json)  # a bad -o fails before the work
    if args.campaign_times is not None:
        return run_campaign(args)
    if not args.time_col:
        raise DataError("--time-col is required (the annotation time of each dialogue), or "
                        "--campaign-times LABELS.csv to refit on a campaign's times")
    table = load_table(args.path)
    res = estimate_effort(
        table, time_col=args.time_col, features=args.features, n_splits=args.folds,
        split_col=args.split_col, train_label=args.train_label, test_label=args.test_label,
        id_col=args.id_col, turns_col=args.turns_col, max_features=args.max_features,
        n_estimators=args.trees, random_state=args.seed, n_jobs=args.jobs,
        permutation_repeats=args.permutation_repeats,
    )
    for note in res.notices:
        sys.stderr.write(f"hmceval effort: note: {note}\n")
    if args.output:
        if "n_turns" not in res.predictions.columns:
            raise DataError("-o needs the number of turns of each dialogue (--turns-col) to "
                            "compute the per-sample effort")
        samples = sample_effort_table(res)
        dia = res.predictions[res.predictions["subset"] == "test"][
            ["dialogue_id", "fold", "time", "time_norm", "predicted_norm", "predicted_time"]]
        out = samples.merge(dia, on="dialogue_id", how="left", validate="many_to_one")
        out = out.rename(columns={"time": "real_time", "time_norm": "real_time_norm",
                                  "predicted_norm": "predicted_time_norm"})
        from core.cli.common import write_csv_output

        write_csv_output(out, args.output)
        sys.stderr.write(f"hmceval effort: wrote {len(out):,} samples of "
                         f"{len(dia):,} dialogues to {args.output}\n")
    if args.json:
        print_json(res.summary())
        return 0
    mode = (f"{res.params['n_splits']}-fold shuffled cross-validation" if res.mode == "cv"
            else f"train/test split on {res.params['split_column']}")
    lines = [
        f"feature set {res.feature_set} ({len(res.features)} features): {', '.join(res.features)}",
        f"{mode}; random forest {res.params['n_estimators']} trees, max_features "
        f"{res.params['max_features']}, seed {res.params['random_state']}; time min-max "
        f"normalised over [{res.time_min:g}, {res.time_max:g}]",
        "",
        f"{'':8s}{'MSE':>9s}{'RMSE':>9s}{'MAE':>9s}{'R2':>9s}",
    ]
    for r in res.folds.itertuples(index=False):
        lines.append(f"fold {r.fold:<3d}" + "".join(f"{_f(getattr(r, k)):>9s}"
                                                   for k in ("mse", "rmse", "mae", "r2")))
    lines.append(f"{'mean':8s}" + "".join(f"{_f(res.metrics[k]):>9s}" for k in ("mse", "rmse", "mae", "r2")))
    lines += ["", f"{'feature':28s}{'Pearson':>12s}{'Spearman':>12s}"]
    for r in res.correlations.itertuples(index=False):
        lines.append(f"{str(r.feature)[:27]:28s}{_f(r.pearson) + r.pearson_mark:>12s}"
                     f"{_f(r.spearman) + r.spearman_mark:>12s}")
    lines.append("(** p < 0.001, * p < 0.05)")
    from core.cli.common import note_stream

    note_stream(args.output).write("\n".join(lines) + "\n")
    return 0


def _campaign_times(path: str):
    """The campaign's times: a labels file of hmceval (its formula cells restored) or any
    table with sample_id and seconds columns."""
    from pathlib import Path

    from core.data import load_table
    from core.errors import DataError
    from core.evaluation.labels import read_votes

    if not Path(path).is_file():
        raise DataError(f"--campaign-times {path}: no such file")
    try:
        votes = read_votes(path)
    except DataError:
        votes = None
    return votes if votes is not None else load_table(path)


def run_campaign(args: argparse.Namespace) -> int:
    """``--campaign-times``: refit on the campaign's times (:mod:`core.hee.campaign`)."""
    from core.cli.common import load_dataset, print_json
    from core.hee.campaign import CAMPAIGN_COLUMN, refit_campaign_effort

    data = load_dataset(args.path, args.col)
    extra = [] if args.features in ("D", "D+W", "W") else \
        [c.strip() for c in args.features.split(",") if c.strip()]
    res = refit_campaign_effort(data, _campaign_times(args.campaign_times),
                                extra_features=extra, n_splits=args.folds,
                                n_estimators=args.trees, max_features=args.max_features,
                                random_state=args.seed, n_jobs=args.jobs)
    notes = list(res.notices)
    if data.roles.get("predicted_effort") == CAMPAIGN_COLUMN:
        notes.append(f"the prior effort is {CAMPAIGN_COLUMN}, an earlier refit: if it was fitted "
                     "on these times, its held-out figures flatter it")
    for note in notes:
        sys.stderr.write(f"hmceval effort: note: {note}\n")
    if args.output:
        from core.cli.common import write_csv_output

        out = data.raw.copy()
        if CAMPAIGN_COLUMN in out.columns:
            sys.stderr.write(f"hmceval effort: note: the column {CAMPAIGN_COLUMN} of {args.path} "
                             "is replaced by this refit\n")
        out[CAMPAIGN_COLUMN] = res.predicted
        write_csv_output(out, args.output)
        sys.stderr.write(f"hmceval effort: wrote {len(out):,} samples with {CAMPAIGN_COLUMN} to "
                         f"{args.output}; plan the next round with hmceval queue {args.output} "
                         f"--col predicted_effort={CAMPAIGN_COLUMN}\n")
    summary = res.summary()
    if args.json:
        print_json(summary)
        return 0
    h = summary["heldout"]

    def rho(v):
        return "n/a" if v is None else f"{v:.3f}"

    lines = [f"refit on {h['n_timed']:,} timed samples ({summary['n_times']:,} times, median "
             f"over annotators) of {summary['n_samples']:,}; random forest "
             f"{res.params['n_estimators']} trees, max_features {res.params['max_features']}, "
             f"seed {res.params['random_state']}",
             f"features: {', '.join(res.features)}", "",
             f"held-out ({h['n_folds']}-fold CV)  {'MAE s':>9s}{'RMSE s':>9s}{'Spearman':>10s}"]
    for name, key in (("prior effort", "prior"), ("refit", "refit")):
        m = h[key]
        lines.append(f"{name:24s}{m['mae']:>9.2f}{m['rmse']:>9.2f}{rho(m['spearman']):>10s}")
    lines.append("(the prior is read in seconds by least squares on each training fold)")
    from core.cli.common import note_stream

    note_stream(args.output).write("\n".join(lines) + "\n")
    return 0

