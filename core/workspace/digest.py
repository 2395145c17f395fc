"""The one-screen summary of an evaluation round (issue 25): what a manager reads first.

:func:`round_digest` turns a round's :func:`core.workspace.rounds.round_summary` into the
question, the answer with its interval, the hours spent and saved, the accuracy of each group
with the worse ones flagged, the guarantee in one sentence and the caveats: numbers and lines
of text, computed once. The report's summary box (:func:`core.workspace.report.summary_box`)
and the Home page render the same digest, one as HTML, the other as Streamlit elements.

Each line is a sequence of ``(text, bold)`` parts so that a renderer escapes the data (class
and group names) its own way and never parses markup out of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.format import format_effort, hours_per_unit, pct
from core.summary import effort_unit
from core.workspace.active_rounds import group_table

__all__ = ["QUESTION", "Line", "round_digest"]

#: the question every round answers, in a manager's words
QUESTION = ("how accurate are the final labels (humans where they labelled, the machine "
            "elsewhere), and what share of the responses falls in each class?")


@dataclass(frozen=True)
class Line:
    """One line of the summary: ``key`` (question, answer, effort, groups, guarantee,
    caveats), ``label`` (its heading in words, may be empty) and ``parts``, ``(text, bold)``."""

    key: str
    label: str
    parts: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        """The line as plain text (no emphasis)."""
        return "".join(p for p, _ in self.parts)


def _answer(est: dict[str, Any] | None, error: str | None) -> tuple[dict[str, Any] | None,
                                                                   tuple[tuple[str, bool], ...]]:
    if est is None:
        return None, ((f"not yet: {error or 'no result'}.", False),)
    acc, level = est["accuracy"], f"{est['confidence']:.0%}"
    one_sided = acc.get("ci_high") is None or est.get("design", "routing") == "routing"
    answer = {"accuracy": acc["estimate"], "ci_low": acc.get("ci_low"),
              "ci_high": None if one_sided else acc.get("ci_high"), "level": level,
              "one_sided": one_sided,
              "interval": ("" if acc["estimate"] is None else
                           f"at least {pct(acc['ci_low'])}" if one_sided else
                           f"{pct(acc['ci_low'])} – {pct(acc['ci_high'])}")}
    if acc["estimate"] is None:
        parts: list[tuple[str, bool]] = [("accuracy unknown (an audit of the machine's labels "
                                          "is needed)", False)]
    elif one_sided:
        parts = [("the final labels are ", False), (pct(acc["estimate"]), True),
                 (f" accurate, at least {pct(acc['ci_low'])} with {level} confidence", False)]
    else:
        parts = [("the final labels are ", False), (pct(acc["estimate"]), True),
                 (f" accurate ({level} interval {pct(acc['ci_low'])} – {pct(acc['ci_high'])})",
                  False)]
    shares = "; ".join(f"{c} {pct(v['estimate'])} ({pct(v['ci_low'])} – {pct(v['ci_high'])})"
                       for c, v in est["class_shares"].items())
    parts.append((f". Class shares: {shares}.", False))
    return answer, tuple(parts)


def _effort(effort: dict[str, Any], roles: dict[str, Any]) -> tuple[dict[str, Any],
                                                                    tuple[tuple[str, bool], ...]]:
    column = roles.get(effort["effort_unit"]) if effort.get("effort_unit") else None
    unit = effort_unit(column)
    out: dict[str, Any] = {"labelled": int(effort["rows_labelled"]),
                           "total": int(effort["rows_total"]), "unit": unit,
                           "share": effort.get("effort_share"), "spent": None, "saved": None,
                           "all": None}
    parts: list[tuple[str, bool]] = [
        ("Humans labelled ", False),
        (f"{out['labelled']:,} of {out['total']:,}", True), (" responses", False)]
    if effort.get("effort_share") is not None:
        spent, total = float(effort["effort_spent"]), float(effort["effort_all"])
        if hours_per_unit(unit) is not None:
            out.update(spent=format_effort(spent, unit), all=format_effort(total, unit),
                       saved=format_effort(total - spent, unit))
            parts += [(", ", False), (out["spent"], True),
                      (f" of work; labelling everything would take {out['all']}, so ", False),
                      (out["saved"], True), (" were saved", False)]
        else:
            share = float(effort["effort_share"])
            out.update(spent=f"{pct(share, 0)} of the effort", saved=f"{pct(1 - share, 0)}")
            parts.append((f", {pct(share, 0)} of the effort of labelling everything "
                          f"({pct(1 - share, 0)} saved)", False))
    parts.append((".", False))
    return out, tuple(parts)


def round_digest(s: dict[str, Any], roles: dict[str, Any]) -> dict[str, Any]:
    """The one-screen summary of a round.

    Parameters
    ----------
    s : dict
        :func:`core.workspace.rounds.round_summary` of the round.
    roles : dict
        The dataset's column mapping (role -> column); the effort column's name gives its
        unit, so that effort reads in hours when it is a time.

    Returns
    -------
    dict
        ``question`` (str); ``answer`` (None without a result, else ``accuracy`` (None without
        an audit), ``ci_low``, ``ci_high`` (None for a one-sided bound), ``level`` ("95%"),
        ``one_sided``, ``interval`` (words)); ``effort`` (``labelled``, ``total``, ``unit``,
        ``share``, and ``spent``, ``all``, ``saved`` as text: hours or minutes when the effort
        is a time, else shares); ``groups`` (None without a per-group result, else the table
        of :func:`core.workspace.active_rounds.group_table`); ``worse`` (the worse groups'
        sentences); ``guarantee`` (str or None); ``caveats`` (list of str); ``lines`` (the
        summary as :class:`Line`, in reading order).
    """
    est = s.get("estimate")
    answer, answer_parts = _answer(est, s.get("estimate_error"))
    if s.get("stream_sentence"):  # a labelling stream's answer: its stop sentence
        answer_parts = ((s["stream_sentence"], False),)
    effort, effort_parts = _effort(s["effort"], roles)
    worse = list(s.get("group_notes") or [])
    groups = None
    lines = [Line("question", "Question", ((QUESTION, False),)),
             Line("answer", "Answer", answer_parts), Line("effort", "", effort_parts)]
    if est is not None and s.get("group_accuracy"):
        groups = group_table(s["group_accuracy"], s.get("worse_groups") or [],
                             confidence=est["confidence"])
        parts: list[tuple[str, bool]] = []
        for column, table in groups.groupby("column", sort=False):
            if parts:
                parts.append(("; ", False))
            parts.append((f"{column}: ", False))
            for i, r in enumerate(table.itertuples()):
                parts.append((", " if i else "", False))
                parts.append((f"{r.group} {pct(r.accuracy)}" + (" (worse)" if r.worse else ""),
                              bool(r.worse)))
        parts.append((". " + (" ".join(worse) if worse else "No group's final labels are "
                              "significantly worse than the rest's."), False))
        lines.append(Line("groups", "Groups", tuple(parts)))
    cert = s.get("certificate")
    guarantee = cert["guarantee"] if cert else None
    if guarantee:
        lines.append(Line("guarantee", "Guarantee", ((guarantee, False),)))
    caveats = [n for n in ((est or {}).get("notes") or []) if n not in worse]
    if caveats:
        lines.append(Line("caveats", "Caveats", ((" ".join(caveats), False),)))
    return {"question": QUESTION, "answer": answer, "effort": effort, "groups": groups,
            "worse": worse, "guarantee": guarantee, "caveats": caveats, "lines": lines}
