"""Dialogue features (D) from turn-level tables and worker features (W), joined by worker id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows, plain_value
from core.hee.columns import DIALOGUE_FEATURES, id_index, numeric_matrix
from core.hee.text import MaskedLMScorer, dialogue_text, readability, tokenize


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
        notices.append("no masked language model chosen: the perplexity feature was skipped "
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
                                f"dialogue {plain_value(did)!r} ({describe_rows(g['_row'].tolist())})")
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
                                f"{plain_value(did)!r} has {len(vals)} values ({describe_rows(g['_row'].tolist())})")
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
    table = workers.set_index(id_index(workers["worker_id"]))
    keys = id_index(dialogues[worker_col])
    found = keys.isin(table.index)
    if not found.all():
        bad = np.flatnonzero(~found)
        raise DataError(f"no worker features for the worker of dialogue {describe_rows(bad)} "
                        f"(worker id {keys[bad[0]]!r})")
    out = dialogues.reset_index(drop=True).copy()
    out["worker_score"] = table.loc[keys, "worker_score"].to_numpy()
    out["approval_ranking"] = table.loc[keys, "approval_ranking"].to_numpy()
    return out
