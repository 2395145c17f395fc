"""Column roles: their names, the aliases recognised for each, and detection from a table.

Detection works in two tiers for each role:

1. *aliases*: a column whose normalised name (:func:`norm_name`) is one of the role's
   :data:`ROLE_ALIASES` (the HMCEval release and the demo are detected this way);
2. *name kinds*: when no alias matches, the words of a column's name (:func:`name_tokens`) say
   what kind of column it is (:func:`name_kind`: a prediction, a probability, a gold label, an
   effort, an identifier), and its values must fit the role (labels: few distinct values;
   confidences: numbers in [0, 1]; efforts: numbers >= 0).

When a tier offers several columns for one role, or nothing is found for a required role, the
detection *asks* (:class:`Ask`) instead of guessing silently: the Data page shows the question
with the candidates. Columns of a label, prediction, probability or row-identifier kind, free
text and mapped columns are never subgroups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["ROLES", "REQUIRED_ROLES", "ROLE_ALIASES", "ROLE_NAMES", "norm_name", "name_tokens",
           "name_kind", "column_kind", "NOT_SUBGROUP_KINDS", "effort_unit", "confidence_candidates", "confidence_name",
           "detect_roles", "detect_columns", "is_text", "Ask", "Detection"]

#: Roles in display order.
ROLES: tuple[str, ...] = (
    "machine_label",
    "machine_confidence",
    "human_label",
    "human_label_2",
    "human_effort",
    "predicted_effort",
    "human_confidence",
    "machine_effort",
    "turn",
    "n_turns",
    "dialogue_id",
    "sample_id",
)
REQUIRED_ROLES: tuple[str, ...] = ("machine_label", "machine_confidence")

#: Column names recognised for each role (compared case-insensitively, spaces/dashes as ``_``),
#: in priority order. Every column name of the HMCEval release is covered.
ROLE_ALIASES: dict[str, tuple[str, ...]] = {
    "machine_label": ("machine_label", "machine_predict", "machine_prediction", "machine_pred",
                      "predicted_label", "prediction", "pred_label", "y_pred", "system_label"),
    "machine_confidence": ("machine_confidence", "confidence", "model_confidence", "confidence_ts",
                           "confidence_mcp", "confidence_tcp", "trust_score", "mcp", "tcp", "conf"),
    "human_label": ("human_label", "target", "gold", "gold_label", "label", "y_true",
                    "human_label_1", "human", "reference"),
    "human_label_2": ("human_label_2", "human2", "second_rater", "rater_2", "label_2", "gold_2"),
    "human_effort": ("human_effort", "human_effort_groundtruth", "human_effort_ground_truth",
                     "effort", "annotation_time", "time_cost", "worktimeinseconds", "time"),
    "predicted_effort": ("predicted_effort", "human_effort_predicted_avg",
                         "human_effort_predicted", "effort_predicted", "predicted_time"),
    "human_confidence": ("human_confidence",),
    "machine_effort": ("machine_effort",),
    "turn": ("turn", "turn_index", "turn_id", "turn_number", "turn_idx", "turn_no"),
    "n_turns": ("turns", "n_turns", "num_turns", "dialogue_turns"),
    "dialogue_id": ("dialogue_id", "dialog_id", "conversation_id", "conv_id", "episode_id",
                    "session_id", "thread_id", "chat_id"),
    "sample_id": ("sample_id", "response_id", "id", "example_id", "item_id", "row_id", "uid"),
}

_SUBGROUP_HINTS = ("system", "model", "topic", "category", "group", "domain", "source", "gender",
                   "language", "split", "worker", "annotator", "dataset")
#: Words of a free-text column's name (:func:`name_tokens`, plurals too; ``text`` also inside a
#: word, as in ``context``): what an annotator reads.
_TEXT_HINTS = ("text", "response", "context", "utterance", "dialogue", "dialog", "message",
               "prompt", "reply", "output", "answer", "question", "comment", "content",
               "sentence", "transcript", "completion", "generation", "input", "review", "body",
               "feedback", "tweet", "document", "passage", "turn", "query", "instruction")
#: Kinds of column a text word in its name does not make free text (``response_id``,
#: ``answer_label``, ``reply_time``).
_NOT_TEXT_KINDS = frozenset({"row_id", "label", "label_2", "effort", "predicted_effort",
                             "probability", "logit"})


def norm_name(name: Any) -> str:
    """A column name as compared with aliases: stripped, lower case, spaces and dashes as ``_``."""
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


#: Plain names of the roles (messages and the Data page).
ROLE_NAMES: dict[str, str] = {
    "machine_label": "machine label",
    "machine_confidence": "machine confidence",
    "human_label": "gold (human) label",
    "human_label_2": "second human label",
    "human_effort": "human effort",
    "predicted_effort": "predicted effort",
    "human_confidence": "human confidence",
    "machine_effort": "machine effort",
    "turn": "turn",
    "n_turns": "number of turns",
    "dialogue_id": "dialogue id",
    "sample_id": "sample id",
}

# Words of a column name (see name_tokens) and the kind of column they announce.
_LOGIT_WORDS = frozenset({"logit", "logits", "logprob", "logprobs", "log_prob"})
_PROB_WORDS = frozenset({"prob", "probs", "proba", "probability", "probabilities", "conf",
                         "confidence", "confidences", "certainty", "likelihood", "trust", "mcp",
                         "tcp", "softmax", "sigmoid"})
_SCORE_WORDS = frozenset({"score", "scores"})  # a probability only when its values are in [0, 1]
_EFFORT_WORDS = frozenset({"effort", "time", "duration", "elapsed", "latency", "cost", "seconds",
                           "second", "sec", "secs", "minutes", "minute", "min", "mins", "hours",
                           "hour", "hr", "hrs", "ms", "msec", "msecs", "millis", "milliseconds"})
_ESTIMATE_WORDS = frozenset({"pred", "predicted", "prediction", "predict", "estimated", "estimate",
                             "est", "expected", "hee"})
_PRED_WORDS = frozenset({"pred", "preds", "predict", "predicts", "predicted", "prediction",
                         "predictions", "yhat", "hat", "judge", "judged", "judgement", "judgment",
                         "verdict", "llm", "gpt", "classifier", "clf", "machine", "auto",
                         "automatic", "evaluator", "output", "decision"})
_MACHINE_WORDS = frozenset({"model", "system", "sys", "bot", "ai"})  # + a label word = prediction
_LABEL_WORDS = frozenset({"label", "labels", "gold", "target", "truth", "gt", "true", "human",
                          "reference", "ref", "annotation", "annotated", "manual", "expert",
                          "actual", "y"})
# a person's word with a verdict that names no machine is a gold label (reviewer_verdict)
_PERSON_WORDS = frozenset({"human", "humans", "reviewer", "reviewers", "reviewed", "annotator",
                           "annotators", "rater", "raters", "expert", "experts", "manual",
                           "moderator", "labeler", "labeller", "crowd", "gold", "truth"})
_NEUTRAL_PRED_WORDS = frozenset({"verdict", "judgement", "judgment", "judged", "decision", "output"})
_SECOND_WORDS = frozenset({"2", "second", "b"})
_ID_WORDS = frozenset({"id", "ids", "uuid", "guid", "idx", "index", "key", "hash", "uid"})
_ROW_WORDS = frozenset({"dialogue", "dialog", "conversation", "conv", "sample", "response", "row",
                        "turn", "episode", "session", "item", "example", "instance", "utterance",
                        "message", "msg", "doc", "document", "record", "query", "request", "task",
                        "hit", "assignment", "thread", "chat", "prompt"})
_UNITS = (("milliseconds", frozenset({"ms", "msec", "msecs", "millis", "milliseconds",
                                      "millisecond"})),
          ("seconds", frozenset({"seconds", "second", "sec", "secs"})),
          ("minutes", frozenset({"minutes", "minute", "min", "mins"})),
          ("hours", frozenset({"hours", "hour", "hr", "hrs"})))
_UNIT_LETTERS = {"s": "seconds", "m": "minutes", "h": "hours"}

#: Kinds of column (:func:`column_kind`) that are never subgroups: labels, predictions,
#: probabilities, efforts and row ids are what is evaluated, not who.
NOT_SUBGROUP_KINDS = frozenset({"prediction", "probability", "logit", "label", "label_2", "effort",
                                 "predicted_effort", "row_id"})
#: Most distinct values a label (or a subgroup) column may hold.
_MAX_CLASSES = 50


def name_tokens(name: Any) -> tuple[str, ...]:
    """The words of a column name: camelCase, digits, spaces, dashes and underscores split it.

    >>> name_tokens("WorkTimeInSeconds"), name_tokens("p_unsafe"), name_tokens("label2")
    (('work', 'time', 'in', 'seconds'), ('p', 'unsafe'), ('label', '2'))
    """
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", str(name).strip())
    return tuple(re.findall(r"[a-z]+|[0-9]+", text.lower()))


def name_kind(name: Any) -> str | None:
    """What a column's name says it holds, from its words (:func:`name_tokens`).

    Returns
    -------
    str or None
        ``"logit"`` (logit, logprob), ``"probability"`` (prob, proba, conf, confidence,
        likelihood, trust, a leading ``p`` as in ``p_unsafe``, ``score``), ``"predicted_effort"``
        (an effort word with pred/estimated/expected), ``"effort"`` (effort, time, duration, cost,
        seconds, minutes, ...), ``"prediction"`` (pred, predicted, yhat, judge, llm, verdict,
        classifier, or model/system with a label word; a verdict, decision or judgement of a
        person, as in ``reviewer_verdict``, ``annotator_decision``, is a ``"label"``), ``"label_2"`` (a label word with 2 or
        second), ``"label"`` (label, gold, target, truth, human, reference, y, ...), ``"row_id"``
        (an id word with a row word, as in ``dialogue_id``, ``hit_id``, or an id word alone) or
        ``None``. Earlier kinds win: ``pred_prob`` is a probability, ``label_pred`` a prediction,
        ``annot_seconds`` an effort. ``score`` is a probability only if the values say so (see
        :func:`detect_columns`); here it counts as one.
    """
    words = name_tokens(name)
    if not words:
        return None
    ws = set(words)
    if ws & _LOGIT_WORDS or ("log" in ws and ws & {"prob", "probs", "probability"}):
        return "logit"
    if ws & _PROB_WORDS or ws & _SCORE_WORDS or (words[0] == "p" and len(words) > 1):
        return "probability"
    if ws & _EFFORT_WORDS or (len(words) > 1 and words[-1] in _UNIT_LETTERS
                              and ws & {"time", "duration"}):
        return "predicted_effort" if ws & _ESTIMATE_WORDS else "effort"
    if ws & _PERSON_WORDS and (p := ws & _PRED_WORDS) and p <= _NEUTRAL_PRED_WORDS and not ws & _MACHINE_WORDS:
        return "label_2" if ws & _SECOND_WORDS else "label"  # reviewer_verdict: a person's
    if ws & _PRED_WORDS or (ws & _MACHINE_WORDS and ws & _LABEL_WORDS):
        return "prediction"
    if ws & _LABEL_WORDS:
        return "label_2" if ws & _SECOND_WORDS else "label"
    if ws & _ID_WORDS and (ws & _ROW_WORDS or len(ws) == 1):
        return "row_id"
    return None


def effort_unit(name: Any) -> str | None:
    """The time unit a column's name states: ``"seconds"``, ``"minutes"``, ``"hours"``,
    ``"milliseconds"`` or ``None`` (no unit named, e.g. the paper's normalised effort).

    Short forms count as whole words (``sec``, ``min``, ``ms``; a final ``s``/``m``/``h`` after
    other words, as in ``time_s``), long ones also inside a word (``worktimeinseconds``).

    >>> effort_unit("annot_seconds"), effort_unit("time_s"), effort_unit("WorkTimeInSeconds")
    ('seconds', 'seconds', 'seconds')
    >>> effort_unit("human_effort_groundtruth") is None
    True
    """
    words = name_tokens(name)
    for unit, names in _UNITS:
        if set(words) & names:
            return unit
    if len(words) > 1 and words[-1] in _UNIT_LETTERS:
        return _UNIT_LETTERS[words[-1]]
    flat = norm_name(name).replace("_", "")
    for unit in ("milliseconds", "seconds", "minutes", "hours"):
        if unit in flat:
            return unit
    return None


def _in_unit_interval(s: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(s):
        return False
    vals = pd.to_numeric(s, errors="coerce")
    return bool(len(vals)) and bool(vals.notna().all() and ((vals >= 0) & (vals <= 1)).all())


def _non_negative(s: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(s):
        return False
    vals = pd.to_numeric(s, errors="coerce")
    return bool(len(vals)) and bool(vals.notna().all() and np.isfinite(vals).all()
                                    and (vals >= 0).all())


def _label_values(s: pd.Series) -> bool:
    """Whether a column's values look like class labels: no missing value, at most 50 distinct
    values, whole numbers when numeric, short text otherwise."""
    if s.isna().any() or len(s) == 0:
        return False
    if pd.api.types.is_bool_dtype(s):
        return True
    if pd.api.types.is_numeric_dtype(s):
        arr = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(arr).all() or not np.all(arr == np.round(arr)):
            return False
        return int(pd.Series(arr).nunique()) <= _MAX_CLASSES
    text = s.astype(str)
    return int(text.nunique()) <= _MAX_CLASSES and float(text.str.len().mean()) < 40


def confidence_candidates(df: pd.DataFrame) -> list[str]:
    """Columns that look like a machine confidence: numeric, all values in [0, 1], named like one
    (conf/confidence, trust, mcp/tcp, prob/proba/probability, likelihood, a leading ``p`` as in
    ``p_unsafe``, score).

    Columns named as a confidence (conf/confidence, trust, mcp/tcp) come first; columns named
    only as a probability (``model_prob``, ``proba_Unsafe``) are candidates only when no column
    is named as a confidence: a class probability such as the machine evaluator's
    ``proba_<class>`` is not the confidence in the label when a confidence column is there.

    Returns
    -------
    list of str
        In the frame's column order; ``human_confidence`` (and any name with the word ``human``)
        is excluded.
    """
    named, probabilities = [], []
    for col in df.columns:
        how = confidence_name(col)
        if how is not None and _in_unit_interval(df[col]):
            (named if how == "confidence" else probabilities).append(col)
    return named or probabilities


def confidence_name(col: Any) -> str | None:
    """How a column's name says it holds a machine confidence, whatever its values:
    ``"confidence"`` (conf/confidence, trust, mcp/tcp), ``"probability"`` (named only as a
    probability: ``model_prob``, ``proba_Unsafe``, ``p_unsafe``) or ``None`` (not named so, or a
    human's: any name with the word ``human``)."""
    n = norm_name(col)
    if n == "human_confidence" or "human" in name_tokens(col):
        return None
    if "conf" in n or n in ("mcp", "tcp", "trust_score") or n.startswith("trust"):
        return "confidence"
    return "probability" if name_kind(col) == "probability" else None


@dataclass(frozen=True)
class Ask:
    """A question detection could not settle: which column holds ``role``.

    Attributes
    ----------
    role : str
        The role in doubt.
    candidates : tuple of str
        Columns that could hold it (the chosen one first); empty when none fits.
    chosen : str or None
        The column detection chose anyway (the first candidate of the best tier), or ``None``.
    message : str
        The question in plain words, naming the columns.
    """

    role: str
    candidates: tuple[str, ...]
    chosen: str | None
    message: str


@dataclass(frozen=True)
class Detection:
    """What :func:`detect_columns` found in a table.

    Attributes
    ----------
    roles : dict
        role -> column name or ``None``, plus ``"subgroups"`` and ``"text"`` (lists): the
        mapping :func:`detect_roles` returns.
    asks : tuple of Ask
        Roles detection is unsure about (several candidates, or none for a required role).
    units : dict
        Effort role -> the time unit its column's name states (``"seconds"``, ...), for the
        mapped effort roles that name one.
    subgroup_options : tuple of str
        Columns eligible as subgroups: categorical, 2 to 50 distinct values, and neither mapped
        nor of a label, prediction, probability, effort or row-identifier kind, nor free text.
        The detected ``roles["subgroups"]`` are among them.
    kinds : dict
        column -> what its name and values say it holds (:func:`name_kind`, with ``"score"``
        columns outside [0, 1] left without a kind), for columns with a kind.
    """

    roles: dict[str, Any]
    asks: tuple[Ask, ...] = ()
    units: dict[str, str] = field(default_factory=dict)
    subgroup_options: tuple[str, ...] = ()
    kinds: dict[str, str] = field(default_factory=dict)


def _mostly_label_values(s: pd.Series) -> bool:
    """Label values with a few missing (more than half the rows present): a column named as a
    prediction or a label stays its role's candidate, and validation names its missing rows."""
    present = s.dropna()
    return 2 * len(present) > len(s) and _label_values(present)


# role -> (the name kinds that may fill it, the values check) for the second tier
_FUZZY: dict[str, tuple[frozenset, Any]] = {
    "machine_label": (frozenset({"prediction"}), _mostly_label_values),
    "machine_confidence": (frozenset({"probability"}), _in_unit_interval),
    "human_label": (frozenset({"label"}), _mostly_label_values),
    "human_label_2": (frozenset({"label_2"}), lambda s: True),
    "human_effort": (frozenset({"effort"}), _non_negative),
    "predicted_effort": (frozenset({"predicted_effort"}), _non_negative),
    # a sample id: every value present and different (not a key repeated over turns)
    "sample_id": (frozenset({"row_id"}), lambda s: len(s) > 0 and s.notna().all() and s.is_unique),
}


def column_kind(col: Any, s: pd.Series) -> str | None:
    """What a column holds, from its name (:func:`name_kind`) and, for a ``score``, its values:
    a score in [0, 1] is a probability, another score a judge or model gave is a prediction
    (a rating), any other score has no kind (e.g. ``worker_score``, a worker's quality).

    Parameters
    ----------
    col : str
        The column's name.
    s : pandas.Series
        Its values.

    Returns
    -------
    str or None
        As :func:`name_kind`. A column of a kind in :data:`NOT_SUBGROUP_KINDS` is never a
        subgroup.
    """
    kind = name_kind(col)
    if kind == "probability" and not (set(name_tokens(col)) & (_PROB_WORDS | {"p"})):
        # only "score": a probability if its values are, else a rating (a prediction if a judge
        # or a model gave it)
        if _in_unit_interval(s):
            return "probability"
        words = set(name_tokens(col))
        return "prediction" if words & _PRED_WORDS else None
    return kind


def is_text(col: Any, s: pd.Series, kind: str | None = None) -> bool:
    """Whether a column holds free text (what an annotator reads), from its name and values.

    Its values must be strings, not numbers written as text. Then either its name has a text
    word (:data:`_TEXT_HINTS`: text, response, utterance, context, message, prompt, output,
    answer, reply, ...; unless the name is of a kind in :data:`_NOT_TEXT_KINDS`, as
    ``response_id``) and its values are long-ish (15 characters on average), mostly distinct
    (at least half of them, more than two) or words (most with a space, more than five distinct
    values, as short answers repeated); or, whatever its name, its values are long (40
    characters on average) or read as sentences (mostly distinct: 80 %, 20 characters on average,
    most with a space).

    Parameters
    ----------
    col : str
        The column's name.
    s : pandas.Series
        Its values.
    kind : str, optional
        What its name says it holds (:func:`column_kind`), when the caller has it.
    """
    if not (s.dtype == object or isinstance(s.dtype, pd.StringDtype)):
        return False
    nonnull = s.dropna().astype(str).str.strip()
    nonnull = nonnull[nonnull != ""]
    if len(nonnull) == 0:
        return False
    mean_len = float(nonnull.str.len().mean())
    n_distinct = int(nonnull.nunique())
    distinct = n_distinct / len(nonnull)
    kind = column_kind(col, s) if kind is None else kind
    words = name_tokens(col)
    named = "text" in norm_name(col) or any(w in _TEXT_HINTS or w.rstrip("s") in _TEXT_HINTS
                                            for w in words)
    spaced = float(nonnull.str.contains(" ", regex=False).mean())
    if named and kind not in _NOT_TEXT_KINDS and (
            mean_len >= 15 or (distinct >= 0.5 and n_distinct > 2)
            or (spaced >= 0.5 and n_distinct > 5)):
        text = True
    else:
        text = mean_len >= 40 or (distinct >= 0.8 and mean_len >= 20 and spaced >= 0.5)
    # numbers written as text are not text; checked last, and on the first 1,000 values before
    # all of them (one value that is not a number decides): pd.to_numeric of 10^5 strings took
    # 50 ms, on every rerun of a page that prepares a stored table
    return text and not (_all_numbers(nonnull.iloc[:1000]) and _all_numbers(nonnull))


def _all_numbers(values: pd.Series) -> bool:
    return bool(pd.to_numeric(values, errors="coerce").notna().all())


def _categorical(s: pd.Series) -> bool:
    """2 to 50 distinct values (fewer than the rows): text, booleans or whole numbers."""
    if s.dtype == object or isinstance(s.dtype, pd.StringDtype) or s.dtype == bool \
            or isinstance(s.dtype, pd.CategoricalDtype):
        nunique = s.dropna().astype(str).nunique()
        return 2 <= nunique <= _MAX_CLASSES and nunique < max(len(s), 3)
    return bool(pd.api.types.is_integer_dtype(s)
                and 2 <= (nunique := s.nunique()) <= _MAX_CLASSES and nunique < max(len(s), 3))


def _ask_several(role: str, cands: list[str]) -> Ask:
    others = ", ".join(f"'{c}'" for c in cands[1:])
    return Ask(role, tuple(cands), cands[0],
               f"Several columns could be the {ROLE_NAMES[role]}: '{cands[0]}' (chosen), "
               f"{others}. Check the choice below.")


def _ask_none(role: str, cands: list[str], note: str = "") -> Ask:
    examples = ", ".join(ROLE_ALIASES[role][:4])
    text = (f"No column was recognised as the {ROLE_NAMES[role]} (names such as {examples}). ")
    if cands:
        text += f"Columns that could be it: {', '.join(repr(c) for c in cands[:8])}. "
    text += note + "Choose it below."
    return Ask(role, tuple(cands), None, text)


def detect_columns(df: pd.DataFrame) -> Detection:
    """Guess the role of each column from its name and values, and say where it is unsure.

    Parameters
    ----------
    df : pandas.DataFrame
        The loaded table.

    Returns
    -------
    Detection
        The mapping (``roles``), the questions (``asks``), the effort units stated by the
        mapped effort columns' names, the columns eligible as subgroups and each column's kind.

    Notes
    -----
    For each role in :data:`ROLES` order, the first tier is the role's aliases (in their
    priority order); the second, used only when no alias matches, is the columns whose name kind
    fits the role (:data:`_FUZZY`: machine label, confidence, gold labels, efforts, and the
    sample id: an id-like name with every value different, as ``item_key``) and whose values
    fit it, in column order. Two or more candidates in the deciding tier give an
    :class:`Ask` (the first is still chosen, unless its name is the role's own name, which is
    taken as settled); a required role with no candidate gives an :class:`Ask` listing the
    columns whose values could hold it.
    """
    by_norm: dict[str, str] = {}
    same: dict[str, list[str]] = {}  # the columns whose names read the same
    for col in df.columns:
        n = norm_name(col)
        same.setdefault(n, []).append(col)
        if n not in by_norm or str(col) == n:
            # a name written exactly as the alias wins over an earlier look-alike: a column
            # 'Machine-Label' before 'machine_label' was used silently instead of it
            by_norm[n] = col
    kinds = {col: k for col in df.columns if (k := column_kind(col, df[col])) is not None}
    roles: dict[str, Any] = {}
    used: set[str] = set()
    asks: list[Ask] = []
    for role in ROLES:  # tier 1: aliases
        roles[role] = None
        for alias in ROLE_ALIASES[role]:
            col = by_norm.get(alias)
            if col is not None and col not in used:
                roles[role] = col
                used.add(col)
                break
    alias_hits = {role: [c for a in ROLE_ALIASES[role] for c in same.get(a, [])] for role in ROLES}
    for role in ROLES:
        chosen = roles[role]
        if chosen is None or (str(chosen) == role or (norm_name(chosen) == role and len(
                same[role]) == 1)):
            continue
        rivals = [c for c in alias_hits[role] if c != chosen and c not in used]
        if rivals:
            asks.append(_ask_several(role, [chosen] + rivals))
    conf_cols = confidence_candidates(df)
    for role, (fits, values_fit) in _FUZZY.items():  # tier 2: what the names say
        if roles[role] is not None:
            continue
        if role == "machine_confidence":
            cands = [c for c in conf_cols if c not in used]
        else:
            cands = [c for c in df.columns if c not in used and kinds.get(c) in fits
                     and values_fit(df[c]) and not is_text(c, df[c], kinds.get(c))]
        if cands:
            roles[role] = cands[0]
            used.add(cands[0])
            if len(cands) > 1:
                asks.append(_ask_several(role, cands))
    for role in REQUIRED_ROLES:
        if roles[role] is not None:
            continue
        note = ""
        if role == "machine_confidence":
            cands = [c for c in df.columns if c not in used and kinds.get(c) is None
                     and pd.api.types.is_numeric_dtype(df[c]) and _in_unit_interval(df[c])]
            out = [c for c in df.columns if kinds.get(c) in ("logit", "probability")
                   and c not in used]
            if out:
                note = (f"{', '.join(repr(c) for c in out)} look(s) like a model score but its "
                        "values are not all in [0, 1]: convert it to a probability first. ")
        else:
            cands = [c for c in df.columns if c not in used and kinds.get(c) in (None, "label")
                     and not pd.api.types.is_float_dtype(df[c]) and _label_values(df[c])
                     and not is_text(c, df[c], kinds.get(c))]
        asks.append(_ask_none(role, cands, note))

    subgroups, texts, options = [], [], []
    for col in df.columns:
        if col in used or col in conf_cols:
            continue
        s = df[col]
        n = norm_name(col)
        text = is_text(col, s, kinds.get(col))
        eligible = (not text and kinds.get(col) not in NOT_SUBGROUP_KINDS and _categorical(s))
        if eligible:
            options.append(col)
        if s.dtype == object or isinstance(s.dtype, pd.StringDtype) or s.dtype == bool:
            if text:
                texts.append(col)
            elif eligible:
                subgroups.append(col)
        elif eligible and any(h in n for h in _SUBGROUP_HINTS) and pd.api.types.is_integer_dtype(s):
            subgroups.append(col)
    roles["subgroups"] = subgroups
    roles["text"] = texts
    units = {role: u for role in ("human_effort", "predicted_effort")
             if roles[role] is not None and (u := effort_unit(roles[role])) is not None}
    return Detection(roles=roles, asks=tuple(asks), units=units,
                     subgroup_options=tuple(options), kinds=kinds)


def detect_roles(df: pd.DataFrame) -> dict[str, str | None]:
    """Guess the role of each column from its name (and, for names outside the aliases, its
    values): the ``roles`` of :func:`detect_columns`.

    Parameters
    ----------
    df : pandas.DataFrame
        The loaded table.

    Returns
    -------
    dict
        role -> column name (``None`` when no column is recognised), plus the keys
        ``"subgroups"`` and ``"text"`` holding lists of column names.
    """
    return detect_columns(df).roles
