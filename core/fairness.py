"""Former name of a part of :mod:`core.rsm` (RSMTool's statistics).

Kept so that ``import core.fairness`` goes on working; new code imports :mod:`core.rsm`.
"""

from core.rsm import *  # noqa: F401,F403
from core.rsm import __all__  # noqa: F401
