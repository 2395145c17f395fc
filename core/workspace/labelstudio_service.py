"""Label Studio push and pull, one service for both front ends.

The Evaluate page (``pages/_evaluate_labels.py``) and ``hmceval labelstudio push|pull``
(:mod:`core.cli.cmd_labelstudio`) call these functions; they were written twice before (with
different default titles, so neither pulled what the other pushed). :func:`push_queue` sends
the rows still to label of a round's design, blind (:func:`core.evaluation.labelstudio.tasks`:
the sample id, the queue position, the text columns and the columns chosen to show), with the
labelling config; :func:`pull_labels` finds the project (by its title, else by the older
default titles a front end gave) and reads its export as a
:class:`core.evaluation.labels.LabelImport`, which both front ends import into the round through
:func:`core.workspace.rounds.import_joined` (the command line inside its all-or-nothing step,
:func:`core.cli.step.one_step`). The only network access is the client's
(:mod:`core.evaluation.labelstudio.client`), to the URL given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.errors import DataError

__all__ = ["Pushed", "connect", "round_title", "older_titles", "push_queue", "push_round",
           "find_project", "pull_labels"]


@dataclass(frozen=True)
class Pushed:
    """What a push did: the client's result (project, tasks sent, tasks already there), the
    project's title and a warning about the tasks' text (None when there is none)."""

    result: Any
    title: str
    warning: str | None

    @property
    def sentence(self) -> str:
        """``N tasks sent to project #ID 'TITLE' (K were there already)``."""
        r = self.result
        return (f"{r.n_sent:,} tasks sent to project #{r.project.id} '{self.title}' "
                f"({r.n_existing:,} were there already)")


def connect(url: str, token: str):
    """A Label Studio client of ``url`` with ``token`` (a personal access token or a legacy
    token; a DataError names what is wrong with either)."""
    from core.evaluation.labelstudio import LabelStudioClient

    return LabelStudioClient(url, token)


def round_title(ws, round_id: int) -> str:
    """The default title of a workspace round's project, the same for both front ends."""
    from core.evaluation.labelstudio import project_title

    return project_title(ws.root, round_id)


def older_titles(round_id: int | None = None, *, data_name: str | None = None,
                 file_name: str | None = None, round_key: str | None = None) -> list[str]:
    """The default titles earlier versions gave a round's project, which a pull also looks
    for: the page's ``HMCEval · <dataset> · round <id>``, the command line's
    ``HMCEval · round <key>`` and ``HMCEval · <file name>``."""
    out = []
    if data_name is not None and round_id is not None:
        out.append(f"HMCEval · {data_name} · round {int(round_id)}")
    if round_key:
        out.append(f"HMCEval · round {round_key}")
    if file_name:
        out.append(f"HMCEval · {file_name}")
    return out


def push_queue(client, design, queue_rank: np.ndarray, *, title: str,
               show: list[str] | None = None, names: dict[str, str] | None = None,
               instruction: str | None = None) -> Pushed:
    """Create or reuse the project ``title`` and send it the rows of ``design`` still to label
    (queued, without a label yet), blind, in queue order, with the labelling config (the
    classes, ``names`` shown for them, an ``instruction``)."""
    from core.evaluation import labelstudio

    task_list = labelstudio.tasks(design, queue_rank, done=design.has_label, show=show)
    warning = labelstudio.text_warning(task_list, design.data.text_columns)
    config = labelstudio.labelling_config(design.data.labels,
                                          labelstudio.shown_fields(design, show),
                                          names=names or None, instruction=instruction)
    return Pushed(client.push_queue(title, config, task_list), title, warning)


def push_round(ws, round_id: int, client, *, title: str | None = None,
               show: list[str] | None = None, names: dict[str, str] | None = None,
               instruction: str | None = None, url: str | None = None) -> Pushed:
    """:func:`push_queue` for the workspace round ``round_id`` (its design and queue), the push
    recorded as the round's ``pushed`` event."""
    from core.workspace.rounds import round_design

    rnd, design = round_design(ws, round_id)
    pushed = push_queue(client, design, rnd["queue_rank"], show=show, names=names,
                        instruction=instruction,
                        title=title or round_title(ws, round_id))
    ws.record_event(round_id, "pushed", {"url": url, "project": pushed.result.project.id,
                                         "tasks": pushed.result.n_sent})
    return pushed


def find_project(client, title: str, older: list[str] | tuple = ()) -> dict[str, Any]:
    """The project titled ``title``, else the first of ``older`` there is; a DataError naming
    the title when there is none."""
    for name in [title, *older]:
        project = client.find_project(name)
        if project is not None:
            return project
    raise DataError(f"no project titled '{title}' on {client.url}; push the queue first")


def pull_labels(client, title: str, older: list[str] | tuple = ()):
    """The labels of the project ``title`` (:func:`find_project`): its export read as a
    :class:`core.evaluation.labels.LabelImport` (skips, ties and annotators kept), annotators
    named by their e-mail where the server lists its users (issue 33)."""
    from core.evaluation.labelstudio import labels_from_labelstudio

    project = find_project(client, title, older)
    return labels_from_labelstudio(client.export(int(project["id"])), users=client.user_emails())
