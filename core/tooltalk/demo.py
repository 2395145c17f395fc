"""Former home of ToolTalk's demo, now :mod:`core.demo.tooltalk` (thin alias).

Kept so that ``from core.tooltalk.demo import ...`` goes on working; new code imports
:mod:`core.demo.tooltalk` (or the names from :mod:`core.tooltalk`).
"""

from core.demo.tooltalk import (  # noqa: F401
    DEMO_PERTURBATIONS, demo_conversations, ground_truth_as_predictions,
    with_ground_truth_predictions,
)
from core.demo.tooltalk import __all__  # noqa: F401
