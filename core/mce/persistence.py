"""Saving and loading a fine-tuned machine evaluator: safetensors weights plus a JSON of settings.

Never pickle. A saved folder holds ``classifier.safetensors``, the encoder's ``config.json``,
the tokenizer files and ``hmceval_classifier.json`` (format name and version, settings, classes,
source encoder folder, training history).
"""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from core.errors import DataError
from core.mce.encoder import build_network
from core.mce.runtime import quiet_transformers
from core.mce.settings import ClassifierConfig

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "SETTINGS_FILE",
    "WEIGHTS_FILE",
    "load_network",
    "read_settings",
    "write_classifier",
]

SETTINGS_FILE = "hmceval_classifier.json"
WEIGHTS_FILE = "classifier.safetensors"
FORMAT_NAME = "hmceval-text-classifier"
FORMAT_VERSION = 1


def write_classifier(
    directory: str | Path,
    *,
    net: Any,
    tokenizer: Any,
    config: ClassifierConfig,
    classes: np.ndarray,
    source_model_dir: str | None,
    history: list[dict[str, float]],
) -> Path:
    """Write the weights, encoder config, tokenizer and settings into ``directory``; return it."""
    from safetensors.torch import save_model

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    save_model(net, str(out / WEIGHTS_FILE))
    net.encoder.config.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    settings = asdict(config)
    settings.pop("device", None)
    class_list = [c.item() if isinstance(c, np.generic) else c for c in classes.tolist()]
    meta = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "settings": settings,
        "classes": class_list,
        "source_model_dir": source_model_dir,
        "history": history,
    }
    (out / SETTINGS_FILE).write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return out


def read_settings(path: Path) -> tuple[ClassifierConfig, dict[str, Any]]:
    """The settings and the whole settings file of the saved classifier folder ``path``.

    Raises
    ------
    DataError
        When the folder or its settings file is missing, not JSON, of another format or
        version, or lists fewer than two classes.
    """
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
    return config, meta


def load_network(path: Path, *, n_classes: int, dropout: float) -> Any:
    """The network saved in ``path`` (encoder built from its config, weights loaded strictly).

    Raises
    ------
    DataError
        When the weights file is missing or does not fit the network.
    """
    from safetensors.torch import load_model
    from transformers import AutoConfig, AutoModel

    weights = path / WEIGHTS_FILE
    if not weights.is_file():
        raise DataError(f"{path} has no {WEIGHTS_FILE}")
    try:
        with quiet_transformers():
            enc_cfg = AutoConfig.from_pretrained(str(path), local_files_only=True)
            encoder = AutoModel.from_config(enc_cfg)
        net = build_network(encoder, n_classes, float(dropout))
        load_model(net, str(weights), strict=True)
    except Exception as exc:
        raise DataError(f"cannot load the classifier weights from {weights}: {exc}") from None
    return net
