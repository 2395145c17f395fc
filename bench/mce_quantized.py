"""Accuracy of the machine evaluator's fast CPU paths (bfloat16, int8) against float32, same weights.

Run from the project root: ``python bench/mce_quantized.py`` (about 5-10 minutes on a 2-core
CPU, more when it is busy). Fine-tunes the classifier once on a stratified subsample of
``../shared/data/diasafety/train.json`` (default 1,000 rows, 1 epoch, batch 32; the subsample
as in ``bench/mce.py``), or loads one saved with ``--model DIR`` (``--save DIR`` keeps the one
trained here), then scores the whole ``test.json`` (and the training subsample, for the trust
score) with each ``cpu_precision``, through the transformers forward and the lean one (``lean_inference``), on the same weights, one thread, and prints per setting:

- test accuracy, and its difference to float32 (the target of issue 11: within 0.5 points);
- the share of test samples whose predicted label changed, the largest absolute change of a
  class probability, the median and largest relative change of a feature vector;
- the trust score (k=10, fitted on the training features of the same precision) AUC on test:
  the confidence estimators consume the features, so their quality is checked too;
- inference speed in samples/s (the settings run one after the other here; for speed read
  ``bench/mce_inference.py``, which interleaves them).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

from core.data import load_table  # noqa: E402
from core.mce.classifier import TextClassifier  # noqa: E402
from core.mce.settings import ClassifierConfig  # noqa: E402
from core.mce.confidence import TrustScore  # noqa: E402
from core.mce.inference import cpu_has_native_bf16  # noqa: E402
from core.mce.metrics import confidence_report  # noqa: E402
from mce import stratified_subsample  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "diasafety"
#: (row name, cpu_precision, lean_inference): the reference first.
SETTINGS = (
    ("float32", "float32", False),
    ("bf16 auto", "bfloat16", False),
    ("f32 lean", "float32", True),
    ("bf16 lean", "bfloat16", True),
    ("int8", "int8", False),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train-size", type=int, default=1000, help="stratified training subsample (default 1000)")
    ap.add_argument("--epochs", type=int, default=1, help="fine-tuning epochs (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default=None, help="a classifier saved by TextClassifier.save: no training")
    ap.add_argument("--save", default=None, help="save the classifier trained here to this folder")
    args = ap.parse_args()

    train = stratified_subsample(load_table(DATA / "train.json"), args.train_size, label_col="label",
                                 seed=args.seed)
    test = load_table(DATA / "test.json")
    t0 = time.perf_counter()
    if args.model:
        clf = TextClassifier.load(args.model, device="cpu")
        print(f"classifier loaded from {args.model}")
    else:
        clf = TextClassifier(ClassifierConfig(epochs=args.epochs, batch_size=32, seed=args.seed, device="cpu"))
        clf.fit(train["response"].tolist(), train["label"].tolist(), contexts=train["context"].tolist())
        print(f"fine-tuned on {len(train)} DiaSafety training rows (stratified, seed {args.seed}), "
              f"{args.epochs} epoch(s), batch 32: {time.perf_counter() - t0:.0f} s")
        if args.save:
            clf.save(args.save)
    print(f"native bfloat16 on this CPU: {cpu_has_native_bf16()}; test: {len(test)} rows, one thread, "
          f"eval batch {clf.config.eval_batch_size}")
    sys.stdout.flush()

    gold = test["label"].to_numpy()
    y_train = np.searchsorted(np.asarray(clf.classes_, dtype=object).astype(str),
                              train["label"].astype(str).to_numpy())
    out, speed = {}, {}
    for precision, setting, lean in SETTINGS:
        clf.config.cpu_precision = setting
        clf.config.lean_inference = lean
        t = time.perf_counter()
        out[precision] = clf.predict_output(test["response"].tolist(), contexts=test["context"].tolist(),
                                            n_threads=1)
        speed[precision] = len(test) / (time.perf_counter() - t)
        out[precision + " train"] = clf.predict_output(train["response"].tolist(),
                                                       contexts=train["context"].tolist(), n_threads=1)
    ref = out["float32"]
    acc_ref = float(np.mean(ref.labels == gold))
    print()
    print(f"{'setting':<10} {'accuracy':>9} {'vs f32':>8} {'changed':>8} {'max |dp|':>9} "
          f"{'feat med':>9} {'feat max':>9} {'TS AUC':>7} {'samples/s':>10}")
    for precision, *_ in SETTINGS:
        o, tr = out[precision], out[precision + " train"]
        acc = float(np.mean(o.labels == gold))
        changed = float(np.mean(o.label_index != ref.label_index))
        dp = float(np.abs(o.proba - ref.proba).max())
        rel = np.linalg.norm(o.features - ref.features, axis=1) / np.linalg.norm(ref.features, axis=1)
        ts = TrustScore(k=10, alpha=0.0).fit(tr.features, y_train, y_pred=tr.label_index)
        auc = confidence_report(gold, o.labels, {"ts": ts.predict(o.features, o.label_index)})["ts"]["auc"]
        print(f"{precision:<10} {100 * acc:>8.2f}% {100 * (acc - acc_ref):>+7.2f} {100 * changed:>7.2f}% "
              f"{dp:>9.4f} {np.median(rel):>9.4f} {rel.max():>9.4f} {auc:>7.4f} {speed[precision]:>10.1f}")
    print("rows: float32 = the transformers forward in float32 (the reference); bf16 auto = it under "
          "bfloat16 autocast; f32 lean / bf16 lean = core.mce.lean (lean_inference, the default); "
          "int8 = dynamic quantization")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
