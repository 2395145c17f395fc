"""The training loop of the machine evaluator: batches of an epoch, AdamW with linear decay.

Used by :meth:`core.mce.classifier.TextClassifier.fit`; torch is imported inside the functions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from core.mce.confidence import TrainingStopped, stop_requested
from core.mce.inputs import Encoded
from core.mce.settings import ClassifierConfig, ProgressCallback

__all__ = ["epoch_batches", "train_network"]

#: Chunk of the shuffled order (in batches) sorted by length when batches are grouped by length.
GROUP_CHUNK_BATCHES = 50


def epoch_batches(encoded: Encoded, gen: Any, *, batch_size: int, group_by_length: bool) -> list[list[int]]:
    """Shuffled training batches of one epoch (``ceil(n / batch_size)`` of them).

    With ``group_by_length`` the epoch's shuffled order is cut into chunks of
    :data:`GROUP_CHUNK_BATCHES` batches, each sorted by length, and the batches are shuffled.
    ``gen`` is the ``torch.Generator`` drawing both permutations.
    """
    import torch

    n = len(encoded)
    bs = batch_size
    order = torch.randperm(n, generator=gen).tolist()
    if not group_by_length:
        return [order[j : j + bs] for j in range(0, n, bs)]
    chunk = GROUP_CHUNK_BATCHES * bs
    batches: list[list[int]] = []
    for start in range(0, n, chunk):
        part = sorted(order[start : start + chunk], key=lambda i: len(encoded[i]["input_ids"]))
        batches += [part[j : j + bs] for j in range(0, len(part), bs)]
    perm = torch.randperm(len(batches), generator=gen).tolist()
    return [batches[b] for b in perm]


def train_network(
    net: Any,
    encoded: Encoded,
    y: np.ndarray,
    *,
    config: ClassifierConfig,
    batch: Callable[[Encoded, Sequence[int]], dict[str, Any]],
    device: str,
    progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | Any = None,
    history: list[dict[str, float]] | None = None,
) -> list[dict[str, float]]:
    """Fine-tune ``net`` on the encoded samples and their class indices ``y``.

    AdamW (no weight decay on biases and norms), learning rate warmed up over
    ``warmup_ratio`` of the steps then decayed linearly to 0, cross-entropy loss, gradient
    clipping at ``max_grad_norm`` (0 disables). ``batch(encoded, idx)`` pads the samples
    ``idx`` into model inputs. The network is left in evaluation mode.

    Returns
    -------
    list of dict
        ``{"epoch": e, "train_loss": mean loss}`` per epoch, appended to ``history`` when given
        (so that the epochs finished before a stop are kept).

    Raises
    ------
    TrainingStopped
        When ``should_stop`` turns true before a step.
    """
    import torch

    cfg = config
    n = len(encoded)
    steps_per_epoch = math.ceil(n / cfg.batch_size)
    total = steps_per_epoch * cfg.epochs
    no_decay = ("bias", "LayerNorm.weight", "layer_norm", "norm.weight")
    params = [
        {"params": [p for nme, p in net.named_parameters() if not any(s in nme for s in no_decay)],
         "weight_decay": float(cfg.weight_decay)},
        {"params": [p for nme, p in net.named_parameters() if any(s in nme for s in no_decay)],
         "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(params, lr=float(cfg.learning_rate))
    warmup = int(cfg.warmup_ratio * total)

    def lr_lambda(step: int) -> float:
        if step < warmup:
            return (step + 1) / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(cfg.seed)
    y_t = torch.as_tensor(y, device=device)
    history = [] if history is None else history
    step = 0
    for epoch in range(1, cfg.epochs + 1):
        net.train()
        running = 0.0
        for idx in epoch_batches(encoded, gen, batch_size=cfg.batch_size, group_by_length=cfg.group_by_length):
            if stop_requested(should_stop):
                raise TrainingStopped(f"classifier training stopped at epoch {epoch}, step {step}/{total}")
            logits, _ = net(**batch(encoded, idx))
            loss = loss_fn(logits, y_t[idx])
            opt.zero_grad()
            loss.backward()
            if cfg.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            sched.step()
            step += 1
            running += loss.item() * len(idx)
            if progress is not None:
                progress(step, total, f"epoch {epoch}/{cfg.epochs}, loss {loss.item():.4f}")
        history.append({"epoch": epoch, "train_loss": running / n})
    net.eval()
    return history
