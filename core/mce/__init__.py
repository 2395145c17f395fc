"""Model confidence estimation (MCE): the machine evaluator and its confidence.

- :mod:`core.mce.classifier` -- BERT-style (context, response) classifier (torch + transformers,
  local model folders only), built from named parts: :mod:`~core.mce.settings` (config and
  outputs), :mod:`~core.mce.inputs` (contexts, pairs, tokens, labels), :mod:`~core.mce.encoder`
  (model folders, tokenizer, network), :mod:`~core.mce.training` (training loop),
  :mod:`~core.mce.inference` (batched scoring), :mod:`~core.mce.persistence` (save/load),
  :mod:`~core.mce.runtime` (threads, seeds);
- :mod:`core.mce.models` -- the model folders a user may choose from (``HMCEVAL_MODELS``);
- :mod:`core.mce.confidence` -- MCP, trust score and TCP estimators (fit/predict);
- :mod:`core.mce.metrics` -- confidence quality: AUC, top-k accuracy, risk-coverage/AURC, ECE;
- :mod:`core.mce.pipeline` -- train everything and score a table (CLI and dashboard);
- :mod:`core.mce.testing` -- a tiny random BERT for tests.

Submodules are imported on demand, so that the metrics do not pull in torch; the classifier's
public names are also available here (``from core.mce import TextClassifier``), loaded on first
use.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "ClassifierConfig": "core.mce.settings",
    "ClassifierOutput": "core.mce.settings",
    "TextClassifier": "core.mce.classifier",
    "TrainingStopped": "core.mce.confidence",
    "default_model_dir": "core.mce.encoder",
    "normalize_context": "core.mce.inputs",
    "seed_everything": "core.mce.runtime",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'core.mce' has no attribute {name!r}")
