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
* sentences: the pieces matched by ``\\b[^.!?]+[.!?]*``, *minus those with two words or fewer*
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
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows

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
    "sample_effort_table",
    "dialogue_table_from_samples",
    "TURN_PARAPHRASED_ALIASES",
    "features_from_samples",
]

# --------------------------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------------------------
DIALOGUE_FEATURES: tuple[str, ...] = (
    "total_turns",
    "malevolent_turns",
    "non_malevolent_turns",
    "first_submission",
    "paraphrased_turns",
    "total_length",
    "readability_dc",
    "readability_fk",
    "contains_malevolent",
    "perplexity",
)
WORKER_FEATURES: tuple[str, ...] = ("worker_score", "approval_ranking")
#: Features a set may lack (skipped with a notice).
OPTIONAL_FEATURES: tuple[str, ...] = ("perplexity",)

#: The paper's names (Table 5).
FEATURE_LABELS: dict[str, str] = {
    "total_turns": "total turns",
    "malevolent_turns": "malevolent turns",
    "non_malevolent_turns": "non-malevolent turns",
    "first_submission": "first submission",
    "paraphrased_turns": "paraphrased turns",
    "total_length": "total length",
    "readability_dc": "readability (DC)",
    "readability_fk": "readability (FK)",
    "contains_malevolent": "contains malevolent turn",
    "perplexity": "BERT-perplexity",
    "worker_score": "worker test score",
    "approval_ranking": "approval rate ranking",
}

#: The HMCEval release (``data_per_dialogue.tsv``): canonical name -> column.
HMCEVAL_COLUMNS: dict[str, str] = {
    "total_turns": "turns",
    "malevolent_turns": "Mal_number",
    "non_malevolent_turns": "Nonmal_number",
    "first_submission": "FirstSubmit",
    "paraphrased_turns": "RewriteCount",
    "total_length": "DialogueLen",
    "readability_dc": "dia_dc_score",
    "readability_fk": "dia_fk_score",
    "contains_malevolent": "Mal_label",
    "perplexity": "dialogue_bert_pp",
    "worker_score": "worker_score",
    "approval_ranking": "lifetime_ranking",
}

#: Column names recognised for each feature (case-insensitive, spaces/dashes as ``_``), in
#: priority order; the canonical name first, then the release's name.
FEATURE_ALIASES: dict[str, tuple[str, ...]] = {
    "total_turns": ("total_turns", "turns", "n_turns", "num_turns", "dialogue_turns"),
    "malevolent_turns": ("malevolent_turns", "mal_number", "n_malevolent", "num_malevolent"),
    "non_malevolent_turns": ("non_malevolent_turns", "nonmal_number", "n_non_malevolent",
                             "num_non_malevolent"),
    "first_submission": ("first_submission", "firstsubmit", "first_submit"),
    "paraphrased_turns": ("paraphrased_turns", "rewritecount", "rewrite_count", "n_paraphrased"),
    "total_length": ("total_length", "dialoguelen", "dialogue_len", "length_tokens", "n_tokens"),
    "readability_dc": ("readability_dc", "dia_dc_score", "dc_score", "dale_chall"),
    "readability_fk": ("readability_fk", "dia_fk_score", "fk_score", "flesch_reading_ease"),
    "contains_malevolent": ("contains_malevolent", "mal_label", "has_malevolent"),
    "perplexity": ("perplexity", "dialogue_bert_pp", "bert_pp", "pseudo_perplexity"),
    "worker_score": ("worker_score", "worker_test_score", "test_score"),
    "approval_ranking": ("approval_ranking", "lifetime_ranking", "approval_rate_ranking"),
}
TIME_ALIASES: tuple[str, ...] = ("worktimeinseconds", "time", "annotation_time", "time_seconds",
                                 "work_time", "time_cost")
ID_ALIASES: tuple[str, ...] = ("dialogue_id", "dialog_id", "conversation_id", "conv_id", "number")
SPLIT_ALIASES: tuple[str, ...] = ("split", "my_split", "subset", "partition")
#: Turn-level 0/1 "this turn was paraphrased" columns of a sample table.
TURN_PARAPHRASED_ALIASES: tuple[str, ...] = ("paraphrased", "is_paraphrased", "rewritten",
                                             "is_rewritten", "rewrite")

DEFAULT_MAX_FEATURES = 8
DEFAULT_RANDOM_STATE = 397
DEFAULT_N_ESTIMATORS = 100

_METRICS = ("mse", "rmse", "mae", "r2")


def _norm(name: Any) -> str:
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


def _py(v: Any) -> Any:
    """Plain Python value for messages (``1`` rather than ``np.int64(1)``)."""
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------------------------
# Text features
# --------------------------------------------------------------------------------------------
def tokenize(text: str) -> list[str]:
    """Split a text into whitespace-separated tokens (the "total length" unit)."""
    return str(text).split()


_END = re.compile(r"[.!?]\s*$")


def dialogue_text(turns: Sequence[str]) -> str:
    """Join the turns of a dialogue into one text for the readability formulas.

    Every turn that does not end with ``.``, ``!`` or ``?`` gets a final ``.`` so that it
    counts as (at least) one sentence; turns are joined with single spaces.

    Parameters
    ----------
    turns : sequence of str of length n_turns

    Returns
    -------
    str
    """
    parts = []
    for t in turns:
        t = str(t).strip()
        if not t:
            continue
        parts.append(t if _END.search(t) else t + ".")
    return " ".join(parts)


def readability(text: str) -> dict[str, float]:
    """Readability scores of a text with textstat 0.7.8.

    Parameters
    ----------
    text : str

    Returns
    -------
    dict
        ``flesch_reading_ease`` (the paper's "FK score"), ``flesch_kincaid_grade`` and
        ``dale_chall``; all NaN when the text has no word (textstat would return 0.0).
        See the module docstring for what textstat counts.
    """
    import textstat

    text = str(text)
    if textstat.lexicon_count(text) == 0:
        return {"flesch_reading_ease": math.nan, "flesch_kincaid_grade": math.nan,
                "dale_chall": math.nan}
    return {
        "flesch_reading_ease": float(textstat.flesch_reading_ease(text)),
        "flesch_kincaid_grade": float(textstat.flesch_kincaid_grade(text)),
        "dale_chall": float(textstat.dale_chall_readability_score(text)),
    }


class MaskedLMScorer:
    """Pseudo-perplexity with a masked language model loaded from a local directory.

    Parameters
    ----------
    model : transformers masked-LM model (``AutoModelForMaskedLM``)
    tokenizer : its tokenizer (must define a mask token)
    batch_size : int, default=32
        Masked copies scored per forward pass.
    """

    def __init__(self, model: Any, tokenizer: Any, *, batch_size: int = 32) -> None:
        if getattr(tokenizer, "mask_token_id", None) is None:
            raise DataError("the tokenizer has no mask token: pseudo-perplexity needs a masked "
                            "language model")
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.batch_size = int(batch_size)
        n_pos = getattr(model.config, "max_position_embeddings", None) or 512
        tmax = getattr(tokenizer, "model_max_length", None)
        if tmax is not None and 0 < tmax < 10**6:
            n_pos = min(n_pos, int(tmax))
        n_special = int(tokenizer.num_special_tokens_to_add(pair=False))
        self.window = int(n_pos) - n_special
        if self.window < 1:
            raise DataError(f"the model's window ({n_pos} positions) leaves no room for tokens")

    @classmethod
    def from_directory(cls, path: str | os.PathLike, *, batch_size: int = 32) -> "MaskedLMScorer":
        """Load model and tokenizer from ``path`` (local files only)."""
        return load_masked_lm(path, batch_size=batch_size)

    def pseudo_perplexity(self, text: str) -> float:
        """Pseudo-perplexity of ``text``; NaN when it has no token.

        Returns
        -------
        float
            ``exp(-(1/N) sum_i log P(w_i | rest))`` over the N non-special tokens.
        """
        import torch

        enc = self.tokenizer(str(text), add_special_tokens=True, return_special_tokens_mask=True)
        ids = list(enc["input_ids"])
        special = list(enc["special_tokens_mask"])
        content = [i for i, s in enumerate(special) if s == 0]
        if not content:
            return math.nan
        first, last = content[0], content[-1]
        prefix, suffix = ids[:first], ids[last + 1:]
        body, body_special = ids[first:last + 1], special[first:last + 1]
        window = max(1, self.window)
        total, count = 0.0, 0
        mask_id = int(self.tokenizer.mask_token_id)
        for start in range(0, len(body), window):
            seq = prefix + body[start:start + window] + suffix
            positions = [len(prefix) + i for i, s in enumerate(body_special[start:start + window])
                         if s == 0]
            if not positions:
                continue
            base = torch.tensor(seq, dtype=torch.long)
            for b in range(0, len(positions), self.batch_size):
                pos = torch.tensor(positions[b:b + self.batch_size])
                batch = base.repeat(len(pos), 1)
                idx = torch.arange(len(pos))
                batch[idx, pos] = mask_id
                with torch.no_grad():
                    logits = self.model(input_ids=batch,
                                        attention_mask=torch.ones_like(batch)).logits
                logp = torch.log_softmax(logits.float(), dim=-1)
                total += float(logp[idx, pos, base[pos]].sum())
                count += len(pos)
        return float(math.exp(-total / count))


def load_masked_lm(path: str | os.PathLike | None, *, batch_size: int = 32) -> MaskedLMScorer:
    """Load a masked LM and its tokenizer from a local directory.

    Raises
    ------
    DataError
        When ``path`` is missing, not a folder, or holds no loadable masked LM.
    """
    if path is None or str(path).strip() == "":
        raise DataError("no masked-LM directory given: the perplexity feature needs a local "
                        "model folder (config, weights and tokenizer files)")
    p = Path(path)
    if not p.is_dir():
        raise DataError(f"masked-LM directory not found: {p}")
    try:
        from transformers import AutoModelForMaskedLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        tok = AutoTokenizer.from_pretrained(str(p), local_files_only=True)
        model = AutoModelForMaskedLM.from_pretrained(str(p), local_files_only=True)
    except Exception as exc:  # transformers raises OSError/ValueError/KeyError variants
        raise DataError(f"could not load a masked language model from {p}: "
                        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
    return MaskedLMScorer(model, tok, batch_size=batch_size)


@dataclass
class FeatureExtraction:
    """Result of :func:`extract_dialogue_features`.

    Attributes
    ----------
    features : pandas.DataFrame of shape (n_dialogues, n_columns)
        One row per dialogue, in order of first appearance: ``dialogue_id``, the computed
        feature columns (canonical names) and the passed-through dialogue-level columns.
    notices : list of str
        Features that could not be computed and why.
    """

    features: pd.DataFrame
    notices: list[str] = field(default_factory=list)


def _binary(s: pd.Series, col: str, what: str) -> np.ndarray:
    if pd.api.types.is_bool_dtype(s):
        return s.to_numpy().astype(int)
    miss = np.flatnonzero(s.isna().to_numpy())
    if len(miss):
        raise DataError(f"column '{col}' ({what}) has missing values in {describe_rows(miss)}")
    if s.dtype == object or isinstance(s.dtype, pd.StringDtype):
        low = s.astype(str).str.strip().str.lower()
        mapped = low.map({"1": 1, "0": 0, "true": 1, "false": 0, "yes": 1, "no": 0,
                          "1.0": 1, "0.0": 0})
        bad = np.flatnonzero(mapped.isna().to_numpy())
        if len(bad):
            raise DataError(f"column '{col}' ({what}) must be 0/1; {describe_rows(bad)} hold "
                            f"{s.iloc[bad[0]]!r}")
        return mapped.to_numpy().astype(int)
    arr = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isin(arr, (0.0, 1.0)))
    if len(bad):
        raise DataError(f"column '{col}' ({what}) must be 0/1; {describe_rows(bad)} hold "
                        f"{s.iloc[bad[0]]!r}")
    return arr.astype(int)


def extract_dialogue_features(
    turns: pd.DataFrame,
    *,
    dialogue_col: str,
    text_col: str,
    label_col: str | None = None,
    paraphrased_col: str | None = None,
    first_submission_col: str | None = None,
    turn_col: str | None = None,
    keep_cols: Sequence[str] = (),
    scorer: MaskedLMScorer | None = None,
) -> FeatureExtraction:
    """Dialogue features D from a turn-level annotation log.

    Parameters
    ----------
    turns : pandas.DataFrame of shape (n_turn_rows, n_columns)
        One row per turn (response).
    dialogue_col : str
        Dialogue identifier.
    text_col : str
        The turn's text.
    label_col : str, optional
        0/1 malevolent label of the turn (the machine evaluator's label when predicting,
        the annotation when training). Without it the malevolent counts are skipped.
    paraphrased_col : str, optional
        0/1 whether the turn was paraphrased. Without it ``paraphrased_turns`` is skipped.
    first_submission_col : str, optional
        0/1 dialogue-level flag (constant within a dialogue).
    turn_col : str, optional
        Turn index used to order turns within a dialogue (row order otherwise).
    keep_cols : sequence of str
        Dialogue-level columns (e.g. annotation time, worker id) copied to the output; each
        must be constant within a dialogue.
    scorer : MaskedLMScorer, optional
        Computes ``perplexity``; when ``None`` the feature is skipped with a notice.

    Returns
    -------
    FeatureExtraction

    Raises
    ------
    DataError
        Missing columns, missing/empty texts, labels not 0/1, dialogue-level columns varying
        within a dialogue.
    """
    if turns is None or len(turns) == 0:
        raise DataError("the annotation log has no rows")
    need = [dialogue_col, text_col] + [c for c in (label_col, paraphrased_col,
                                                   first_submission_col, turn_col) if c]
    need += list(keep_cols)
    missing = [c for c in need if c not in turns.columns]
    if missing:
        raise DataError(f"column(s) {', '.join(map(repr, missing))} not in the annotation log; "
                        f"available: {', '.join(map(str, turns.columns))}")
    df = turns.reset_index(drop=True)
    ids_missing = np.flatnonzero(df[dialogue_col].isna().to_numpy())
    if len(ids_missing):
        raise DataError(f"column '{dialogue_col}' (dialogue id) has missing values in "
                        f"{describe_rows(ids_missing)}")
    text = df[text_col]
    empty = np.flatnonzero((text.isna() | (text.astype(str).str.strip() == "")).to_numpy())
    if len(empty):
        raise DataError(f"column '{text_col}' (turn text) is empty or missing in "
                        f"{describe_rows(empty)}")
    lab = _binary(df[label_col], label_col, "malevolent label") if label_col else None
    par = _binary(df[paraphrased_col], paraphrased_col, "paraphrased flag") if paraphrased_col else None
    first = (_binary(df[first_submission_col], first_submission_col, "first submission")
             if first_submission_col else None)
    work = pd.DataFrame({"_id": df[dialogue_col].to_numpy(), "_text": df[text_col].astype(str).to_numpy(),
                         "_row": np.arange(len(df))})
    if lab is not None:
        work["_lab"] = lab
    if par is not None:
        work["_par"] = par
    if first is not None:
        work["_first"] = first
    for c in keep_cols:
        work[c] = df[c].to_numpy()
    if turn_col:
        order = pd.to_numeric(df[turn_col], errors="coerce")
        bad = np.flatnonzero(order.isna().to_numpy())
        if len(bad):
            raise DataError(f"column '{turn_col}' (turn index) must be numeric; "
                            f"{describe_rows(bad)} are not")
        work["_order"] = order.to_numpy()
        work["_dpos"] = work.groupby("_id", sort=False).ngroup()
        work = work.sort_values(["_dpos", "_order"], kind="stable")

    notices: list[str] = []
    if lab is None:
        notices.append("no malevolent-label column: malevolent turns, non-malevolent turns and "
                       "contains-malevolent were not computed")
    if par is None:
        notices.append("no paraphrased-turn column: paraphrased turns were not computed")
    if first is None:
        notices.append("no first-submission column: first submission was not computed")
    if scorer is None:
        notices.append("no masked-LM directory given: the perplexity feature was skipped "
                       "(D uses the other dialogue features)")

    rows = []
    for did, g in work.groupby("_id", sort=False):
        texts = g["_text"].tolist()
        joined = dialogue_text(texts)
        read = readability(joined)
        row: dict[str, Any] = {"dialogue_id": did, "total_turns": len(g)}
        if lab is not None:
            m = int(g["_lab"].sum())
            row.update(malevolent_turns=m, non_malevolent_turns=len(g) - m,
                       contains_malevolent=int(m > 0))
        if first is not None:
            vals = g["_first"].unique()
            if len(vals) > 1:
                raise DataError(f"column '{first_submission_col}' (first submission) varies within "
                                f"dialogue {_py(did)!r} ({describe_rows(g['_row'].tolist())})")
            row["first_submission"] = int(vals[0])
        if par is not None:
            row["paraphrased_turns"] = int(g["_par"].sum())
        row["total_length"] = int(sum(len(tokenize(t)) for t in texts))
        row["readability_dc"] = read["dale_chall"]
        row["readability_fk"] = read["flesch_reading_ease"]
        if scorer is not None:
            row["perplexity"] = scorer.pseudo_perplexity(" ".join(t.strip() for t in texts))
        for c in keep_cols:
            vals = pd.unique(g[c])
            if len(vals) > 1:
                raise DataError(f"column '{c}' must be constant within a dialogue; dialogue "
                                f"{_py(did)!r} has {len(vals)} values ({describe_rows(g['_row'].tolist())})")
            row[c] = vals[0]
        rows.append(row)
    order = ["dialogue_id"] + [f for f in DIALOGUE_FEATURES if f in rows[0]] + list(keep_cols)
    return FeatureExtraction(pd.DataFrame(rows)[order], notices)


def approval_rate_ranking(rates: Sequence[float] | np.ndarray) -> np.ndarray:
    """Rank workers by lifetime approval rate in ascending order (the paper's W feature).

    Parameters
    ----------
    rates : array-like of shape (n_workers,)
        Lifetime approval rate of each worker.

    Returns
    -------
    ndarray of shape (n_workers,), int
        1-based index in ascending order of approval rate; tied workers share the smallest
        index of their group (``1, 2, 2, 4``).
    """
    arr = np.asarray(rates, dtype=float)
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise DataError(f"approval rates must be finite numbers; {describe_rows(bad)} are not")
    return pd.Series(arr).rank(method="min", ascending=True).to_numpy().astype(int)


def worker_features(workers: pd.DataFrame, *, worker_col: str, score_col: str,
                    approval_col: str) -> pd.DataFrame:
    """Worker features W from a worker table.

    Parameters
    ----------
    workers : pandas.DataFrame of shape (n_workers, n_columns)
        One row per worker.
    worker_col, score_col, approval_col : str
        Worker id, test score, lifetime approval rate.

    Returns
    -------
    pandas.DataFrame with columns ``worker_id``, ``worker_score``, ``approval_ranking``
    """
    for c in (worker_col, score_col, approval_col):
        if c not in workers.columns:
            raise DataError(f"column '{c}' not in the worker table; available: "
                            f"{', '.join(map(str, workers.columns))}")
    dup = np.flatnonzero(workers[worker_col].duplicated().to_numpy())
    if len(dup):
        raise DataError(f"column '{worker_col}' (worker id) repeats a worker in {describe_rows(dup)}")
    score = numeric_matrix(workers, [score_col])[:, 0]
    rate = numeric_matrix(workers, [approval_col])[:, 0]
    return pd.DataFrame({"worker_id": workers[worker_col].to_numpy(), "worker_score": score,
                         "approval_ranking": approval_rate_ranking(rate)})


def join_worker_features(dialogues: pd.DataFrame, workers: pd.DataFrame, *,
                         worker_col: str) -> pd.DataFrame:
    """Add ``worker_score`` and ``approval_ranking`` to each dialogue by its worker id.

    Parameters
    ----------
    dialogues : pandas.DataFrame of shape (n_dialogues, n_columns)
        Has the column ``worker_col``.
    workers : pandas.DataFrame
        Output of :func:`worker_features` (``worker_id``, ``worker_score``,
        ``approval_ranking``).
    worker_col : str
        The dialogues' worker id column.

    Returns
    -------
    pandas.DataFrame of shape (n_dialogues, n_columns + 2), rows in the input order

    Raises
    ------
    DataError
        When a dialogue's worker is not in the worker table (naming the rows).
    """
    if worker_col not in dialogues.columns:
        raise DataError(f"column '{worker_col}' (worker id) is not in the dialogue table")
    table = workers.set_index(_id_index(workers["worker_id"]))
    keys = _id_index(dialogues[worker_col])
    found = keys.isin(table.index)
    if not found.all():
        bad = np.flatnonzero(~found)
        raise DataError(f"no worker features for the worker of dialogue {describe_rows(bad)} "
                        f"(worker id {keys[bad[0]]!r})")
    out = dialogues.reset_index(drop=True).copy()
    out["worker_score"] = table.loc[keys, "worker_score"].to_numpy()
    out["approval_ranking"] = table.loc[keys, "approval_ranking"].to_numpy()
    return out


# --------------------------------------------------------------------------------------------
# Column mapping
# --------------------------------------------------------------------------------------------
def detect_column(columns: Iterable[Any], aliases: Sequence[str]) -> str | None:
    """First column whose normalised name is one of ``aliases`` (in alias order)."""
    by_norm: dict[str, Any] = {}
    for c in columns:
        by_norm.setdefault(_norm(c), c)
    for a in aliases:
        if a in by_norm:
            return by_norm[a]
    return None


def detect_feature_columns(columns: Iterable[Any]) -> dict[str, str]:
    """Map canonical feature names to the table's columns by name.

    Returns
    -------
    dict
        canonical name -> column, for the features found (release names included).
    """
    columns = list(columns)
    out: dict[str, str] = {}
    used: set[Any] = set()
    for feat in DIALOGUE_FEATURES + WORKER_FEATURES:
        col = detect_column([c for c in columns if c not in used], FEATURE_ALIASES[feat])
        if col is not None:
            out[feat] = col
            used.add(col)
    return out


@dataclass
class FeatureSet:
    """A resolved feature set.

    Attributes
    ----------
    name : str
        ``"D"``, ``"D+W"``, ``"W"`` or the custom spec.
    columns : list of str
        Table columns used, in order.
    labels : list of str
        Display names (the paper's when the column is a known feature).
    notices : list of str
        Optional features that were skipped.
    """

    name: str
    columns: list[str]
    labels: list[str]
    notices: list[str] = field(default_factory=list)


def resolve_feature_set(spec: str | Sequence[str], columns: Iterable[Any], *,
                        mapping: dict[str, str] | None = None,
                        optional: Sequence[str] = OPTIONAL_FEATURES) -> FeatureSet:
    """Resolve ``"D"``, ``"D+W"``, ``"W"`` or a list of columns to the table's columns.

    Parameters
    ----------
    spec : str or sequence of str
        A group name, or column names / canonical feature names (a comma-separated string
        or a sequence).
    columns : iterable
        The table's columns.
    mapping : dict, optional
        canonical name -> column, overriding detection by name.
    optional : sequence of str, default=("perplexity",)
        Features of a group that may be absent (skipped with a notice); the others are
        required.

    Returns
    -------
    FeatureSet

    Raises
    ------
    DataError
        Unknown group or column; a required feature of the group has no column.
    """
    columns = list(columns)
    found = detect_feature_columns(columns)
    if mapping:
        for k, v in mapping.items():
            if k not in FEATURE_ALIASES:
                raise DataError(f"unknown feature {k!r} in the column mapping; features are "
                                f"{', '.join(FEATURE_ALIASES)}")
            if v is None:
                found.pop(k, None)
                continue
            if v not in columns:
                raise DataError(f"column {v!r} (mapped to feature {k}) is not in the table")
            found[k] = v
    col_to_feat = {v: k for k, v in found.items()}
    if isinstance(spec, str):
        key = spec.strip().upper().replace(" ", "")
        groups = {"D": DIALOGUE_FEATURES, "W": WORKER_FEATURES,
                  "D+W": DIALOGUE_FEATURES + WORKER_FEATURES, "W+D": DIALOGUE_FEATURES + WORKER_FEATURES}
        if key in groups:
            feats = groups[key]
            name = "D+W" if key in ("D+W", "W+D") else key
            missing = [f for f in feats if f not in found and f not in optional]
            if missing:
                raise DataError(
                    f"feature set {name} needs column(s) for: "
                    + "; ".join(f"{f} (e.g. {', '.join(FEATURE_ALIASES[f][:2])})" for f in missing)
                    + f". Available columns: {', '.join(map(str, columns))}")
            notices = [f"feature {f} ({FEATURE_LABELS[f]}) has no column: {name} is used without it"
                       for f in feats if f not in found]
            cols = [found[f] for f in feats if f in found]
            return FeatureSet(name, cols, [FEATURE_LABELS[col_to_feat[c]] for c in cols], notices)
        items = [s.strip() for s in spec.split(",") if s.strip()]
        name = spec.strip()
    else:
        items = [str(s).strip() for s in spec]
        name = ",".join(items)
    if not items:
        raise DataError("empty feature set: give D, D+W or a comma-separated list of columns")
    cols: list[str] = []
    for it in items:
        if it in columns:
            col = it
        elif it in found:
            col = found[it]
        else:
            match = detect_column(columns, (_norm(it),))
            if match is None:
                raise DataError(f"feature column {it!r} is not in the table; available: "
                                f"{', '.join(map(str, columns))}")
            col = match
        if col in cols:
            raise DataError(f"feature column {col!r} is listed twice")
        cols.append(col)
    labels = [FEATURE_LABELS[col_to_feat[c]] if c in col_to_feat else str(c) for c in cols]
    return FeatureSet(name, cols, labels, [])


def numeric_matrix(df: pd.DataFrame, cols: Sequence[str], *, what: str = "feature") -> np.ndarray:
    """The columns as a float matrix, refusing text, missing and infinite values.

    Returns
    -------
    ndarray of shape (n_rows, len(cols))

    Raises
    ------
    DataError
        Naming the column and the first offending rows.
    """
    out = np.empty((len(df), len(cols)), dtype=float)
    for j, c in enumerate(cols):
        if c not in df.columns:
            raise DataError(f"{what} column {c!r} is not in the table")
        s = df[c]
        if pd.api.types.is_bool_dtype(s):
            s = s.astype(int)
        num = pd.to_numeric(s, errors="coerce")
        bad = np.flatnonzero((num.isna() & s.notna()).to_numpy())
        if len(bad):
            raise DataError(f"{what} column {c!r} must be numeric; {describe_rows(bad)} hold text "
                            f"such as {s.iloc[bad[0]]!r}")
        arr = num.to_numpy(dtype=float, na_value=np.nan)
        bad = np.flatnonzero(np.isnan(arr))
        if len(bad):
            raise DataError(f"{what} column {c!r} has missing values (NaN) in {describe_rows(bad)}")
        bad = np.flatnonzero(~np.isfinite(arr))
        if len(bad):
            raise DataError(f"{what} column {c!r} has infinite values in {describe_rows(bad)}")
        out[:, j] = arr
    return out


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------
def minmax_normalise(y: Sequence[float] | np.ndarray) -> tuple[np.ndarray, float, float]:
    """Min-max normalise to [0, 1].

    Parameters
    ----------
    y : array-like of shape (n,)

    Returns
    -------
    (ndarray of shape (n,), float, float)
        ``(y - min) / (max - min)``, min and max.

    Raises
    ------
    DataError
        Empty, non-finite or constant input (the normalisation is undefined).
    """
    arr = np.asarray(y, dtype=float)
    if arr.size == 0:
        raise DataError("cannot normalise an empty time column")
    bad = np.flatnonzero(~np.isfinite(arr))
    if len(bad):
        raise DataError(f"time values must be finite; {describe_rows(bad)} are not")
    lo, hi = float(arr.min()), float(arr.max())
    if hi == lo:
        raise DataError(f"the annotation time is constant ({lo:g}) in every row: min-max "
                        "normalisation and the regression are undefined")
    return (arr - lo) / (hi - lo), lo, hi


def regression_metrics(y_true: Sequence[float] | np.ndarray,
                       y_pred: Sequence[float] | np.ndarray) -> dict[str, float]:
    """MSE, RMSE, MAE and R2.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)

    Returns
    -------
    dict
        ``mse`` = mean((y - p)^2), ``rmse`` = sqrt(mse), ``mae`` = mean|y - p|,
        ``r2`` = 1 - SS_res / SS_tot; ``r2`` is NaN when ``y_true`` is constant (including a
        single sample), where the coefficient of determination is undefined. All NaN for
        empty input.
    """
    t = np.asarray(y_true, dtype=float).ravel()
    p = np.asarray(y_pred, dtype=float).ravel()
    if t.shape != p.shape:
        raise DataError(f"y_true and y_pred differ in length ({t.size} vs {p.size})")
    if t.size == 0:
        return {k: math.nan for k in _METRICS}
    err = t - p
    mse = float(np.mean(err ** 2))
    ss_tot = float(np.sum((t - t.mean()) ** 2))
    r2 = math.nan if ss_tot == 0 else 1.0 - float(np.sum(err ** 2)) / ss_tot
    return {"mse": mse, "rmse": math.sqrt(mse), "mae": float(np.mean(np.abs(err))), "r2": r2}


def significance_mark(p: float | None) -> str:
    """The paper's marks: ``"**"`` for p < 0.001, ``"*"`` for p < 0.05, else ``""``."""
    if p is None or not np.isfinite(p):
        return ""
    if p < 0.001:
        return "**"
    if p < 0.05:
        return "*"
    return ""


def feature_correlations(X: pd.DataFrame, y: Sequence[float] | np.ndarray, *,
                         labels: Sequence[str] | None = None) -> pd.DataFrame:
    """Pearson and Spearman correlation of every feature with the real time.

    Parameters
    ----------
    X : pandas.DataFrame of shape (n, n_features)
        Numeric features.
    y : array-like of shape (n,)
        Annotation time.
    labels : sequence of str, optional
        Display names of the features.

    Returns
    -------
    pandas.DataFrame with one row per feature
        ``feature``, ``label``, ``pearson``, ``pearson_p``, ``pearson_mark``, ``spearman``,
        ``spearman_p``, ``spearman_mark``. Coefficients and p-values are scipy's
        (two-sided); both are NaN when the feature or the time is constant or n < 2
        (undefined). With n = 2, r = +-1 and p = 1 (scipy's convention).
    """
    from scipy import stats

    yv = np.asarray(y, dtype=float)
    if len(yv) != len(X):
        raise DataError(f"the time has {len(yv)} values but the features have {len(X)} rows")
    M = numeric_matrix(X, list(X.columns))
    if not np.all(np.isfinite(yv)):
        raise DataError(f"time values must be finite; {describe_rows(np.flatnonzero(~np.isfinite(yv)))} are not")
    labels = list(labels) if labels is not None else [str(c) for c in X.columns]
    rows = []
    y_const = len(yv) < 2 or np.all(yv == yv[0])
    for j, c in enumerate(X.columns):
        x = M[:, j]
        if y_const or np.all(x == x[0]):
            pr = pp = sr = sp = math.nan
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = stats.pearsonr(x, yv)
                s = stats.spearmanr(x, yv)
            pr, pp = float(r.statistic), float(r.pvalue)
            sr, sp = float(s.statistic), float(s.pvalue)
        rows.append({"feature": c, "label": labels[j], "pearson": pr, "pearson_p": pp,
                     "pearson_mark": significance_mark(pp), "spearman": sr, "spearman_p": sp,
                     "spearman_mark": significance_mark(sp)})
    return pd.DataFrame(rows, columns=["feature", "label", "pearson", "pearson_p", "pearson_mark",
                                       "spearman", "spearman_p", "spearman_mark"])


# --------------------------------------------------------------------------------------------
# The effort model
# --------------------------------------------------------------------------------------------
@dataclass
class EffortResult:
    """Result of the effort model (cross-validation or train/test split).

    Attributes
    ----------
    feature_set : str
        Name of the feature set.
    features : list of str
        Feature columns used.
    labels : list of str
        Their display names.
    mode : {"cv", "split"}
    folds : pandas.DataFrame
        One row per fold (``fold``, ``n_train``, ``n_test``, ``mse``, ``rmse``, ``mae``,
        ``r2``); a single row ``fold = 1`` in split mode. Metrics on the normalised time.
    metrics : dict
        Mean of each metric over the folds.
    predictions : pandas.DataFrame of shape (n, ...)
        One row per input row, in input order: ``row`` (0-based position), ``fold`` (the fold
        that held the row out; NA for training rows in split mode), ``subset``
        (``"test"`` when the row has an out-of-sample prediction, ``"train"`` otherwise),
        ``time`` (seconds), ``time_norm``, ``predicted_norm`` (NaN for training rows in split
        mode) and ``predicted_time`` (back in seconds).
    time_min, time_max : float
        Normalisation range of the time (whole table).
    params : dict
        Model settings used (n_estimators, max_features, random_state, n_splits, ...).
    importances : pandas.DataFrame or None
        ``feature``, ``label``, ``impurity`` (mean over fold models), ``permutation``,
        ``permutation_std`` (decrease of R2 on the held-out rows, mean and standard deviation
        over folds x repeats; NaN when not computed).
    correlations : pandas.DataFrame or None
        :func:`feature_correlations` of the features with the real time over all rows.
    notices : list of str
    """

    feature_set: str
    features: list[str]
    labels: list[str]
    mode: str
    folds: pd.DataFrame
    metrics: dict[str, float]
    predictions: pd.DataFrame
    time_min: float
    time_max: float
    params: dict[str, Any]
    importances: pd.DataFrame | None = None
    correlations: pd.DataFrame | None = None
    notices: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        corr = {}
        if self.correlations is not None:
            for r in self.correlations.itertuples(index=False):
                corr[str(r.feature)] = {"pearson": r.pearson, "pearson_p": r.pearson_p,
                                        "spearman": r.spearman, "spearman_p": r.spearman_p}
        out: dict[str, Any] = {
            "feature_set": self.feature_set,
            "features": list(self.features),
            "mode": self.mode,
            **{k: self.metrics[k] for k in _METRICS},
            "folds": self.folds.to_dict(orient="records"),
            "correlations": corr,
            "params": dict(self.params),
            "time_min": self.time_min,
            "time_max": self.time_max,
            "notices": list(self.notices),
        }
        if self.importances is not None:
            out["importances"] = self.importances.to_dict(orient="records")
        return out


def _resolve_max_features(max_features: int | float | None, n_features: int) -> int | float:
    if max_features is None:
        return min(DEFAULT_MAX_FEATURES, n_features)
    if isinstance(max_features, bool):
        raise DataError("max_features must be a number")
    if isinstance(max_features, (int, np.integer)):
        if not 1 <= int(max_features) <= n_features:
            raise DataError(f"max_features={int(max_features)} but the feature set has "
                            f"{n_features} feature(s): choose 1..{n_features}")
        return int(max_features)
    mf = float(max_features)
    if not 0.0 < mf <= 1.0:
        raise DataError(f"max_features={max_features!r}: a fraction must be in (0, 1]")
    return mf


def _forest(n_estimators: int, max_features: int | float, random_state: int | None,
            n_jobs: int | None):
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(n_estimators=int(n_estimators), max_features=max_features,
                                 random_state=random_state, n_jobs=n_jobs)


def _check_xy(X: np.ndarray, y: np.ndarray) -> None:
    if X.ndim != 2 or X.shape[1] == 0:
        raise DataError("no feature column chosen")
    if len(X) != len(y):
        raise DataError(f"the features have {len(X)} rows but the time has {len(y)} values")
    bad = np.flatnonzero(y < 0)
    if len(bad):
        raise DataError(f"the annotation time must be >= 0; {describe_rows(bad)} are negative")


def _permutation(model, X: np.ndarray, y: np.ndarray, repeats: int, seed: int | None) -> np.ndarray:
    from sklearn.inspection import permutation_importance

    # Single-threaded: permutation_importance parallelises with processes and the forest's
    # predict with threads; both cost more than they save on held-out folds of this size.
    model.set_params(n_jobs=None)
    res = permutation_importance(model, X, y, n_repeats=int(repeats), random_state=seed,
                                 scoring="r2", n_jobs=None)
    return res.importances  # (n_features, repeats)


def _importance_frame(features, labels, impurity, perms) -> pd.DataFrame:
    imp = np.mean(np.vstack(impurity), axis=0)
    if perms:
        allp = np.concatenate(perms, axis=1)
        pm, ps = allp.mean(axis=1), allp.std(axis=1, ddof=0)
    else:
        pm = ps = np.full(len(features), np.nan)
    return pd.DataFrame({"feature": list(features), "label": list(labels), "impurity": imp,
                         "permutation": pm, "permutation_std": ps})


def _run(X: np.ndarray, time: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]], *,
         mode: str, features: Sequence[str], labels: Sequence[str], feature_set: str,
         n_estimators: int, max_features: int | float | None, random_state: int | None,
         n_jobs: int | None, permutation_repeats: int, extra_params: dict[str, Any]) -> EffortResult:
    yn, lo, hi = minmax_normalise(time)
    mf = _resolve_max_features(max_features, X.shape[1])
    n = len(X)
    pred = np.full(n, np.nan)
    fold_of = pd.array([pd.NA] * n, dtype="Int64")
    rows, impurity, perms = [], [], []
    for k, (tr, te) in enumerate(splits, start=1):
        model = _forest(n_estimators, mf, random_state, n_jobs)
        model.fit(X[tr], yn[tr])
        p = model.predict(X[te])
        pred[te] = p
        fold_of[te] = k
        m = regression_metrics(yn[te], p)
        rows.append({"fold": k, "n_train": int(len(tr)), "n_test": int(len(te)), **m})
        impurity.append(model.feature_importances_)
        if permutation_repeats and permutation_repeats > 0 and len(te) >= 2:
            perms.append(_permutation(model, X[te], yn[te], permutation_repeats, random_state))
    folds = pd.DataFrame(rows, columns=["fold", "n_train", "n_test", *_METRICS])
    metrics = {k: float(folds[k].mean(skipna=False)) for k in _METRICS}
    tested = ~np.isnan(pred)
    predictions = pd.DataFrame({
        "row": np.arange(n),
        "fold": fold_of,
        "subset": np.where(tested, "test", "train"),
        "time": time,
        "time_norm": yn,
        "predicted_norm": pred,
        "predicted_time": pred * (hi - lo) + lo,
    })
    params = {"n_estimators": int(n_estimators), "max_features": mf,
              "random_state": random_state, "target": "min-max normalised time (whole table)",
              **extra_params}
    return EffortResult(
        feature_set=feature_set, features=list(features), labels=list(labels), mode=mode,
        folds=folds, metrics=metrics, predictions=predictions, time_min=lo, time_max=hi,
        params=params,
        importances=_importance_frame(features, labels, impurity, perms),
    )


def _as_xy(X, time, features):
    if isinstance(X, pd.DataFrame):
        feats = list(features) if features is not None else [str(c) for c in X.columns]
        Xa = numeric_matrix(X, list(X.columns))
    else:
        Xa = np.asarray(X, dtype=float)
        if Xa.ndim != 2:
            raise DataError("X must be a 2-D table of features")
        if not np.all(np.isfinite(Xa)):
            raise DataError("the features hold missing or infinite values")
        feats = list(features) if features is not None else [f"x{j}" for j in range(Xa.shape[1])]
    ta = np.asarray(time, dtype=float).ravel()
    return Xa, ta, feats


def cross_validate_effort(
    X: pd.DataFrame | np.ndarray,
    time: Sequence[float] | np.ndarray,
    *,
    n_splits: int = 5,
    shuffle: bool = True,
    random_state: int | None = DEFAULT_RANDOM_STATE,
    n_estimators: int = DEFAULT_N_ESTIMATORS,
    max_features: int | float | None = None,
    n_jobs: int | None = None,
    permutation_repeats: int = 0,
    features: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    feature_set: str = "custom",
) -> EffortResult:
    """k-fold cross-validation of the random-forest effort model.

    Parameters
    ----------
    X : DataFrame or array of shape (n_dialogues, n_features)
    time : array-like of shape (n_dialogues,)
        Annotation time per dialogue (seconds, >= 0); min-max normalised over all rows.
    n_splits : int, default=5
    shuffle : bool, default=True
        Shuffle before splitting (``KFold(shuffle=True, random_state=random_state)``).
    random_state : int or None, default=397
        Seeds both the fold shuffling and the forest (the authors' seed).
    n_estimators : int, default=100
    max_features : int, float or None
        Features considered per split; ``None``: 8, or all features when fewer than 8.
    n_jobs : int, optional
        Parallel trees (results do not depend on it).
    permutation_repeats : int, default=0
        Repeats of the permutation importance on each held-out fold (0: not computed).
    features, labels : sequence of str, optional
        Feature names and display names (default: the DataFrame's columns).
    feature_set : str
        Name stored in the result.

    Returns
    -------
    EffortResult
    """
    from sklearn.model_selection import KFold

    Xa, ta, feats = _as_xy(X, time, features)
    _check_xy(Xa, ta)
    n_splits = int(n_splits)
    if n_splits < 2:
        raise DataError(f"--folds must be at least 2 (got {n_splits})")
    if n_splits > len(Xa):
        raise DataError(f"{n_splits}-fold cross-validation needs at least {n_splits} dialogues; "
                        f"the table has {len(Xa)}")
    kf = KFold(n_splits=n_splits, shuffle=bool(shuffle),
               random_state=random_state if shuffle else None)
    splits = list(kf.split(Xa))
    res = _run(Xa, ta, splits, mode="cv", features=feats,
               labels=list(labels) if labels is not None else feats, feature_set=feature_set,
               n_estimators=n_estimators, max_features=max_features, random_state=random_state,
               n_jobs=n_jobs, permutation_repeats=permutation_repeats,
               extra_params={"n_splits": n_splits, "shuffle": bool(shuffle)})
    return res


def split_effort(
    X: pd.DataFrame | np.ndarray,
    time: Sequence[float] | np.ndarray,
    split: Sequence[Any] | np.ndarray,
    *,
    train_label: Any = "train",
    test_label: Any = "test",
    random_state: int | None = DEFAULT_RANDOM_STATE,
    n_estimators: int = DEFAULT_N_ESTIMATORS,
    max_features: int | float | None = None,
    n_jobs: int | None = None,
    permutation_repeats: int = 0,
    features: Sequence[str] | None = None,
    labels: Sequence[str] | None = None,
    feature_set: str = "custom",
    split_name: str = "split",
) -> EffortResult:
    """Train on the rows labelled ``train_label``, evaluate on ``test_label``.

    Parameters
    ----------
    split : array-like of shape (n_dialogues,)
        Subset of each row; every value must be ``train_label`` or ``test_label``.

    Other parameters as :func:`cross_validate_effort`. The time is min-max normalised over all
    rows (train and test), as in the authors' scripts.

    Returns
    -------
    EffortResult
        One fold; ``predictions.predicted_norm`` is NaN for training rows.
    """
    Xa, ta, feats = _as_xy(X, time, features)
    _check_xy(Xa, ta)
    s = pd.Series(np.asarray(split, dtype=object))
    if len(s) != len(Xa):
        raise DataError(f"the split column has {len(s)} values for {len(Xa)} rows")
    key = s.map(lambda v: str(v).strip() if v is not None and not (isinstance(v, float) and math.isnan(v)) else None)
    tr_l, te_l = str(train_label), str(test_label)
    bad = np.flatnonzero(~key.isin([tr_l, te_l]).to_numpy())
    if len(bad):
        raise DataError(f"column '{split_name}' must hold only {tr_l!r} or {te_l!r}; "
                        f"{describe_rows(bad)} hold {s.iloc[bad[0]]!r}")
    tr = np.flatnonzero((key == tr_l).to_numpy())
    te = np.flatnonzero((key == te_l).to_numpy())
    if len(tr) < 2:
        raise DataError(f"column '{split_name}' has {len(tr)} {tr_l!r} row(s): at least 2 are needed")
    if len(te) < 1:
        raise DataError(f"column '{split_name}' has no {te_l!r} row")
    return _run(Xa, ta, [(tr, te)], mode="split", features=feats,
                labels=list(labels) if labels is not None else feats, feature_set=feature_set,
                n_estimators=n_estimators, max_features=max_features, random_state=random_state,
                n_jobs=n_jobs, permutation_repeats=permutation_repeats,
                extra_params={"split_column": split_name, "train_label": tr_l, "test_label": te_l})


def estimate_effort(
    df: pd.DataFrame,
    *,
    time_col: str,
    features: str | Sequence[str] = "D",
    n_splits: int = 5,
    split_col: str | None = None,
    train_label: str = "train",
    test_label: str = "test",
    id_col: str | None = None,
    turns_col: str | None = None,
    mapping: dict[str, str] | None = None,
    optional_features: Sequence[str] = OPTIONAL_FEATURES,
    random_state: int | None = DEFAULT_RANDOM_STATE,
    n_estimators: int = DEFAULT_N_ESTIMATORS,
    max_features: int | float | None = None,
    n_jobs: int | None = None,
    permutation_repeats: int = 0,
) -> EffortResult:
    """The whole HEE analysis on a per-dialogue table (what the CLI and the Effort page run).

    Parameters
    ----------
    df : pandas.DataFrame of shape (n_dialogues, n_columns)
        One row per dialogue with feature columns and the annotation time.
    time_col : str
        Annotation time (seconds).
    features : str or sequence of str, default="D"
        ``"D"``, ``"D+W"``, ``"W"`` or feature columns (see :func:`resolve_feature_set`).
    n_splits : int, default=5
        Folds of the shuffled cross-validation (ignored when ``split_col`` is given).
    split_col : str, optional
        Use the train/test split of this column instead of cross-validation.
    id_col : str, optional
        Dialogue id (detected by name, e.g. ``dialogue_id`` or the release's ``Number``; row
        number 1..n otherwise).
    turns_col : str, optional
        Number of turns (detected as the ``total_turns`` feature); needed for the per-sample
        effort.
    mapping : dict, optional
        canonical feature -> column, overriding detection.
    optional_features : sequence of str, default=("perplexity",)
        Features a group (D, W) may lack; each one skipped is named in ``notices``.

    Other parameters as :func:`cross_validate_effort`.

    Returns
    -------
    EffortResult
        ``predictions`` gains ``dialogue_id`` and, when the number of turns is known,
        ``n_turns``, ``human_effort`` (time_norm / n_turns) and ``predicted_effort``
        (predicted_norm / n_turns); ``correlations`` is filled.
    """
    if df is None or len(df) == 0:
        raise DataError("the table has no rows")
    df = df.reset_index(drop=True)
    if time_col not in df.columns:
        raise DataError(f"time column {time_col!r} is not in the table; available: "
                        f"{', '.join(map(str, df.columns))}")
    fs = resolve_feature_set(features, df.columns, mapping=mapping, optional=optional_features)
    if time_col in fs.columns:
        raise DataError(f"the time column {time_col!r} cannot also be a feature")
    for c in (split_col, id_col):
        if c is not None and c in fs.columns:
            raise DataError(f"column {c!r} cannot be both a feature and the split/id column")
    X = numeric_matrix(df, fs.columns)
    time = numeric_matrix(df, [time_col], what="time")[:, 0]
    common = dict(random_state=random_state, n_estimators=n_estimators, max_features=max_features,
                  n_jobs=n_jobs, permutation_repeats=permutation_repeats, features=fs.columns,
                  labels=fs.labels, feature_set=fs.name)
    if split_col is not None:
        if split_col not in df.columns:
            raise DataError(f"split column {split_col!r} is not in the table; available: "
                            f"{', '.join(map(str, df.columns))}")
        res = split_effort(X, time, df[split_col].to_numpy(), train_label=train_label,
                           test_label=test_label, split_name=split_col, **common)
    else:
        res = cross_validate_effort(X, time, n_splits=n_splits, **common)
    res.notices = list(fs.notices)
    res.correlations = feature_correlations(pd.DataFrame(X, columns=fs.columns), time,
                                            labels=fs.labels)
    # ids and turns
    if id_col is None:
        id_col = detect_column(df.columns, ID_ALIASES)
    if id_col is not None:
        if id_col not in df.columns:
            raise DataError(f"dialogue id column {id_col!r} is not in the table")
        ids = df[id_col]
        miss = np.flatnonzero(ids.isna().to_numpy())
        if len(miss):
            raise DataError(f"column {id_col!r} (dialogue id) has missing values in {describe_rows(miss)}")
        dup = np.flatnonzero(ids.duplicated().to_numpy())
        if len(dup):
            raise DataError(f"column {id_col!r} (dialogue id) repeats ids in {describe_rows(dup)}: "
                            "the effort table needs one row per dialogue")
        res.predictions.insert(1, "dialogue_id", ids.to_numpy())
        res.params["id_column"] = id_col
    else:
        res.predictions.insert(1, "dialogue_id", np.arange(1, len(df) + 1))
        res.notices.append("no dialogue id column: dialogues are numbered by row (1..n)")
    if turns_col is None:
        turns_col = (mapping or {}).get("total_turns") or detect_feature_columns(df.columns).get("total_turns")
    if turns_col is not None:
        nt = numeric_matrix(df, [turns_col], what="number-of-turns")[:, 0]
        bad = np.flatnonzero((nt < 1) | (nt != np.round(nt)))
        if len(bad):
            raise DataError(f"column {turns_col!r} (number of turns) must hold whole numbers >= 1; "
                            f"{describe_rows(bad)} do not")
        pr = res.predictions
        pr["n_turns"] = nt.astype(int)
        pr["human_effort"] = pr["time_norm"] / nt
        pr["predicted_effort"] = pr["predicted_norm"] / nt
        res.params["turns_column"] = turns_col
    else:
        res.notices.append("no number-of-turns column: the per-sample effort (time per turn) "
                           "is unavailable")
    res.params["time_column"] = time_col
    res.params["n_dialogues"] = int(len(df))
    return res


# --------------------------------------------------------------------------------------------
# Per-sample effort
# --------------------------------------------------------------------------------------------
def per_sample_effort(sample_dialogue_ids: Sequence[Any] | np.ndarray,
                      dialogue_ids: Sequence[Any] | np.ndarray,
                      predicted_time: Sequence[float] | np.ndarray,
                      n_turns: Sequence[float] | np.ndarray) -> np.ndarray:
    """Effort of each sample = its dialogue's predicted time / the dialogue's number of turns.

    Parameters
    ----------
    sample_dialogue_ids : array-like of shape (M,)
        Dialogue id of each sample (response).
    dialogue_ids : array-like of shape (n_dialogues,)
        Ids of the dialogues with a prediction (unique).
    predicted_time : array-like of shape (n_dialogues,)
        Predicted (normalised) time of each dialogue.
    n_turns : array-like of shape (n_dialogues,)
        Number of turns of each dialogue (>= 1).

    Returns
    -------
    ndarray of shape (M,)

    Raises
    ------
    DataError
        Duplicate dialogue ids, missing predictions, turns < 1, or samples whose dialogue has
        no prediction (naming the sample rows).
    """
    d_ids = pd.Series(np.asarray(dialogue_ids, dtype=object))
    pt = np.asarray(predicted_time, dtype=float)
    nt = np.asarray(n_turns, dtype=float)
    if not (len(d_ids) == len(pt) == len(nt)):
        raise DataError("dialogue ids, predicted times and turn counts differ in length")
    dup = np.flatnonzero(d_ids.duplicated().to_numpy())
    if len(dup):
        raise DataError(f"dialogue ids repeat in the effort table ({describe_rows(dup)})")
    bad = np.flatnonzero(~np.isfinite(pt))
    if len(bad):
        raise DataError(f"predicted time is missing for dialogue(s) "
                        f"{', '.join(map(str, d_ids.iloc[bad[:5]]))}")
    bad = np.flatnonzero(~(nt >= 1))
    if len(bad):
        raise DataError(f"number of turns must be >= 1; dialogue(s) "
                        f"{', '.join(map(str, d_ids.iloc[bad[:5]]))} have {nt[bad[0]]:g}")
    per_turn = pd.Series(pt / nt, index=_id_index(d_ids))
    s_ids = _id_index(pd.Series(np.asarray(sample_dialogue_ids, dtype=object)))
    out = per_turn.reindex(s_ids).to_numpy(dtype=float)
    miss = np.flatnonzero(np.isnan(out))
    if len(miss):
        raise DataError(f"no predicted effort for the dialogue of sample {describe_rows(miss)} "
                        f"(dialogue id {s_ids[miss[0]]!r})")
    return out


def _id_index(ids: pd.Series) -> pd.Index:
    """Ids as comparable keys: whole numbers as int, everything else as stripped text."""
    def key(v):
        if isinstance(v, (bool, np.bool_)):
            return str(v)
        if isinstance(v, (int, np.integer)):
            return int(v)
        if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
            return int(v)
        s = str(v).strip()
        if re.fullmatch(r"[+-]?\d+", s):
            return int(s)
        return s
    return pd.Index([key(v) for v in ids], dtype=object)


def sample_effort_table(result: EffortResult) -> pd.DataFrame:
    """Expand a per-dialogue result into one row per sample (turn).

    Every dialogue with an out-of-sample prediction contributes ``n_turns`` rows with
    ``turn`` = 1..n_turns (the structure of the HMCEval release's sample table).

    Returns
    -------
    pandas.DataFrame
        ``dialogue_id``, ``turn``, ``n_turns``, ``human_effort`` (ground-truth time per turn,
        normalised) and ``predicted_effort``.

    Raises
    ------
    DataError
        When the result has no number of turns.
    """
    pr = result.predictions
    if "n_turns" not in pr.columns:
        raise DataError("the per-sample effort needs the number of turns of each dialogue")
    pr = pr[pr["subset"] == "test"]
    reps = pr["n_turns"].to_numpy(dtype=int)
    idx = np.repeat(np.arange(len(pr)), reps)
    out = pd.DataFrame({
        "dialogue_id": pr["dialogue_id"].to_numpy()[idx],
        "turn": np.concatenate([np.arange(1, r + 1) for r in reps]) if len(reps) else np.array([], int),
        "n_turns": reps[idx],
        "human_effort": pr["human_effort"].to_numpy()[idx],
        "predicted_effort": pr["predicted_effort"].to_numpy()[idx],
    })
    return out


def dialogue_table_from_samples(samples: pd.DataFrame, *, dialogue_col: str,
                                columns: Sequence[str]) -> pd.DataFrame:
    """Collapse a sample-level table to one row per dialogue.

    Parameters
    ----------
    samples : pandas.DataFrame of shape (M, n_columns)
        Sample rows with dialogue-level columns repeated on every sample.
    dialogue_col : str
    columns : sequence of str
        Dialogue-level columns to keep; each must be constant within a dialogue.

    Returns
    -------
    pandas.DataFrame of shape (n_dialogues, 1 + len(columns))
        ``dialogue_col`` then ``columns``, dialogues in order of first appearance.
    """
    for c in [dialogue_col, *columns]:
        if c not in samples.columns:
            raise DataError(f"column {c!r} is not in the table")
    df = samples.reset_index(drop=True)
    g = df.groupby(dialogue_col, sort=False, dropna=False)
    for c in columns:
        n = g[c].nunique(dropna=False)
        bad = n[n > 1]
        if len(bad):
            did = bad.index[0]
            rows = np.flatnonzero((df[dialogue_col] == did).to_numpy())
            raise DataError(f"column {c!r} varies within dialogue {_py(did)!r} ({describe_rows(rows)}); "
                            "dialogue-level features must be constant across its samples")
    return g[list(columns)].first().reset_index()


def features_from_samples(
    samples: pd.DataFrame,
    *,
    dialogue_col: str,
    text_col: str,
    effort_col: str | None = None,
    label_col: str | None = None,
    paraphrased_col: str | None = None,
    first_submission_col: str | None = None,
    worker_score_col: str | None = None,
    approval_ranking_col: str | None = None,
    turn_col: str | None = None,
    scorer: MaskedLMScorer | None = None,
) -> FeatureExtraction:
    """Per-dialogue HEE table from a sample (turn) table, e.g. the active dataset.

    Parameters
    ----------
    samples : pandas.DataFrame of shape (M, n_columns)
        One row per sample (response turn).
    dialogue_col, text_col : str
        Dialogue id and the turn text.
    effort_col : str, optional
        Ground-truth effort of each sample (time per turn); summed per dialogue into the
        dialogue's annotation time ``time``. Without it there is no regression target.
    label_col : str, optional
        0/1 malevolent label of each turn (the machine evaluator's label when predicting).
    paraphrased_col, first_submission_col, turn_col : str, optional
        As in :func:`extract_dialogue_features`.
    worker_score_col, approval_ranking_col : str, optional
        Dialogue-level worker features, copied as ``worker_score`` and ``approval_ranking``.
    scorer : MaskedLMScorer, optional

    Returns
    -------
    FeatureExtraction
        ``features`` has ``dialogue_id``, the dialogue features, the worker features given, and
        ``time`` when ``effort_col`` is given.
    """
    keep = [c for c in (worker_score_col, approval_ranking_col) if c]
    if len(set(keep)) != len(keep):
        raise DataError("the worker score and the approval ranking must be different columns")
    out = extract_dialogue_features(
        samples, dialogue_col=dialogue_col, text_col=text_col, label_col=label_col,
        paraphrased_col=paraphrased_col, first_submission_col=first_submission_col,
        turn_col=turn_col, keep_cols=keep, scorer=scorer)
    feats = out.features.rename(columns={c: n for c, n in ((worker_score_col, "worker_score"),
                                                           (approval_ranking_col, "approval_ranking"))
                                         if c})
    notices = list(out.notices)
    if worker_score_col is None or approval_ranking_col is None:
        notices.append("no worker test score / approval-rate ranking columns: the worker "
                       "features W are unavailable")
    if effort_col is not None:
        if effort_col not in samples.columns:
            raise DataError(f"effort column {effort_col!r} is not in the table")
        eff = numeric_matrix(samples.reset_index(drop=True), [effort_col], what="effort")[:, 0]
        bad = np.flatnonzero(eff < 0)
        if len(bad):
            raise DataError(f"effort column {effort_col!r} must be >= 0; {describe_rows(bad)} are negative")
        per_dialogue = pd.Series(eff).groupby(samples[dialogue_col].to_numpy(), sort=False).sum()
        feats["time"] = per_dialogue.reindex(feats["dialogue_id"]).to_numpy()
    return FeatureExtraction(feats, notices)
