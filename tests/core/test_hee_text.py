"""core.hee.text, split from tests/core/test_hee.py (tests named after the module they test)."""

from __future__ import annotations

import math
import pandas as pd
import pytest
from core.errors import DataError
from core.hee import (
    dialogue_text,
    extract_dialogue_features,
    load_masked_lm,
    readability,
    tokenize,
)
from tests.core.hee_support import (
    _dc,
    _fkg,
    _fre,
    _tiny_mlm,
    VOCAB,
)


# --------------------------------------------------------------------------------------------
# Pseudo-perplexity with tiny masked LMs built from a config (no download)
# --------------------------------------------------------------------------------------------


def test_readability_one_syllable_easy_words():
    # the cat sat on the mat: 6 words, 1 sentence, 6 syllables, every word on the easy list
    r = readability("The cat sat on the mat.")
    assert r["flesch_reading_ease"] == pytest.approx(116.145, abs=1e-9)
    assert r["flesch_kincaid_grade"] == pytest.approx(-1.45, abs=1e-9)
    assert r["dale_chall"] == pytest.approx(0.2976, abs=1e-9)  # 0% difficult: 0.0496 * 6


def test_readability_two_sentences_with_difficult_words():
    # "The happy dog ran away quickly." (6 words) "Analysis is extraordinary!" (3 words)
    # syllables (CMU): the 1 happy 2 dog 1 ran 1 away 2 quickly 2 analysis 4 is 1
    # extraordinary 6 (EH2 K S T R AH0 AO1 R D AH0 N EH2 R IY0) = 20; W = 9, S = 2
    # difficult (not on the easy list): analysis, extraordinary -> 2/9 = 22.2 % (> 5)
    r = readability("The happy dog ran away quickly. Analysis is extraordinary!")
    assert r["flesch_reading_ease"] == pytest.approx(_fre(9, 2, 20), abs=1e-9)
    assert r["flesch_reading_ease"] == pytest.approx(14.2675, abs=1e-9)
    assert r["flesch_kincaid_grade"] == pytest.approx(12.387222222, abs=1e-6)
    assert r["dale_chall"] == pytest.approx(_dc(9, 2, 2), abs=1e-9)
    assert r["dale_chall"] == pytest.approx(7.3685889, abs=1e-6)


def test_readability_textstat_quirks_short_sentence_and_cmu_syllables():
    # "Hi." has one word: textstat does not count it as a sentence -> S = 1, W = 4.
    # "every" is 3 syllables in CMU's first pronunciation (EH1 V ER0 IY0), "fire" 2 (F AY1 ER0):
    # Y = hi 1 + every 3 + fire 2 + burns 1 = 7.
    # Dale-Chall: "hi" and "burns" (an inflection) are not on the easy list -> D = 2 of 4 (50 %).
    r = readability("Hi. Every fire burns.")
    assert r["flesch_reading_ease"] == pytest.approx(_fre(4, 1, 7), abs=1e-9)
    assert r["flesch_reading_ease"] == pytest.approx(54.725, abs=1e-9)
    assert r["flesch_kincaid_grade"] == pytest.approx(_fkg(4, 1, 7), abs=1e-9)
    assert r["dale_chall"] == pytest.approx(11.7299, abs=1e-9)


def test_readability_hyphens_and_contractions():
    # punctuation removal keeps "don't" (1 word, CMU D OW1 N T = 1 syllable) and deletes the
    # hyphen: "well-known" is the single word "wellknown" (not in CMU: Pyphen well|known = 2).
    # W = 5 (I, don't, like, wellknown, cats), S = 1, Y = 1+1+1+2+1 = 6;
    # difficult: wellknown, cats -> 2/5 = 40 %.
    r = readability("I don't like well-known cats.")
    assert r["flesch_reading_ease"] == pytest.approx(_fre(5, 1, 6), abs=1e-9)
    assert r["flesch_reading_ease"] == pytest.approx(100.24, abs=1e-9)
    assert r["dale_chall"] == pytest.approx(_dc(5, 1, 2), abs=1e-9)
    assert r["dale_chall"] == pytest.approx(10.2005, abs=1e-9)


def test_readability_no_words_is_nan():
    for text in ("", "   ", "?!."):
        r = readability(text)
        assert all(math.isnan(v) for v in r.values())


def test_dialogue_text_and_tokens():
    assert dialogue_text(["hello there", "How are you?", " fine ", ""]) == \
        "hello there. How are you? fine."
    assert tokenize("I don't  know, really.") == ["I", "don't", "know,", "really."]


def test_pseudo_perplexity_uniform_model_equals_vocab_size(tmp_path):
    scorer = load_masked_lm(_tiny_mlm(tmp_path / "m", bias=[0.0] * len(VOCAB)))
    # uniform prediction over V = 11 tokens: exp(-mean log(1/11)) = 11
    assert scorer.pseudo_perplexity("the cat sat on the mat .") == pytest.approx(11.0, rel=1e-5)


def test_pseudo_perplexity_closed_form_and_windows(tmp_path):
    bias = [0.0] * len(VOCAB)
    bias[VOCAB.index("the")] = math.log(4.0)
    # softmax: p(the) = 4/14, any other token 1/14. Text tokens: the cat sat on the mat . (N = 7)
    # PPPL = exp(-(2 log(4/14) + 5 log(1/14)) / 7) = 14 / 4 ** (2/7)
    expected = 14.0 / 4.0 ** (2.0 / 7.0)
    scorer = load_masked_lm(_tiny_mlm(tmp_path / "m", bias=bias))
    assert scorer.pseudo_perplexity("the cat sat on the mat .") == pytest.approx(expected, rel=1e-5)
    # a 5-position model scores the text in windows of 3 tokens; the value is unchanged
    small = load_masked_lm(_tiny_mlm(tmp_path / "s", bias=bias, max_positions=5))
    assert small.window == 3
    assert small.pseudo_perplexity("the cat sat on the mat .") == pytest.approx(expected, rel=1e-5)
    assert math.isnan(scorer.pseudo_perplexity(""))


def test_pseudo_perplexity_random_model_matches_direct_masking(tmp_path):
    torch = pytest.importorskip("torch")
    path = _tiny_mlm(tmp_path / "r", seed=3)
    scorer = load_masked_lm(path)
    ids = [VOCAB.index(w) for w in "the cat sat on mat".split()]
    seq = [2] + ids + [3]
    nll = 0.0
    model = scorer.model
    for pos in range(1, len(seq) - 1):
        masked = list(seq)
        masked[pos] = VOCAB.index("[MASK]")
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([masked])).logits[0, pos]
        nll -= float(torch.log_softmax(logits, -1)[seq[pos]])
    assert scorer.pseudo_perplexity("the cat sat on mat") == pytest.approx(math.exp(nll / 5), rel=1e-5)


def test_masked_lm_missing_or_invalid_directory(tmp_path):
    with pytest.raises(DataError, match="not found"):
        load_masked_lm(tmp_path / "nope")
    with pytest.raises(DataError, match="no masked-LM directory"):
        load_masked_lm(None)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="could not load a masked language model"):
        load_masked_lm(tmp_path / "empty")


def test_extract_with_scorer_adds_perplexity(tmp_path):
    scorer = load_masked_lm(_tiny_mlm(tmp_path / "m", bias=[0.0] * len(VOCAB)))
    log = pd.DataFrame({"d": [1, 1, 2], "t": ["the cat", "sat on the mat", "the mat ."]})
    out = extract_dialogue_features(log, dialogue_col="d", text_col="t", scorer=scorer)
    assert out.features["perplexity"].to_numpy() == pytest.approx([11.0, 11.0], rel=1e-5)
    assert not any("perplexity" in n for n in out.notices)
