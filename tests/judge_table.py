"""A demo-like judge table with one bad group, shared by the core and page tests.

Built like issue 20's 4-language example: the judge is as confident on ``ja`` as elsewhere but
right far less often there (50 % against its calibrated confidence elsewhere, about 90 %), and
its rows take twice the effort. Every row carries a gold label, so the annotators can be
simulated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

LANGUAGES = ("de", "en", "fr", "ja")
BAD = "ja"


def judge_table(per_group: int = 500, *, seed: int = 0, bad_accuracy: float = 0.5
                ) -> pd.DataFrame:
    """``sample_id``, ``response``, ``language``, ``machine_label``, ``confidence``,
    ``human_label`` (gold), ``predicted_effort`` (seconds), ``per_group`` rows per language."""
    rng = np.random.default_rng([20, seed])  # not the stream of a design seed
    lang = np.repeat(LANGUAGES, per_group)
    m = len(lang)
    conf = rng.uniform(0.8, 0.995, m)
    right_p = np.where(lang == BAD, bad_accuracy, conf)
    right = rng.random(m) < right_p
    machine = rng.choice(["no", "yes"], size=m)
    gold = np.where(right, machine, np.where(machine == "yes", "no", "yes"))
    effort = rng.uniform(20, 40, m) * np.where(lang == BAD, 2.0, 1.0)
    return pd.DataFrame({"sample_id": np.arange(1, m + 1), "response": [f"answer {i}" for i in
                                                                         range(m)],
                         "language": lang, "machine_label": machine, "confidence": conf,
                         "human_label": gold, "predicted_effort_seconds": effort})
