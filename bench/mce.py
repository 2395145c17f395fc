"""End-to-end MCE benchmark on DiaSafety with the packaged MiniLM encoder, on the CPU.

Fine-tunes the BERT-style classifier (``core.mce.classifier``) on a stratified subsample of
``../shared/data/diasafety/train.json`` (documented below; the paper's 4 epochs over all 9,017
rows take about half an hour on an idle 2-core CPU, much longer on a shared one), fits MCP, the trust score and TCP (early stopping on
``val.json``) through ``core.mce.pipeline.train_and_score`` -- the code path of
``hmceval train-classifier`` -- and scores ``test.json``. Prints:

- test accuracy and macro F1 of the classifier;
- each estimator's AUC and top-50% accuracy (plus AURC and ECE);
- the SAE result at N/M = 0.5 with uniform effort and lambda = 0 (``core.assignment``, exactly N
  samples to humans: the N least confident), accuracy and macro F1 per estimator;
- wall times: fine-tuning, inference (samples/s), trust score, TCP.

Run: ``nice -n 10 python bench/mce.py`` (defaults: 4,000 of the 9,017 training rows, stratified by
label, 2 epochs, batch 32: about 6 minutes on an idle 2-core CPU, several times more when it is
busy). ``--train-size 9017`` uses the whole training file (about 16 minutes for 2 epochs).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from core.data import load_table  # noqa: E402
from core.mce.settings import ClassifierConfig  # noqa: E402
from core.mce.encoder import default_model_dir  # noqa: E402
from core.mce.confidence import TCP  # noqa: E402
from core.mce.metrics import confidence_report  # noqa: E402
from core.mce.pipeline import CONFIDENCE_COLUMNS, train_and_score  # noqa: E402
from core.assignment import classification_scores  # noqa: E402
from core.assignment import SAEInputs, evaluate, n_from_share, solve  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "diasafety"


def stratified_subsample(df: pd.DataFrame, n: int, *, label_col: str, seed: int) -> pd.DataFrame:
    """``n`` rows keeping the label proportions (per label ``round(n * share)``), seeded, in file order."""
    if n >= len(df):
        return df.reset_index(drop=True)
    parts = []
    for _, g in df.groupby(label_col, sort=True):
        k = int(round(n * len(g) / len(df)))
        parts.append(g.sample(n=k, random_state=seed))
    return pd.concat(parts).sort_index().reset_index(drop=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train-size", type=int, default=4000, help="stratified training subsample (default 4000)")
    ap.add_argument("--epochs", type=int, default=2, help="fine-tuning epochs (default 2; the paper uses 4)")
    ap.add_argument("--batch-size", type=int, default=32, help="training batch size (default 32; paper 64)")
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model-dir", default=None, help="encoder folder (default: packaged MiniLM)")
    ap.add_argument("--cpu-precision", default="auto", choices=["auto", "float32", "bfloat16", "int8"],
                    help="precision of inference on the CPU (default auto: bfloat16 where the CPU has it)")
    args = ap.parse_args()

    t_all = time.perf_counter()
    train_full = load_table(DATA / "train.json")
    val = load_table(DATA / "val.json")
    test = load_table(DATA / "test.json")
    train = stratified_subsample(train_full, args.train_size, label_col="label", seed=args.seed)
    model_dir = args.model_dir or str(default_model_dir())
    how = "all" if len(train) == len(train_full) else f"stratified by label, seed {args.seed}"
    print(f"DiaSafety: train {len(train)} of {len(train_full)} rows ({how}), val {len(val)}, test {len(test)}")
    print(f"encoder: {model_dir}")
    print(f"settings: epochs {args.epochs}, batch {args.batch_size}, lr 5e-5, max length {args.max_length}, "
          f"dropout 0.1, context = the user utterance, TS k=10 alpha=0, TCP 5 layers max 30 epochs patience 10, "
          f"inference precision {args.cpu_precision}")
    sys.stdout.flush()

    last = {"stage": None, "pct": -1}

    def progress(stage: str, done: int, total: int, message: str) -> None:
        pct = int(100 * done / max(total, 1))
        if stage == "score":  # one line per scored table
            if done == total:
                print(f"  [{time.perf_counter() - t_all:7.1f} s] scored a table ({total} batches)", flush=True)
        elif stage != last["stage"] or pct // 10 != last["pct"] // 10:
            print(f"  [{time.perf_counter() - t_all:7.1f} s] {stage}: {done}/{total} {message}", flush=True)
        last["stage"], last["pct"] = stage, pct

    config = ClassifierConfig(model_dir=model_dir, epochs=args.epochs, batch_size=args.batch_size,
                              max_length=args.max_length, seed=args.seed, cpu_precision=args.cpu_precision)
    res = train_and_score(train, test, text_col="response", label_col="label", context_col="context", val=val,
                          config=config, ts_k=10, ts_alpha=0.0, tcp=TCP(seed=args.seed), progress=progress)
    sc = res.scored
    gold = sc["label"].to_numpy()
    pred = sc["machine_label"].to_numpy()
    cls = classification_scores(gold, pred)
    print()
    print(f"classifier on test ({len(sc)} rows): accuracy {cls['accuracy']:.4f}, macro F1 {cls['f1']:.4f}, "
          f"macro P {cls['precision']:.4f}, macro R {cls['recall']:.4f}")

    rep = confidence_report(gold, pred, {c: sc[c] for c in CONFIDENCE_COLUMNS}, top=0.5)
    m = len(sc)
    n = n_from_share(0.5, m)
    print()
    print("confidence quality on test (correct = machine label equals the gold label):")
    print(f"  {'estimator':<16} {'AUC':>7} {'top-50% acc':>12} {'AURC':>7} {'ECE':>7}")
    for c in CONFIDENCE_COLUMNS:
        r = rep[c]
        print(f"  {c:<16} {r['auc']:>7.4f} {r['top_accuracy']:>12.4f} {r['aurc']:>7.4f} {r['ece']:>7.4f}")
    print()
    print(f"SAE at N/M = 0.5 (N = {n} of M = {m}), lambda = 0, uniform effort, exactly N to humans "
          "(= the N least confident):")
    print(f"  {'estimator':<42} {'accuracy':>8} {'macro F1':>8} {'human ratio':>11}")
    rows = [(c, sc[c].to_numpy(float)) for c in CONFIDENCE_COLUMNS]
    # reference: a confidence-blind choice of the same N (constant confidence: the first N rows)
    rows.append(("(constant confidence: first N rows)", np.zeros(m)))
    for name, conf in rows:
        inp = SAEInputs.from_arrays(conf, machine_label=pred, human_label=gold)
        ev = evaluate(inp, solve(inp, lam=0.0, n_human=n, mode="exactly"))
        print(f"  {name:<42} {ev['accuracy']:>8.4f} {ev['f1']:>8.4f} {ev['human_ratio']:>11.4f}")
    print(f"  {'(machine alone)':<42} {cls['accuracy']:>8.4f} {cls['f1']:>8.4f} {0.0:>11.4f}")
    ts_test = sc["confidence_ts"].to_numpy()
    print(f"trust score on test clipped to 0 / 1 by the training range: {(ts_test == 0).sum()} / "
          f"{(ts_test == 1).sum()} of {m}")

    t = res.timings
    print()
    print(f"fine-tuning: {t['train_seconds']:.1f} s for {len(train)} x {args.epochs} samples "
          f"({len(train) * args.epochs / t['train_seconds']:.2f} samples/s)")
    print(f"inference: {t['score_samples']:.0f} samples in {t['score_seconds']:.1f} s "
          f"({t['score_samples'] / t['score_seconds']:.1f} samples/s; train + val + test features)")
    print(f"trust score fit + predict: {t['ts_seconds']:.1f} s; TCP: {t['tcp_seconds']:.1f} s "
          f"({res.tcp.n_epochs_} epochs, best {res.tcp.best_epoch_})")
    print(f"total wall time: {time.perf_counter() - t_all:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
