"""Benchmark of the scorekeeping scorer: parsing, scoring, loading a zip, the kappa call.

Run: ``python bench/scorekeeping.py [--episodes 400]`` from the project root. Reads the
recorded clembench episodes from ``../shared/data/clembench`` and simulates the rest.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _timing import best_of  # noqa: E402

from sklearn.metrics import accuracy_score  # noqa: E402

import core.clembench as sk  # noqa: E402
import core.demo.clembench as sk_demo  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "clembench"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=400, help="simulated episodes (default 400)")
    args = ap.parse_args()

    # 1. the recorded episodes: read + parse + score, and agreement with scores.json
    t = best_of(lambda: sk.score_episodes(sk.load_paths([SHARED]).episodes))
    scored = sk.score_episodes(sk.load_paths([SHARED]).episodes)
    identical = sum(not sk.compare_scores(s, s.episode.recorded) for s in scored)
    print(f"recorded clembench episodes: {len(scored)}, identical to scores.json: {identical}/{len(scored)}")
    print(f"  load + parse + score all {len(scored)}: {t * 1e3:.1f} ms ({t / len(scored) * 1e3:.2f} ms/episode)")

    # 2. simulated episodes
    n = args.episodes
    profiles = list(sk_demo.DEMO_PROFILES)
    t0 = time.perf_counter()
    logs = [sk_demo.simulate_episode(profile=profiles[i % len(profiles)],
                                domain=("travel-booking", "job-interview")[i % 2], seed=i) for i in range(n)]
    t_sim = time.perf_counter() - t0
    print(f"simulated episodes: {n} in {t_sim:.2f} s ({t_sim / n * 1e3:.2f} ms/episode)")
    t_parse = best_of(lambda: [sk.parse_episode(log) for log in logs], repeat=3)
    episodes = [sk.parse_episode(log) for log in logs]
    t_score = best_of(lambda: sk.score_episodes(episodes), repeat=3)
    print(f"  parse (validate) {n}: {t_parse * 1e3:.1f} ms ({t_parse / n * 1e3:.3f} ms/episode)")
    print(f"  score {n}: {t_score * 1e3:.1f} ms ({t_score / n * 1e3:.3f} ms/episode)")

    # share of scoring time spent in scikit-learn's cohen_kappa_score
    played = [e for e in episodes if not e.aborted]
    pairs = [([x for r in e.gold for x in r], [x for r in e.pred for x in r]) for e in played]
    t_kappa = best_of(lambda: [sk.cohen_kappa(g, p) for g, p in pairs], repeat=3)
    t_played = best_of(lambda: sk.score_episodes(played), repeat=3)
    print(f"  kappa calls ({len(pairs)} played episodes): {t_kappa * 1e3:.1f} ms = "
          f"{t_kappa / t_played:.0%} of scoring those episodes")

    # turn accuracy: counting vs sklearn.metrics.accuracy_score (same values, see the tests)
    rounds = [(g, p) for e in episodes for g, p in zip(e.gold, e.pred)]
    t_ours = best_of(lambda: [sk.probe_accuracy(g, p) for g, p in rounds], repeat=3)
    t_skl = best_of(lambda: [accuracy_score(g, p) for g, p in rounds], repeat=3)
    same = all(sk.probe_accuracy(g, p) == accuracy_score(g, p) for g, p in rounds)
    print(f"  round accuracy x{len(rounds)}: ours {t_ours * 1e3:.1f} ms, sklearn accuracy_score "
          f"{t_skl * 1e3:.1f} ms (ratio {t_skl / t_ours:.1f}x), identical values: {same}")

    # 3. a zip archive of the simulated episodes (upload path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i, log in enumerate(logs):
            zf.writestr(f"runs/sim/exp/episode_{i}/interactions.json", json.dumps(log))
    data = buf.getvalue()
    t_zip = best_of(lambda: sk.load_uploads([("runs.zip", data)]), repeat=3)
    print(f"zip of {n} episodes ({len(data) / 1e6:.1f} MB): load {t_zip:.2f} s "
          f"({t_zip / n * 1e3:.2f} ms/episode)")
    t_agg = best_of(lambda: sk.aggregate_by(sk.score_episodes(episodes)), repeat=3)
    agg = sk.aggregate_scores(sk.score_episodes(episodes))
    print(f"score + aggregate by model ({n}): {t_agg * 1e3:.1f} ms; overall % Played "
          f"{agg['% Played']:.2f}, Quality Score {agg['Quality Score']:.2f}, clemscore {agg['clemscore']:.2f}")


if __name__ == "__main__":
    main()
