"""The model folders offered to a dashboard user (core.mce.models, issue 12): only usable
Hugging Face folders under the configured models folder, plus the packaged MiniLM encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.mce.models import (
    DEFAULT_MODELS_ROOT,
    MODELS_ENV,
    PACKAGED_ENCODER_NAME,
    available_models,
    model_folder_problem,
    models_root,
)
from core.mce.testing import build_tiny_bert


def build_tiny_mlm(path: Path) -> Path:
    """A tiny random BERT with a masked-LM head (config, safetensors weights, vocabulary)."""
    import torch
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    path.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "."]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(path / "vocab.txt")).save_pretrained(str(path))
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=32)
    BertForMaskedLM(cfg).save_pretrained(str(path))
    return path


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    r = tmp_path_factory.mktemp("models")
    build_tiny_bert(r / "tiny-bert")
    build_tiny_mlm(r / "org" / "tiny-mlm")
    build_tiny_bert(r / ".hidden")              # hidden folders are skipped
    build_tiny_bert(r / "deep" / "a" / "b")     # three levels down: not searched
    (r / "broken").mkdir()
    (r / "broken" / "config.json").write_text(json.dumps({"hidden_size": 16}))
    (r / "notes").mkdir()
    (r / "notes" / "readme.txt").write_text("not a model")
    (r / "loose.json").write_text("{}")
    return r


def test_models_root_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(MODELS_ENV, str(tmp_path))
    assert models_root() == tmp_path
    monkeypatch.setenv(MODELS_ENV, "  ")
    assert models_root() == Path.home() / ".hmceval" / "models"
    monkeypatch.delenv(MODELS_ENV)
    assert models_root() == Path.home() / ".hmceval" / "models"
    assert DEFAULT_MODELS_ROOT == "~/.hmceval/models"


def test_encoders_listed_with_the_packaged_one_first(root):
    from core.mce.encoder import default_model_dir

    found = available_models("encoder", root=root)
    assert [m.name for m in found] == [PACKAGED_ENCODER_NAME, "org/tiny-mlm", "tiny-bert"]
    assert found[0].packaged and found[0].path == default_model_dir()
    assert found[1].path == root / "org" / "tiny-mlm" and not found[1].packaged
    assert [m.name for m in available_models("encoder", root=root, include_packaged=False)] == [
        "org/tiny-mlm", "tiny-bert"]


def test_masked_lms_need_a_masked_lm_head(root):
    found = available_models("masked_lm", root=root)
    assert [(m.name, m.path) for m in found] == [("org/tiny-mlm", root / "org" / "tiny-mlm")]


def test_environment_variable_is_the_default_root(root, monkeypatch):
    monkeypatch.setenv(MODELS_ENV, str(root))
    assert [m.name for m in available_models("masked_lm")] == ["org/tiny-mlm"]


def test_missing_root_offers_only_the_packaged_encoder(tmp_path):
    assert [m.name for m in available_models("encoder", root=tmp_path / "absent")] == [PACKAGED_ENCODER_NAME]
    assert available_models("masked_lm", root=tmp_path / "absent") == []
    assert available_models("encoder", root=tmp_path, include_packaged=False) == []


def test_reasons_a_folder_is_not_usable(root, tmp_path):
    assert model_folder_problem(root / "notes", "encoder") == "no config.json"
    assert model_folder_problem(root / "broken", "encoder") == "no tokenizer files"
    (tmp_path / "config.json").write_text("[1, 2]")
    assert model_folder_problem(tmp_path, "encoder") == "config.json is not a JSON object"
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (tmp_path / "vocab.txt").write_text("[PAD]\n")
    assert model_folder_problem(tmp_path, "encoder") == "no weights"
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert model_folder_problem(tmp_path, "encoder") == "no hidden size in config.json"
    assert model_folder_problem(root / "tiny-bert", "masked_lm") == "not a masked language model"
    assert model_folder_problem(root / "tiny-bert", "encoder") is None
    with pytest.raises(ValueError):
        available_models("decoder", root=root)  # type: ignore[arg-type]


def test_listed_models_load(root):
    from core.hee import load_masked_lm
    from core.mce.classifier import TextClassifier

    enc = {m.name: m.path for m in available_models("encoder", root=root)}
    ids = TextClassifier(model_dir=str(enc["tiny-bert"]), max_length=16).tokenize(["hello you"])
    assert ids[0]["input_ids"][0] == 2 and ids[0]["input_ids"][-1] == 3  # [CLS] ... [SEP]
    mlm = available_models("masked_lm", root=root)[0]
    scorer = load_masked_lm(mlm.path)
    assert scorer is not None
