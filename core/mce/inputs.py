"""The machine evaluator's inputs: contexts, (context, response) pairs, token ids, batches, labels.

As in HMCEval (section 4.2): the previous (up to 3) dialogue utterances are the context, joined
with the tokenizer's separator token and paired with the response (``[CLS] u1 [SEP] u2 [SEP]
u3 [SEP] response [SEP]`` for a BERT tokenizer).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows

__all__ = ["encode_labels", "encode_pairs", "normalize_context", "pad_batch", "text_pairs"]

Encoded = list[dict[str, list[int]]]


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



def text_pairs(
    texts: Sequence[Any], contexts: Sequence[Any] | None, *, sep_token: str, max_turns: int
) -> list[tuple[str | None, str]]:
    """One ``(context or None, response)`` pair per sample.

    The context's last ``max_turns`` utterances (:func:`normalize_context`) are joined with
    ``sep_token`` surrounded by spaces.

    Raises
    ------
    DataError
        When ``contexts`` and ``texts`` differ in length or a response is not a string.
    """
    texts = list(texts.tolist() if isinstance(texts, (pd.Series, np.ndarray)) else texts)
    if contexts is not None:
        contexts = list(contexts.tolist() if isinstance(contexts, (pd.Series, np.ndarray)) else contexts)
        if len(contexts) != len(texts):
            raise DataError(f"contexts has {len(contexts)} entries but texts has {len(texts)}")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise DataError(f"response text is missing or not a string at {describe_rows(bad)}")
    sep = f" {sep_token} "
    pairs: list[tuple[str | None, str]] = []
    for i, text in enumerate(texts):
        ctx = normalize_context(None if contexts is None else contexts[i], max_turns=max_turns, row=i)
        pairs.append((sep.join(ctx) if ctx else None, text))
    return pairs


def encode_pairs(tokenizer: Any, pairs: list[tuple[str | None, str]], *, max_length: int) -> Encoded:
    """Unpadded model inputs of each pair, truncated to ``max_length`` tokens (longest segment first)."""
    out = []
    for ctx, text in pairs:
        if ctx is None:
            enc = tokenizer(text, truncation=True, max_length=max_length)
        else:
            enc = tokenizer(ctx, text, truncation="longest_first", max_length=max_length)
        out.append({k: list(v) for k, v in enc.items()})
    return out


def pad_batch(tokenizer: Any, encoded: Encoded, idx: Sequence[int], device: str) -> dict[str, Any]:
    """The samples ``idx`` of ``encoded`` padded into torch tensors on ``device``."""
    import torch

    items = [encoded[i] for i in idx]
    batch = tokenizer.pad(items, padding=True, return_tensors="pt")
    return {k: v.to(device) for k, v in batch.items() if isinstance(v, torch.Tensor)}


def encode_labels(labels: Sequence[Any], n_texts: int) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, y)``: the sorted distinct labels and each label's class index.

    Raises
    ------
    DataError
        When a label is missing, the lengths differ, numbers and strings are mixed, or fewer
        than two distinct labels are given.
    """
    labels_arr = np.asarray(labels.tolist() if isinstance(labels, pd.Series) else list(labels), dtype=object)
    missing = np.flatnonzero(pd.isna(pd.Series(labels_arr, dtype=object)).to_numpy())
    if missing.size:
        raise DataError(f"label is missing at {describe_rows(missing)}")
    if len(labels_arr) != n_texts:
        raise DataError(f"labels has {len(labels_arr)} entries but texts has {n_texts}")
    try:
        classes = sorted(set(labels_arr.tolist()))
    except TypeError:
        raise DataError("labels mix numbers and strings; use one type") from None
    if len(classes) < 2:
        raise DataError(f"training labels need at least 2 distinct values, got {classes}")
    index = {c: i for i, c in enumerate(classes)}
    y = np.array([index[v] for v in labels_arr.tolist()], dtype=np.int64)
    return np.asarray(classes, dtype=object), y
