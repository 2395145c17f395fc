"""CPU inference of the machine evaluator: bfloat16 and int8 against float32, on a tiny random BERT.

The encoder is built from a ``BertConfig`` (:func:`core.mce.testing.build_tiny_bert`, hidden size
16, one layer): nothing is downloaded. No timing is asserted here; the speed is measured by
``bench/mce_inference.py`` and the accuracy on DiaSafety by ``bench/mce_quantized.py``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from core.errors import DataError
from core.mce import inference
from core.mce.classifier import TextClassifier
from core.mce.settings import ClassifierConfig
from core.mce.testing import build_tiny_bert

POS = ["i love you", "you are nice", "thanks , good day", "i like that", "great !", "hello , how are you ?"]
NEG = ["i hate you", "you are stupid", "go away idiot", "awful people", "kill it", "you are bad"]
CONTEXTS = ["hello", ["hi", "how are you ?"], None, "", "what ?", ["a", "b", "c", "d"]] * 2
FAST = dict(epochs=8, batch_size=8, learning_rate=1e-2, max_length=32, device="cpu")

# Tolerances against float32 (max absolute difference of a probability; max relative Euclidean
# error of a feature vector). bfloat16 keeps 8 significant bits: each operand of a matrix
# product is rounded by at most 2**-9 (0.2%) relative, products are summed in float32, and the
# one-layer encoder chains about 8 products, so a feature moves by ~1% at most (measured:
# 0.14%); the float32 head moves a probability p by p(1-p) <= 1/4 of the change of the logit
# difference (measured: 1.3e-4). int8 rounds weights to 1/127 of each layer's largest weight
# and activations to 1/255 of their batch's range: ~0.4% per entry over 6 quantized layers
# (measured: 0.43% on a feature, 7e-4 on a probability). Each tolerance leaves a margin of 5-10x
# over the measured error, while a swapped or mis-ordered row would differ by far more: the toy
# classes are learned with every probability at least 0.17 away from 1/2, so rows of different
# classes differ by more than 0.34.
TOL = {"bfloat16": (0.002, 0.01), "int8": (0.01, 0.03)}


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    tiny = build_tiny_bert(tmp_path_factory.mktemp("tinybert"))
    texts, labels = (POS + NEG) * 4, (["Safe"] * 6 + ["Unsafe"] * 6) * 4
    return TextClassifier(model_dir=str(tiny), **FAST).fit(texts, labels, contexts=CONTEXTS * 4)


def _score(clf, texts, contexts=None, *, precision, **kwargs):
    before = clf.config.cpu_precision
    clf.config.cpu_precision = precision
    try:
        return clf.predict_output(texts, contexts=contexts, **kwargs)
    finally:
        clf.config.cpu_precision = before


def _rel(a, b):
    return np.linalg.norm(a - b, axis=1) / np.linalg.norm(b, axis=1)


def test_precision_setting_default_and_validation():
    assert ClassifierConfig().cpu_precision == "auto"
    assert ClassifierConfig().eval_batch_size == 32
    with pytest.raises(DataError, match="cpu_precision"):
        TextClassifier(cpu_precision="fp16")


def test_inference_precision_resolution(monkeypatch):
    assert inference.inference_precision("int8", "cpu") == "int8"
    assert inference.inference_precision("bfloat16", "cpu") == "bfloat16"
    assert inference.inference_precision("float32", "cpu") == "float32"
    for p in ("auto", "bfloat16", "int8"):  # a GPU scores in float32
        assert inference.inference_precision(p, "cuda:0") == "float32"
    monkeypatch.setattr(inference, "cpu_has_native_bf16", lambda: True)
    assert inference.inference_precision("auto", "cpu") == "bfloat16"
    monkeypatch.setattr(inference, "cpu_has_native_bf16", lambda: False)
    assert inference.inference_precision("auto", "cpu") == "float32"
    with pytest.raises(ValueError, match="fp16"):
        inference.inference_precision("fp16", "cpu")


@pytest.mark.skipif(not os.path.exists("/proc/cpuinfo"), reason="Linux only")
def test_native_bf16_follows_the_cpu_flags():
    flags = set()
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
        for line in fh:
            if line.startswith("flags"):
                flags = set(line.partition(":")[2].split())
                break
    assert inference.cpu_has_native_bf16() == bool(flags & {"avx512_bf16", "amx_bf16"})


def test_quantized_network_quantizes_the_encoder_only_and_leaves_the_original(fitted):
    import torch

    qnet = inference.quantized_network(fitted.net_)
    assert qnet is not None and qnet is not fitted.net_
    q_linear = torch.ao.nn.quantized.dynamic.Linear
    enc_layers = [m for m in qnet.encoder.modules() if isinstance(m, (torch.nn.Linear, q_linear))]
    assert len(enc_layers) == 7  # q, k, v, attention output, intermediate, output, pooler
    assert all(isinstance(m, q_linear) for m in enc_layers)
    assert type(qnet.head) is torch.nn.Linear  # the head stays float
    assert torch.equal(qnet.head.weight, fitted.net_.head.weight)
    # the trained network is untouched: still float Linear layers
    assert not any(isinstance(m, q_linear) for m in fitted.net_.modules())
    assert not qnet.training


@pytest.mark.parametrize("precision", ["bfloat16", "int8"])
def test_fast_paths_are_close_to_float32_in_the_same_order(fitted, precision):
    texts, contexts = POS + NEG, CONTEXTS
    p_tol, f_tol = TOL[precision]
    f = _score(fitted, texts, contexts, precision="float32")
    q = _score(fitted, texts, contexts, precision=precision)
    assert q.proba.shape == f.proba.shape == (12, 2) and q.features.shape == f.features.shape == (12, 16)
    assert q.features.dtype == np.float32 and q.proba.dtype == np.float64
    assert np.allclose(q.proba.sum(axis=1), 1.0)
    assert np.abs(q.proba - f.proba).max() < p_tol
    assert _rel(q.features, f.features).max() < f_tol
    assert q.labels.tolist() == f.labels.tolist() == ["Safe"] * 6 + ["Unsafe"] * 6
    assert not np.allclose(q.features, f.features, atol=1e-7)  # the path really changed
    # a permutation of the inputs permutes the outputs (one batch: the same activation ranges)
    perm = np.random.default_rng(0).permutation(12)
    p = _score(fitted, [texts[i] for i in perm], [contexts[i] for i in perm], precision=precision)
    assert np.allclose(p.proba, q.proba[perm], atol=1e-6)
    assert np.allclose(p.features, q.features[perm], atol=1e-5)


@pytest.mark.parametrize("precision", ["bfloat16", "int8"])
def test_fast_paths_across_batches_and_threads(fitted, precision):
    import torch

    # int8 quantizes activations per batch, so the batch a sample falls in moves it slightly
    texts, contexts = (POS + NEG) * 2, CONTEXTS * 2
    p_tol, _ = TOL[precision]
    threads = torch.get_num_threads()
    whole = _score(fitted, texts, contexts, precision=precision, n_threads=1)
    two = _score(fitted, texts, contexts, precision=precision, n_threads=2)
    assert torch.get_num_threads() == threads
    before = fitted.config.eval_batch_size
    fitted.config.eval_batch_size = 3
    try:
        small = _score(fitted, texts, contexts, precision=precision)
    finally:
        fitted.config.eval_batch_size = before
    assert torch.get_num_threads() == threads
    for out in (two, small):
        assert np.abs(out.proba - whole.proba).max() < p_tol
        assert (out.labels == whole.labels).all()


def test_int8_copy_made_once_per_network(fitted):
    import copy

    fitted.config.cpu_precision = "int8"
    try:
        first, bf16, lean = fitted._inference_net()
        assert first is not fitted.net_ and not bf16 and lean is None
        assert fitted._inference_net()[0] is first
        old = fitted.net_
        fitted.net_ = copy.deepcopy(old)  # a new network (as after fit or load) gets a new copy
        try:
            assert fitted._inference_net()[0] is not first
        finally:
            fitted.net_ = old
        fitted.config.cpu_precision = "bfloat16"
        assert fitted._inference_net()[:2] == (fitted.net_, True)
        fitted.config.cpu_precision = "float32"
        assert fitted._inference_net()[:2] == (fitted.net_, False)
    finally:
        fitted.config.cpu_precision = "auto"


def test_no_quantized_engine_falls_back_to_float32(fitted, monkeypatch):
    texts = POS + NEG
    f = _score(fitted, texts, precision="float32")
    monkeypatch.setattr(inference, "QUANTIZED_ENGINES", ())
    assert inference.quantized_network(fitted.net_) is None
    monkeypatch.setattr(fitted, "_int8_", None, raising=False)
    q = _score(fitted, texts, precision="int8")
    assert np.array_equal(q.proba, f.proba) and np.array_equal(q.features, f.features)


def test_setting_saved_and_older_files_default_to_auto(fitted, tmp_path):
    import json

    fitted.config.cpu_precision = "int8"
    try:
        fitted.save(tmp_path / "clf")
    finally:
        fitted.config.cpu_precision = "auto"
    meta_path = tmp_path / "clf" / "hmceval_classifier.json"
    assert TextClassifier.load(tmp_path / "clf").config.cpu_precision == "int8"
    meta = json.loads(meta_path.read_text())
    del meta["settings"]["cpu_precision"]  # a classifier saved before the setting existed
    meta_path.write_text(json.dumps(meta))
    loaded = TextClassifier.load(tmp_path / "clf", device="cpu")
    assert loaded.config.cpu_precision == "auto"
    texts = POS + NEG
    assert np.array_equal(loaded.predict_proba(texts), fitted.predict_proba(texts))


def test_length_batches_by_count_and_padded_tokens():
    from core.mce.inference import length_batches

    lengths = [5, 40, 3, 40, 10, 12, 90, 4]
    # sorted by length (stable): 2(3) 7(4) 0(5) 4(10) 5(12) 1(40) 3(40) 6(90)
    assert length_batches(lengths, 3) == [[2, 7, 0], [4, 5, 1], [3, 6]]
    # at most 80 padded tokens: 4 x 12 = 48 fits, a 40 joins only a batch of one 40 (2 x 40 = 80)
    assert length_batches(lengths, 8, 80) == [[2, 7, 0, 4, 5], [1, 3], [6]]
    assert length_batches(lengths, 8, 10) == [[2, 7], [0], [4], [5], [1], [3], [6]]  # 90 > 10: alone
    assert length_batches([], 4, 100) == []
    every = length_batches(lengths, 2, 50)
    assert sorted(i for b in every for i in b) == list(range(8))
    assert all(len(b) <= 2 and (len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 50) for b in every)


def test_token_bound_setting_keeps_the_outputs(fitted):
    texts, contexts = (POS + NEG) * 2, CONTEXTS * 2
    before = fitted.config.eval_batch_tokens
    try:
        totals = []
        fitted.config.eval_batch_tokens = 0
        unbounded = _score(fitted, texts, contexts, precision="float32", progress=lambda d, t, m: totals.append(t))
        fitted.config.eval_batch_tokens = 20  # a few samples per batch
        bounded = _score(fitted, texts, contexts, precision="float32", progress=lambda d, t, m: totals.append(t))
    finally:
        fitted.config.eval_batch_tokens = before
    batch = fitted.config.eval_batch_size
    assert totals[0] == -(-len(texts) // batch) and totals[-1] > len(texts) // 5  # every input > 5 tokens
    assert np.abs(bounded.proba - unbounded.proba).max() < 1e-5
    assert (bounded.labels == unbounded.labels).all()
    with pytest.raises(DataError, match="eval_batch_tokens"):
        ClassifierConfig(eval_batch_tokens=-1).validate()
