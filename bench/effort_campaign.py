"""The effort model refitted on a campaign's own times against the prior effort (issue 23).

Seeded simulated campaigns (``tests/core/test_hee_campaign.simulated_campaign``): 1,200 rows,
a third labelled by two annotators each (speeds 0.8/1.0/1.3, log-normal noise); the prior
effort says time grows with length, the true times depend mostly on the machine's confidence
and class. The refit (core.hee.campaign.refit_campaign_effort) is trained on the labelled
third; both are scored on the other two thirds' observed times (median of two fresh
annotators); the prior is read in seconds by least squares on the labelled rows.

    python bench/effort_campaign.py [SEEDS]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from tests.core.test_hee_campaign import _heldout, simulated_campaign  # noqa: E402


def main(seeds: int = 5) -> None:
    rows = []
    for seed in range(seeds):
        for truth in (False, True):
            t0 = time.perf_counter()
            table, votes, held, obs = simulated_campaign(seed=seed, prior_is_truth=truth)
            res, s = _heldout(table, votes, held, obs)
            rows.append((seed, "prior is the truth" if truth else "times differ from prior",
                         s, res.heldout, time.perf_counter() - t0))
    print(f"{'seed':>4}  {'campaign':24s} {'MAE prior':>10} {'MAE refit':>10} {'RMSE prior':>11} "
          f"{'RMSE refit':>11} {'rho prior':>10} {'rho refit':>10} {'CV MAE p/r':>14} {'s':>5}")
    for seed, kind, s, h, dt in rows:
        print(f"{seed:>4}  {kind:24s} {s['prior']['mae']:>10.2f} {s['refit']['mae']:>10.2f} "
              f"{s['prior']['rmse']:>11.2f} {s['refit']['rmse']:>11.2f} "
              f"{s['prior']['spearman']:>10.3f} {s['refit']['spearman']:>10.3f} "
              f"{h['prior']['mae']:>6.2f}/{h['refit']['mae']:<7.2f} {dt:>5.1f}")
    for kind in ("times differ from prior", "prior is the truth"):
        sel = [r for r in rows if r[1] == kind]
        ratio = np.mean([r[2]["refit"]["mae"] / r[2]["prior"]["mae"] for r in sel])
        print(f"{kind}: mean held-out MAE ratio refit/prior {ratio:.3f} over {len(sel)} seeds")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
