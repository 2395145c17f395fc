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


def judge_regime(name: str, m: int, rng, *, ties=((0.5, 0.7, 0.8, 0.9, 0.95),
                                                  (0.05, 0.15, 0.2, 0.45, 0.15)),
                 overconfidence: float = 0.0):
    """A synthetic judge with known truth for the estimators' coverage tests: ``(machine codes,
    gold codes, confidences, number of classes)`` for the regimes ``"calibrated"``, ``"rare
    class"`` (3 %), ``"ties"`` (confidences on the ``ties`` grid), ``"miscalibrated"`` (a trust
    score: ranks, not probabilities) and ``"three classes"`` (shares 0.6 / 0.3 / 0.1); the
    judge is right with its confidence less ``overconfidence``."""
    if name == "rare class":
        gold = (rng.random(m) < 0.03).astype(int)
        q = rng.beta(8, 1.2, m)
        mach = np.where(rng.random(m) < q, gold, 1 - gold)
        return mach, gold, q, 2
    if name == "ties":
        q = rng.choice(list(ties[0]), m, p=list(ties[1]))
    elif name == "miscalibrated":
        q = rng.uniform(0, 1, m)
        right = rng.random(m) < 0.7 + 0.28 * q
        gold = rng.integers(0, 2, m)
        return np.where(right, gold, 1 - gold), gold, q, 2
    else:
        q = rng.beta(5, 1.5, m)
    k = 3 if name == "three classes" else 2
    gold = rng.choice(k, m, p=[0.6, 0.3, 0.1] if k == 3 else None)
    wrong = (gold + rng.integers(1, k, m)) % k
    mach = np.where(rng.random(m) < np.maximum(q - overconfidence, 1 / k), gold, wrong)
    return mach, gold, q, k
