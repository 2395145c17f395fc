"""``hmceval confidence``: quality of one or more confidence columns (AUC, top-k accuracy, AURC, ECE)."""

from __future__ import annotations

import argparse

from core.cli.bounds import MAX_BINS, check_int


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "confidence",
        help="compare confidence estimators (AUC, top-k accuracy, AURC, ECE)",
        description="Judge each confidence column as a predictor of 'the machine label is correct' "
        "(paper Table 3): AUC, accuracy of the machine on its most confident samples, area under the "
        "risk-coverage curve and expected calibration error.",
    )
    p.add_argument("path", help="CSV, TSV, Parquet or JSON table")
    p.add_argument("--label-col", required=True, help="gold (human) label column")
    p.add_argument("--machine-col", required=True, help="machine label column")
    p.add_argument("--conf-col", required=True, action="append", help="confidence column (repeatable)")
    p.add_argument("--top", type=float, default=0.5,
                   help="fraction kept for the top-k accuracy, in (0, 1] (default 0.5)")
    p.add_argument("--bins", type=int, default=10,
                   help=f"equal-width bins of the ECE, 1 to {MAX_BINS:,} (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object keyed by confidence column")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from core.cli.common import print_json
    from core.data import load_table
    from core.errors import DataError
    from core.mce.metrics import confidence_report

    check_int(args.bins, "--bins", 1, MAX_BINS)
    if not 0 < args.top <= 1:  # also refuses nan
        raise DataError(f"--top must be a fraction in (0, 1], got {args.top}")
    df = load_table(args.path)
    for flag, col in [("--label-col", args.label_col), ("--machine-col", args.machine_col)] + [
        ("--conf-col", c) for c in args.conf_col
    ]:
        if col not in df.columns:
            raise DataError(f"{flag} column '{col}' is not in the table; available: {', '.join(map(str, df.columns))}")
    dup = sorted({c for c in args.conf_col if args.conf_col.count(c) > 1})
    if dup:
        raise DataError(f"--conf-col given twice: {', '.join(dup)}")
    report = confidence_report(
        df[args.label_col], df[args.machine_col], {c: df[c] for c in args.conf_col}, top=args.top, n_bins=args.bins
    )
    if args.json:
        print_json(report)
        return 0
    pct = f"top-{args.top * 100:g}% acc"
    print(f"{'confidence column':<28} {'AUC':>8} {pct:>14} {'AURC':>8} {'ECE':>8}")
    for name, r in report.items():
        ece = "n/a" if r["ece"] is None else f"{r['ece']:.4f}"
        print(f"{name:<28} {r['auc']:>8.4f} {r['top_accuracy']:>14.4f} {r['aurc']:>8.4f} {ece:>8}")
    return 0
