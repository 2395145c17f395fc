"""Per-sample effort: a dialogue's predicted time divided by its turns, joined to the samples; dialogue tables
built from sample tables; a dataset's samples as the effort model's input."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows, plain_value
from core.hee.columns import (FEATURE_ALIASES, TURN_PARAPHRASED_ALIASES, detect_column, id_index,
                              numeric_matrix)
from core.hee.features import FeatureExtraction, extract_dialogue_features
from core.hee.model import EffortResult
from core.hee.text import MaskedLMScorer


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
    per_turn = pd.Series(pt / nt, index=id_index(d_ids))
    s_ids = id_index(pd.Series(np.asarray(sample_dialogue_ids, dtype=object)))
    out = per_turn.reindex(s_ids).to_numpy(dtype=float)
    miss = np.flatnonzero(np.isnan(out))
    if len(miss):
        raise DataError(f"no predicted effort for the dialogue of sample {describe_rows(miss)} "
                        f"(dialogue id {s_ids[miss[0]]!r})")
    return out


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
            raise DataError(f"column {c!r} varies within dialogue {plain_value(did)!r} ({describe_rows(rows)}); "
                            "dialogue-level features must be constant across its samples")
    return g[list(columns)].first().reset_index()


def features_from_samples(
    samples: pd.DataFrame,
    *,
    dialogue_col: str,
    text_col: str,
    effort_col: str | None = None,
    time_col: str | None = None,
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
        dialogue's annotation time ``time``. Without it (or ``time_col``) there is no
        regression target.
    time_col : str, optional
        The dialogue's annotation time, repeated on each of its samples; it must be constant
        within a dialogue (checked by :func:`dialogue_table_from_samples`) and becomes ``time``.
        Not together with ``effort_col``.
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
    if effort_col is not None and time_col is not None:
        raise DataError("give the samples' effort or the dialogue's time, not both")
    keep = [c for c in (worker_score_col, approval_ranking_col) if c]
    if len(set(keep)) != len(keep):
        raise DataError("the worker score and the approval ranking must be different columns")
    times = None
    if time_col is not None:  # checked before the (slow) text features
        times = dialogue_table_from_samples(samples, dialogue_col=dialogue_col, columns=[time_col])
        times = times.rename(columns={dialogue_col: "dialogue_id", time_col: "time"})
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
        over = np.flatnonzero(~np.isfinite(per_dialogue.to_numpy()))
        if len(over):
            raise DataError(f"effort column {effort_col!r}: the total effort of dialogue "
                            f"{plain_value(per_dialogue.index[over[0]])!r} exceeds the largest number "
                            f"({np.finfo(float).max:.4g}); use a smaller unit")
        feats["time"] = per_dialogue.reindex(feats["dialogue_id"]).to_numpy()
    if times is not None:
        feats = feats.merge(times, on="dialogue_id", how="left")
    return FeatureExtraction(feats, notices)


def effort_data_problems(data: Any) -> list[str]:
    """Why a dataset (:class:`core.data.EvalData`) cannot train the effort model from its turns.

    Returns
    -------
    list of str
        Empty when it can: it needs a free-text column, ground-truth human effort and dialogue
        ids.
    """
    problems = []
    if not data.text_columns:
        problems.append("no free-text column (map one on the Data page): the readability and "
                        "length features need the turn texts")
    if not data.has_effort:
        problems.append("no ground-truth human effort column: the model has no target")
    if "dialogue_id" not in data.frame.columns:
        problems.append("no dialogue id or turn column: turns cannot be grouped into dialogues")
    return problems


@dataclass(frozen=True)
class EffortSamples:
    """A dataset's samples laid out for :func:`features_from_samples`.

    Attributes
    ----------
    samples : pandas.DataFrame of shape (M, n)
        ``dialogue_id``, ``text``, ``label``, ``turn`` (when known), ``effort`` and the optional
        columns found in the table (``first_submission``, ``paraphrased``, ``worker_score``,
        ``approval_ranking``).
    columns : dict
        The keyword arguments of :func:`features_from_samples` (``dialogue_col``, ``text_col``,
        ``effort_col``, ``label_col``, ``turn_col``, ``first_submission_col``,
        ``paraphrased_col``, ``worker_score_col``, ``approval_ranking_col``; None when absent).
    sources : dict
        Optional feature -> the table's column it was found in (by alias).
    """

    samples: pd.DataFrame
    columns: dict[str, str | None]
    sources: dict[str, str]


#: Optional per-sample columns looked up by alias in a dataset's table.
_OPTIONAL_SAMPLE_COLUMNS = (("first_submission", FEATURE_ALIASES["first_submission"]),
                            ("paraphrased", TURN_PARAPHRASED_ALIASES),
                            ("worker_score", FEATURE_ALIASES["worker_score"]),
                            ("approval_ranking", FEATURE_ALIASES["approval_ranking"]))


def effort_samples(data: Any, *, text_col: str, label_col: str = "machine_label") -> EffortSamples:
    """The samples of a dataset (:class:`core.data.EvalData`) as the effort model's input.

    Parameters
    ----------
    data : core.data.EvalData
        A dataset without :func:`effort_data_problems`.
    text_col : str
        The turn-text column (one of ``data.text_columns``).
    label_col : {"machine_label", "human_label"}, default="machine_label"
        Labels counting the malevolent turns (the paper uses the machine's when predicting).

    Returns
    -------
    EffortSamples

    Raises
    ------
    DataError
        The dataset cannot train the model (the problems named), or an unknown column.
    """
    problems = effort_data_problems(data)
    if problems:
        raise DataError("the dataset cannot train the effort model: " + "; ".join(problems))
    f = data.frame
    for col in (text_col, label_col):
        if col not in f.columns:
            raise DataError(f"column {col!r} is not in the dataset")
    has_turn = "turn" in f.columns
    work = f[["dialogue_id", text_col, label_col] + (["turn"] if has_turn else []) + ["human_effort"]].copy()
    work.columns = ["dialogue_id", "text", "label"] + (["turn"] if has_turn else []) + ["effort"]
    sources: dict[str, str] = {}
    for name, aliases in _OPTIONAL_SAMPLE_COLUMNS:
        col = detect_column(data.raw.columns, aliases)
        if col is not None:
            work[name] = data.raw[col].to_numpy()
            sources[name] = col
    columns = {"dialogue_col": "dialogue_id", "text_col": "text", "effort_col": "effort",
               "label_col": "label", "turn_col": "turn" if has_turn else None}
    for name, _ in _OPTIONAL_SAMPLE_COLUMNS:
        columns[f"{name}_col"] = name if name in sources else None
    return EffortSamples(work, columns, sources)


def effort_settings(results: Mapping[str, EffortResult]) -> pd.DataFrame:
    """The settings each fitted model used, one row per feature set (what the Effort page shows).

    Parameters
    ----------
    results : mapping of str to EffortResult
        Feature-set name -> its result.

    Returns
    -------
    pandas.DataFrame
        Index: the feature-set names. Columns ``features`` (number of features), ``evaluation``
        (``"5-fold shuffled CV"`` or ``"split on <column>"``), ``folds`` (cross-validation folds,
        NA in split mode), ``trees``, ``max_features`` and ``seed``; counts are integers.
    """
    rows = {}
    for name, r in results.items():
        p = r.params
        cv = r.mode == "cv"
        mf = p.get("max_features")
        rows[name] = {
            "features": len(r.features),
            "evaluation": (f"{p['n_splits']}-fold shuffled CV" if cv else f"split on {p.get('split_column')}"),
            "folds": int(p["n_splits"]) if cv else pd.NA,
            "trees": int(p["n_estimators"]),
            "max_features": int(mf) if isinstance(mf, (int, np.integer)) else mf,
            "seed": p.get("random_state"),
        }
    out = pd.DataFrame.from_dict(rows, orient="index",
                                 columns=["features", "evaluation", "folds", "trees", "max_features", "seed"])
    for c in ("features", "folds", "trees"):
        out[c] = out[c].astype("Int64")
    if all(isinstance(v, (int, np.integer)) for v in out["max_features"]):
        out["max_features"] = out["max_features"].astype("Int64")
    if all(v is not None for v in out["seed"]):
        out["seed"] = out["seed"].astype("Int64")
    return out


def effort_predictions(results: Mapping[str, EffortResult]) -> pd.DataFrame:
    """Every result's per-dialogue predictions in one table, with a first column ``feature_set``."""
    if not results:
        return pd.DataFrame(columns=["feature_set"])
    return pd.concat([r.predictions.assign(feature_set=name)[["feature_set", *r.predictions.columns]]
                      for name, r in results.items()], ignore_index=True)


_MISSING_FEATURE = re.compile(r"^feature (?P<key>\S+) \((?P<label>.*)\) has no column: (?P<set>.+) is used without it$")


def _plain(text: str) -> str:
    return text.lower().replace("_", " ").replace("-", " ")


def effort_notices(extraction_notices: Sequence[str], results: Mapping[str, EffortResult]) -> list[str]:
    """The notes of a feature extraction and of its models, each fact once.

    Identical notes are kept once; a feature set's "feature X has no column" note is dropped when
    an extraction note already names that feature (e.g. the skipped perplexity), else the notes
    of several sets about one feature become one (``"...: D and D+W are used without it"``).

    Parameters
    ----------
    extraction_notices : sequence of str
        Notes of :func:`features_from_samples` (empty for a table with feature columns).
    results : mapping of str to EffortResult
        Feature-set name -> its result (its ``notices``).

    Returns
    -------
    list of str
        In first-seen order: the extraction's notes, then the models'.
    """
    said = [_plain(n) for n in extraction_notices]
    out: list[str] = list(dict.fromkeys(extraction_notices))
    missing: dict[tuple[str, str], list[str]] = {}
    for r in results.values():
        for note in r.notices:
            m = _MISSING_FEATURE.match(note)
            if m is None:
                if note not in out:
                    out.append(note)
                continue
            key, label = m["key"], m["label"]
            if any(_plain(key) in s or _plain(label) in s for s in said):
                continue
            sets = missing.setdefault((key, label), [])
            if not sets:
                out.append(f"\0{key}")  # placeholder: keeps the first-seen position
            if m["set"] not in sets:
                sets.append(m["set"])
    for (key, label), sets in missing.items():
        names = sets[0] if len(sets) == 1 else ", ".join(sets[:-1]) + " and " + sets[-1]
        verb = "is" if len(sets) == 1 else "are"
        out[out.index(f"\0{key}")] = f"feature {key} ({label}) has no column: {names} {verb} used without it"
    return out
