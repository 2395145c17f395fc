"""Former home of clembench's demo, now :mod:`core.demo.clembench` (thin alias).

Kept so that ``from core.clembench.demo import ...`` goes on working; new code imports
:mod:`core.demo.clembench` (or the names from :mod:`core.clembench`).
"""

from core.demo.clembench import DEMO_PROFILES, demo_episodes, simulate_episode  # noqa: F401
from core.demo.clembench import __all__  # noqa: F401
