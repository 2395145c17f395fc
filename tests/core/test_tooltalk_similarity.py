"""core.tooltalk.similarity, split from tests/core/test_tooltalk.py (tests named after the module they test)."""

from __future__ import annotations

import numpy as np
import pytest
from core import tooltalk as tt
from core.demo import tooltalk as tt_demo


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
