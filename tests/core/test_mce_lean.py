"""The lean BERT forward (core.mce.lean) against the transformers forward, on tiny random BERTs.

The encoders are built from a ``BertConfig`` (:func:`core.mce.testing.build_tiny_bert`): nothing
is downloaded. The reference is the ``transformers`` module itself (``net.features``: the last
hidden state of the first token), in float32 and under bfloat16 autocast. No timing is
asserted; the speed is measured by ``bench/mce_inference.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from core.mce import lean as lean_module  # noqa: E402
from core.mce.classifier import TextClassifier  # noqa: E402
from core.mce.encoder import build_network, load_encoder, load_tokenizer  # noqa: E402
from core.mce.inputs import encode_pairs, pad_batch, text_pairs  # noqa: E402
from core.mce.lean import lean_encoder, parameters_version  # noqa: E402
from core.mce.testing import build_tiny_bert  # noqa: E402

TEXTS = ["i love you", "you are stupid , go away idiot", "hi", "thanks , good day . how are you ?",
         "", "what is that ? i like it , it is nice and great and good", "no", "ok sure"]
CONTEXTS = ["hello", ["hi", "how are you ?"], None, "", "what ?", ["a", "b", "c", "d"], "yes", None]

# bfloat16 keeps 8 significant bits, so each rounded operand moves by at most 2**-9 (0.2%)
# relative; a two-layer encoder chains about 16 products, so a feature may move by a few tenths
# of a percent against float32 (measured below 0.3%). The lean forward and autocast round at
# the same places (with a GELU fused before rounding where oneDNN packs), so they differ by that
# order too. A mis-wired projection, mask or layer would move a feature by tens of percent.
BF16_REL = 0.02
F32_ABS = 2e-5


def _model(tmp_path, **kwargs):
    path = build_tiny_bert(tmp_path / "bert", hidden_size=32, num_heads=4, intermediate_size=64,
                           num_layers=kwargs.pop("num_layers", 2), **kwargs)
    torch.manual_seed(0)
    net = build_network(load_encoder(path, 0.1), 2, 0.1).eval()
    tok = load_tokenizer(path)
    return path, net, tok


def _batch(tok, idx, texts=TEXTS, contexts=CONTEXTS):
    encoded = encode_pairs(tok, text_pairs(texts, contexts, sep_token=tok.sep_token, max_turns=3), max_length=32)
    return pad_batch(tok, encoded, idx, "cpu")


def _rel(a, b):
    return (torch.linalg.vector_norm(a - b, dim=1) / torch.linalg.vector_norm(b, dim=1)).max().item()


@pytest.mark.parametrize("layers", [1, 2])
def test_float32_equals_the_transformers_forward(tmp_path, layers):
    _, net, tok = _model(tmp_path, num_layers=layers)
    lean, why = lean_encoder(net.encoder, bf16=False)
    assert lean is not None and "float32" in why
    with torch.inference_mode():
        for idx in ([0, 1, 2, 3, 4, 5, 6, 7], [5, 3], [2], [6, 7, 2]):  # padded, unpadded, one sample
            inputs = _batch(tok, idx)
            ref = net.features(**inputs)
            got = lean(**inputs)
            assert got.dtype == torch.float32 and got.shape == ref.shape == (len(idx), 32)
            assert (got - ref).abs().max().item() < F32_ABS


def test_padding_does_not_change_a_sample(tmp_path):
    _, net, tok = _model(tmp_path)
    lean, _ = lean_encoder(net.encoder, bf16=False)
    with torch.inference_mode():
        alone = lean(**_batch(tok, [2]))  # "hi": short, so padded in the batch below
        padded = lean(**_batch(tok, [5, 2]))
    assert (padded[1:] - alone).abs().max().item() < F32_ABS


@pytest.mark.parametrize("packed", [True, False])
def test_bfloat16_is_autocast_up_to_rounding(tmp_path, monkeypatch, packed):
    _, net, tok = _model(tmp_path)
    if not packed:
        monkeypatch.setattr(lean_module, "_packing_works", lambda dtype: False)
    elif not lean_module._packing_works(torch.bfloat16):
        pytest.skip("this torch build has no oneDNN packed bfloat16 linear")
    lean, why = lean_encoder(net.encoder, bf16=True)
    assert lean.packed is packed and lean.dtype == torch.bfloat16
    assert ("oneDNN" in why) is packed
    inputs = _batch(tok, list(range(8)))
    with torch.inference_mode():
        exact = net.features(**inputs)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            auto = net.features(**inputs).float()
        got = lean(**inputs)
    assert got.dtype == torch.float32
    assert _rel(got, exact) < BF16_REL
    assert _rel(got, auto) < BF16_REL
    assert _rel(got, exact) > 0  # it did round: bfloat16 ran, not float32


def test_other_architectures_are_declined_with_the_reason(tmp_path):
    _, net, _ = _model(tmp_path)
    cfg = net.encoder.config
    for field, value, said in [("hidden_act", "relu", "hidden_act"),
                               ("position_embedding_type", "relative_key", "position_embedding_type"),
                               ("model_type", "roberta", "model_type"),
                               ("is_decoder", True, "decoder")]:
        had, before = hasattr(cfg, field), getattr(cfg, field, None)
        setattr(cfg, field, value)
        try:
            lean, why = lean_encoder(net.encoder, bf16=False)
        finally:
            setattr(cfg, field, before) if had else delattr(cfg, field)
        assert lean is None and said in why


def _fit(tmp_path, **settings):
    path = build_tiny_bert(tmp_path / "fit", hidden_size=32, num_heads=4, intermediate_size=64, num_layers=2)
    settings = {"cpu_precision": "float32", **settings}
    clf = TextClassifier(model_dir=str(path), epochs=3, batch_size=4, learning_rate=1e-2, max_length=32,
                         device="cpu", **settings)
    labels = ["Safe", "Unsafe"] * 4
    return clf.fit(TEXTS, labels, contexts=CONTEXTS)


def test_classifier_scores_with_the_lean_forward_by_default(tmp_path):
    clf = _fit(tmp_path)
    assert clf.config.lean_inference is True
    lean_out = clf.predict_output(TEXTS, contexts=CONTEXTS)
    assert clf.inference_path_.startswith("lean BERT forward, float32")
    clf.config.lean_inference = False
    plain = clf.predict_output(TEXTS, contexts=CONTEXTS)
    assert clf.inference_path_ == "transformers forward, float32"
    assert np.abs(lean_out.proba - plain.proba).max() < 1e-5
    assert np.abs(lean_out.features - plain.features).max() < F32_ABS
    assert (lean_out.labels == plain.labels).all()


def test_lean_weights_follow_the_network(tmp_path):
    clf = _fit(tmp_path)
    first = clf.predict_output(TEXTS, contexts=CONTEXTS)
    version = parameters_version(clf.net_.encoder)
    with torch.no_grad():  # as an optimiser step or load_state_dict would
        clf.net_.encoder.encoder.layer[-1].output.dense.weight.mul_(3.0)
    assert parameters_version(clf.net_.encoder) != version
    changed = clf.predict_output(TEXTS, contexts=CONTEXTS)
    clf.config.lean_inference = False
    plain = clf.predict_output(TEXTS, contexts=CONTEXTS)
    assert np.abs(changed.features - first.features).max() > 1e-3  # not the stale copy
    assert np.abs(changed.features - plain.features).max() < 1e-4


def test_lean_setting_validated_and_saved(tmp_path):
    from core.errors import DataError
    from core.mce.settings import ClassifierConfig

    with pytest.raises(DataError, match="lean_inference"):
        ClassifierConfig(lean_inference="yes").validate()
    clf = _fit(tmp_path, lean_inference=False)
    clf.save(tmp_path / "saved")
    back = TextClassifier.load(tmp_path / "saved")
    assert back.config.lean_inference is False


def test_a_classifier_with_a_lean_cache_can_be_deep_copied(tmp_path):
    import copy

    clf = _fit(tmp_path, cpu_precision="bfloat16")
    first = clf.predict_output(TEXTS, contexts=CONTEXTS)  # builds the lean copy (packed weights)
    assert hasattr(clf, "_lean_")
    twin = copy.deepcopy(clf)
    assert not hasattr(twin, "_lean_") and twin.net_ is not clf.net_
    again = twin.predict_output(TEXTS, contexts=CONTEXTS)
    assert twin.inference_path_ == clf.inference_path_
    assert np.array_equal(again.proba, first.proba)
