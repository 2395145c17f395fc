"""A tiny randomly initialised BERT written to a local folder, for tests and smoke runs.

Nothing is downloaded: the vocabulary is written by hand and the weights are random. The
model is useless for real evaluation; it exercises the classifier, TCP and the CLI in seconds.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["TINY_WORDS", "build_tiny_bert"]

#: Default vocabulary (after the special tokens) of :func:`build_tiny_bert`.
TINY_WORDS = (
    "i", "you", "are", "is", "the", "a", "to", "and", "hello", "hi", "how", "what", "good", "nice",
    "great", "love", "like", "thanks", "bad", "hate", "stupid", "awful", "kill", "idiot", "ok",
    "sure", "no", "yes", "maybe", "it", "that", "this", "day", "people", "go", "away", "?", ".", "!",
    ",",
)
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def build_tiny_bert(directory: str | Path, *, words: Iterable[str] = TINY_WORDS, hidden_size: int = 16,
                    num_layers: int = 1, num_heads: int = 2, intermediate_size: int = 32,
                    max_positions: int = 128, seed: int = 0) -> Path:
    """Write a tiny BERT encoder (config, safetensors weights, WordPiece vocabulary) to ``directory``.

    Returns
    -------
    Path
        The model directory, loadable with ``TextClassifier(model_dir=...)``.
    """
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    vocab = list(_SPECIAL) + [w for w in words if w not in _SPECIAL]
    vocab_file = out / "vocab.txt"
    vocab_file.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizer(vocab=str(vocab_file)).save_pretrained(str(out))
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=hidden_size, num_hidden_layers=num_layers,
                     num_attention_heads=num_heads, intermediate_size=intermediate_size,
                     max_position_embeddings=max_positions)
    from core.mce.runtime import quiet_transformers

    with quiet_transformers():
        BertModel(cfg).save_pretrained(str(out))
    return out
