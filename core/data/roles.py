"""Column roles: their names, the aliases recognised for each, and detection from a table."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["ROLES", "REQUIRED_ROLES", "ROLE_ALIASES", "norm_name", "confidence_candidates",
           "detect_roles"]

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
    "turn": ("turn", "turn_index", "turn_id", "turn_number"),
    "n_turns": ("turns", "n_turns", "num_turns", "dialogue_turns"),
    "dialogue_id": ("dialogue_id", "dialog_id", "conversation_id", "conv_id", "episode_id"),
    "sample_id": ("sample_id", "response_id", "id"),
}

_SUBGROUP_HINTS = ("system", "model", "topic", "category", "group", "domain", "source", "gender",
                   "language", "split", "worker", "annotator", "dataset")
_TEXT_HINTS = ("text", "response", "context", "utterance", "dialogue", "dialog", "message",
               "prompt", "reply")


def norm_name(name: Any) -> str:
    """A column name as compared with aliases: stripped, lower case, spaces and dashes as ``_``."""
    return str(name).strip().lower().replace(" ", "_").replace("-", "_")


def confidence_candidates(df: pd.DataFrame) -> list[str]:
    """Columns that look like a machine confidence: numeric, all values in [0, 1], named like one.

    Returns
    -------
    list of str
        In the frame's column order; ``human_confidence`` is excluded.
    """
    out = []
    for col in df.columns:
        n = norm_name(col)
        if n == "human_confidence":
            continue
        if not ("conf" in n or n in ("mcp", "tcp", "trust_score") or n.startswith("trust")):
            continue
        vals = pd.to_numeric(df[col], errors="coerce")
        if vals.notna().all() and ((vals >= 0) & (vals <= 1)).all():
            out.append(col)
    return out


def detect_roles(df: pd.DataFrame) -> dict[str, str | None]:
    """Guess the role of each column from its name.

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
    by_norm: dict[str, str] = {}
    for col in df.columns:
        by_norm.setdefault(norm_name(col), col)
    roles: dict[str, Any] = {}
    used: set[str] = set()
    for role in ROLES:
        roles[role] = None
        for alias in ROLE_ALIASES[role]:
            col = by_norm.get(alias)
            if col is not None and col not in used:
                roles[role] = col
                used.add(col)
                break
    if roles["machine_confidence"] is None:
        cands = [c for c in confidence_candidates(df) if c not in used]
        if cands:
            roles["machine_confidence"] = cands[0]
            used.add(cands[0])
    conf_cols = set(confidence_candidates(df))
    subgroups, texts = [], []
    for col in df.columns:
        if col in used or col in conf_cols:
            continue
        s = df[col]
        n = norm_name(col)
        if s.dtype == object or isinstance(s.dtype, pd.StringDtype) or s.dtype == bool:
            nonnull = s.dropna().astype(str)
            mean_len = nonnull.str.len().mean() if len(nonnull) else 0.0
            nunique = nonnull.nunique()
            if any(h in n for h in _TEXT_HINTS) and mean_len >= 15 or mean_len >= 40:
                texts.append(col)
            elif 2 <= nunique <= 50 and nunique < max(len(s), 3):
                subgroups.append(col)
        elif any(h in n for h in _SUBGROUP_HINTS) and pd.api.types.is_integer_dtype(s) \
                and 2 <= s.nunique() <= 50:
            subgroups.append(col)
    roles["subgroups"] = subgroups
    roles["text"] = texts
    return roles
