"""Defaults shared by the dashboard and the command line: one home, one value each.

Change a default here and both the app (``pages/_common.py``, the Effort page) and the
``hmceval`` options pick it up; their help texts are built from these names.

The assignment
--------------
``LAMBDA = 4.6`` is the effort weight of the paper's reproduced run on the HMCEval release
(``ilp_data_trustscore_f2.tsv``, N = M / 2; see README "The assignment (SAE), exactly"):
with it, the collaborative result sends half of the samples to humans at about half of the
human time (time cost 0.506) while keeping accuracy 0.985. Before this module the dashboard
started at 1.0 and the command line at 4.6; the published value won.

The effort model (HEE)
----------------------
The authors' released cross-validation script: ``RandomForestRegressor(n_estimators=100,
max_features=8, random_state=397)`` and ``KFold(5, shuffle=True, random_state=397)``; see
:mod:`core.hee` for why these values and how they reproduce the paper's Table 4.
"""

from __future__ import annotations

__all__ = [
    "LAMBDA",
    "HUMAN_SHARE",
    "MODE",
    "EFFORT_BUDGET_SHARE",
    "GROUP_COLUMN",
    "HEE_N_ESTIMATORS",
    "HEE_MAX_FEATURES",
    "HEE_RANDOM_STATE",
    "HEE_FOLDS",
    "HEE_PERMUTATION_REPEATS",
    "TRIM_TOLERANCE",
    "MAX_MIN_ITEMS_PER_CANDIDATE",
]

#: lambda, the weight of effort against confidence in the assignment objective (paper Eq. 3).
LAMBDA: float = 4.6
#: Share of the samples humans may evaluate: N = int(HUMAN_SHARE * M).
HUMAN_SHARE: float = 0.5
#: "at_most" N samples go to humans (only those with a positive gain), or "exactly" N.
MODE: str = "at_most"
#: Extra constraints of a new scenario: none (no effort budget, no subgroup share bounds). A
#: scenario's settings are these four (:func:`core.scenario.default_settings` copies them).
EFFORT_BUDGET_SHARE: float | None = None
GROUP_COLUMN: str | None = None

#: Trees of the HEE random forest.
HEE_N_ESTIMATORS: int = 100
#: Features tried per split (all of them when a set has fewer).
HEE_MAX_FEATURES: int = 8
#: Seed of the folds and of the forest.
HEE_RANDOM_STATE: int = 397
#: Folds of the shuffled cross-validation.
HEE_FOLDS: int = 5
#: Repeats of the permutation importance of each feature (0 = off): the Effort page's figure and
#: ``hmceval effort --permutation-repeats`` (the page used 3 and the command 0 before issue 22).
HEE_PERMUTATION_REPEATS: int = 3

#: Dialogues up to which the Effort page fits its forests as soon as it has a table; above, it
#: waits for a button (10^5 demo-like rows, about 18,000 dialogues, fit in about 18 s on 2
#: cores, so 10^6 rows would block the page for minutes on a visit).
EFFORT_AUTO_FIT_ROWS: int = 50_000

#: Rows up to which the Data page saves a validated upload in the workspace at once (so a
#: reload reopens it). The dataset's content id is computed once when it is prepared (values
#: hashed, no CSV text: 0.4 s at 10^6 rows) and storing it writes one Parquet file (0.5 s at
#: 10^6 rows); the CSV-text hash it replaced took 7 s at 10^6 rows and kept the limit at
#: 200,000. Larger uploads are saved on a button press.
AUTO_SAVE_ROWS: int = 1_000_000

#: Samples of the general ILP (extra constraints, cvxpy + HiGHS): about 8 s and 0.5 GB at
#: 100,000 samples, so larger tables are refused before the solver is called (app and CLI).
MAX_ILP_SAMPLES = 200_000

#: RSMTool's ``trim_tolerance`` default (``rsmtool.utils.constants.DEFAULTS``): trimmed scores
#: lie in [trim_min - 0.4998, trim_max + 0.4998] (Fairness page and ``hmceval agreement``).
TRIM_TOLERANCE: float = 0.4998
#: Largest ``min_items_per_candidate`` accepted (Fairness page and ``hmceval agreement``).
MAX_MIN_ITEMS_PER_CANDIDATE: int = 1_000_000

#: Bounds of an explicit number of slots of clembench's Scorekeeping game (``n_slots=`` of the
#: loaders, ``--n-slots`` of the CLI). clembench's instances have 5, 10 or 15 slots; the upper
#: bound only keeps a typo from being taken.
MIN_N_SLOTS: int = 1
MAX_N_SLOTS: int = 1_000

#: Bounds of the HEE forest's settings (Effort page and ``hmceval effort``): seeds are NumPy's
#: 32-bit range, then trees, parallel jobs and permutation-importance repeats.
SEED_MAX: int = 2**32 - 1
MAX_TREES: int = 10_000
MAX_JOBS: int = 256
MAX_PERMUTATION_REPEATS: int = 1_000
#: Largest magnitude the random forest holds (it stores features as float32).
FLOAT32_MAX: float = 3.4028234663852886e38  # float(numpy.finfo(numpy.float32).max)

#: Largest score magnitude of the agreement report (Fairness page and ``hmceval agreement``):
#: squares and products of scores stay finite.
MAX_SCORE: float = 1e15

#: Largest effort value of a table (human, predicted or machine effort, any unit): a time in
#: milliseconds over three decades stays below it, sums over 10^7 rows and lambda times effort
#: stay finite and exact enough; beyond it a value is a unit or typing error, refused by name.
MAX_EFFORT: float = 1e12
