"""Train the machine evaluator and its three confidence estimators, then score a table.

:func:`train_and_score` is the one implementation behind ``hmceval train-classifier`` and the
Confidence page's training panel:

1. fine-tune :class:`~core.mce.classifier.TextClassifier` on the training table;
2. run it on the training, validation (optional) and evaluation tables (labels, class
   probabilities, encoder features);
3. MCP on the evaluation probabilities; the trust score fitted on the training features and
   true labels (its normalisation range from the training predictions); TCP trained on the
   training features against the training true-class probabilities, with early stopping on the
   validation table (or on a held-out tenth of the training table when none is given);
4. return the evaluation table with ``machine_label``, one ``proba_<class>`` column per class
   and ``confidence_mcp``, ``confidence_ts``, ``confidence_tcp`` (existing columns of those
   names are replaced); list-valued contexts are written as JSON text.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from core.errors import DataError, describe_rows
from core.mce.classifier import TextClassifier
from core.mce.settings import ClassifierConfig, ClassifierOutput
from core.mce.confidence import MCP, TCP, TrustScore, true_class_probability

__all__ = ["CONFIDENCE_COLUMNS", "ScoringResult", "train_and_score", "check_text_table", "proba_column"]

#: Names of the confidence columns written by :func:`train_and_score`.
CONFIDENCE_COLUMNS = ("confidence_mcp", "confidence_ts", "confidence_tcp")

#: progress(stage, done, total, message) with stage in {"train", "score", "tcp"}.
StageProgress = Callable[[str, int, int, str], None]


def proba_column(label: Any) -> str:
    """Name of the probability column of a class: ``proba_<label>``."""
    return f"proba_{label}"


@dataclass
class ScoringResult:
    """What :func:`train_and_score` returns.

    Attributes
    ----------
    scored : pandas.DataFrame
        The evaluation table with the machine label, class probabilities and confidences.
    classifier : TextClassifier
    trust_score : TrustScore
    tcp : TCP
    eval_output : ClassifierOutput
        Raw classifier outputs on the evaluation table (features included).
    timings : dict
        ``train_seconds`` (classifier fine-tuning), ``score_seconds`` and ``score_samples``
        (classifier inference over every table scored), ``tcp_seconds``, ``ts_seconds``.
    """

    scored: pd.DataFrame
    classifier: TextClassifier
    trust_score: TrustScore
    tcp: TCP
    eval_output: ClassifierOutput
    timings: dict[str, float] = field(default_factory=dict)


def check_text_table(df: pd.DataFrame, *, text_col: str, label_col: str | None,
                     context_col: str | None, name: str, require_label: bool = True) -> None:
    """Check that a table has the named columns, text in every row and no missing label.

    An empty string is a valid (empty) response; a missing value or a number is not.

    Raises
    ------
    DataError
        Naming the table, the column and the first offending rows.
    """
    if not isinstance(df, pd.DataFrame) or len(df) == 0:
        raise DataError(f"the {name} table has no rows")
    cols = [("text", text_col), ("context", context_col)]
    if require_label:
        cols.append(("label", label_col))
    for role, col in cols:
        if col is not None and col not in df.columns:
            raise DataError(
                f"{role} column '{col}' is not in the {name} table; available: {', '.join(map(str, df.columns))}"
            )
    texts = df[text_col]
    bad = np.flatnonzero([not isinstance(t, str) for t in texts.tolist()])
    if bad.size:
        raise DataError(f"text column '{text_col}' of the {name} table is missing or not text at {describe_rows(bad)}")
    if require_label:
        miss = np.flatnonzero(df[label_col].isna().to_numpy())
        if miss.size:
            raise DataError(f"label column '{label_col}' of the {name} table has missing values at {describe_rows(miss)}")


def _label_index(values: pd.Series, classes: np.ndarray, col: str, name: str) -> np.ndarray:
    index = {c: i for i, c in enumerate(classes.tolist())}
    vals = values.tolist()
    bad = [i for i, v in enumerate(vals) if v not in index]
    if bad:
        raise DataError(
            f"label column '{col}' of the {name} table has labels the classifier never saw in training "
            f"({vals[bad[0]]!r}) at {describe_rows(bad)}; training classes: {classes.tolist()}"
        )
    return np.array([index[v] for v in vals], dtype=int)


def train_and_score(
    train: pd.DataFrame,
    eval: pd.DataFrame,
    *,
    text_col: str,
    label_col: str,
    context_col: str | None = None,
    val: pd.DataFrame | None = None,
    config: ClassifierConfig | None = None,
    ts_k: int = 10,
    ts_alpha: float = 0.0,
    tcp: TCP | None = None,
    progress: StageProgress | None = None,
    should_stop: Any = None,
) -> ScoringResult:
    """Train the classifier and the MCP / trust score / TCP estimators, then score ``eval``.

    Parameters
    ----------
    train : DataFrame
        Labelled training samples.
    eval : DataFrame
        Samples to score (the label column is optional here and kept as is).
    text_col, label_col : str
        Response text and label columns.
    context_col : str, optional
        Context column (a string or a list of previous utterances per row).
    val : DataFrame, optional
        Labelled validation samples for TCP's early stopping.
    config : ClassifierConfig, optional
        Classifier settings (paper defaults).
    ts_k, ts_alpha : trust score parameters (see :class:`TrustScore`).
    tcp : TCP, optional
        An unfitted TCP with custom settings (defaults from the paper otherwise).
    progress : callable(stage, done, total, message), optional
    should_stop : callable() -> bool or threading.Event, optional
        Stops training or scoring with :class:`core.mce.confidence.TrainingStopped`.

    Returns
    -------
    ScoringResult
    """
    check_text_table(train, text_col=text_col, label_col=label_col, context_col=context_col, name="training")
    check_text_table(eval, text_col=text_col, label_col=label_col, context_col=context_col, name="evaluation",
                     require_label=False)
    if val is not None:
        check_text_table(val, text_col=text_col, label_col=label_col, context_col=context_col, name="validation")

    def stage(name: str) -> Callable[[int, int, str], None] | None:
        if progress is None:
            return None
        return lambda done, total, msg: progress(name, done, total, msg)

    ctx = (lambda df: None if context_col is None else df[context_col])
    clf = TextClassifier(config)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    clf.fit(train[text_col], train[label_col], contexts=ctx(train), progress=stage("train"),
            should_stop=should_stop)
    timings["train_seconds"] = time.perf_counter() - t0
    classes = clf.classes_
    y_train = _label_index(train[label_col], classes, label_col, "training")
    y_val = _label_index(val[label_col], classes, label_col, "validation") if val is not None else None

    t0 = time.perf_counter()
    out_train = clf.predict_output(train[text_col], contexts=ctx(train), progress=stage("score"),
                                   should_stop=should_stop)
    out_val = (clf.predict_output(val[text_col], contexts=ctx(val), progress=stage("score"),
                                  should_stop=should_stop) if val is not None else None)
    out_eval = clf.predict_output(eval[text_col], contexts=ctx(eval), progress=stage("score"),
                                  should_stop=should_stop)
    timings["score_seconds"] = time.perf_counter() - t0
    timings["score_samples"] = float(len(train) + len(eval) + (0 if val is None else len(val)))

    t0 = time.perf_counter()
    ts = TrustScore(k=ts_k, alpha=ts_alpha).fit(out_train.features, y_train, y_pred=out_train.label_index)
    conf_ts = ts.predict(out_eval.features, out_eval.label_index)
    timings["ts_seconds"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    tcp = tcp if tcp is not None else TCP(seed=clf.config.seed)
    target = true_class_probability(y_train, out_train.proba)
    if out_val is not None:
        tcp.fit(out_train.features, target, X_val=out_val.features,
                target_val=true_class_probability(y_val, out_val.proba), progress=stage("tcp"),
                should_stop=should_stop)
    else:
        tcp.fit(out_train.features, target, progress=stage("tcp"), should_stop=should_stop)
    conf_tcp = tcp.predict(out_eval.features)
    timings["tcp_seconds"] = time.perf_counter() - t0

    scored = eval.copy()
    new = {"machine_label": out_eval.labels}
    for j, c in enumerate(classes.tolist()):
        new[proba_column(c)] = out_eval.proba[:, j]
    new["confidence_mcp"] = MCP().predict(out_eval.proba)
    new["confidence_ts"] = conf_ts
    new["confidence_tcp"] = conf_tcp
    for col, values in new.items():
        scored[col] = values
    if context_col is not None:
        # list contexts (JSON input) become JSON text, so that the table can be written as CSV,
        # hashed and read back unchanged
        scored[context_col] = [json.dumps([str(u) for u in v]) if isinstance(v, (list, tuple, np.ndarray)) else v
                               for v in scored[context_col].tolist()]
    return ScoringResult(scored=scored, classifier=clf, trust_score=ts, tcp=tcp, eval_output=out_eval,
                         timings=timings)
