"""Text features of a dialogue: tokens, joined text, textstat readability, masked-LM pseudo-perplexity."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import DataError


def tokenize(text: str) -> list[str]:
    """Split a text into whitespace-separated tokens (the "total length" unit)."""
    return str(text).split()


_END = re.compile(r"[.!?]\s*$")


def dialogue_text(turns: Sequence[str]) -> str:
    """Join the turns of a dialogue into one text for the readability formulas.

    Every turn that does not end with ``.``, ``!`` or ``?`` gets a final ``.`` so that it
    counts as (at least) one sentence; turns are joined with single spaces.

    Parameters
    ----------
    turns : sequence of str of length n_turns

    Returns
    -------
    str
    """
    parts = []
    for t in turns:
        t = str(t).strip()
        if not t:
            continue
        parts.append(t if _END.search(t) else t + ".")
    return " ".join(parts)


def readability(text: str) -> dict[str, float]:
    """Readability scores of a text with textstat 0.7.8.

    Parameters
    ----------
    text : str

    Returns
    -------
    dict
        ``flesch_reading_ease`` (the paper's "FK score"), ``flesch_kincaid_grade`` and
        ``dale_chall``; all NaN when the text has no word (textstat would return 0.0).
        See the module docstring for what textstat counts.
    """
    import textstat

    text = str(text)
    if textstat.lexicon_count(text) == 0:
        return {"flesch_reading_ease": math.nan, "flesch_kincaid_grade": math.nan,
                "dale_chall": math.nan}
    return {
        "flesch_reading_ease": float(textstat.flesch_reading_ease(text)),
        "flesch_kincaid_grade": float(textstat.flesch_kincaid_grade(text)),
        "dale_chall": float(textstat.dale_chall_readability_score(text)),
    }


class MaskedLMScorer:
    """Pseudo-perplexity with a masked language model loaded from a local directory.

    Parameters
    ----------
    model : transformers masked-LM model (``AutoModelForMaskedLM``)
    tokenizer : its tokenizer (must define a mask token)
    batch_size : int, default=32
        Masked copies scored per forward pass.
    """

    def __init__(self, model: Any, tokenizer: Any, *, batch_size: int = 32) -> None:
        if getattr(tokenizer, "mask_token_id", None) is None:
            raise DataError("the tokenizer has no mask token: pseudo-perplexity needs a masked "
                            "language model")
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.batch_size = int(batch_size)
        n_pos = getattr(model.config, "max_position_embeddings", None) or 512
        tmax = getattr(tokenizer, "model_max_length", None)
        if tmax is not None and 0 < tmax < 10**6:
            n_pos = min(n_pos, int(tmax))
        n_special = int(tokenizer.num_special_tokens_to_add(pair=False))
        self.window = int(n_pos) - n_special
        if self.window < 1:
            raise DataError(f"the model's window ({n_pos} positions) leaves no room for tokens")

    @classmethod
    def from_directory(cls, path: str | os.PathLike, *, batch_size: int = 32) -> "MaskedLMScorer":
        """Load model and tokenizer from ``path`` (local files only)."""
        return load_masked_lm(path, batch_size=batch_size)

    def pseudo_perplexity(self, text: str) -> float:
        """Pseudo-perplexity of ``text``; NaN when it has no token.

        Returns
        -------
        float
            ``exp(-(1/N) sum_i log P(w_i | rest))`` over the N non-special tokens.
        """
        import torch

        enc = self.tokenizer(str(text), add_special_tokens=True, return_special_tokens_mask=True)
        ids = list(enc["input_ids"])
        special = list(enc["special_tokens_mask"])
        content = [i for i, s in enumerate(special) if s == 0]
        if not content:
            return math.nan
        first, last = content[0], content[-1]
        prefix, suffix = ids[:first], ids[last + 1:]
        body, body_special = ids[first:last + 1], special[first:last + 1]
        window = max(1, self.window)
        total, count = 0.0, 0
        mask_id = int(self.tokenizer.mask_token_id)
        for start in range(0, len(body), window):
            seq = prefix + body[start:start + window] + suffix
            positions = [len(prefix) + i for i, s in enumerate(body_special[start:start + window])
                         if s == 0]
            if not positions:
                continue
            base = torch.tensor(seq, dtype=torch.long)
            for b in range(0, len(positions), self.batch_size):
                pos = torch.tensor(positions[b:b + self.batch_size])
                batch = base.repeat(len(pos), 1)
                idx = torch.arange(len(pos))
                batch[idx, pos] = mask_id
                with torch.no_grad():
                    logits = self.model(input_ids=batch,
                                        attention_mask=torch.ones_like(batch)).logits
                logp = torch.log_softmax(logits.float(), dim=-1)
                total += float(logp[idx, pos, base[pos]].sum())
                count += len(pos)
        return float(math.exp(-total / count))


def load_masked_lm(path: str | os.PathLike | None, *, batch_size: int = 32) -> MaskedLMScorer:
    """Load a masked LM and its tokenizer from a local directory.

    Raises
    ------
    DataError
        When ``path`` is missing, not a folder, or holds no loadable masked LM.
    """
    if path is None or str(path).strip() == "":
        raise DataError("no masked-LM directory given: the perplexity feature needs a local "
                        "model folder (config, weights and tokenizer files)")
    p = Path(path)
    if not p.is_dir():
        raise DataError(f"masked-LM directory not found: {p}")
    try:
        from transformers import AutoModelForMaskedLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        tok = AutoTokenizer.from_pretrained(str(p), local_files_only=True)
        model = AutoModelForMaskedLM.from_pretrained(str(p), local_files_only=True)
    except Exception as exc:  # transformers raises OSError/ValueError/KeyError variants
        raise DataError(f"could not load a masked language model from {p}: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    return MaskedLMScorer(model, tok, batch_size=batch_size)
