"""core.tooltalk.similarity, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import copy
import io
import json
import math
import zipfile
from pathlib import Path
import numpy as np
import pytest
from core import tooltalk as tt
from core.demo import tooltalk as tt_demo
from core.errors import DataError
from core.figures import tooltalk as ttfig


class TableSimilarity:
    """Similarity from a table of (prediction, ground truth) pairs; 1 for equal texts, else 0.
    Records every call."""

    def __init__(self, table: dict[tuple[str, str], float] | None = None):
        self.table = dict(table or {})
        self.calls: list[tuple[str, str]] = []

    def __call__(self, a: str, b: str) -> float:
        self.calls.append((a, b))
        if (a, b) in self.table:
            return self.table[(a, b)]
        return 1.0 if a == b else 0.0


def score(obj, sim=None, **kw):
    conv = tt.parse_conversation(obj, source="x.json")
    return tt.evaluate_conversation(conv, similarity=sim or TableSimilarity(), **kw)


DEMO_EXPECTED = {  # mode -> (predictions, matches, actions, bad_actions, success) with exact text similarity
    "exact": (2, 2, 1, 0, True),
    "missing_call": (1, 1, 0, 0, False),
    "duplicate_action": (3, 2, 2, 1, False),
    "wrong_argument": (2, 1, 1, 1, False),
    "failed_then_fixed": (3, 2, 2, 0, True),
    "search_missing_result": (2, 1, 1, 0, False),
    "reordered_recipients_and_same_day": (2, 2, 2, 0, True),
    "paraphrase": (2, 0, 2, 2, False),
    "extra_lookup": (3, 2, 0, 0, True),
    "no_predictions": (0, 0, 0, 0, False),
    "unknown_tool": (3, 2, 1, 0, True),
    "wrong_recipient": (1, 0, 1, 1, False),
}


def test_demo_is_deterministic_and_each_perturbation_scores_as_designed():
    demo = tt_demo.demo_conversations(seed=0)
    assert demo == tt_demo.demo_conversations(seed=0) and demo != tt_demo.demo_conversations(seed=1)
    assert len(demo) == len(DEMO_EXPECTED) == len(tt_demo.DEMO_PERTURBATIONS)
    for obj, (mode, expected) in zip(demo, DEMO_EXPECTED.items()):
        assert obj["scenario"] == f"demo: {tt_demo.DEMO_PERTURBATIONS[mode]}"
        s = score(json.loads(json.dumps(obj)), sim=tt.exact_similarity)
        assert (s.predictions, s.matches, s.actions, s.bad_actions, s.success) == expected, mode


def test_minilm_similarity_loads_lazily_from_a_local_directory_and_caches(tmp_path):
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    torch.manual_seed(0)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello", "world", "send", "mail"]
    tokenizer = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)})
    assert tokenizer("hello world")["input_ids"] == [2, 5, 6, 3]
    tokenizer.save_pretrained(tmp_path)
    config = BertConfig(vocab_size=len(vocab), hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=16, max_position_embeddings=32)
    BertModel(config).save_pretrained(tmp_path)

    sim = tt.MiniLMSimilarity(tmp_path)
    assert not sim.loaded
    v = sim.embed("hello world")
    assert sim.loaded and v.shape == (8,) and v.dtype == np.float64
    assert sim.embed("hello world") is v  # cached
    assert sim("hello world", "hello world") == pytest.approx(1.0)
    assert not np.allclose(sim.embed("send mail"), v)
    assert -1.0 - 1e-12 <= sim("hello world", "send mail") < 0.999


def test_missing_model_directory_is_reported(tmp_path):
    sim = tt.MiniLMSimilarity(tmp_path / "nothing-here")
    with pytest.raises(tt.EncoderUnavailableError, match="cannot load the text encoder"):
        sim("a", "b")


def test_missing_encoder_is_a_data_error_that_stops_scoring(tmp_path):
    from core.errors import DataError

    assert issubclass(tt.EncoderUnavailableError, DataError)
    sim = tt.MiniLMSimilarity(tmp_path / "nothing-here")
    conversations = [tt.parse_conversation(c) for c in tt_demo.demo_conversations()]
    # the demo has free-text arguments, so the encoder is needed: scoring stops, it does not
    # record the missing encoder as every conversation's own error
    with pytest.raises(tt.EncoderUnavailableError, match="cannot load the text encoder"):
        tt.score_conversations(conversations, similarity=sim)
