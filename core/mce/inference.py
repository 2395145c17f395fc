"""Inference of the machine evaluator: class probabilities and encoder features, batch by batch.

Used by :meth:`core.mce.classifier.TextClassifier.predict_output`; torch is imported inside.

The precision of CPU inference (the setting ``cpu_precision`` of
:class:`~core.mce.settings.ClassifierConfig`, resolved by :func:`inference_precision`):

- ``"bfloat16"``: the encoder runs under ``torch.autocast`` in bfloat16 (matrix products in
  bfloat16, normalisations and softmax in float32); the head runs in float32 on the features.
  On a CPU with native bfloat16 instructions (AVX512-BF16 or AMX) 1.8-2.5x faster than float32
  (``bench/mce_inference.py``, batch 32, one thread); on DiaSafety's 1,095 test pairs with a
  fine-tuned MiniLM no predicted label changed, no probability moved by more than 0.001 and no
  feature vector by more than 0.8% (``bench/mce_quantized.py``).
- ``"int8"``: the encoder's ``Linear`` layers quantized to int8 (:func:`quantized_network`),
  about 3x faster, but less exact: on the same test the labels of 9.7% of the pairs changed,
  probabilities moved by up to 0.07, features by 23% (median), accuracy fell by 1.3 points.
  Opt-in only.
- ``"float32"``: the trained network as it is.
- ``"auto"`` (default): ``"bfloat16"`` where the CPU has native bfloat16, else ``"float32"``.

In float32 and bfloat16 a BERT-architecture encoder is computed on the CPU by
:class:`~core.mce.lean.LeanBert` (the setting ``lean_inference``): in bfloat16 it rounds where
the autocast forward above does (matrix products in bfloat16, sums and normalisations in
float32) and runs about 1.4x its speed.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core.mce.confidence import TrainingStopped, stop_requested
from core.mce.inputs import Encoded
from core.mce.runtime import free_cores, torch_threads
from core.mce.settings import CPU_PRECISIONS, ProgressCallback

__all__ = [
    "QUANTIZED_ENGINES",
    "cpu_has_native_bf16",
    "inference_precision",
    "quantized_network",
    "length_batches",
    "score_encoded",
]

#: Torch quantized engines with int8 dynamic ``Linear`` kernels on the CPU.
QUANTIZED_ENGINES = ("x86", "fbgemm", "onednn", "qnnpack")

#: CPU flags (``/proc/cpuinfo``) of native bfloat16 matrix instructions.
BF16_FLAGS = ("avx512_bf16", "amx_bf16")


@functools.cache
def cpu_has_native_bf16() -> bool:
    """Whether this CPU has native bfloat16 matrix instructions (AVX512-BF16 or AMX-BF16, read
    from ``/proc/cpuinfo``) and torch's oneDNN backend can use them. False where unknown (not
    Linux): bfloat16 emulated in software is slower than float32."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            flags = set()
            for line in fh:
                if line.startswith("flags"):
                    flags.update(line.partition(":")[2].split())
                    break
    except OSError:
        return False
    if not flags.intersection(BF16_FLAGS):
        return False
    import torch

    return bool(torch.backends.mkldnn.is_available())


def inference_precision(precision: str, device: str) -> str:
    """The precision ``"float32"``, ``"bfloat16"`` or ``"int8"`` that scores on ``device``.

    ``precision`` is the setting ``cpu_precision``: on a GPU (any device but ``"cpu..."``) the
    answer is always ``"float32"``; ``"auto"`` is ``"bfloat16"`` where
    :func:`cpu_has_native_bf16`, else ``"float32"``.
    """
    if precision not in CPU_PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; one of {', '.join(CPU_PRECISIONS)}")
    if not str(device).startswith("cpu"):
        return "float32"
    if precision == "auto":
        return "bfloat16" if cpu_has_native_bf16() else "float32"
    return precision


def quantized_network(net: Any) -> Any | None:
    """A copy of the classifier network ``net`` for CPU inference, its encoder's ``Linear``
    layers quantized to int8 (dynamic quantization: int8 weights, activations quantized per
    tensor over each batch, so a sample's output depends slightly on its batch); the
    classification head stays float. ``net`` is left unchanged.

    Returns None when this torch build has no quantized CPU engine or quantization fails (the
    caller then keeps the float network).
    """
    import copy
    import warnings

    import torch

    engines = set(getattr(torch.backends.quantized, "supported_engines", ()))
    if not engines.intersection(QUANTIZED_ENGINES):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch >= 2.10 warns that torch.ao moves to torchao
            qnet = copy.deepcopy(net).cpu()
            qnet.encoder = torch.ao.quantization.quantize_dynamic(
                qnet.encoder, {torch.nn.Linear}, dtype=torch.qint8, inplace=True
            )
    except (RuntimeError, AttributeError, NotImplementedError, AssertionError):
        return None
    return qnet.eval()


def length_batches(lengths: Sequence[int], batch_size: int, max_tokens: int | None = None) -> list[list[int]]:
    """Inference batches: the sample indices sorted by length (stable), cut into runs of at most
    ``batch_size`` samples whose padded size (samples x longest length) is at most
    ``max_tokens`` (a longer single sample makes a batch of its own).

    Sorting by length keeps the padding small; the token bound cuts it further in the long tail,
    where lengths grow fastest, while short samples keep full batches.
    """
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    out: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        if cur and (len(cur) >= batch_size or (max_tokens is not None and (len(cur) + 1) * lengths[i] > max_tokens)):
            out.append(cur)
            cur = []
        cur.append(i)
    if cur:
        out.append(cur)
    return out


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
    bf16: bool = False,
    lean: Callable[..., Any] | None = None,
    max_tokens: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(proba, features)`` of the encoded samples, in their order.

    Batches are cut from the samples sorted by length (:func:`length_batches`: at most
    ``batch_size`` samples and ``max_tokens`` padded tokens each) and padded to their longest
    sample (``batch``, :func:`~core.mce.inputs.pad_batch`). ``proba`` has shape (n_samples, n_classes),
    softmax in float64; ``features`` (n_samples, hidden_size), float32. ``net`` is a network of
    :func:`~core.mce.encoder.build_network` (``features(**inputs)`` and ``head``).
    ``n_threads`` torch threads on the CPU for this call (restored after); default: the
    processors idle now (:func:`~core.mce.runtime.free_cores`) when there is more than one
    batch on the CPU, else the current count. ``bf16``: the encoder runs under
    ``torch.autocast("cpu", torch.bfloat16)``, the head in float32 on the features.
    ``lean``: a :class:`~core.mce.lean.LeanBert` of ``net``'s encoder (built in the precision
    wanted) computes the features instead of ``net.features``; ``bf16`` is then ignored.

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
    batches = length_batches([len(e["input_ids"]) for e in encoded], batch_size, max_tokens)
    total = len(batches)
    net.eval()
    if n_threads is None:
        on_cpu = str(device).startswith("cpu")
        n_threads = free_cores() if on_cpu and total > 1 else torch.get_num_threads()
    cast = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if bf16 else contextlib.nullcontext
    with torch_threads(n_threads), torch.inference_mode():
        for b, idx in enumerate(batches, start=1):
            if stop_requested(should_stop):
                raise TrainingStopped("inference stopped")
            if lean is not None:
                f = lean(**batch(encoded, idx))
            else:
                with cast():
                    f = net.features(**batch(encoded, idx))
            f = f.float()
            logits = net.head(f)  # float32 (dropout is the identity in eval mode)
            proba[idx] = torch.softmax(logits.double(), dim=-1).cpu().numpy()
            feats[idx] = f.cpu().numpy()
            if progress is not None:
                progress(b, total, f"scoring batch {b}/{total}")
    return proba, feats
