"""Label Studio: the queue as a project's tasks, its export read back, the REST client.

Parts (import the names below from this package, not from its modules):

* :mod:`core.evaluation.labelstudio.project`: task JSON, labelling config, a round's project title.
* :mod:`core.evaluation.labelstudio.export`: reading a Label Studio JSON export.
* :mod:`core.evaluation.labelstudio.client`: the REST client: the only network access of the
  project.
"""

from core.evaluation.labelstudio.project import (labelling_config, NO_TEXT_COLUMN, project_title,
                                                 shown_fields, task_json, tasks, text_warning)
from core.evaluation.labelstudio.export import labels_from_labelstudio
from core.evaluation.labelstudio.client import LabelStudioClient

__all__ = [
    "LabelStudioClient", "NO_TEXT_COLUMN", "labelling_config", "labels_from_labelstudio",
    "project_title", "shown_fields", "task_json", "tasks", "text_warning"
]
