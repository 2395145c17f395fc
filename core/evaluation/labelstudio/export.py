"""Reading Label Studio's JSON export of a project into a :class:`LabelImport`.

The export (``Export > JSON``, or ``GET /api/projects/<id>/export?exportType=JSON``) is a list
of tasks, each with its ``data`` (holding the ``sample_id`` written by
:func:`core.evaluation.labelstudio.project.tasks`) and its ``annotations``; every annotation has a
``result`` list (the choice is the item with ``"type": "choices"`` and ``"from_name": "label"``,
its ``value.choices`` list), ``was_cancelled`` (true when the annotator skipped the task) and
``completed_by`` (the annotator's user id). :func:`core.evaluation.labels.imports.join_labels` joins
the result to a dataset.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.errors import DataError
from core.evaluation.labels.form import LabelImport
from core.data.keys import is_missing, label_key, some_values
from core.userfile import parse_json
from core.evaluation.labelstudio.project import CHOICES_NAME
from core.evaluation.labels.votes import check_seconds

__all__ = ["labels_from_labelstudio"]


def _annotator(completed_by: Any, users: dict[str, str]) -> str:
    """The annotator of one annotation as text: the e-mail of ``completed_by`` (a user id, or a
    user object's id, looked up in ``users``; else the object's own ``email``), else its id or
    user name; ``""`` when unknown."""
    if isinstance(completed_by, dict):
        if completed_by.get("id") not in (None, ""):
            who = label_key(completed_by["id"])
            return users.get(who, who)
        for key in ("email", "username"):
            if completed_by.get(key) not in (None, ""):
                return label_key(completed_by[key])
        return ""
    if completed_by is None:
        return ""
    who = label_key(completed_by)
    return users.get(who, who)


def _export_emails(export: list) -> dict[str, str]:
    """User id -> e-mail of the user objects an export's ``completed_by`` holds (so that the
    same user's bare ids elsewhere in it read as the same e-mail)."""
    out: dict[str, str] = {}
    for task in export:
        for a in (task.get("annotations") if isinstance(task, dict) else None) or []:
            who = a.get("completed_by") if isinstance(a, dict) else None
            if (isinstance(who, dict) and who.get("id") not in (None, "")
                    and isinstance(who.get("email"), str) and who["email"].strip()):
                out[label_key(who["id"])] = who["email"]
    return out


def _lead_time(value: Any, where: str, who: str) -> float:
    """An annotation's ``lead_time`` (seconds spent on it) as a float; NaN when absent."""
    if value is None or isinstance(value, bool):
        return float("nan")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DataError(f"{where}: annotator {who or '?'}'s lead_time {value!r} is not a "
                        "number of seconds") from None


def _choices(result: Any, where: str) -> list[Any]:
    """The choice values of one annotation's result (the ``label`` control)."""
    if not isinstance(result, list):
        raise DataError(f"{where}: the annotation's 'result' is not a list; not a Label Studio "
                        "JSON export")
    items = [r for r in result if isinstance(r, dict) and r.get("type") == "choices"]
    named = [r for r in items if r.get("from_name") == CHOICES_NAME]
    # the control's name as text: an export is untrusted JSON (a list here was unhashable)
    if not named and len({label_key(r.get("from_name")) for r in items}) == 1:
        named = items  # one choices control under another name
    values: list[Any] = []
    for r in named:
        v = r.get("value")
        if not isinstance(v, dict) or not isinstance(v.get("choices"), list):
            raise DataError(f"{where}: a choices result without 'value.choices'; not a Label "
                            "Studio JSON export")
        values.extend(v["choices"])
    return values


def labels_from_labelstudio(export: Any, *, users: dict[str, str] | None = None) -> LabelImport:
    """Labels from Label Studio's JSON export of a project.

    Parameters
    ----------
    export : list of dict, or str / bytes
        The export (``exportType=JSON``) as parsed JSON, or its text. A list of tasks, each
        ``{"id": ..., "data": {"sample_id": ..., ...}, "annotations": [{"result": [{"from_name":
        "label", "type": "choices", "value": {"choices": ["..."]}}], "was_cancelled": bool,
        "completed_by": <user id>, ...}], ...}``.
    users : dict, optional
        User id (as text) -> e-mail (:meth:`core.evaluation.labelstudio.client.LabelStudioClient.user_emails`):
        annotators are named by their e-mail, not the bare id the export gives (as are the
        ids of user objects with an ``email`` in the export, wherever they appear); an id
        without an e-mail stays the id.

    Returns
    -------
    LabelImport
        One label per task and annotator, with its ``lead_time`` as ``seconds`` (NaN when the
        export has none). Skipped tasks (``was_cancelled``) are listed in
        ``skipped``; tasks without annotations in ``unannotated``. An annotation with an empty
        result (submitted without a choice) is left out and reported; when one annotator
        annotated a task twice, their last annotation (highest id) is kept and reported.

    Raises
    ------
    DataError
        Not a list of tasks, a task without ``data.sample_id`` or ``annotations`` (naming the
        task), an annotation with several choices, a lead time that is not a number or is
        negative or absurd (:func:`core.evaluation.labels.votes.check_seconds`).
    """
    if isinstance(export, (str, bytes, bytearray)):
        # nesting and key limits (core.userfile): a deeply nested file raised RecursionError
        export = parse_json(export, label="the Label Studio export (Export > JSON)")
    if not isinstance(export, list):
        hint = ""
        if isinstance(export, dict):
            hint = (f" (it is an object with keys {some_values(sorted(map(str, export)))})")
        raise DataError("not a Label Studio JSON export: expected a list of tasks, each with "
                        f"'data' and 'annotations'{hint}")
    users = {**_export_emails(export), **(users or {})}
    sid: list[str] = []
    ann: list[str] = []
    lab: list[str] = []
    where: list[str] = []
    ann_id: list[Any] = []
    secs: list[float] = []
    skipped: list[tuple[str, str, str]] = []
    unannotated: list[str] = []
    empty: list[str] = []
    for n, task in enumerate(export):
        if not isinstance(task, dict):
            raise DataError(f"not a Label Studio JSON export: item {n + 1} of the list is not a "
                            "task object")
        name = f"task {task['id']}" if "id" in task else f"task {n + 1} of the file"
        missing = [k for k in ("data", "annotations") if k not in task]
        if missing:
            raise DataError(f"not a Label Studio JSON export: {name} lacks "
                            f"{' and '.join(repr(k) for k in missing)} (use the JSON export, "
                            "not JSON-MIN or CSV)")
        data = task["data"]
        if not isinstance(data, dict) or is_missing(data.get("sample_id")):
            raise DataError(f"{name} has no data field 'sample_id': the project's tasks were not "
                            "imported from an HMCEval queue (each task's data needs the "
                            "sample_id that joins its label back)")
        s = label_key(data["sample_id"])
        annotations = task["annotations"]
        if not isinstance(annotations, list):
            raise DataError(f"not a Label Studio JSON export: {name}'s 'annotations' is not a "
                            "list")
        if not annotations:
            unannotated.append(s)
        for a in annotations:
            if not isinstance(a, dict) or "result" not in a:
                raise DataError(f"not a Label Studio JSON export: an annotation of {name} has no "
                                "'result'")
            who = _annotator(a.get("completed_by"), users)
            if a.get("was_cancelled"):
                skipped.append((s, who, name))
                continue
            values = _choices(a.get("result"), name)
            if not values:
                empty.append(s)
                continue
            if len(values) > 1:
                raise DataError(f"{name} (sample_id '{s}'): annotator {who or '?'} chose "
                                f"{len(values)} labels {some_values([str(v) for v in values])}; "
                                "each sample needs one label (single choice)")
            sid.append(s)
            ann.append(who)
            lab.append(label_key(values[0]))
            where.append(name)
            ann_id.append(a.get("id"))
            secs.append(_lead_time(a.get("lead_time"), name, who))
    notices: list[str] = []
    # one label per sample and annotator: keep the last annotation (highest id, else last read)
    last: dict[tuple[str, str], int] = {}
    for i, key in enumerate(zip(sid, ann)):
        j = last.get(key)
        if j is None:
            last[key] = i
        else:
            newer = i
            ints = (int, np.integer)
            if isinstance(ann_id[i], ints) and isinstance(ann_id[j], ints):
                newer = i if ann_id[i] >= ann_id[j] else j
            last[key] = newer
    if len(last) < len(sid):
        twice = sorted({sid[i] for i in range(len(sid)) if last[(sid[i], ann[i])] != i})
        notices.append(f"{len(sid) - len(last)} annotations repeat an annotator's label of the "
                       f"same sample (sample ids {some_values(twice)}); the latest one of each "
                       "is kept")
        keep = sorted(last.values())
        sid, ann, lab, where, secs = ([x[i] for i in keep]
                                      for x in (sid, ann, lab, where, secs))
    if empty:
        notices.append(f"{len(empty)} annotations were submitted without a choice and are left "
                       f"out (sample ids {some_values(sorted(set(empty)))})")
    check_seconds(secs, [f"{w} (lead_time)" for w in where])
    return LabelImport(source="labelstudio", sample_id=tuple(sid), annotator=tuple(ann),
                       label=tuple(lab), where=tuple(where), skipped=tuple(skipped),
                       unannotated=tuple(unannotated), n_tasks=len(export),
                       notices=tuple(notices), seconds=tuple(secs))
