"""The data contract: load a table of scored samples and map its columns to roles.

A *role* is what a column means to HMCEval, whatever the user called it:

==================== ======== ==============================================================
role                 needed   meaning
==================== ======== ==============================================================
``machine_label``    yes      the machine evaluator's label of the sample
``machine_confidence`` yes    the confidence a_i in [0, 1] of that label
``human_label``      no       the gold (human) label; without it observed reliability is
                              unavailable, expected reliability still computed
``human_label_2``    no       a second human rating (human-human agreement)
``human_effort``     no       ground-truth annotation cost of the sample (time cost)
``predicted_effort`` no       the HEE estimate l_i used by the optimiser; falls back to
                              ``human_effort``, then to 1 for every sample
``human_confidence`` no       b_i in [0, 1], default 1
``machine_effort``   no       k_i >= 0, default 0
``turn``             no       1-based turn index of the response in its dialogue
``n_turns``          no       number of turns of the dialogue
``dialogue_id``      no       dialogue identifier (derived from ``turn`` when absent)
``sample_id``        no       sample identifier
==================== ======== ==============================================================

plus any number of subgroup columns (categorical) and free-text columns.

Parts: :mod:`core.data.load` (reading files, size limit), :mod:`core.data.keys` (``label_key``: ids, labels
and group values as text), :mod:`core.data.roles` (roles, aliases,
``norm_name``, detection from column names and values) and :mod:`core.data.contract`
(``prepare`` -> :class:`EvalData`). Every public name is re-exported here:
``from core.data import X`` works for all of them.
"""

from __future__ import annotations

from core.data.contract import EvalData, prepare
from core.data.keys import is_missing, label_key, some_values
from core.data.load import MAX_COLUMNS, MAX_FILE_BYTES, load_table
from core.data.roles import (NOT_SUBGROUP_KINDS, REQUIRED_ROLES, ROLE_ALIASES, ROLE_NAMES, ROLES, Ask,
                             Detection, column_kind, confidence_candidates, detect_columns,
                             detect_roles, effort_unit, name_kind, name_tokens, norm_name)

__all__ = [
    "is_missing", "label_key", "some_values",
    "ROLES",
    "REQUIRED_ROLES",
    "ROLE_ALIASES",
    "MAX_FILE_BYTES",
    "MAX_COLUMNS",
    "EvalData",
    "load_table",
    "detect_roles",
    "norm_name",
    "confidence_candidates",
    "prepare",
    "ROLE_NAMES",
    "Ask",
    "Detection",
    "detect_columns",
    "effort_unit",
    "name_kind",
    "name_tokens",
    "column_kind",
    "NOT_SUBGROUP_KINDS",
]
