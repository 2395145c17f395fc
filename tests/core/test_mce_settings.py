"""Settings of the machine evaluator (``core.mce.settings``): the paper's defaults (HMCEval
section 4.2: max length 128, batch 64, dropout 0.1, learning rate 5e-5, 4 epochs, 3 context
turns) and every invalid setting refused naming it. No model is loaded."""

from __future__ import annotations

import math

import pytest

from core.errors import DataError
from core.mce.settings import CPU_PRECISIONS, ClassifierConfig


def test_paper_defaults():
    c = ClassifierConfig()
    assert (c.max_length, c.batch_size, c.dropout, c.learning_rate, c.epochs, c.max_context_turns) == (
        128, 64, 0.1, 5e-5, 4, 3)


def test_the_defaults_validate():
    c = ClassifierConfig()
    c.validate()
    assert (c.eval_batch_size, c.eval_batch_tokens, c.cpu_precision) == (32, 1024, "auto")
    assert (c.weight_decay, c.warmup_ratio, c.max_grad_norm, c.seed) == (0.0, 0.0, 1.0, 0)
    assert c.lean_inference is True and c.group_by_length is True
    assert c.model_dir is None and c.device is None
    assert CPU_PRECISIONS == ("auto", "float32", "bfloat16", "int8")


@pytest.mark.parametrize("name,value", [
    ("max_length", 7), ("max_length", 128.0), ("batch_size", 0), ("eval_batch_size", 0),
    ("eval_batch_tokens", -1), ("dropout", 1.0), ("dropout", -0.1),
    ("learning_rate", -1e-5), ("learning_rate", math.inf), ("weight_decay", math.nan),
    ("warmup_ratio", 1.0), ("epochs", 0), ("epochs", 2.5), ("max_context_turns", -1),
    ("max_grad_norm", -1.0), ("seed", "0"), ("group_by_length", 1), ("lean_inference", "yes"),
    ("cpu_precision", "fp16"),
])
def test_an_invalid_setting_is_named(name, value):
    with pytest.raises(DataError, match=rf"^classifier setting {name} has an invalid value: "
                                        rf"{repr(value).replace('.', '[.]')}$"):
        ClassifierConfig(**{name: value}).validate()


@pytest.mark.parametrize("name,value", [
    ("max_length", 8), ("eval_batch_tokens", 0), ("dropout", 0.0), ("max_context_turns", 0),
    ("max_grad_norm", 0.0), ("cpu_precision", "int8"), ("warmup_ratio", 0.5),
])
def test_boundary_values_are_valid(name, value):
    ClassifierConfig(**{name: value}).validate()

