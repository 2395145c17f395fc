"""Former name of :mod:`core.clembench` (clembench's "privateshared" Scorekeeping game).

Kept so that ``import core.scorekeeping`` goes on working; new code imports
:mod:`core.clembench`.
"""

from core.clembench import *  # noqa: F401,F403
from core.clembench import __all__  # noqa: F401
