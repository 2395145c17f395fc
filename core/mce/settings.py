"""Settings and outputs of the machine evaluator (:class:`~core.mce.classifier.TextClassifier`).

Defaults follow the paper (HMCEval section 4.2): max length 128, batch 64, dropout 0.1,
learning rate 5e-5, 4 epochs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from core.errors import DataError

__all__ = ["CPU_PRECISIONS", "ClassifierConfig", "ClassifierOutput", "ProgressCallback"]

#: Values of :attr:`ClassifierConfig.cpu_precision`.
CPU_PRECISIONS = ("auto", "float32", "bfloat16", "int8")

#: ``progress(done, total, message)``, called after every training step or inference batch.
ProgressCallback = Callable[[int, int, str], None]


@dataclass
class ClassifierConfig:
    """Settings of :class:`TextClassifier` (paper defaults).

    Attributes
    ----------
    model_dir : str or None
        Local Hugging Face encoder directory; None = :func:`default_model_dir`.
    max_length : int, default=128
        Maximum tokens per (context, response) input; longer inputs are truncated
        (longest segment first).
    batch_size : int, default=64
        Training batch size.
    eval_batch_size : int, default=32
        Inference batch size (batches are cut from the inputs sorted by length and padded to
        their longest input; on a CPU, 32 pads less and runs faster than 128).
    eval_batch_tokens : int, default=1024
        An inference batch also holds at most this many padded tokens (samples x its longest
        input; a longer single input is a batch of its own): the long inputs, where lengths
        grow fastest, come in smaller batches and pad less (``bench/mce_inference.py``:
        1.05-1.1x on 256 DiaSafety pairs). 0: no bound.
    cpu_precision : {"auto", "float32", "bfloat16", "int8"}, default="auto"
        Precision of inference on a CPU (:mod:`core.mce.inference`; training and the saved
        weights are always float32, a GPU always scores in float32). ``"bfloat16"``: the
        encoder under bfloat16 autocast, 1.8-2.5x faster than float32 on a CPU with native
        bfloat16 (AVX512-BF16 or AMX); on DiaSafety's test set the same labels as float32 and
        probabilities within 0.001. ``"int8"``: the encoder's Linear layers quantized to int8,
        about 3x faster, but about 10% of the labels change (opt-in). ``"auto"``:
        ``"bfloat16"`` where the CPU has native bfloat16, else ``"float32"``.
    lean_inference : bool, default=True
        On a CPU in float32 or bfloat16, compute the features of a BERT-architecture encoder
        with :class:`~core.mce.lean.LeanBert` (fused projections, packed weights, the first
        token only in the last layer): the same function as the ``transformers`` forward with
        less work, 1.3-1.4x faster (``bench/mce_inference.py``). Other encoders, a GPU and
        ``"int8"`` use the ``transformers`` forward; so does False.
    dropout : float, default=0.1
        Dropout of the classification head and of the encoder's hidden/attention layers.
    learning_rate : float, default=5e-5
        AdamW learning rate, decayed linearly to 0 after ``warmup_ratio`` of the steps.
    weight_decay : float, default=0.0
    warmup_ratio : float, default=0.0
    epochs : int, default=4
    max_context_turns : int, default=3
        Previous utterances kept as context.
    max_grad_norm : float, default=1.0
        Gradient clipping norm (0 disables).
    group_by_length : bool, default=True
        Build training batches of similar lengths (the epoch's shuffled order is cut into
        chunks of 50 batches, each sorted by length, and the batches are shuffled), which
        cuts padding and CPU time; False gives plain shuffled batches.
    seed : int, default=0
    device : str or None
        ``"cpu"``, ``"cuda"``...; None = the GPU when present, else the CPU.
    """

    model_dir: str | None = None
    max_length: int = 128
    batch_size: int = 64
    eval_batch_size: int = 32
    eval_batch_tokens: int = 1024
    cpu_precision: str = "auto"
    lean_inference: bool = True
    dropout: float = 0.1
    learning_rate: float = 5e-5
    weight_decay: float = 0.0
    warmup_ratio: float = 0.0
    epochs: int = 4
    max_context_turns: int = 3
    max_grad_norm: float = 1.0
    group_by_length: bool = True
    seed: int = 0
    device: str | None = None

    def validate(self) -> None:
        """Raise :class:`DataError` naming the first invalid setting."""
        checks = [
            ("max_length", isinstance(self.max_length, int) and self.max_length >= 8),
            ("batch_size", isinstance(self.batch_size, int) and self.batch_size >= 1),
            ("eval_batch_size", isinstance(self.eval_batch_size, int) and self.eval_batch_size >= 1),
            ("eval_batch_tokens", isinstance(self.eval_batch_tokens, int) and self.eval_batch_tokens >= 0),
            ("dropout", 0.0 <= float(self.dropout) < 1.0),
            ("learning_rate", math.isfinite(float(self.learning_rate)) and float(self.learning_rate) >= 0.0),
            ("weight_decay", math.isfinite(float(self.weight_decay)) and float(self.weight_decay) >= 0.0),
            ("warmup_ratio", 0.0 <= float(self.warmup_ratio) < 1.0),
            ("epochs", isinstance(self.epochs, int) and self.epochs >= 1),
            ("max_context_turns", isinstance(self.max_context_turns, int) and self.max_context_turns >= 0),
            ("max_grad_norm", math.isfinite(float(self.max_grad_norm)) and float(self.max_grad_norm) >= 0.0),
            ("seed", isinstance(self.seed, int)),
            ("group_by_length", isinstance(self.group_by_length, bool)),
            ("lean_inference", isinstance(self.lean_inference, bool)),
            ("cpu_precision", self.cpu_precision in CPU_PRECISIONS),
        ]
        for name, ok in checks:
            if not ok:
                raise DataError(f"classifier setting {name} has an invalid value: {getattr(self, name)!r}")


@dataclass
class ClassifierOutput:
    """Per-sample outputs of :meth:`TextClassifier.predict_output`.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Predicted labels, in the original label values.
    label_index : ndarray of int, shape (n_samples,)
        Predicted class indices (columns of ``proba``).
    proba : ndarray of shape (n_samples, n_classes)
        Softmax class probabilities.
    features : ndarray of shape (n_samples, hidden_size)
        Encoder feature vectors (last hidden state of the first token).
    classes : ndarray of shape (n_classes,)
        Label value of each class index.
    """

    labels: np.ndarray
    label_index: np.ndarray
    proba: np.ndarray
    features: np.ndarray
    classes: np.ndarray

