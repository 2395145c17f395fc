"""HEE's names: the D and W features, the HMCEval release's columns, recognised aliases; column detection, feature sets and the numeric feature matrix."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.data import norm_name
from core.defaults import HEE_MAX_FEATURES, HEE_N_ESTIMATORS, HEE_RANDOM_STATE
from core.errors import DataError, describe_rows
from core.validate import TABLE, numeric_values
from core.defaults import FLOAT32_MAX


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

#: The paper's forest settings (their one home is :mod:`core.defaults`).
DEFAULT_MAX_FEATURES = HEE_MAX_FEATURES
DEFAULT_RANDOM_STATE = HEE_RANDOM_STATE
DEFAULT_N_ESTIMATORS = HEE_N_ESTIMATORS

#: Largest magnitude of a feature value (``numpy.finfo(numpy.float32).max``, about 3.4e38).
#: scikit-learn's forest stores its input in 32-bit floats; a larger value would become
#: infinite there, so it is refused (naming the column and rows) before the forest runs.
MAX_FEATURE_MAGNITUDE = FLOAT32_MAX  # one home: core.defaults (the CLI's help names it)

#: Largest number of turns of a dialogue (2**31 - 1: it must fit a 32-bit integer).
MAX_TURNS = 2**31 - 1




def detect_column(columns: Iterable[Any], aliases: Sequence[str]) -> str | None:
    """First column whose normalised name is one of ``aliases`` (in alias order)."""
    by_norm: dict[str, Any] = {}
    for c in columns:
        by_norm.setdefault(norm_name(c), c)
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
            match = detect_column(columns, (norm_name(it),))
            if match is None:
                raise DataError(f"feature column {it!r} is not in the table; available: "
                                f"{', '.join(map(str, columns))}")
            col = match
        if col in cols:
            raise DataError(f"feature column {col!r} is listed twice")
        cols.append(col)
    labels = [FEATURE_LABELS[col_to_feat[c]] if c in col_to_feat else str(c) for c in cols]
    return FeatureSet(name, cols, labels, [])


def check_feature_range(X: np.ndarray, names: Sequence[str]) -> None:
    """Refuse feature values beyond +-:data:`MAX_FEATURE_MAGNITUDE` (the forest's 32-bit floats).

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
        Finite feature values.
    names : sequence of str, length n_features
        Column names for the message.

    Raises
    ------
    DataError
        Naming the first column with such a value, its rows and the first value.
    """
    with np.errstate(invalid="ignore"):
        too_big = np.abs(X) > MAX_FEATURE_MAGNITUDE
    for j in np.flatnonzero(too_big.any(axis=0)):
        rows = np.flatnonzero(too_big[:, j])
        raise DataError(
            f"feature column {names[j]!r} has values beyond {MAX_FEATURE_MAGNITUDE:.4g}, which the random "
            f"forest cannot hold (it computes in 32-bit floats), in {describe_rows(rows)} (first value "
            f"{X[rows[0], j]:g}); feature values must lie within +-{MAX_FEATURE_MAGNITUDE:.4g}"
        )


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
        arr = numeric_values(df[c], label=f"{what} column {c!r}", wording=TABLE)
        out[:, j] = arr
    return out


def id_index(ids: pd.Series) -> pd.Index:
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
