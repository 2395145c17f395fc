"""``hmceval annotators``: the agreement and quality of a round's annotators (read only)."""

from __future__ import annotations

import argparse

from core.cli.cmd_labels import AGGREGATES, LEVELS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "annotators", help="agreement (Krippendorff's alpha, kappas) and each annotator's quality "
                           "and time in a labelled round",
        description="Read the labels hmceval labels kept beside a round table (ROUND.labels.csv: "
                    "every sample, annotator, label and seconds) and print Krippendorff's alpha "
                    "with a bootstrap interval, Fleiss' kappa, Cohen's kappa per pair of "
                    "annotators and, per annotator: labels, agreement with the aggregate and "
                    "with gold rows, confusion matrix against the aggregate, median seconds. "
                    "Nothing is written.")
    p.add_argument("path", help="a round table written by hmceval labels")
    p.add_argument("--aggregate", choices=AGGREGATES, default="majority",
                   help="the aggregate the annotators are compared with (default majority)")
    p.add_argument("--gold-annotator", metavar="NAME",
                   help="the annotator whose labels are gold (left out of the agreement)")
    p.add_argument("--alpha-level", choices=LEVELS, default="nominal",
                   help="Krippendorff's alpha's level of measurement (default nominal)")
    p.add_argument("--boot", type=int, default=1000, help="bootstrap replicates (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--col", action="append", metavar="ROLE=NAME",
                   help="map a role of the round table (repeatable)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from core.cli.common import load_round, print_json
    from core.errors import DataError
    from core.evaluation.annotators import annotator_report, describe
    from core.evaluation.labels import join_labels
    from core.evaluation.labels import LabelImport
    from core.evaluation.labels import read_votes, votes_path

    if args.boot < 0:
        raise DataError(f"--boot must be 0 or more, got {args.boot}")
    design = load_round(args.path, args.col)
    votes = read_votes(votes_path(args.path))
    if votes is None:
        raise DataError(f"{votes_path(args.path)} not found: the annotators' labels are kept "
                        "there by hmceval labels -o " + str(args.path))
    imported = LabelImport(source="stored", sample_id=tuple(votes["sample_id"]),
                           annotator=tuple(votes["annotator"]), label=tuple(votes["label"]),
                           where=tuple(f"row {i + 2} of {votes_path(args.path).name}"
                                       for i in range(len(votes))),
                           n_tasks=len(votes), seconds=tuple(votes["seconds"].astype(float)))
    joined = join_labels(imported, sample_ids=design.sample_ids(),
                         classes=list(design.data.labels), aggregate=args.aggregate,
                         gold_annotator=args.gold_annotator)
    report = annotator_report(joined, list(design.data.labels), level=args.alpha_level,
                              n_boot=args.boot, seed=args.seed)
    report["adjudication"] = list(joined.adjudication)
    if args.json:
        print_json(report)
    else:
        print(f"{report['n_labels']:,} labels by {report['n_annotators']} annotators on "
              f"{report['n_rows']:,} rows ({report['n_multi']:,} labelled twice or more)")
        for line in describe(report):
            print(line)
        for pair in report["pairwise"]:
            k = pair["cohen_kappa"]
            print(f"  {pair['annotators'][0]} / {pair['annotators'][1]}: agree on "
                  f"{pair['agreement']:.1%} of {pair['n_items']:,}; Cohen's kappa "
                  + ("undefined" if k is None else f"{k:.3f}"))
    return 0
