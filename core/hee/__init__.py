"""Human effort estimation (HEE): features, the random-forest effort model, correlations.

The HEE module of HMCEval (Zhang et al., ACL 2021, section 3.4) predicts the human effort of
annotating a dialogue response, measured as annotation time. The model is a random forest
regression of the annotation time per *dialogue*, min-max normalised to [0, 1]; the effort of
one response (sample) is its dialogue's predicted time divided by the dialogue's number of
turns ("average time per turn"), joined to the samples by dialogue id.

Features
--------
Dialogue features **D** (canonical name, the HMCEval release column in brackets):

==========================  ===================  =============================================
canonical name              release column       meaning
==========================  ===================  =============================================
``total_turns``             ``turns``            number of turns in the dialogue
``malevolent_turns``        ``Mal_number``       malevolent turns (machine labels when predicting)
``non_malevolent_turns``    ``Nonmal_number``    non-malevolent turns
``first_submission``        ``FirstSubmit``      1 when it is the worker's first task, else 0
``paraphrased_turns``       ``RewriteCount``     number of paraphrased turns
``total_length``            ``DialogueLen``      number of tokens of the dialogue
``readability_dc``          ``dia_dc_score``     Dale-Chall readability score
``readability_fk``          ``dia_fk_score``     Flesch(-Kincaid) reading *ease* (higher = easier)
``contains_malevolent``     ``Mal_label``        1 when a turn is malevolent, else 0
``perplexity``              ``dialogue_bert_pp`` masked-LM (BERT) perplexity; optional
==========================  ===================  =============================================

Worker features **W**: ``worker_score`` (``worker_score``, the worker's test score) and
``approval_ranking`` (``lifetime_ranking``, the worker's index when workers are sorted by
lifetime approval rate in ascending order).

The paper's "FK score" is the Flesch reading ease: the authors computed it with
``spacy_readability``'s ``flesch_kincaid_reading_ease`` and the paper says "a higher FK score
means that the dialogue is easier to understand" (the grade level would be the opposite); the
release's values (mean 92.6) are reading-ease values. :func:`readability` therefore maps
``readability_fk`` to ``textstat.flesch_reading_ease`` and also reports the grade level.

Readability with textstat 0.7.8 (what its functions actually compute)
----------------------------------------------------------------------
* words: punctuation is deleted (hyphens too, so ``well-known`` is one word ``wellknown``;
  apostrophes of English contractions are kept, ``don't`` is one word), then the text is split
  on whitespace;
* sentences: the pieces matched by ``\b[^.!?]+[.!?]*``, *minus those with two words or fewer*
  (``"Hi."`` is not counted as a sentence), at least 1;
* syllables: the number of stress digits of the word's *first* CMU dictionary pronunciation
  (``every`` counts 3, ``extraordinary`` 6); words missing from the CMU dictionary fall back to
  Pyphen hyphenation points + 1;
* Flesch reading ease = 206.835 - 1.015 * words/sentences - 84.6 * syllables/words;
  Flesch-Kincaid grade = 0.39 * words/sentences + 11.8 * syllables/words - 15.59;
* Dale-Chall = 0.1579 * (100 * difficult/words) + 0.0496 * words/sentences, plus 3.6365 when
  the difficult-word percentage is above 5. A word is *difficult* when its lower-cased form is
  not in textstat's list of 2,940 easy words, whatever its syllable count (the score calls
  the word test with a syllable threshold of 0). Inflected forms absent from the list
  (``cats``) and proper names count as difficult. Every occurrence counts.
* no rounding (textstat's rounding is off by default).

For a dialogue, the turns are joined with single spaces after giving every turn that does not
end with ``.``, ``!`` or ``?`` a final ``.``, so each turn is at least one sentence (subject to
textstat's two-word rule). The total length counts whitespace-separated tokens.

Pseudo-perplexity
-----------------
:class:`MaskedLMScorer` loads a masked language model and its tokenizer from a *local*
directory (never from a hub) and computes the pseudo-perplexity (Salazar et al., 2020):
``exp(-(1/N) sum_i log P(w_i | w without w_i))``, masking each of the N non-special tokens in
turn. Texts longer than the model's window are scored in consecutive windows. When no model
directory is given the perplexity feature is skipped with a notice. The release's
``dialogue_bert_pp`` values came from the authors' own BERT setup and are used as they are.

Effort model and the paper's settings
-------------------------------------
Random forest regression, 100 trees, ``max_features=8`` and seed 397 (the authors' released
cross-validation script uses ``KFold(5, shuffle=True, random_state=397)`` and
``RandomForestRegressor(random_state=397, n_estimators=100, max_features=8)``); the target is
min-max normalised over the whole table. On ``data_per_dialogue.tsv``, with the features in
the order of the paper's Table 5 (the order of the columns changes the forest's random feature
draws slightly), this reproduces Table 4 (``python bench/hee.py``):
D: MSE 0.0085, RMSE 0.0920, MAE 0.0604, R2 0.4344 (paper 0.009, 0.092, 0.061, 0.433);
D+W: MSE 0.0035, RMSE 0.0591, MAE 0.0325, R2 0.7657 (paper 0.004, 0.059, 0.033, 0.763).
``max_features`` 9 or 10 give R2 0.4341/0.4335 (D) and 0.7653/0.7641 (D+W) with that seed, so
8 is kept (the value of the authors' script; 10 appears there commented out). The seed matters
more than max_features: over seeds 0-4 D's R2 ranges 0.416-0.438 (mean 0.426) and D+W's
0.758-0.763. When fewer than 8 features are chosen, every feature is considered at each split.
The fold RMSE is the square root of the fold MSE; the reported value of each metric is the
mean over folds. The authors also min-max scaled the features; a forest is invariant to that
(an affine map per feature keeps every split), so features are used as they are.
Bounds: scikit-learn's forest stores the features in 32-bit floats, so a feature value beyond
+-3.4e38 (:data:`~core.hee.columns.MAX_FEATURE_MAGNITUDE`) is refused with a :class:`DataError`
naming the column and rows (:func:`~core.hee.columns.check_feature_range`, in every entry point
of the model); turn counts are whole numbers from 1 to 2**31 - 1; a dialogue's summed effort
must stay finite.

Parts
-----
From the bottom up (each imports only the ones above it in this list):

* :mod:`core.hee.columns`: feature names, the release's columns, recognised aliases,
  :func:`detect_column`, :class:`FeatureSet`, :func:`resolve_feature_set`, :func:`numeric_matrix`;
* :mod:`core.hee.text`: :func:`tokenize`, :func:`dialogue_text`, :func:`readability`,
  :class:`MaskedLMScorer`;
* :mod:`core.hee.features`: :func:`extract_dialogue_features`, the worker features and their join;
* :mod:`core.hee.metrics`: :func:`regression_metrics`, :func:`feature_correlations`;
* :mod:`core.hee.model`: :class:`EffortResult`, :func:`cross_validate_effort`,
  :func:`split_effort`, :func:`estimate_effort`;
* :mod:`core.hee.effort`: per-sample effort, the dialogue table of a sample table, and a
  dataset's samples as the model's input (:func:`effort_samples`).
"""

from __future__ import annotations

from core.hee.columns import (
    DIALOGUE_FEATURES, WORKER_FEATURES, OPTIONAL_FEATURES, FEATURE_LABELS, FEATURE_ALIASES,
    HMCEVAL_COLUMNS, TIME_ALIASES, ID_ALIASES, SPLIT_ALIASES, DEFAULT_MAX_FEATURES, DEFAULT_RANDOM_STATE,
    DEFAULT_N_ESTIMATORS, detect_feature_columns, detect_column, FeatureSet, resolve_feature_set,
    numeric_matrix, TURN_PARAPHRASED_ALIASES,
)
from core.hee.text import tokenize, dialogue_text, readability, MaskedLMScorer, load_masked_lm
from core.hee.features import (
    FeatureExtraction, extract_dialogue_features, approval_rate_ranking, worker_features,
    join_worker_features,
)
from core.hee.metrics import minmax_normalise, regression_metrics, significance_mark, feature_correlations
from core.hee.model import EffortResult, cross_validate_effort, split_effort, estimate_effort
from core.hee.effort import (
    per_sample_effort, sample_effort_table, dialogue_table_from_samples, features_from_samples,
    effort_data_problems, EffortSamples, effort_samples, effort_settings, effort_predictions,
    effort_notices,
)

__all__ = [
    "DIALOGUE_FEATURES",
    "WORKER_FEATURES",
    "OPTIONAL_FEATURES",
    "FEATURE_LABELS",
    "FEATURE_ALIASES",
    "HMCEVAL_COLUMNS",
    "TIME_ALIASES",
    "ID_ALIASES",
    "SPLIT_ALIASES",
    "DEFAULT_MAX_FEATURES",
    "DEFAULT_RANDOM_STATE",
    "DEFAULT_N_ESTIMATORS",
    "tokenize",
    "dialogue_text",
    "readability",
    "MaskedLMScorer",
    "load_masked_lm",
    "FeatureExtraction",
    "extract_dialogue_features",
    "approval_rate_ranking",
    "worker_features",
    "join_worker_features",
    "detect_feature_columns",
    "detect_column",
    "FeatureSet",
    "resolve_feature_set",
    "numeric_matrix",
    "minmax_normalise",
    "regression_metrics",
    "significance_mark",
    "feature_correlations",
    "EffortResult",
    "cross_validate_effort",
    "split_effort",
    "estimate_effort",
    "per_sample_effort",
    "effort_settings",
    "effort_predictions",
    "effort_notices",
    "sample_effort_table",
    "dialogue_table_from_samples",
    "TURN_PARAPHRASED_ALIASES",
    "features_from_samples",
    "effort_data_problems",
    "EffortSamples",
    "effort_samples",
]
