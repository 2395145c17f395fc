"""Deterministic demo data: a realistic collaborative-evaluation set generated from a seed.

The generator simulates a malevolence-evaluation campaign:

* ``n_dialogues`` dialogues from four chatbot systems on five topics, 2-8 turns each; every
  response turn is one sample;
* a gold label (1 malevolent, 0 not) whose base rate depends on the system, the topic and a
  per-dialogue "heat" (malevolence clusters in dialogues, as in MDRDC);
* a machine label from a simulated classifier of about 85-88% accuracy with three confidence
  columns of different quality: ``confidence_ts`` (trust-score-like, the most informative at the
  top), ``confidence_mcp`` (softmax-like, over-confident) and ``confidence_tcp`` (in between);
* a ground-truth annotation time per dialogue that grows with turns, length and malevolent turns,
  plus a worker effect, normalised to [0, 1] and spread over the turns as in the paper
  (``human_effort``), and an HEE-like noisy prediction of it (``predicted_effort``); the
  worker's test score and approval-rate ranking (HEE's worker features W);
* a second human rater on 30% of the samples who agrees with the gold label about 92% of the
  time (``human_label_2``, empty elsewhere: "not double-scored").

Everything is a pure function of the seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["make_demo", "SYSTEMS", "TOPICS"]

SYSTEMS = ("seq2seq", "retrieval", "gpt2-ft", "blender")
TOPICS = ("travel", "politics", "health", "sports", "relationships")
_RATE = {"seq2seq": 0.30, "retrieval": 0.18, "gpt2-ft": 0.26, "blender": 0.14}
_TOPIC = {"travel": -0.8, "politics": 0.7, "health": 0.1, "sports": -0.4, "relationships": 0.4}
_WORDS_OK = ("sure", "that sounds great", "I love hiking", "maybe next week", "thanks a lot",
             "what do you think", "let's talk about it", "I agree with you", "interesting idea",
             "have a nice day")
_WORDS_BAD = ("you are stupid", "nobody cares about you", "shut up", "go away loser",
              "that is a dumb question", "people like you are the problem")


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def make_demo(n_dialogues: int = 700, *, seed: int = 7) -> pd.DataFrame:
    """Generate the demo evaluation table.

    Parameters
    ----------
    n_dialogues : int, default=700
        Number of dialogues (about 3,500 samples at the default).
    seed : int, default=7

    Returns
    -------
    pandas.DataFrame
        Columns ``sample_id``, ``dialogue_id``, ``turn``, ``turns``, ``system``, ``topic``,
        ``response``, ``human_label``, ``human_label_2``, ``machine_label``,
        ``confidence_ts``, ``confidence_mcp``, ``confidence_tcp``, ``human_effort``,
        ``predicted_effort``, ``worker_id``, ``worker_score``, ``approval_ranking``.
    """
    rng = np.random.default_rng(seed)
    sys_idx = rng.integers(0, len(SYSTEMS), n_dialogues)
    top_idx = rng.integers(0, len(TOPICS), n_dialogues)
    n_turns = rng.integers(2, 9, n_dialogues)
    heat = rng.normal(0.0, 1.0, n_dialogues)
    worker = rng.integers(0, 25, n_dialogues)
    worker_speed = rng.lognormal(0.0, 0.35, 25)
    # worker features (HEE's W): a qualification test score and the rank of the lifetime
    # approval rate (1 = lowest); careful, slower workers score higher and are approved more
    worker_test = np.clip(70 + 25 * (worker_speed - 1) + rng.normal(0, 6, 25), 0, 100).round(1)
    worker_rank = np.argsort(np.argsort(worker_speed + rng.normal(0, 0.15, 25))) + 1

    d_of = np.repeat(np.arange(n_dialogues), n_turns)
    turn = np.concatenate([np.arange(1, t + 1) for t in n_turns])
    m = len(d_of)
    system = np.array(SYSTEMS)[sys_idx][d_of]
    topic = np.array(TOPICS)[top_idx][d_of]
    base = np.array([_RATE[s] for s in system])
    logit = np.log(base / (1 - base)) + np.array([_TOPIC[t] for t in topic]) + 1.1 * heat[d_of] \
        + 0.08 * (turn - 1)
    gold = (rng.random(m) < _sigmoid(logit)).astype(int)

    # the classifier: a latent margin, harder on later turns and on some topics
    difficulty = rng.normal(0, 1, m) + 0.15 * (turn - 1) + 0.3 * (topic == "politics")
    margin = rng.normal(2.2, 1.0, m) - 0.9 * difficulty
    correct = margin > 0
    # a few confidently wrong samples keep the confidence imperfect
    flip = rng.random(m) < 0.03
    correct = np.where(flip, ~correct, correct)
    machine = np.where(correct, gold, 1 - gold)
    strength = np.abs(margin)
    # what the estimators "see": the signed margin, except that flipped samples look confident
    seen = np.where(flip, strength, margin)
    conf_mcp = np.clip(0.5 + 0.5 * np.tanh(0.5 * strength + 0.5 + rng.normal(0, 0.6, m)), 0.5, 1)
    conf_ts = _sigmoid(1.0 * seen + rng.normal(0, 1.1, m))
    conf_ts = (conf_ts - conf_ts.min()) / (conf_ts.max() - conf_ts.min())
    conf_tcp = np.clip(_sigmoid(0.7 * seen + 0.4 + rng.normal(0, 1.3, m)), 0, 1)

    words = rng.integers(4, 28, m)
    responses = np.where(gold == 1,
                         np.array(_WORDS_BAD)[rng.integers(0, len(_WORDS_BAD), m)],
                         np.array(_WORDS_OK)[rng.integers(0, len(_WORDS_OK), m)])
    response = [f"{r} ({w} words)" for r, w in zip(responses, words)]

    dlg_len = np.bincount(d_of, weights=words, minlength=n_dialogues)
    dlg_mal = np.bincount(d_of, weights=gold, minlength=n_dialogues)
    seconds = (25 + 6.0 * n_turns + 0.9 * dlg_len + 35.0 * dlg_mal) * worker_speed[worker] \
        * rng.lognormal(0, 0.25, n_dialogues)
    norm = (seconds - seconds.min()) / (seconds.max() - seconds.min())
    pred = np.clip(norm * rng.lognormal(0, 0.3, n_dialogues) + rng.normal(0, 0.02, n_dialogues), 0, None)
    effort = (norm / n_turns)[d_of]
    predicted = (pred / n_turns)[d_of]

    rater2 = np.where(rng.random(m) < 0.92, gold, 1 - gold).astype(float)
    rater2[rng.random(m) >= 0.30] = np.nan

    return pd.DataFrame({
        "sample_id": np.arange(1, m + 1),
        "dialogue_id": [f"D{d + 1:04d}" for d in d_of],
        "turn": turn,
        "turns": n_turns[d_of],
        "system": system,
        "topic": topic,
        "response": response,
        "human_label": gold,
        "human_label_2": pd.array(rater2, dtype="Int64"),
        "machine_label": machine.astype(int),
        "confidence_ts": np.round(conf_ts, 6),
        "confidence_mcp": np.round(conf_mcp, 6),
        "confidence_tcp": np.round(conf_tcp, 6),
        "human_effort": np.round(effort, 6),
        "predicted_effort": np.round(predicted, 6),
        "worker_id": [f"W{w + 1:02d}" for w in worker[d_of]],
        "worker_score": worker_test[worker[d_of]],
        "approval_ranking": worker_rank[worker[d_of]],
    })
