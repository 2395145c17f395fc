"""The Effort page's two kinds of choice: the masked language model of the perplexity feature
(only the models folder's, never a free path) and a column picked for a role of the annotation
log (kept in the page's state ``eff_map``)."""

from __future__ import annotations

import streamlit as st

from core.mce.models import MODELS_ENV, available_models, models_root
from pages._common import synced


def lm_choice() -> str:
    """The masked LM of the perplexity feature: a choice among the models folder's masked LMs
    (never a free server path); returns its folder, or "" when none is chosen."""
    ss = st.session_state
    lms = {m.name: str(m.path) for m in available_models("masked_lm")}
    if ss["eff_lm"] not in lms:
        ss["eff_lm"] = ""
    synced(st.selectbox, "Masked LM (optional)", "eff_lm", options=[""] + list(lms),
           format_func=lambda n: n or "— none: perplexity skipped —",
           help=f"A masked language model from the models folder `{models_root()}` ({MODELS_ENV}) "
                "for the pseudo-perplexity feature.")
    if not lms:
        st.caption(f"No masked language model in `{models_root()}` ({MODELS_ENV}): the perplexity "
                   "feature is skipped.")
    return lms.get(ss["eff_lm"], "")


def pick(label: str, options: list, key: str, *, default=None, allow_none: bool = True, help=None):
    """A selectbox whose choice lives in ss['eff_map'][key]."""
    ss = st.session_state
    opts = ([None] if allow_none else []) + list(options)
    cur = ss["eff_map"].get(key, default)
    if cur not in opts:
        cur = default if default in opts else opts[0] if opts else None
    choice = st.selectbox(label, opts, index=opts.index(cur) if cur in opts else 0,
                          format_func=lambda c: "— none —" if c is None else str(c),
                          key=f"_w_effmap_{key}", help=help)
    ss["eff_map"] = {**ss["eff_map"], key: choice}
    return choice
