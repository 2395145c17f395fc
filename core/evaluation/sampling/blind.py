"""What annotators see: an allow-list, never a deny-list.

An annotator's file (the command line's ``OUT_to_label.csv``, the Evaluate page's "Queue (CSV)"
download, Label Studio's tasks) carries the sample id, the queue position, the free-text columns
(the ``text`` role) and the columns the user explicitly chooses to show, nothing else. A
deny-list of roles and name words let an answer through under a name it did not know (a gold
column called ``human_verdict`` reached annotators on every row of the page's queue); an
allow-list cannot.

A column the user asks to show is refused (:class:`core.errors.DataError` naming it) when it is
mapped to a role that is not context (a label, a confidence, an effort: every role but the
dialogue id, the turn, the number of turns and the subgroups), when it is the round's selection
or its inclusion probabilities (an audit is only an unbiased check of the machine if annotators
cannot tell audit rows), or when its name says it holds an answer (:data:`ANSWER_WORDS`).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.data import EvalData, norm_name
from core.data.roles import ROLE_ALIASES
from core.errors import DataError
from core.evaluation.sampling.active import PROBABILITY_COLUMN

__all__ = ["ANSWER_ROLES", "ANSWER_WORDS", "CONTEXT_ROLES", "showable_columns", "shown_columns"]

#: Roles whose columns carry an answer (a human or machine label, or a confidence in one).
ANSWER_ROLES: tuple[str, ...] = ("human_label", "human_label_2", "human_confidence",
                                 "machine_label", "machine_confidence")
#: Words of a column name that mark an answer whatever its role (``final_predict``): such a
#: column is not shown even when asked for.
ANSWER_WORDS: tuple[str, ...] = ("label", "labels", "predict", "prediction", "pred", "target",
                                 "gold", "confidence", "conf")
#: Roles that place a sample (context), which the user may choose to show.
CONTEXT_ROLES: tuple[str, ...] = ("dialogue_id", "turn", "n_turns", "subgroups")


def _mapped_roles(data: EvalData, hidden: Iterable[str] = ()) -> dict[str, str]:
    """column -> the role it is mapped to, for every role but text and the context roles; the
    ``hidden`` columns as the human label's."""
    out: dict[str, str] = {c: "human_label" for c in hidden}
    for role, col in data.roles.items():
        if role in CONTEXT_ROLES or role in ("text", "sample_id") or col is None:
            continue
        for c in (col if isinstance(col, (list, tuple)) else [col]):
            out.setdefault(c, role)
    return out


def _answer_name(column) -> bool:
    name = norm_name(column)
    aliases = {a for r in ANSWER_ROLES for a in ROLE_ALIASES.get(r, ())}
    return name in aliases or bool(set(name.split("_")) & set(ANSWER_WORDS))


def shown_columns(data: EvalData, show: Iterable[str] | None = None, *,
                  selection_column: str = "selection", hidden: Iterable[str] = ()) -> list[str]:
    """The columns annotators see besides the sample id and the queue position.

    Parameters
    ----------
    data : EvalData
        The round's table and its roles.
    show : iterable of str, optional
        Columns the user chooses to show besides the text columns (a dialogue id, a topic...).
    selection_column : str
        The round's selection column (never shown).
    hidden : iterable of str
        Columns holding an answer that no role of ``data`` maps (a workspace round's gold
        column, :attr:`core.evaluation.sampling.design.Design.hidden`): refused as mapped ones.

    Returns
    -------
    list of str
        The text columns (role ``text``), then the chosen columns, each once, in that order.

    Raises
    ------
    DataError
        A chosen column that is not in the table, is mapped to a role other than the context
        roles, is the selection or the inclusion probabilities, or is named as an answer; the
        message names it and its role.
    """
    columns = list(data.raw.columns)
    sid = data.roles.get("sample_id")
    out = [c for c in data.text_columns if c in columns and c != sid]
    mapped = _mapped_roles(data, hidden)
    for c in show or []:
        if c not in columns:
            raise DataError(f"column {c!r} to show annotators is not in the table; its columns "
                            f"are {', '.join(map(repr, columns[:20]))}"
                            f"{' ...' if len(columns) > 20 else ''}")
        if c in mapped:
            raise DataError(f"column {c!r} is mapped to the role {mapped[c]}: annotators never "
                            "see a column mapped to a label, confidence or effort role; show "
                            "only text or context columns")
        if c == selection_column or norm_name(c) == PROBABILITY_COLUMN:
            raise DataError(f"column {c!r} tells audit rows apart: annotators never see it "
                            "(an audit is only unbiased if annotators label blind)")
        if _answer_name(c):
            raise DataError(f"column {c!r} is named as an answer (a label, a prediction, a "
                            "confidence, gold): annotators never see it; rename it if it is not")
        if c != sid and c not in out:
            out.append(c)
    return out


def showable_columns(data: EvalData, *, selection_column: str = "selection",
                     hidden: Iterable[str] = ()) -> list[str]:
    """The columns a user may choose to show annotators (what the Evaluate page offers): every
    column :func:`shown_columns` accepts that is not already shown (the text, the sample id)."""
    text = set(data.text_columns) | {data.roles.get("sample_id")}
    out = []
    for c in data.raw.columns:
        if c in text:
            continue
        try:
            shown_columns(data, [c], selection_column=selection_column, hidden=hidden)
        except DataError:
            continue
        out.append(c)
    return out
