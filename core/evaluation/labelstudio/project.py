"""The annotation queue as Label Studio files: task import JSON and a labelling config.

A task carries what an annotator needs and nothing that would sway them: the ``sample_id``
that joins the label back (the mapped sample id, else the 1-based row number of the table),
``queue_rank``, the free-text columns and the columns the user chooses to show (the allow-list
of :mod:`core.evaluation.sampling.blind`). Labels, confidences, efforts and the row's selection never
reach a task, whatever their names: an audit is only an unbiased check of the machine if the
humans label blind.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

import numpy as np

from core.evaluation.sampling.blind import shown_columns
from core.evaluation.sampling.design import Design, queue_order

__all__ = ["tasks", "labelling_config", "project_title", "shown_fields", "task_json",
           "text_warning"]

#: Name of the choices control in :func:`labelling_config` (what annotations are read from).
CHOICES_NAME = "label"


def _plain(v: Any) -> Any:
    if v is None:
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return None if math.isnan(v) else float(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    try:
        import pandas as pd

        if v is pd.NA:
            return None
    except ImportError:  # pragma: no cover
        pass
    return v if isinstance(v, (int, str, bool)) else str(v)


def _field(name: str) -> str:
    """A Label Studio data key / tag name: letters, digits and underscores."""
    key = re.sub(r"\W", "_", str(name)).strip("_") or "text"
    return key if not key[0].isdigit() else f"c_{key}"


def shown_fields(design: Design, show: list[str] | None = None) -> list[str]:
    """The columns a task shows besides the sample id and the queue position: the text
    columns, then the chosen ones (:func:`core.evaluation.sampling.blind.shown_columns`); what
    :func:`labelling_config` displays."""
    return shown_columns(design.data, show, selection_column=design.selection_column,
                         hidden=design.hidden)


def tasks(design: Design, queue_rank: np.ndarray, *, done: np.ndarray | None = None,
          show: list[str] | None = None) -> list[dict[str, Any]]:
    """Label Studio tasks for the rows to label, in queue order, blind.

    Parameters
    ----------
    design : Design
    queue_rank : array of shape (M,)
        1..n on the rows to label, NaN elsewhere.
    done : bool array of shape (M,), optional
        Rows already labelled: no task (as :func:`~core.evaluation.sampling.design.annotator_table`).
    show : list of str, optional
        Columns the user chooses to show besides the text (checked by
        :func:`core.evaluation.sampling.blind.shown_columns`).

    Returns
    -------
    list of dict
        ``{"data": {"sample_id": ..., "queue_rank": ..., <text columns>..., <shown columns>...}}``
        per row to label: the allow-list of :mod:`core.evaluation.sampling.blind`, nothing else.
    """
    shown = shown_fields(design, show)
    rank = np.asarray(queue_rank, dtype=float)
    rows = queue_order(rank, done)
    ids = design.sample_ids()
    raw = design.data.raw
    fields: list[tuple[str, list]] = [
        ("sample_id", [_plain(v) for v in ids[rows]]),
        ("queue_rank", [int(r) for r in rank[rows]])]
    for col in shown:
        fields.append((_field(col), [_plain(v) for v in raw[col].to_numpy(dtype=object)[rows]]))
    names = [name for name, _ in fields]
    return [{"data": dict(zip(names, values))} for values in zip(*(v for _, v in fields))]


def project_title(workspace: str | os.PathLike, round_id: int) -> str:
    """The default title of a round's Label Studio project, the same from the Evaluate page and
    the command line (they gave different titles, so neither pulled what the other pushed).

    Parameters
    ----------
    workspace : path
        The round's workspace folder (resolved: the same folder gives the same title whatever
        way it is written).
    round_id : int

    Returns
    -------
    str
        ``"HMCEval · round <id> · <digest>"``, the digest the first 8 hex digits of the SHA-256 of
        the resolved folder, a unit separator and the round id (two workspaces' round 1 pushed
        to one server stay two projects).
    """
    root = str(Path(workspace).expanduser().resolve())
    digest = hashlib.sha256(f"{root}\x1f{int(round_id)}".encode("utf-8")).hexdigest()[:8]
    return f"HMCEval · round {int(round_id)} · {digest}"


def labelling_config(labels: list | tuple, text_columns: list[str] | None = None, *,
                     names: dict | None = None, instruction: str | None = None) -> str:
    """A Label Studio labelling config: the text fields and one single-choice control.

    Parameters
    ----------
    labels : sequence
        The dataset's classes; each becomes a ``<Choice>`` whose value is the label as text.
    text_columns : list of str, optional
        Columns shown to the annotator; without any, the sample id is shown.
    names : dict, optional
        class -> the name annotators see (``{0: "safe", 1: "unsafe"}``): the choice shows the
        name and stores the class as its ``alias`` (what the export holds, so labels join back
        unchanged). Classes without a name show as they are.
    instruction : str, optional
        A short instruction shown above the choices (the user can edit it in Label Studio).

    Returns
    -------
    str
        XML for the project's ``label_config``.
    """
    fields = [_field(c) for c in (text_columns or [])] or ["sample_id"]
    lines = ["<View>"]
    for name in fields:
        lines.append(f'  <Header value={quoteattr(name)}/>')
        lines.append(f'  <Text name={quoteattr("show_" + name)} value={quoteattr("$" + name)}/>')
    if instruction:
        lines.append(f"  <Header value={quoteattr(str(instruction))} size=\"5\"/>")
    lines.append(f'  <Choices name="{CHOICES_NAME}" toName={quoteattr("show_" + fields[-1])} '
                 'choice="single" showInline="true" required="true">')
    shown = {str(k): str(v) for k, v in (names or {}).items()}
    for v in labels:
        name = shown.get(str(v))
        if name is not None and name != str(v):
            lines.append(f"    <Choice value={quoteattr(name)} alias={quoteattr(str(v))}/>")
        else:
            lines.append(f"    <Choice value={quoteattr(str(v))}/>")
    lines.append("  </Choices>")
    lines.append("</View>")
    return "\n".join(lines) + "\n"


def task_json(task_list: list[dict[str, Any]]) -> str:
    """Serialise tasks as Label Studio's import JSON (a list)."""
    return json.dumps(task_list, ensure_ascii=False, indent=1)


#: What :func:`text_warning` says when no column is mapped as free text.
NO_TEXT_COLUMN = ("Label Studio tasks carry no text: no column is mapped as free text, so "
                  "annotators see only the sample id (map the text column on the Data page, or "
                  "pass --col text=COLUMN).")


def text_warning(task_list: list[dict[str, Any]], text_columns: list[str] | None) -> str | None:
    """One line saying when tasks would carry no text for the annotator to read, else ``None``.

    Parameters
    ----------
    task_list : list of dict
        From :func:`tasks`.
    text_columns : list of str or None
        The table's free-text columns (``EvalData.text_columns``).

    Returns
    -------
    str or None
        Without free-text columns: the tasks show only the sample id. With them: how many tasks
        have every text field empty (missing or blank), naming the columns. ``None`` when every
        task carries some text (or there is no task).
    """
    if not task_list:
        return None
    cols = list(text_columns or [])
    if not cols:
        return NO_TEXT_COLUMN
    keys = [_field(c) for c in cols]
    empty = sum(1 for t in task_list
                if all(t["data"].get(k) is None or not str(t["data"][k]).strip() for k in keys))
    if not empty:
        return None
    named = ", ".join(f"'{c}'" for c in cols)
    return (f"{empty:,} of {len(task_list):,} Label Studio tasks carry no text: their "
            f"{named} {'is' if len(cols) == 1 else 'are'} empty.")
