"""Deterministic demo data, one generator per area; every output is a pure function of a seed.

Parts:

* :mod:`core.demo.evaluation`: the collaborative-evaluation table (:func:`make_demo`), the app's
  default dataset;
* :mod:`core.demo.tooltalk`: ToolTalk conversations with perturbed predictions
  (``demo_conversations``) and ground truth as predictions;
* :mod:`core.demo.clembench`: simulated Scorekeeping (privateshared) episodes
  (``demo_episodes``, ``simulate_episode``).

Only :mod:`core.demo.evaluation` is imported with the package (``from core.demo import
make_demo``); the area generators import their area's parts (``core.tooltalk.model``,
``core.clembench.io``...) and are imported as modules (``from core.demo import tooltalk``). The
areas re-export their demo names lazily, so that importing ``core.tooltalk`` or
``core.clembench`` never imports this package.
"""

from core.demo.evaluation import SYSTEMS, TOPICS, make_demo

__all__ = ["make_demo", "SYSTEMS", "TOPICS"]
