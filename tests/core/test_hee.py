"""Tests of core.hee: hand-computed values and the paper's numbers reproduced from ../shared/data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.errors import DataError
from core import hee
from core.hee import (
    approval_rate_ranking,
    cross_validate_effort,
    dialogue_table_from_samples,
    dialogue_text,
    estimate_effort,
    extract_dialogue_features,
    feature_correlations,
    features_from_samples,
    load_masked_lm,
    minmax_normalise,
    per_sample_effort,
    readability,
    regression_metrics,
    resolve_feature_set,
    sample_effort_table,
    significance_mark,
    split_effort,
    tokenize,
    worker_features,
)

# --------------------------------------------------------------------------------------------
# Readability: values worked out by hand from the formulas and textstat 0.7.8's counting rules
#   FRE   = 206.835 - 1.015 * W/S - 84.6 * Y/W
#   FKG   = 0.39 * W/S + 11.8 * Y/W - 15.59
#   DC    = 0.1579 * 100 * D/W + 0.0496 * W/S (+ 3.6365 when 100 * D/W > 5)
# W words, S sentences (pieces of <= 2 words not counted), Y syllables (first CMU
# pronunciation), D words not in textstat's easy-word list.
# --------------------------------------------------------------------------------------------


def _fre(w, s, y):
    return 206.835 - 1.015 * w / s - 84.6 * y / w


def _fkg(w, s, y):
    return 0.39 * w / s + 11.8 * y / w - 15.59


def _dc(w, s, d):
    pct = 100.0 * d / w
    return 0.1579 * pct + 0.0496 * w / s + (3.6365 if pct > 5 else 0.0)


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


# --------------------------------------------------------------------------------------------
# Feature extraction from an annotation log
# --------------------------------------------------------------------------------------------
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


def test_extract_dialogue_features_counts_and_readability():
    out = extract_dialogue_features(_log(), dialogue_col="dlg", text_col="text", label_col="mal",
                                    paraphrased_col="para", first_submission_col="first",
                                    turn_col="turn", keep_cols=["secs"])
    f = out.features.set_index("dialogue_id")
    assert list(f.index) == ["a", "b"]
    assert f.loc["a", "total_turns"] == 2 and f.loc["b", "total_turns"] == 3
    assert f.loc["a", "malevolent_turns"] == 0 and f.loc["b", "malevolent_turns"] == 2
    assert f.loc["a", "non_malevolent_turns"] == 2 and f.loc["b", "non_malevolent_turns"] == 1
    assert f.loc["a", "contains_malevolent"] == 0 and f.loc["b", "contains_malevolent"] == 1
    assert f.loc["a", "paraphrased_turns"] == 1 and f.loc["b", "paraphrased_turns"] == 1
    assert f.loc["a", "first_submission"] == 1 and f.loc["b", "first_submission"] == 0
    assert f.loc["a", "total_length"] == 12 and f.loc["b", "total_length"] == 8
    assert f.loc["b", "secs"] == 75
    # dialogue a in turn order: "The cat sat on the mat. The happy dog ran away quickly."
    # W = 12, S = 2, Y = 6 + 9 = 15, every word easy.
    assert f.loc["a", "readability_fk"] == pytest.approx(_fre(12, 2, 15), abs=1e-9)
    assert f.loc["a", "readability_fk"] == pytest.approx(94.995, abs=1e-9)
    assert f.loc["a", "readability_dc"] == pytest.approx(0.0496 * 6, abs=1e-9)
    assert "perplexity" not in f.columns
    assert any("perplexity" in n for n in out.notices)


def test_extract_without_optional_columns_says_what_is_missing():
    out = extract_dialogue_features(_log(), dialogue_col="dlg", text_col="text")
    assert set(out.features.columns) == {"dialogue_id", "total_turns", "total_length",
                                         "readability_dc", "readability_fk"}
    text = " ".join(out.notices)
    for word in ("malevolent", "paraphrased", "first submission", "perplexity"):
        assert word in text


@pytest.mark.parametrize("change,match", [
    (lambda d: d.assign(text=["x", None, "y", "z", "w"]), r"'text'.*row 2"),
    (lambda d: d.assign(mal=[0, 2, 0, 0, 1]), r"'mal'.*0/1.*row 2"),
    (lambda d: d.assign(first=[1, 0, 0, 0, 0]), r"'first'.*varies within dialogue 'a'"),
    (lambda d: d.assign(secs=[40, 41, 75, 75, 75]), r"'secs'.*constant.*'a'"),
    (lambda d: d.drop(columns=["mal"]), r"'mal'.*not in the annotation log"),
])
def test_extract_bad_input(change, match):
    with pytest.raises(DataError, match=match):
        extract_dialogue_features(change(_log()), dialogue_col="dlg", text_col="text",
                                  label_col="mal", first_submission_col="first",
                                  keep_cols=["secs"])


# --------------------------------------------------------------------------------------------
# Pseudo-perplexity with tiny masked LMs built from a config (no download)
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# Worker features
# --------------------------------------------------------------------------------------------
def test_approval_rate_ranking_ascending_ties_share_smallest_index():
    assert approval_rate_ranking([0.9, 0.5, 0.7, 0.7]).tolist() == [4, 1, 2, 2]
    with pytest.raises(DataError, match="row 2"):
        approval_rate_ranking([0.9, np.nan])


def test_worker_features_table():
    w = pd.DataFrame({"wid": ["x", "y", "z"], "score": [100, 90, 95], "rate": [0.99, 0.95, 0.97]})
    out = worker_features(w, worker_col="wid", score_col="score", approval_col="rate")
    assert out["approval_ranking"].tolist() == [3, 1, 2]
    assert out["worker_score"].tolist() == [100, 90, 95]
    d = pd.DataFrame({"dlg": [1, 2, 3], "worker": ["z", "x", "z"]})
    joined = hee.join_worker_features(d, out, worker_col="worker")
    assert joined["worker_score"].tolist() == [95, 100, 95]
    assert joined["approval_ranking"].tolist() == [2, 3, 2]
    with pytest.raises(DataError, match="dialogue row 2.*'q'"):
        hee.join_worker_features(d.assign(worker=["z", "q", "x"]), out, worker_col="worker")
    with pytest.raises(DataError, match="'wid'.*repeats"):
        worker_features(pd.concat([w, w.iloc[:1]]), worker_col="wid", score_col="score",
                        approval_col="rate")


# --------------------------------------------------------------------------------------------
# Column mapping
# --------------------------------------------------------------------------------------------
RELEASE_D = ["turns", "Mal_number", "Nonmal_number", "FirstSubmit", "RewriteCount",
             "DialogueLen", "dia_dc_score", "dia_fk_score", "Mal_label", "dialogue_bert_pp"]


def test_resolve_feature_sets_on_release_columns(release):
    fs = resolve_feature_set("D", release.columns)
    assert fs.columns == RELEASE_D and fs.notices == []
    fs = resolve_feature_set("d+w", release.columns)
    assert fs.name == "D+W" and fs.columns == RELEASE_D + ["worker_score", "lifetime_ranking"]
    assert fs.labels[-1] == "approval rate ranking"
    assert resolve_feature_set("W", release.columns).columns == ["worker_score", "lifetime_ranking"]
    fs = resolve_feature_set("turns, worker_score,malevolent_turns", release.columns)
    assert fs.columns == ["turns", "worker_score", "Mal_number"]


def test_resolve_feature_set_optional_and_missing(release):
    cols = [c for c in release.columns if c != "dialogue_bert_pp"]
    fs = resolve_feature_set("D", cols)
    assert "dialogue_bert_pp" not in fs.columns and len(fs.columns) == 9
    assert "perplexity" in fs.notices[0]
    cols = [c for c in release.columns if c not in ("RewriteCount", "lifetime_ranking")]
    with pytest.raises(DataError, match="paraphrased_turns.*approval_ranking"):
        resolve_feature_set("D+W", cols)
    with pytest.raises(DataError, match="'nope' is not in the table"):
        resolve_feature_set("turns,nope", release.columns)
    with pytest.raises(DataError, match="listed twice"):
        resolve_feature_set("turns,total_turns", release.columns)
    fs = resolve_feature_set("D", ["my_turns"] + cols + ["RewriteCount"],
                             mapping={"total_turns": "my_turns"})
    assert fs.columns[0] == "my_turns"


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------
def test_regression_metrics_hand_values():
    m = regression_metrics([0, 1, 2, 3], [0, 1, 2, 2])
    # errors 0 0 0 1: MSE 1/4, MAE 1/4, SS_tot = 2.25+0.25+0.25+2.25 = 5 -> R2 = 1 - 1/5
    assert m == pytest.approx({"mse": 0.25, "rmse": 0.5, "mae": 0.25, "r2": 0.8})
    m = regression_metrics([0, 1, 2, 3], [1, 1, 1, 1])
    assert m["r2"] == pytest.approx(1 - (1 + 0 + 1 + 4) / 5)
    assert math.isnan(regression_metrics([2, 2, 2], [1, 2, 3])["r2"])  # constant truth
    one = regression_metrics([3.0], [1.0])
    assert one["mse"] == 4.0 and one["mae"] == 2.0 and math.isnan(one["r2"])
    assert all(math.isnan(v) for v in regression_metrics([], []).values())


def test_minmax_normalise():
    y, lo, hi = minmax_normalise([5, 10, 15, 7.5])
    assert y.tolist() == [0.0, 0.5, 1.0, 0.25] and (lo, hi) == (5.0, 15.0)
    with pytest.raises(DataError, match="constant"):
        minmax_normalise([3, 3, 3])
    with pytest.raises(DataError, match="row 2"):
        minmax_normalise([1, np.nan])


def test_significance_marks():
    assert significance_mark(0.000999) == "**"
    assert significance_mark(0.001) == "*"
    assert significance_mark(0.0499) == "*"
    assert significance_mark(0.05) == ""
    assert significance_mark(float("nan")) == "" and significance_mark(None) == ""


def _t3_two_sided_p(t):
    # Student t with 3 degrees of freedom: CDF = 1/2 + (1/pi) (t / (sqrt3 (1 + t^2/3)) + atan(t/sqrt3))
    cdf = 0.5 + (t / (math.sqrt(3) * (1 + t * t / 3)) + math.atan(t / math.sqrt(3))) / math.pi
    return 2 * (1 - cdf)


def test_feature_correlations_hand_values():
    X = pd.DataFrame({"x": [1, 2, 3, 4, 5], "c": [7, 7, 7, 7, 7]})
    y = [2, 4, 5, 4, 5]
    out = feature_correlations(X, y).set_index("feature")
    # Pearson: sum dx dy = 6, sum dx^2 = 10, sum dy^2 = 6 -> r = 6 / sqrt(60)
    r = 6 / math.sqrt(60)
    assert out.loc["x", "pearson"] == pytest.approx(r, abs=1e-12)
    t = r * math.sqrt(3) / math.sqrt(1 - r * r)
    assert out.loc["x", "pearson_p"] == pytest.approx(_t3_two_sided_p(t), rel=1e-9)
    # Spearman: ranks of y 1, 2.5, 4.5, 2.5, 4.5 -> 7 / sqrt(10 * 9)
    rs = 7 / math.sqrt(90)
    assert out.loc["x", "spearman"] == pytest.approx(rs, abs=1e-12)
    ts = rs * math.sqrt(3) / math.sqrt(1 - rs * rs)
    assert out.loc["x", "spearman_p"] == pytest.approx(_t3_two_sided_p(ts), rel=1e-9)
    assert out.loc["x", "pearson_mark"] == "" and out.loc["x", "spearman_mark"] == ""
    # constant feature: undefined
    assert math.isnan(out.loc["c", "pearson"]) and math.isnan(out.loc["c", "spearman_p"])
    assert out.loc["c", "pearson_mark"] == ""


# --------------------------------------------------------------------------------------------
# The HMCEval release
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def release(shared_data):
    return pd.read_csv(shared_data / "hmceval" / "data_per_dialogue.tsv", sep="\t")


# Paper Table 5 (Pearson, Spearman). The paper's PDF text interleaves the two columns; each
# row's pair is the one the data reproduce (first submission 0.342 / 0.263 etc.).
TABLE5 = {
    "turns": (0.053, "**", 0.122, "**"),
    "Mal_number": (0.445, "**", 0.600, "**"),
    "Nonmal_number": (-0.236, "**", -0.292, "**"),
    "FirstSubmit": (0.342, "**", 0.263, "**"),
    "RewriteCount": (0.555, "**", 0.564, "**"),
    "DialogueLen": (0.046, "**", 0.100, "**"),
    "dia_dc_score": (0.042, "*", -0.001, ""),
    "dia_fk_score": (-0.026, "*", -0.053, "**"),
    "Mal_label": (0.432, "**", 0.603, "**"),
    "dialogue_bert_pp": (-0.008, "", 0.001, ""),
    "worker_score": (0.162, "**", 0.049, "**"),
    "lifetime_ranking": (0.840, "**", 0.849, "**"),
}


def test_table5_correlations_reproduced(release):
    cols = list(TABLE5)
    out = feature_correlations(release[cols], release["WorkTimeInSeconds"]).set_index("feature")
    for c, (p, pm, s, sm) in TABLE5.items():
        assert out.loc[c, "pearson"] == pytest.approx(p, abs=0.01), c
        assert out.loc[c, "spearman"] == pytest.approx(s, abs=0.01), c
        assert out.loc[c, "pearson_mark"] == pm, c
        assert out.loc[c, "spearman_mark"] == sm, c


@pytest.fixture(scope="module")
def cv_results(release):
    return {fs: estimate_effort(release, time_col="WorkTimeInSeconds", features=fs, n_splits=5,
                                n_jobs=2)
            for fs in ("D", "D+W")}


def test_table4_cross_validation_reproduced(cv_results):
    d, dw = cv_results["D"].metrics, cv_results["D+W"].metrics
    assert d["r2"] == pytest.approx(0.43, abs=0.01)
    assert d["rmse"] == pytest.approx(0.092, abs=0.002)
    assert d["mse"] == pytest.approx(0.009, abs=0.001)
    assert d["mae"] == pytest.approx(0.061, abs=0.002)
    assert dw["r2"] == pytest.approx(0.76, abs=0.01)
    assert dw["rmse"] == pytest.approx(0.059, abs=0.002)
    assert dw["mse"] == pytest.approx(0.004, abs=0.001)
    assert dw["mae"] == pytest.approx(0.033, abs=0.002)
    assert cv_results["D"].params["max_features"] == 8
    assert cv_results["D+W"].params["random_state"] == 397


def test_cross_validation_structure(cv_results, release):
    res = cv_results["D+W"]
    assert res.folds["n_test"].tolist() == [1200] * 5
    assert res.folds["n_train"].tolist() == [4800] * 5
    pr = res.predictions
    assert pr["fold"].notna().all() and (pr["subset"] == "test").all()
    assert sorted(pr["fold"].value_counts().tolist()) == [1200] * 5
    assert pr["dialogue_id"].tolist() == release["Number"].tolist()
    # fold metrics are recomputed from the out-of-fold predictions
    for k in range(1, 6):
        sub = pr[pr["fold"] == k]
        m = regression_metrics(sub["time_norm"], sub["predicted_norm"])
        assert res.folds.loc[k - 1, "r2"] == pytest.approx(m["r2"])
    assert res.metrics["rmse"] == pytest.approx(res.folds["rmse"].mean())
    # target min-max normalised over the whole table
    t = release["WorkTimeInSeconds"]
    assert pr["time_norm"].to_numpy() == pytest.approx(((t - t.min()) / (t.max() - t.min())).to_numpy())
    assert pr["predicted_effort"].to_numpy() == pytest.approx(
        (pr["predicted_norm"] / release["turns"]).to_numpy())
    imp = res.importances.set_index("feature")
    assert imp["impurity"].sum() == pytest.approx(1.0)
    # approval ranking is by far the strongest feature (Table 5: r = 0.84)
    assert imp["impurity"].idxmax() == "lifetime_ranking"


def test_split_mode_matches_release_sample_structure(release, shared_data):
    res = estimate_effort(release, time_col="WorkTimeInSeconds", features="D+W",
                          split_col="my_split", n_jobs=2)
    assert res.mode == "split"
    assert res.folds[["n_train", "n_test"]].iloc[0].tolist() == [4801, 1199]
    assert res.predictions["predicted_norm"].notna().sum() == 1199
    samples = sample_effort_table(res)
    ilp = pd.read_csv(shared_data / "hmceval" / "ilp_data_trustscore_f2.tsv", sep="\t")
    # the release's sample table has one row per turn of every test dialogue, in file order
    assert len(samples) == len(ilp) == 5673
    assert samples["n_turns"].tolist() == ilp["turns"].tolist()
    assert samples["turn"].tolist() == ilp["turn"].tolist()
    assert 0.6 < res.metrics["r2"] < 0.9


# --------------------------------------------------------------------------------------------
# The effort model on small synthetic data
# --------------------------------------------------------------------------------------------
def _synthetic(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"signal": rng.uniform(0, 1, n), "noise1": rng.uniform(0, 1, n),
                      "noise2": rng.uniform(0, 1, n)})
    time = 10 + 100 * X["signal"] ** 2
    return X, time.to_numpy()


def test_cross_validate_learns_signal_and_importances():
    X, t = _synthetic()
    res = cross_validate_effort(X, t, n_splits=4, n_estimators=30, permutation_repeats=3,
                                random_state=1)
    assert res.params["max_features"] == 3  # fewer than 8 features: all of them
    assert res.metrics["r2"] > 0.9
    imp = res.importances.set_index("feature")
    assert imp["permutation"].idxmax() == "signal" and imp["impurity"].idxmax() == "signal"
    assert imp.loc["signal", "permutation"] > 0.5
    assert abs(imp.loc["noise1", "permutation"]) < 0.1
    # deterministic under a seed
    again = cross_validate_effort(X, t, n_splits=4, n_estimators=30, random_state=1)
    assert again.metrics == res.metrics


def test_effort_model_bad_input():
    X, t = _synthetic(20)
    with pytest.raises(DataError, match="at least 2") as info:
        cross_validate_effort(X, t, n_splits=1)
    assert str(info.value).startswith("Folds ") and "--" not in str(info.value)  # the page's control
    with pytest.raises(DataError, match="needs at least 30 dialogues"):
        cross_validate_effort(X, t, n_splits=30)
    with pytest.raises(DataError, match="max_features=5.*3 feature"):
        cross_validate_effort(X, t, max_features=5)
    with pytest.raises(DataError, match="constant"):
        cross_validate_effort(X, np.full(20, 7.0))
    bad_t = t.copy()
    bad_t[3] = -1
    with pytest.raises(DataError, match=">= 0.*row 4"):
        cross_validate_effort(X, bad_t)
    with pytest.raises(DataError, match="'train' or 'test'.*row 3"):
        split_effort(X, t, ["train", "test", "dev"] + ["train"] * 17)


def test_estimate_effort_bad_table(release):
    small = release.head(50).copy()
    with pytest.raises(DataError, match="time column 'secs' is not in the table"):
        estimate_effort(small, time_col="secs")
    bad = small.copy()
    bad["dia_dc_score"] = bad["dia_dc_score"].astype(object)
    bad.loc[4, "dia_dc_score"] = "n/a"
    with pytest.raises(DataError, match="'dia_dc_score' must be numeric; row 5"):
        estimate_effort(bad, time_col="WorkTimeInSeconds")
    bad = small.copy()
    bad.loc[[2, 9], "turns"] = np.nan
    with pytest.raises(DataError, match="'turns' has missing values.*rows 3, 10"):
        estimate_effort(bad, time_col="WorkTimeInSeconds")
    with pytest.raises(DataError, match="cannot also be a feature"):
        estimate_effort(small, time_col="WorkTimeInSeconds", features="turns,WorkTimeInSeconds")


# --------------------------------------------------------------------------------------------
# Per-sample effort
# --------------------------------------------------------------------------------------------
def test_per_sample_effort_join():
    out = per_sample_effort(["7", 3, 3, 7, 7.0], [3, 7], [0.2, 0.9], [2, 3])
    assert out == pytest.approx([0.3, 0.1, 0.1, 0.3, 0.3])
    with pytest.raises(DataError, match="sample row 2.*dialogue id 9"):
        per_sample_effort([3, 9], [3, 7], [0.2, 0.9], [2, 3])
    with pytest.raises(DataError, match="repeat"):
        per_sample_effort([3], [3, 3], [0.2, 0.9], [2, 3])
    with pytest.raises(DataError, match=">= 1"):
        per_sample_effort([3], [3, 7], [0.2, 0.9], [0, 3])


def test_dialogue_table_from_samples():
    s = pd.DataFrame({"d": [1, 1, 2], "turns": [2, 2, 1], "score": [90, 90, 100], "conf": [.1, .2, .3]})
    out = dialogue_table_from_samples(s, dialogue_col="d", columns=["turns", "score"])
    assert out.to_dict(orient="list") == {"d": [1, 2], "turns": [2, 1], "score": [90, 100]}
    with pytest.raises(DataError, match="'conf' varies within dialogue 1"):
        dialogue_table_from_samples(s, dialogue_col="d", columns=["conf"])


def test_no_streamlit_in_core():
    import pathlib

    import core.figures.effort as fe

    for mod in (hee, fe):
        assert "streamlit" not in pathlib.Path(mod.__file__).read_text()


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------
def test_figures():
    from core.figures.effort import (correlation_figure, importance_figure, metrics_figure,
                                     predicted_vs_real_figure)

    fig = predicted_vs_real_figure({"D": ([0.1, 0.2, 0.3], [0.15, np.nan, 0.25]),
                                    "D+W": ([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])})
    assert [t.name for t in fig.data] == ["D", "D+W", "y = x"]
    assert list(fig.data[0].x) == [0.1, 0.3]  # the NaN prediction (a training row) is left out
    assert list(fig.data[2].x) == [0.1, 0.3]
    big = predicted_vs_real_figure({"D": (np.arange(50.0), np.arange(50.0))}, max_points=10)
    assert len(big.data[0].x) == 10 and "10 random points" in big.layout.title.text
    with pytest.raises(DataError):
        predicted_vs_real_figure({"D": ([1, 2], [1])})

    corr = pd.DataFrame({"label": ["total turns", "flat"], "pearson": [0.053, np.nan],
                         "pearson_mark": ["**", ""], "spearman": [0.122, np.nan],
                         "spearman_mark": ["*", ""]})
    fig = correlation_figure(corr)
    assert list(fig.data[0].text) == ["NaN", "0.053**"]  # drawn bottom-up
    assert list(fig.data[1].text) == ["NaN", "0.122*"]
    with pytest.raises(DataError, match="pearson_mark"):
        correlation_figure(corr.drop(columns=["pearson_mark"]))

    imp = pd.DataFrame({"label": ["a", "b"], "impurity": [0.7, 0.3],
                        "permutation": [np.nan, np.nan], "permutation_std": [np.nan, np.nan]})
    assert len(importance_figure(imp).data) == 1
    imp["permutation"] = [0.5, 0.01]
    imp["permutation_std"] = [0.02, 0.01]
    fig = importance_figure(imp)
    assert len(fig.data) == 2 and list(fig.data[0].y) == ["b", "a"]
    fig = metrics_figure({"D": {"mse": 0.0085, "rmse": 0.092, "mae": 0.06, "r2": 0.43},
                          "D+W": {"mse": 0.0035, "rmse": 0.059, "mae": 0.033, "r2": 0.76}})
    assert len(fig.data) == 2 and list(fig.data[1].text) == ["0.004", "0.059", "0.033", "0.760"]


def test_features_from_samples_time_and_workers():
    s = pd.DataFrame({
        "dlg": [1, 1, 2, 2, 2],
        "text": ["The cat sat on the mat", "The happy dog ran away quickly", "Go away.",
                 "You are an idiot!", "Why?"],
        "label": [0, 0, 0, 1, 1],
        "eff": [0.1, 0.1, 0.05, 0.05, 0.05],
        "ws": [100, 100, 90, 90, 90],
        "rank": [3, 3, 1, 1, 1],
    })
    out = features_from_samples(s, dialogue_col="dlg", text_col="text", effort_col="eff",
                                label_col="label", worker_score_col="ws", approval_ranking_col="rank")
    f = out.features.set_index("dialogue_id")
    assert f["time"].to_numpy() == pytest.approx([0.2, 0.15])  # effort per turn summed
    assert f["worker_score"].tolist() == [100, 90] and f["approval_ranking"].tolist() == [3, 1]
    assert f["malevolent_turns"].tolist() == [0, 2]
    fs = resolve_feature_set("D+W", out.features.columns, optional=hee.DIALOGUE_FEATURES)
    assert fs.columns == ["total_turns", "malevolent_turns", "non_malevolent_turns", "total_length",
                          "readability_dc", "readability_fk", "contains_malevolent",
                          "worker_score", "approval_ranking"]
    assert len(fs.notices) == 3  # first submission, paraphrased turns, perplexity
    with pytest.raises(DataError, match="first_submission"):
        resolve_feature_set("D", out.features.columns)  # strict by default
    bad = s.assign(eff=[0.1, -0.1, 0.05, 0.05, 0.05])
    with pytest.raises(DataError, match="'eff' must be >= 0; row 2"):
        features_from_samples(bad, dialogue_col="dlg", text_col="text", effort_col="eff")
    no_w = features_from_samples(s, dialogue_col="dlg", text_col="text")
    assert any("worker features W are unavailable" in n for n in no_w.notices)


def test_features_from_samples_dialogue_time_column():
    s = pd.DataFrame({"dlg": ["b", "b", "a", "a", "a"], "text": ["Hi there you.", "Go away now.", "Why?",
                                                                   "You are rude!", "Sorry."],
                      "secs": [30, 30, 12, 12, 12]})
    out = features_from_samples(s, dialogue_col="dlg", text_col="text", time_col="secs")
    # one time per dialogue, in order of first appearance
    assert out.features[["dialogue_id", "time"]].values.tolist() == [["b", 30], ["a", 12]]
    with pytest.raises(DataError, match=r"'secs' varies within dialogue 'a' \(rows 3, 4, 5\)"):
        features_from_samples(s.assign(secs=[30, 30, 12, 13, 12]), dialogue_col="dlg", text_col="text",
                              time_col="secs")
    with pytest.raises(DataError, match="not both"):
        features_from_samples(s, dialogue_col="dlg", text_col="text", time_col="secs", effort_col="secs")


def test_effort_samples_of_a_dataset():
    from core.data import prepare
    from core.hee import effort_data_problems, effort_samples

    raw = pd.DataFrame({"dialogue_id": [7, 7, 8], "turn": [1, 2, 1], "response": ["a b", "c", "d e f"],
                        "machine_label": [0, 1, 0], "machine_confidence": [0.9, 0.6, 0.8],
                        "human_label": [0, 1, 1], "human_effort": [1.0, 2.0, 3.0],
                        "FirstSubmit": [1, 1, 0], "worker_score": [90, 90, 80]})
    data = prepare(raw, {"text": ["response"]}, name="t")
    assert effort_data_problems(data) == []
    prepared = effort_samples(data, text_col="response", label_col="human_label")
    assert list(prepared.samples.columns) == ["dialogue_id", "text", "label", "turn", "effort",
                                              "first_submission", "worker_score"]
    assert prepared.samples["label"].tolist() == [0, 1, 1]
    assert prepared.samples["effort"].tolist() == [1.0, 2.0, 3.0]
    assert prepared.sources == {"first_submission": "FirstSubmit", "worker_score": "worker_score"}
    assert prepared.columns == {"dialogue_col": "dialogue_id", "text_col": "text", "effort_col": "effort",
                                "label_col": "label", "turn_col": "turn",
                                "first_submission_col": "first_submission", "paraphrased_col": None,
                                "worker_score_col": "worker_score", "approval_ranking_col": None}
    fx = features_from_samples(prepared.samples, **prepared.columns)
    assert fx.features["time"].tolist() == [3.0, 3.0]  # effort summed per dialogue
    no_text = prepare(raw.drop(columns=["response"]), name="t")
    assert any("no free-text column" in p for p in effort_data_problems(no_text))
    with pytest.raises(DataError, match="cannot train the effort model: no free-text column"):
        effort_samples(no_text, text_col="response")


def test_effort_result_is_frozen_and_built_whole():
    import dataclasses

    table = pd.DataFrame({"turns": [2, 3, 4, 5, 6, 7], "length": [10, 30, 20, 50, 40, 60],
                          "secs": [10, 20, 30, 40, 50, 60]})
    res = estimate_effort(table, time_col="secs", features="turns,length", n_splits=2, n_estimators=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.notices = []
    # estimate_effort's additions are in the result it built
    assert res.params["time_column"] == "secs" and res.params["n_dialogues"] == 6
    assert res.params["turns_column"] == "turns"
    assert res.predictions["dialogue_id"].tolist() == [1, 2, 3, 4, 5, 6]  # numbered by row
    assert res.predictions["n_turns"].tolist() == [2, 3, 4, 5, 6, 7]
    assert any("numbered by row" in n for n in res.notices)
    assert list(res.correlations["feature"]) == ["turns", "length"]
