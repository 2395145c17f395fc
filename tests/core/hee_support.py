"""Helpers shared by the tests of core.hee (one copy, imported by each test file)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def _fre(w, s, y):
    return 206.835 - 1.015 * w / s - 84.6 * y / w


def _fkg(w, s, y):
    return 0.39 * w / s + 11.8 * y / w - 15.59


def _dc(w, s, d):
    pct = 100.0 * d / w
    return 0.1579 * pct + 0.0496 * w / s + (3.6365 if pct > 5 else 0.0)


def _log():
    return pd.DataFrame({
        "dlg": ["a", "a", "b", "b", "b"],
        "turn": [2, 1, 1, 2, 3],
        "text": ["The happy dog ran away quickly", "The cat sat on the mat",
                 "You are an idiot!", "Why?", "Go away now."],
        "mal": [0, 0, 1, 0, 1],
        "para": [1, 0, 0, 0, 1],
        "first": [1, 1, 0, 0, 0],
        "secs": [40, 40, 75, 75, 75],
    })


VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "."]


def _tiny_mlm(path, *, bias=None, max_positions=32, seed=0):
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    path.mkdir(parents=True, exist_ok=True)
    (path / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    tok = BertTokenizer(str(path / "vocab.txt"))
    cfg = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1,
                     num_attention_heads=2, intermediate_size=32,
                     max_position_embeddings=max_positions)
    torch.manual_seed(seed)
    model = BertForMaskedLM(cfg)
    if bias is not None:
        # zero LayerNorm output -> the prediction head returns its bias as logits everywhere
        head = model.cls.predictions
        with torch.no_grad():
            head.transform.LayerNorm.weight.zero_()
            head.transform.LayerNorm.bias.zero_()
            head.decoder.bias.copy_(torch.tensor(bias, dtype=torch.float32))
    model.save_pretrained(str(path))
    tok.save_pretrained(str(path))
    return path


RELEASE_D = ["turns", "Mal_number", "Nonmal_number", "FirstSubmit", "RewriteCount",
             "DialogueLen", "dia_dc_score", "dia_fk_score", "Mal_label", "dialogue_bert_pp"]


@pytest.fixture(scope="module")
def release(shared_data):
    return pd.read_csv(shared_data / "hmceval" / "data_per_dialogue.tsv", sep="\t")


def _synthetic(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"signal": rng.uniform(0, 1, n), "noise1": rng.uniform(0, 1, n),
                      "noise2": rng.uniform(0, 1, n)})
    time = 10 + 100 * X["signal"] ** 2
    return X, time.to_numpy()
