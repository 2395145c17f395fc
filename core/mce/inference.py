"""Inference of the machine evaluator: class probabilities and encoder features, batch by batch.

Used by :meth:`core.mce.classifier.TextClassifier.predict_output`; torch is imported inside.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core.mce.confidence import TrainingStopped, stop_requested
from core.mce.inputs import Encoded
from core.mce.runtime import free_cores, torch_threads
from core.mce.settings import ProgressCallback

__all__ = ["score_encoded"]


def score_encoded(
    net: Any,
    encoded: Encoded,
    *,
    n_classes: int,
    batch: Callable[[Encoded, Sequence[int]], dict[str, Any]],
    batch_size: int,
    device: str,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | Any = None,
    n_threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(proba, features)`` of the encoded samples, in their order.

    Batches are cut from the samples sorted by length (less padding). ``proba`` has shape
    (n_samples, n_classes), softmax in float64; ``features`` (n_samples, hidden_size), float32.
    ``n_threads`` torch threads on the CPU for this call (restored after); default: the
    processors idle now (:func:`~core.mce.runtime.free_cores`) when there is more than one
    batch on the CPU, else the current count.

    Raises
    ------
    TrainingStopped
        When ``should_stop`` turns true before a batch.
    """
    import torch

    n = len(encoded)
    hidden = int(net.head.in_features)
    proba = np.empty((n, n_classes), dtype=np.float64)
    feats = np.empty((n, hidden), dtype=np.float32)
    order = sorted(range(n), key=lambda i: len(encoded[i]["input_ids"]))  # less padding
    bs = batch_size
    total = math.ceil(n / bs)
    net.eval()
    if n_threads is None:
        on_cpu = str(device).startswith("cpu")
        n_threads = free_cores() if on_cpu and total > 1 else torch.get_num_threads()
    with torch_threads(n_threads), torch.inference_mode():
        for b, start in enumerate(range(0, n, bs), start=1):
            if stop_requested(should_stop):
                raise TrainingStopped("inference stopped")
            idx = order[start : start + bs]
            logits, f = net(**batch(encoded, idx))
            proba[idx] = torch.softmax(logits.double(), dim=-1).cpu().numpy()
            feats[idx] = f.float().cpu().numpy()
            if progress is not None:
                progress(b, total, f"scoring batch {b}/{total}")
    return proba, feats
